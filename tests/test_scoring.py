"""The AgentRank Score against hand calculations, and SQL against Python."""

import json
import math
import sqlite3
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from agentrank import importer, scorer
from agentrank.config import load_config
from db.runs import start_run
from scoring.licenses import is_osi_approved
from scoring.score import ScoreInputs, activity_points, compute_scores, percentile, rank_order
from scoring.sql import RECOMPUTE_SQL
from tests.conftest import import_and_score, make_item

AS_OF = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)


def epoch(days_before: float) -> int:
    return int((AS_OF - timedelta(days=days_before)).timestamp())


def inputs(rows: list[dict]) -> ScoreInputs:
    return ScoreInputs(
        repo_id=np.arange(1, len(rows) + 1),
        full_name=np.array([r.get("name", f"o/r{i}") for i, r in enumerate(rows)]),
        stars=np.array([r.get("stars", 500) for r in rows]),
        forks=np.array([r.get("forks", 50) for r in rows]),
        created_epoch=np.array([epoch(r.get("age", 400)) for r in rows]),
        pushed_epoch=np.array(
            [np.nan if r.get("push", 1) is None else epoch(r.get("push", 1)) for r in rows], dtype=float
        ),
        osi=np.array([r.get("osi", True) for r in rows]),
        as_of_epoch=int(AS_OF.timestamp()),
    )


def test_percentile_gives_ties_the_lowest_rank():
    # values 10, 20, 20, 30: r = 1, 2, 2, 4 -> 100 * (r - 1) / 3
    assert percentile(np.array([10, 20, 20, 30])).tolist() == pytest.approx([0.0, 100 / 3, 100 / 3, 100.0], abs=1e-12)
    assert percentile(np.array([5, 5, 5])).tolist() == [0.0, 0.0, 0.0]
    assert percentile(np.array([7])).tolist() == [100.0]


def test_a_single_listed_repo_is_at_the_100th_percentile():
    result = compute_scores(inputs([{"stars": 250, "forks": 3, "push": 400, "osi": False}]))
    assert result["popularity"][0] == result["adoption"][0] == result["momentum"][0] == 100.0
    assert result["activity"][0] == 0.0 and result["openness"][0] == 0.0
    assert result["score"][0] == pytest.approx(0.30 * 100 + 0.20 * 100 + 0.15 * 100)
    assert result["rank"].tolist() == [1]


@pytest.mark.parametrize(
    ("days", "points"),
    [
        (0, 100),
        (7, 100),
        (7.00001, 85),
        (30, 85),
        (30.5, 60),
        (90, 60),
        (91, 35),
        (180, 35),
        (181, 15),
        (365, 15),
        (365.01, 0),
        (5000, 0),
    ],
)
def test_activity_buckets_include_their_upper_bound(days, points):
    assert activity_points(np.array([days]))[0] == points


def test_future_push_counts_as_today_and_no_push_as_never():
    result = compute_scores(inputs([{"push": -3}, {"push": None}, {"push": 8}]))
    assert result["days_since_push"][0] == 0.0
    assert result["activity"].tolist() == [100.0, 0.0, 85.0]


def test_repos_younger_than_30_days_count_as_30():
    result = compute_scores(inputs([{"stars": 300, "age": 3}, {"stars": 300, "age": 30}, {"stars": 600, "age": 60}]))
    assert result["stars_per_day"].tolist() == [10.0, 10.0, 10.0]
    assert result["momentum"].tolist() == [0.0, 0.0, 0.0]


def test_rates_equal_in_exact_arithmetic_share_a_momentum_percentile(db):
    """1,000 stars in 100.1 days and 3,000 in 300.3 days are the same rate: stars / (seconds / 86400)
    gives two different floats, the exact rate one, in Python and in the recompute SQL alike."""
    rows = [{"stars": 1000, "age": 100.1}, {"stars": 3000, "age": 300.3}, {"stars": 500, "age": 400}]
    result = compute_scores(inputs(rows))
    assert result["stars_per_day"][0] == result["stars_per_day"][1]
    assert result["momentum"].tolist() == [50.0, 50.0, 0.0]
    items = [
        make_item(
            id=n,
            full_name=f"rate/r{n}",
            name=f"r{n}",
            stargazers_count=r["stars"],
            forks_count=10,
            created_at=(AS_OF - timedelta(days=r["age"])).strftime("%Y-%m-%dT%H:%M:%SZ"),
        )
        for n, r in enumerate(rows, start=1)
    ]
    run_id = import_and_score(db, items)
    stored = [
        r["momentum"] for r in db.query("select momentum from scores where run_id = ? order by repo_id", [run_id])
    ]
    assert stored == [50.0, 50.0, 0.0]
    recomputed = {r["repo_id"]: r["momentum"] for r in db.query(RECOMPUTE_SQL, {"run_id": run_id})}
    assert [recomputed[n] for n in (1, 2, 3)] == [50.0, 50.0, 0.0]


def test_openness_needs_an_osi_approved_spdx_id():
    assert is_osi_approved("MIT") and is_osi_approved("apache-2.0") and is_osi_approved("GPL-3.0")
    assert not is_osi_approved(None) and not is_osi_approved("NOASSERTION") and not is_osi_approved("")
    assert not is_osi_approved("CC-BY-4.0") and not is_osi_approved("BUSL-1.1") and not is_osi_approved("Nope-1.0")


def test_hand_calculated_population():
    # Three repos as of AS_OF:
    #   a: 1000 stars, 100 forks, 100 days old, pushed 2 days ago, MIT
    #   b:  500 stars, 100 forks,  10 days old, pushed 45 days ago, no licence
    #   c:  200 stars,  10 forks, 400 days old, pushed 400 days ago, MIT
    rows = [
        {"name": "o/a", "stars": 1000, "forks": 100, "age": 100, "push": 2, "osi": True},
        {"name": "o/b", "stars": 500, "forks": 100, "age": 10, "push": 45, "osi": False},
        {"name": "o/c", "stars": 200, "forks": 10, "age": 400, "push": 400, "osi": True},
    ]
    r = compute_scores(inputs(rows))
    # popularity: stars 1000 > 500 > 200 -> percentiles 100, 50, 0
    assert r["popularity"].tolist() == [100.0, 50.0, 0.0]
    # adoption: forks 100, 100, 10 -> a and b tie at rank 2 -> 50, 50, 0
    assert r["adoption"].tolist() == [50.0, 50.0, 0.0]
    # momentum: 1000/100 = 10, 500/max(10,30) = 16.67, 200/400 = 0.5 -> 50, 100, 0
    assert r["stars_per_day"] == pytest.approx([10.0, 500 / 30, 0.5])
    assert r["momentum"].tolist() == [50.0, 100.0, 0.0]
    assert r["activity"].tolist() == [100.0, 60.0, 0.0]
    assert r["openness"].tolist() == [100.0, 0.0, 100.0]
    expected = [
        0.30 * 100 + 0.20 * 50 + 0.25 * 100 + 0.15 * 50 + 0.10 * 100,  # 82.5
        0.30 * 50 + 0.20 * 50 + 0.25 * 60 + 0.15 * 100 + 0.10 * 0,  # 55.0
        0.30 * 0 + 0.20 * 0 + 0.25 * 0 + 0.15 * 0 + 0.10 * 100,  # 10.0
    ]
    assert r["score"] == pytest.approx(expected)
    assert r["rank"].tolist() == [1, 2, 3]


def test_rank_breaks_score_ties_by_stars_then_name():
    rows = [
        {"name": "z/first", "stars": 500, "forks": 10},
        {"name": "b/second", "stars": 500, "forks": 10},
        {"name": "a/third", "stars": 500, "forks": 10},
    ]
    r = compute_scores(inputs(rows))
    assert len(set(r["score"].tolist())) == 1
    assert r["rank"].tolist() == [3, 2, 1]  # equal stars too: full_name ascending


class _AskedNames:
    """Names looked up by position, remembering which positions were asked for."""

    def __init__(self, names: list[str]):
        self.names = np.array(names)
        self.asked: set[int] = set()

    def __getitem__(self, positions: np.ndarray) -> np.ndarray:
        self.asked.update(np.asarray(positions).tolist())
        return self.names[positions]


@pytest.mark.parametrize("stars_scale", [1, 2**45])  # the second overflows the packed sort key
def test_rank_order_is_key_then_stars_then_name_then_id(stars_scale):
    rng = np.random.default_rng(stars_scale % 1000)
    n = 3000
    key = rng.integers(0, 40, n) * 1_000
    stars = rng.integers(200, 230, n) * stars_scale
    repo_id = rng.permutation(n) + 1
    names = _AskedNames([f"o{rng.integers(0, 50)}/r" for _ in range(n)])  # many equal names too
    order = rank_order(key, stars, repo_id, names)
    expected = sorted(range(n), key=lambda i: (-key[i], -stars[i], names.names[i], repo_id[i]))
    assert order.tolist() == expected
    # Only repos that tie with another on key and stars had their name looked up.
    pairs = list(zip(key.tolist(), stars.tolist(), strict=True))
    tied = {i for i in range(n) if pairs.count(pairs[i]) > 1}
    assert names.asked == tied


def test_rank_order_without_ties_reads_no_name():
    names = _AskedNames(["b/x", "a/x", "c/x"])
    assert rank_order(np.array([5, 5, 9]), np.array([10, 20, 1]), np.array([1, 2, 3]), names).tolist() == [2, 1, 0]
    assert names.asked == set()


def _random_items(rng: np.random.Generator, n: int) -> list[dict]:
    """A population with heavy ties in every input."""
    licences = [
        None,
        {"key": "mit", "name": "MIT", "spdx_id": "MIT"},
        {"key": "other", "name": "Other", "spdx_id": "NOASSERTION"},
        {"key": "cc-by-4.0", "name": "CC", "spdx_id": "CC-BY-4.0"},
    ]
    items = []
    for i in range(n):
        created = AS_OF - timedelta(days=int(rng.choice([5, 10, 30, 45, 400, 900])))
        # -0.5: pushed after as_of (within the day of slack a future date is allowed)
        pushed = AS_OF - timedelta(days=float(rng.choice([-0.5, 0, 3, 7, 7.5, 30, 89, 200, 366, 1000])))
        items.append(
            make_item(
                seed=i % 5 + 1,
                id=1000 + i,
                full_name=f"own{i % 7}/repo{i}",
                stargazers_count=int(rng.choice([200, 200, 201, 350, 1000, 1000, 5000])),
                forks_count=int(rng.choice([0, 0, 3, 10, 10, 99])),
                created_at=created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                pushed_at=pushed.strftime("%Y-%m-%dT%H:%M:%SZ"),
                license=licences[int(rng.integers(len(licences)))],
            )
        )
    return items


@pytest.mark.parametrize("n", [1, 2, 397])
def test_sql_recomputation_equals_python_scoring(db, n):
    rng = np.random.default_rng(n)
    config = load_config(None, environ={})
    importer.save_items(
        db,
        ((str(i), item) for i, item in enumerate(_random_items(rng, n))),
        run_id=start_run(db, "import"),
        min_stars=config.crawl.min_stars,
        source="import",
        seen_at="2026-11-30T06:00:00Z",
    )
    run_id = scorer.score(db, as_of="2026-11-30T06:00:00Z").run_id
    stored = {r["repo_id"]: r for r in db.query("select * from scores where run_id = ?", [run_id])}
    recomputed = list(db.query(RECOMPUTE_SQL, {"run_id": run_id}))
    assert len(recomputed) == len(stored) == n
    for row in recomputed:
        mine = stored[row["repo_id"]]
        for column in ("popularity", "adoption", "activity", "momentum", "openness", "score"):
            assert math.isclose(row[column], mine[column], abs_tol=1e-9), (column, row, mine)
        assert abs(row["difference"]) <= 1e-9
        assert row["rank"] == row["stored_rank"] == mine["rank"]
    # Empty :run_id means the published run.
    assert len(list(db.query(RECOMPUTE_SQL, {"run_id": ""}))) == n


def test_score_reports_the_seconds_of_each_step_when_asked(db):
    importer.save_items(
        db,
        ((str(i), item) for i, item in enumerate(_random_items(np.random.default_rng(5), 40))),
        run_id=start_run(db, "import"),
        min_stars=load_config(None, environ={}).crawl.min_stars,
        source="import",
        seen_at="2026-11-30T06:00:00Z",
    )
    steps: dict[str, float] = {}
    scorer.score(db, as_of="2026-11-30T06:00:00Z", steps=steps)
    assert list(steps) == [
        "read the listed set",
        "compute the scores and ranks",
        "rank and score ranges, flags",
        "write the score rows",
        "validation figures",
        "end the run",
        "publish",
    ]
    assert all(seconds >= 0 for seconds in steps.values())


def test_score_defaults_as_of_to_the_latest_import_and_rejects_bad_input(tmp_path, run_cli, db_path):
    from tests.conftest import write_json

    assert "no database at" in run_cli("score", expect=1).stderr
    from db.store import open_store

    open_store(db_path).close()
    assert "nothing to score yet" in run_cli("score", expect=1).stderr
    run_cli("import", str(write_json(tmp_path / "i.json", [make_item(seed=1, id=1, stargazers_count=10)])))
    assert "no listed repos" in run_cli("score", expect=1).stderr
    run_cli("import", str(write_json(tmp_path / "j.json", [make_item(seed=2, id=2)])))
    assert "not an ISO 8601 instant" in run_cli("score", "--as-of", "last tuesday", expect=2).stderr
    result = run_cli("score")
    from db.store import open_store

    database = open_store(db_path)
    latest_import = database.execute("select started_at from runs where kind = 'import' order by id desc").fetchone()[0]
    assert database.execute("select as_of from scores").fetchone()[0] == latest_import
    assert "1 listed repos scored" in result.output
    run_cli("score", "--as-of", "2027-01-01T00:00:00+01:00", "--force")  # in the future: no note with --force
    assert database.execute("select as_of from runs order by id desc").fetchone()[0] == "2026-12-31T23:00:00Z"


def test_a_score_is_shown_one_way_in_python_and_sql():
    """One decimal, halves up, a value a hair below a half counted as the half: the same figure from
    scoring.score.shown and from SHOWN_SQL (the ranking tables), for halves and their neighbours."""
    import sqlite3

    from scoring.score import SHOWN_SQL, shown

    assert [shown(v) for v in (96.25, 96.24999999999999, 96.2499, 0.05, 0.15, 2.675, 100.0, 0.0)] == [
        96.3,
        96.3,
        96.2,
        0.1,
        0.2,
        2.7,
        100.0,
        0.0,
    ]
    rng = np.random.default_rng(3)
    halves = np.arange(0, 1001) / 10 + 0.05
    values = [*halves, *np.nextafter(halves, 0), *np.nextafter(halves, 200), *rng.uniform(0, 100, 5000)]
    conn = sqlite3.connect(":memory:")
    in_sql = [conn.execute(f"select {SHOWN_SQL.format('?')}", [float(v)]).fetchone()[0] for v in values]
    assert in_sql == [shown(float(v)) for v in values]


def test_the_ranking_the_export_and_explain_show_the_same_score(db):
    rng = np.random.default_rng(5)
    run_id = import_and_score(db, _random_items(rng, 400))
    from agentrank.exporter import build_export
    from scoring.score import shown

    stored = {
        r["full_name"]: r["score"] for r in db.query("select full_name, score from scores where run_id = ?", [run_id])
    }
    ranking = {r["full_name"]: r["score"] for r in db.query("select full_name, score from agents")}
    exported = {a["full_name"]: a["score"] for a in build_export(db)["agents"]}
    assert ranking == exported == {name: shown(score) for name, score in stored.items()}


def test_the_score_commands_summary_rounds_halves_up_like_every_other_place(tmp_path, run_cli):
    # One repo pushed 20 days before as-of, no licence: 30 + 20 + 0.25·85 + 15 + 0 = 86.25 exactly.
    # The export and `explain` show 86.3; the summary line printed 86.2 (Python's round-half-even).
    from tests.conftest import make_item, write_json

    item = make_item(
        full_name="h/one", license=None, pushed_at="2026-11-10T06:00:00Z", created_at="2025-01-01T00:00:00Z"
    )
    run_cli("import", "--observed-at", "2026-11-30T06:00:00Z", str(write_json(tmp_path / "i.json", [item])))
    output = run_cli("score").output
    assert "#1 h/one (86.3)" in output, output


def test_a_repo_missing_from_the_latest_import_shows_no_made_up_growth(tmp_path, run_cli, db_path):
    # An import never delists (docs/crawling.md), so a repo absent from this week's save keeps its
    # last figures. Its growth "this week" was not observed: null, not the 0 that comparing last
    # week's snapshot with itself gives. A repo seen both weeks shows what it gained.
    from tests.conftest import make_item, write_json

    seen = make_item(seed=1, id=101, full_name="w/seen", stargazers_count=500, forks_count=10)
    gone = make_item(seed=2, id=102, full_name="w/gone", stargazers_count=400, forks_count=10)
    run_cli("import", "--observed-at", "2026-11-23T06:00:00Z", str(write_json(tmp_path / "w1.json", [seen, gone])))
    seen_later = {**seen, "stargazers_count": 530, "forks_count": 12}
    run_cli("import", "--observed-at", "2026-11-30T06:00:00Z", str(write_json(tmp_path / "w2.json", [seen_later])))
    run_cli("score")
    out = tmp_path / "export.json"
    run_cli("export", "--out", str(out))
    agents = {a["full_name"]: a for a in json.loads(out.read_text(encoding="utf-8"))["agents"]}
    assert (agents["w/seen"]["stars_delta_7d"], agents["w/seen"]["forks_delta_7d"]) == (30, 2)
    assert (agents["w/gone"]["stars"], agents["w/gone"]["stars_delta_7d"], agents["w/gone"]["forks_delta_7d"]) == (
        400,
        None,
        None,
    )
    stored = (
        sqlite3.connect(db_path)
        .execute("select stars_delta_7d, stars_delta_28d from scores where full_name = 'w/gone'")
        .fetchall()
    )
    assert stored == [(None, None)]
    # The maker's page and `explain --json` say how old its figures are; the other repo's do not.
    gone = json.loads(run_cli("explain", "w/gone", "--json").output)
    assert gone["figures_from"] == "2026-11-23T06:00:00Z"
    assert json.loads(run_cli("explain", "w/seen", "--json").output)["figures_from"] is None
    assert "GitHub figures from 2026-11-23T06:00:00Z: the latest crawl or import did not return it" in (
        run_cli("explain", "w/gone").output
    )
    import asyncio

    from agentrank.serve import build_datasette
    from datasette_plugins.settings import ServeConfig

    datasette = build_datasette(db_path, ServeConfig(heap_limit_mb=0))
    pages = [asyncio.run(datasette.client.get(f"/-/agent/w/{name}")).text for name in ("gone", "seen")]
    assert "Its GitHub figures are from 23 Nov 2026: the latest" in " ".join(pages[0].split())
    assert "Its GitHub figures are from" not in pages[1]
