import json
import os
import re

import jsonschema
import pytest

from agentrank import classifier, exporter, importer, scorer
from agentrank.config import load_config
from agentrank.exporter import export_schema
from db.breakdown import load_breakdown
from db.runs import start_run
from db.store import open_store
from tests.conftest import db_content, make_item, write_json


def _build(db, items, as_of="2026-11-30T06:00:00Z"):
    config = load_config(None, environ={})
    importer.save_items(
        db,
        ((str(i), it) for i, it in enumerate(items)),
        run_id=start_run(db, "import"),
        min_stars=config.crawl.min_stars,
        source="import",
        seen_at=as_of,
    )
    classifier.classify_listed(db, uncertain_below=config.classify.uncertain_below)
    return scorer.score(db, as_of=as_of).run_id


def _population(n=60):
    return [
        make_item(
            seed=i % 9 + 1,
            id=i + 1,
            full_name=f"maker{i}/agent{i}",
            stargazers_count=200 + 37 * i,
            forks_count=3 * i,
            created_at="2025-01-01T00:00:00Z",
            pushed_at="2026-11-28T06:00:00Z",
        )
        for i in range(n)
    ]


def test_explain_advice_on_stars_is_exact(db):
    _build(db, _population())
    breakdown = load_breakdown(db.conn, "maker10/agent10")
    popularity = breakdown["components"][0]
    assert popularity["component"] == "popularity" and popularity["input"] == {"stars": 570}
    advice = popularity["advice"][0]
    need = int(re.match(r"([\d,]+) more stars", advice).group(1).replace(",", ""))
    # Following the advice passes exactly one more repo; one star fewer does not.
    items = _population()
    for stars, expected_gain in ((570 + need, 1), (570 + need - 1, 0)):
        items[10]["stargazers_count"] = stars
        db.execute("delete from scores")
        db.execute("delete from published")
        db.conn.commit()
        _build(db, items)
        after = load_breakdown(db.conn, "maker10/agent10")["components"][0]
        assert round(after["percentile"] * 59 / 100) == round(popularity["percentile"] * 59 / 100) + expected_gain


def _stated_gain(advice):
    return float(re.search(r"\(ahead of ([\d.]+) % more of the other listed repos", advice).group(1))


@pytest.mark.parametrize("component", ["popularity", "momentum"])
def test_explain_gain_counts_every_tied_repo_passed_at_once(db, component):
    # Two repos tie just above maker1 (on stars, and on stars per day: all are the same age): the
    # stars advised pass both at once, and the gain said is the real one (two places, not one).
    stars = [300, 350, 400, 400, 500, 600, 700, 800]
    items = [
        make_item(
            seed=i % 9 + 1,
            id=i + 1,
            full_name=f"maker{i}/agent{i}",
            stargazers_count=count,
            forks_count=i,
            created_at="2025-01-01T00:00:00Z",
            pushed_at="2026-11-28T06:00:00Z",
        )
        for i, count in enumerate(stars)
    ]
    _build(db, items)
    before = next(c for c in load_breakdown(db.conn, "maker1/agent1")["components"] if c["component"] == component)
    advice = before["advice"][0]
    need = int(re.match(r"([\d,]+) more stars?", advice).group(1).replace(",", ""))
    items[1]["stargazers_count"] += need
    db.execute("delete from scores")
    db.execute("delete from published")
    db.conn.commit()
    _build(db, items)
    after = next(c for c in load_breakdown(db.conn, "maker1/agent1")["components"] if c["component"] == component)
    real = after["percentile"] - before["percentile"]
    assert real == pytest.approx(200 / 7)  # both tied repos passed
    assert _stated_gain(advice) == pytest.approx(real, abs=0.05), advice


def test_explain_breakdown_adds_up(db):
    _build(db, _population())
    b = load_breakdown(db.conn, "maker3/agent3")
    assert [c["component"] for c in b["components"]] == ["popularity", "adoption", "activity", "momentum", "openness"]
    assert sum(c["points"] for c in b["components"]) == pytest.approx(b["score"])
    activity = b["components"][2]
    assert activity["bucket"] == "≤ 7 days"
    assert any("a push in the next 5 days keeps activity at 100" in a for a in activity["advice"])
    assert b["listed_count"] == 60
    # Each component says what it measures in words: openness is a licence check, not a share.
    measures = {c["component"]: c["measure"] for c in b["components"]}
    assert measures["openness"] == "100 when the licence is OSI-approved (looked up by its SPDX id), else 0"
    assert measures["popularity"] == "how many of the other listed repos have fewer stars, as a share from 0 to 100"


def test_explain_cli_text_json_and_unknown(tmp_path, run_cli, db_path):
    run_cli("import", str(write_json(tmp_path / "i.json", _population(12))))
    run_cli("score")
    text = run_cli("explain", "maker5/agent5").output
    assert "AgentRank Score" in text and "popularity" in text and "more stars" in text
    data = json.loads(run_cli("explain", "MAKER5/agent5", "--json").output)
    assert data["full_name"] == "maker5/agent5" and len(data["components"]) == 5
    result = run_cli("explain", "nobody/nothing", expect=1)
    assert result.stderr.strip().startswith("Error: unknown repository: nobody/nothing is not in ")


def test_explain_takes_any_name_an_import_stored(tmp_path, run_cli):
    names = ["ünï/cødé-agënt", "my_org/agent", "q/it's", "amp/a&b<c>"]
    items = [make_item(seed=i, id=500 + i, full_name=name, name=name.split("/")[1]) for i, name in enumerate(names)]
    run_cli("import", str(write_json(tmp_path / "names.json", _population(6) + items)))
    run_cli("score")
    for name in names:
        data = json.loads(run_cli("explain", name, "--json").output)
        assert data["full_name"] == name
    assert "not a repository" in run_cli("explain", "two/slashes/here", expect=2).stderr


def test_export_follows_the_design_and_validates(tmp_path, db):
    items = _population(20)
    items[0].update(description="<script>alert(1)</script>", homepage="javascript:alert(1)")
    items[1].update(license=None)
    _build(db, items)
    out = tmp_path / "site" / "export.json"
    out.parent.mkdir()
    out.write_text("old")
    result = exporter.export(db, out)
    on_disk = json.loads(out.read_text())
    assert (result.path, result.count, result.as_of) == (out, on_disk["count"], on_disk["as_of"])
    jsonschema.validate(on_disk, export_schema())
    assert on_disk["schema_version"] == 4 and on_disk["method_version"] == "1"
    assert on_disk["as_of"] == "2026-11-30T06:00:00Z" and on_disk["count"] == 20
    first = on_disk["agents"][0]
    for key in (
        "rank",
        "full_name",
        "html_url",
        "description",
        "owner",
        "category",
        "category_source",
        "topics",
        "language",
        "license_spdx",
        "stars",
        "forks",
        "created_at",
        "pushed_at",
        "score",
        "components",
    ):
        assert key in first
    assert [a["rank"] for a in on_disk["agents"]] == list(range(1, 21))
    assert first["score"] == round(first["score_exact"], 1)
    hostile = next(a for a in on_disk["agents"] if a["full_name"] == "maker0/agent0")
    assert hostile["description"] == "<script>alert(1)</script>" and hostile["homepage"] is None
    assert next(a for a in on_disk["agents"] if a["full_name"] == "maker1/agent1")["license_spdx"] is None
    assert sum(c["count"] for c in on_disk["categories"]) == 20 and len(on_disk["categories"]) == 15
    assert os.listdir(out.parent) == ["export.json"]  # no temp file left behind


def test_explain_and_export_say_why_the_category(tmp_path, run_cli, db_path):
    run_cli("import", str(write_json(tmp_path / "i.json", _population(12))))
    run_cli("classify")
    run_cli("score")
    data = json.loads(run_cli("explain", "maker5/agent5", "--json").output)
    reason = data["category"]["reason"]
    assert reason["text"].startswith("because: ") and re.search(
        "; (close second|next likeliest, far behind): ", reason["text"]
    )
    assert reason["because"] and reason["runner_up"] not in (None, data["category"]["category"])
    assert f"  {reason['text']}" in run_cli("explain", "maker5/agent5").output.splitlines()
    out = tmp_path / "export.json"
    run_cli("export", "--out", str(out))
    document = json.loads(out.read_text())
    jsonschema.validate(document, export_schema())
    agent = next(a for a in document["agents"] if a["full_name"] == "maker5/agent5")
    assert agent["category_reason"] == reason
    # A maintainer's correction replaces the model's reason: none is shown for it.
    store = open_store(db_path)
    classifier.apply_category_corrections(store, {"maker5/agent5": "other"})
    store.conn.close()
    run_cli("score")
    run_cli("export", "--out", str(out))
    agent = next(a for a in json.loads(out.read_text())["agents"] if a["full_name"] == "maker5/agent5")
    assert (agent["category"], agent["category_source"], agent["category_reason"]) == ("other", "correction", None)
    assert "because:" not in run_cli("explain", "maker5/agent5").output


def test_export_before_anything_is_published_is_a_clear_error(run_cli, tmp_path, db_path):
    from db.store import open_store

    open_store(db_path).close()  # a database with nothing published (without one, see test_first_hour.py)
    result = run_cli("export", "--out", str(tmp_path / "x.json"), expect=1)
    assert "nothing is published yet" in result.stderr
    assert not (tmp_path / "x.json").exists()


def test_an_export_to_a_path_it_cannot_write_changes_nothing(tmp_path, run_cli, db_path):
    run_cli("import", str(write_json(tmp_path / "i.json", _population(5))))
    run_cli("score")

    def state():
        return db_content(db_path)

    before = state()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for out, words, status in (
        (str(blocker / "x.json"), "is a file, not a folder", 1),
        (str(tmp_path), "is a directory", 2),
        ("", "--out ''", 1),
        (str(db_path), "is the database itself", 1),
        (str(db_path) + "-wal", "the database's wal file", 1),
        ("/dev/null", "is not a regular file", 1),
    ):
        result = run_cli("export", "--out", out, expect=status)
        assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert state() == before  # no failed export run recorded


def test_schema_rejects_a_broken_document(db):
    _build(db, _population(5))
    from agentrank.exporter import build_export, validate_export

    document = build_export(db)
    del document["agents"][0]["components"]["momentum"]
    with pytest.raises(jsonschema.ValidationError):
        validate_export(document)


def test_export_links_each_agent_to_its_page_and_badge(tmp_path, db, db_path, run_cli):
    _build(db, _population(5))
    config = tmp_path / "agentrank.toml"
    config.write_text('[serve]\npublic_url = "https://agentrank.example/dir"\n', encoding="utf-8")
    out = tmp_path / "export.json"
    run_cli("--config", str(config), "export", "--out", str(out))
    document = json.loads(out.read_text())
    jsonschema.validate(document, export_schema())
    for agent in document["agents"]:
        assert agent["page_url"] == f"https://agentrank.example/dir/-/agent/{agent['full_name']}"
        assert agent["badge_url"] == agent["page_url"] + "/badge.svg"
    assert document["schema_version"] == 4
    config.write_text('[serve]\npublic_url = "javascript:alert(1)"\n', encoding="utf-8")
    result = run_cli("--config", str(config), "export", "--out", str(out), expect=1)
    assert "public_url" in result.stderr


def test_a_runner_up_is_called_close_only_when_it_is():
    """ "close second" was said of runners-up below 1 %; a maker reads it as "nearly the other one"."""
    from agentrank.classifier import category_reason
    from classify.model import Prediction

    def text(p: float, second: float) -> str:
        return category_reason(Prediction("coding", p, "voice", second, (("word", "patch"),)))["text"]

    assert text(0.99, 0.004).endswith("; next likeliest, far behind: Voice agent")
    assert text(0.6, 0.25).endswith("; close second: Voice agent")
    assert text(0.17, 0.14).endswith("; close second: Voice agent")
