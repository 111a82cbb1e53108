"""docs/architecture.md's "Add a score component" recipe holds: followed on a copy of the packages
(one row in ``scoring/components.py``, its weight taken from another, the method version bumped,
and a migration), the new component is scored in Python and in SQL to the same doubles, explained,
described in Datasette's metadata and validated in the export, with no other product file touched.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import make_item

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agentrank", "classify", "crawler", "datasette_plugins", "db", "leaderboard", "schedules", "scoring")

# Step 1: the table's new row, appended to TABLE.
NEW_ROW = """
    Component(
        name="attention",
        weight=0.05,
        kind=PERCENTILE,
        value="open_issues",
        extra_inputs={"open_issues": "Open issues and pull requests at the time of the crawl"},
        unit="open issue",
        units="open issues",
        measure="0-100: the share of the other listed repos with fewer open issues",
        doc_measure="percentile of open issues",
        measured_by="open issues",
        export_description="percentile of open issues among the listed repos, 0-100",
    ),
"""

# In the copy: is it the copy that runs, and does the new component come out everywhere?
CHECK = """
import json
import re
import sys
from pathlib import Path

import jsonschema

import scoring.components

root = Path(sys.argv[1]).resolve()
assert Path(scoring.components.__file__).resolve().is_relative_to(root), scoring.components.__file__

from agentrank import importer, scorer
from agentrank.exporter import build_export, export_schema
from datasette_plugins.metadata import QUERIES, build_metadata
from db.breakdown import load_breakdown
from db.runs import start_run
from db.store import open_store
from scoring.explain import format_breakdown
from scoring.sql import RECOMPUTE_SQL

items = json.loads(Path(sys.argv[2]).read_text())
db = open_store(root / "agentrank.db")


def schema():
    rows = db.conn.execute("select type, name, sql from sqlite_master where name not like 'sqlite_%' order by type, name")
    return [(kind, name, re.sub(r"\\s+", " ", sql or "").replace("( ", "(").replace(" )", ")")) for kind, name, sql in rows]


built = schema()
importer.save_items(
    db, ((str(i), item) for i, item in enumerate(items)), run_id=start_run(db, "import"), min_stars=200,
    source="import", seen_at="2026-11-30T06:00:00Z",
)
run_id = scorer.score(db, as_of="2026-11-30T06:00:00Z").run_id
cursor = db.conn.execute(RECOMPUTE_SQL, {"run_id": ""})
names = [d[0] for d in cursor.description]
rows = [dict(zip(names, row)) for row in cursor.fetchall()]
stored = {
    row[0]: row[1:]
    for row in db.conn.execute("select repo_id, attention, open_issues, method_version from scores where run_id = ?", [run_id])
}
breakdown = load_breakdown(db.conn, "maker3/agent3")
metadata = build_metadata("agentrank")
tables = metadata["databases"]["agentrank"]["tables"]
document = build_export(db)
jsonschema.validate(document, export_schema())
print(json.dumps({
    "schema_unchanged_by_publishing": schema() == built,
    "recompute": [[r["score"], r["stored_score"], r["rank"], r["stored_rank"], r["attention"]] for r in rows],
    "stored": {str(k): v for k, v in stored.items()},
    "explain": [c for c in breakdown["components"] if c["component"] == "attention"],
    "explain_text": format_breakdown(breakdown),
    "scores_columns": tables["scores"]["columns"],
    "agents_columns": tables["agents"]["columns"],
    "agents_table": [r[1] for r in db.conn.execute("pragma table_info(agents)")],
    "description": metadata["description_html"],
    "reweight": QUERIES["reweight"]["description"],
    "schema_components": export_schema()["$defs"]["agent"]["properties"]["components"],
    "exported": [a["components"] for a in document["agents"]],
}))
"""


def _ranking_schema(tmp_path: Path) -> tuple[str, str]:
    """The published ranking's view and the agents table (with its indexes) as today's migrations
    leave them: the SQL the new migration writes out whole, with the new column."""
    from db.store import open_store

    db = open_store(tmp_path / "today.db")
    try:
        (view,) = db.execute("select sql from sqlite_master where name = 'published_ranking'").fetchone()
        table = [
            sql
            for (sql,) in db.execute(
                "select sql from sqlite_master where tbl_name = 'agents' and sql is not null order by type desc, name"
            ).fetchall()
        ]
    finally:
        db.close()
    return view, ";\n".join(table) + ";"


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "copy"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def _migration(view: str, table: str) -> str:
    """Step 2: the new columns, the view and the agents table with the component, as self-contained SQL."""
    shown = "round(s.openness, 1) as openness,"
    assert view.count(shown) == 1 and table.count('"openness", ') == 1
    new_view = view.replace(shown, shown + "\n          round(s.attention, 1) as attention,")
    new_table = table.replace('"openness", ', '"openness", "attention", ')
    return textwrap.dedent(
        f"""

        @migrations()
        def m999_attention_component(db: sqlite_utils.Database) -> None:
            db.execute("alter table scores add column open_issues integer")
            db.execute("alter table scores add column attention real")
            db.execute("drop view published_ranking")
            db.execute({new_view!r})
            db.execute("drop table agents")
            db.executescript({new_table!r})
            db.execute("insert into agents select * from published_ranking order by rank")
        """
    )


def _items() -> list[dict]:
    # Open issues with ties (every third repo shares a count) and stars, forks and ages spread out.
    return [
        make_item(
            seed=i % 9 + 1,
            id=i + 1,
            full_name=f"maker{i}/agent{i}",
            stargazers_count=250 + 41 * i,
            forks_count=(7 * i) % 23,
            open_issues_count=(i // 3) * 4,
            created_at=f"2025-0{i % 9 + 1}-01T00:00:00Z",
            pushed_at=f"2026-11-2{i % 9}T06:00:00Z",
            license={"key": "mit", "name": "MIT", "spdx_id": "MIT"} if i % 2 else None,
        )
        for i in range(40)
    ]


def test_a_sixth_component_needs_only_the_table_and_a_migration(tmp_path):
    copy = _copy(tmp_path)
    before = {path: path.read_bytes() for path in copy.rglob("*") if path.is_file()}
    components = copy / "scoring" / "components.py"
    _edit(
        components,
        '        name="popularity",\n        weight=0.30,',
        '        name="popularity",\n        weight=0.25,',
    )
    _edit(components, "\n)\n\nBY_NAME", NEW_ROW.rstrip("\n") + "\n)\n\nBY_NAME")
    _edit(components, 'METHOD_VERSION = "1"', 'METHOD_VERSION = "2"')
    migrations = copy / "db" / "migrations.py"
    migration = _migration(*_ranking_schema(tmp_path))
    migrations.write_text(migrations.read_text(encoding="utf-8") + migration, encoding="utf-8")
    touched = sorted(str(p.relative_to(copy)) for p, data in before.items() if p.read_bytes() != data)
    assert touched == ["db/migrations.py", "scoring/components.py"]

    items = tmp_path / "items.json"
    items.write_text(json.dumps(_items()), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", CHECK, str(copy), str(items)],
        cwd=copy,
        env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout)

    # The migration builds the schema publishing leaves (tests/test_migrations.py's rule).
    assert found["schema_unchanged_by_publishing"]

    # Python and SQL: the same doubles and the same ranks, with the new component in them.
    recompute = found["recompute"]
    assert len(recompute) == 40
    assert all(score == stored and rank == stored_rank for score, stored, rank, stored_rank, _ in recompute)
    assert len({attention for *_, attention in recompute}) > 5
    stored = found["stored"]
    assert {row[2] for row in stored.values()} == {"2"}
    # maker3 has 4 open issues: 3 repos (0 issues) sit below it among the 39 others.
    assert stored["4"][:2] == [100 * 3 / 39, 4]

    # Explain: the component, its input, its weight and what would move it.
    (attention,) = found["explain"]
    assert attention["input"] == {"open_issues": 4} and attention["weight"] == 0.05
    assert attention["percentile"] == 100 * 3 / 39
    # Two others tie with it: one more issue passes both (+2 of 39 places).
    assert attention["advice"][0].startswith("1 more open issue to pass the next 2 listed repos (tied on open issues)")
    assert (
        f"ahead of {100 * 2 / 39:.1f} % more of the other listed repos, +{0.05 * 100 * 2 / 39:.2f} points"
        in attention["advice"][0]
    )
    assert "attention" in found["explain_text"] and "open issues" in found["explain_text"]

    # The metadata and the ranking.
    assert "open issues" in found["scores_columns"]["attention"]
    assert found["scores_columns"]["open_issues"].startswith("Open issues")
    assert "open issues" in found["agents_columns"]["attention"]
    assert "attention" in found["agents_table"]
    assert "5 % attention (open issues)" in found["description"] and "25 % popularity" in found["description"]
    assert "attention 5 %" in found["reweight"]

    # The export: the schema requires the component, and every agent has it.
    assert "attention" in found["schema_components"]["required"]
    assert all(
        set(c) == {"popularity", "adoption", "activity", "momentum", "openness", "attention"} for c in found["exported"]
    )
