"""Done-when 2, §7.C: bad and surprising data served by the emulator, through a real crawl."""

from __future__ import annotations

import json

import pytest

from agentrank import scorer
from crawler import emulator as faults
from crawler.clock import FakeClock
from crawler.emulator.population import to_search_item
from tests.crawl_helpers import crawl_config, emulated, population, run_crawl

TOPIC = "ai-agents"


@pytest.fixture(scope="module")
def repos():
    return population(600, seed=31)


def config():
    return crawl_config(topics=[TOPIC], keywords=[])


def hostile(emulator, base_repo, repo_id, **fields):
    """Serve a copy of ``base_repo`` under ``repo_id`` with ``fields`` replaced (or dropped)."""
    item = to_search_item(base_repo)
    item.update(id=repo_id, full_name=f"hostile/repo-{repo_id}", name=f"repo-{repo_id}")
    for key, value in fields.items():
        if value is faults.GitHubEmulator.DELETE:
            item.pop(key, None)
        else:
            item[key] = value
    emulator.add_raw(item, stars=900, topics=[TOPIC], created_at="2025-01-01T00:00:00Z")
    return repo_id


def crawl_hostile(db, repos, **cases):
    with emulated(repos, clock=FakeClock()) as emulator:
        for repo_id, fields in cases.items():
            hostile(emulator, repos[0], int(repo_id.split("_")[1]), **fields)
        return run_crawl(db, emulator, config())


def row(db, repo_id):
    return db["repos"].get(repo_id)


def test_licences_null_noassertion_and_missing(db, repos):
    other = {"key": "other", "name": "Other", "spdx_id": "NOASSERTION", "url": None, "node_id": "x"}
    crawl_hostile(
        db, repos, r_1001={"license": None}, r_1002={"license": other}, r_1003={"license": faults.GitHubEmulator.DELETE}
    )
    assert row(db, 1001)["license_spdx"] is None
    assert row(db, 1002)["license_spdx"] == "NOASSERTION" and row(db, 1002)["license_key"] == "other"
    assert row(db, 1003)["license_spdx"] is None
    scorer.score(db)  # scoring copes
    openness = dict(db.execute("select repo_id, openness from scores where repo_id in (1001, 1002, 1003)").fetchall())
    assert openness == {1001: 0, 1002: 0, 1003: 0}


DESCRIPTIONS = {
    2001: None,
    2002: "",
    2003: "x" * 10_240,
    2004: "وكيل ذكاء اصطناعي مستقل",  # right-to-left
    2005: "zero\u200dwidth\u200cjoiners",
    2006: "family 👨‍👩‍👧‍👦 emoji",
}


def test_descriptions_are_stored_verbatim_up_to_the_longest_kept(db, repos):
    crawl_hostile(db, repos, **{f"r_{k}": {"description": v} for k, v in DESCRIPTIONS.items()})
    for repo_id, text in DESCRIPTIONS.items():
        if text and len(text) > 1_000:  # cut at the limit, marked with an ellipsis
            text = text[:999] + "\u2026"
        assert row(db, repo_id)["description"] == text


def test_lone_surrogates_become_replacement_characters_and_the_page_commits(db, repos):
    result = crawl_hostile(db, repos, r_3001={"description": "half an emoji \ud83e", "topics": [TOPIC, "bad\udc81"]})
    assert row(db, 3001)["description"] == "half an emoji \ufffd"
    assert json.loads(row(db, 3001)["topics"]) == [TOPIC, "bad\ufffd"]
    assert result.rejected == 0 and result.complete


def test_html_and_script_urls_are_stored_as_text(db, repos):
    crawl_hostile(
        db,
        repos,
        r_4001={"homepage": "javascript:alert(1)", "description": '"><img src=x onerror=alert(1)>'},
        r_4002={"homepage": "<script>alert(1)</script>"},
    )
    assert row(db, 4001)["homepage"] == "javascript:alert(1)"
    assert row(db, 4001)["description"] == '"><img src=x onerror=alert(1)>'
    assert row(db, 4002)["homepage"] == "<script>alert(1)</script>"


def test_odd_topics_do_not_break_the_crawl(db, repos):
    many = [f"t{i}" for i in range(500)]
    result = crawl_hostile(
        db,
        repos,
        r_5001={"topics": []},
        r_5002={"topics": [f"t{i}" for i in range(20)]},
        r_5003={"topics": many},
        r_5004={"topics": ["y" * 10_240]},
        r_5005={"topics": [TOPIC, None, 7, {"a": 1}, "ok"]},
    )
    assert json.loads(row(db, 5001)["topics"]) == []
    assert len(json.loads(row(db, 5002)["topics"])) == 20
    assert json.loads(row(db, 5003)["topics"]) == many[:20]  # GitHub's limits: 20 topics of 50 characters
    assert json.loads(row(db, 5004)["topics"]) == []
    assert json.loads(row(db, 5005)["topics"]) == [TOPIC, "ok"]  # non-strings dropped
    assert result.rejected == 0


def test_unknown_keys_are_ignored_and_the_schema_does_not_change(db, repos):
    columns = [c.name for c in db["repos"].columns]
    crawl_hostile(db, repos, r_6001={"foo_bar": {"nested": [1, 2]}, "weird_new_field": "x"})
    assert row(db, 6001)["full_name"] == "hostile/repo-6001"
    assert [c.name for c in db["repos"].columns] == columns


def test_type_drift_is_rejected_with_a_reason_and_the_run_goes_on(db, repos):
    result = crawl_hostile(
        db,
        repos,
        r_7001={"stargazers_count": "1k"},
        r_7002={"stargazers_count": None},
        r_7003={"stargazers_count": -1},
        r_7004={"stargazers_count": float("inf")},
        r_7005={"forks_count": 1.5},
    )
    with emulated(repos, clock=FakeClock()) as emulator:
        item = to_search_item(repos[0])
        item.update(id="7006", full_name="hostile/id-as-string")
        emulator.add_raw(item, stars=900, topics=[TOPIC])
        second = run_crawl(db, emulator, config())
    reasons = {r["repo_id"] or r["full_name"]: r["reason"] for r in db.query("select * from rejects")}
    assert set(reasons) >= {7001, 7002, 7003, 7004, 7005, "hostile/id-as-string"}
    assert reasons[7001].startswith("stargazers_count:")
    assert reasons["hostile/id-as-string"].startswith("id:")
    assert db.execute("select count(*) from repos where id between 7001 and 7006").fetchone()[0] == 0
    assert result.rejected >= 5 and db["runs"].get(result.run_id)["rejected"] >= 5
    assert second.rejected >= 1
    assert db.execute("select count(*) from repos where listed = 1").fetchone()[0] > 50  # the rest is kept


def test_missing_id_is_rejected_and_the_page_continues(db, repos):
    result = crawl_hostile(db, repos, r_8001={"id": faults.GitHubEmulator.DELETE})
    assert any(r["reason"] == "id: missing" for r in db.query("select reason from rejects"))
    assert result.rejected >= 1
    assert db.execute("select count(*) from repos where listed = 1").fetchone()[0] > 50
    # An item GitHub sent without an id cannot be accounted for, so the crawl is not called complete.
    assert not result.complete and result.delisted == 0


def test_odd_timestamps(db, repos):
    result = crawl_hostile(
        db,
        repos,
        r_9001={"created_at": "2026-02-30T00:00:00Z"},
        r_9002={"created_at": "2024-01-01T00:00:00", "pushed_at": "2024-02-01T00:00:00"},
        r_9003={"pushed_at": "9999-12-31T23:59:59Z"},
        r_9004={"created_at": "2025-06-01T00:00:00Z", "pushed_at": "2020-01-01T00:00:00Z"},
    )
    assert db["repos"].count_where("id = 9001") == 0  # an impossible date: rejected, with its reason
    assert any(r["reason"].startswith("created_at:") for r in db.query("select reason from rejects"))
    assert row(db, 9002)["created_at"] == "2024-01-01T00:00:00Z"  # no zone: taken as UTC
    assert db["repos"].count_where("id = 9003") == 0  # year 9999: outside what the score can represent
    assert any(r["reason"].startswith("pushed_at:") for r in db.query("select reason from rejects"))
    assert row(db, 9004)["pushed_at"] < row(db, 9004)["created_at"]
    assert result.rejected == 2
    scorer.score(db)  # scoring is robust to all of them
    assert db.execute("select count(*) from scores where repo_id in (9002, 9004)").fetchone()[0] == 2


def test_a_lying_total_count_is_suspicious_and_never_marks_repos_gone(db, repos):
    conf = config()
    with emulated(repos, clock=FakeClock()) as emulator:
        first = run_crawl(db, emulator, conf)
        listed_before = db.execute("select count(*) from repos where listed = 1").fetchone()[0]
        emulator.inject(faults.lie_total(50, q=f"topic:{TOPIC}", times=None))
        second = run_crawl(db, emulator, conf)
        requests = emulator.search_requests()[first.search_requests :]
    assert first.complete and not second.complete
    assert len(requests) > 3  # the empty pages were asked for again
    assert second.delisted == 0
    assert db.execute("select count(*) from repos where listed = 1").fetchone()[0] == listed_before


def test_a_body_without_items_is_retried(db, repos):
    with emulated(repos, clock=FakeClock()) as emulator:
        emulator.inject(faults.missing_items(page=1))
        result = run_crawl(db, emulator, config())
    assert result.retries == 1 and result.complete and result.rejected == 0


def test_an_explicit_null_clears_the_stored_value(db, repos):
    """Policy: the crawl stores GitHub's current state, so a description cleared on GitHub is cleared here;
    the earlier value stays in nothing but earlier exports."""
    conf = config()
    with emulated(repos, clock=FakeClock()) as emulator:
        target = emulator.expected(f"topic:{TOPIC} stars:>=200 archived:false")[0]
        run_crawl(db, emulator, conf)
        assert row(db, target)["description"]
        emulator.patch(target, description=None)
        second = run_crawl(db, emulator, conf)
    assert row(db, target)["description"] is None
    assert second.updated >= 1
