"""Done-when 1: past the 1,000 cap, a crawl lists exactly the expected set, and the emulator is GitHub-shaped."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime

import httpx
import pytest

from crawler.clock import FakeClock
from crawler.emulator import parse_query
from crawler.emulator.population import generate_population, pile_on_stars
from crawler.search import CAP, MAX_PAGE, Part, plan_split
from tests.crawl_helpers import (
    REFERENCE,
    crawl_config,
    emulated,
    expected_listed,
    gaps,
    listed_ids,
    matches,
    population,
    run_crawl,
)

PILE_STARS = 250


@pytest.fixture(scope="module")
def big_population():
    """One topic with well over 1,000 matches, 1,100 of them on a single star value."""
    repos = generate_population(5000, seed=11, reference=REFERENCE)
    return pile_on_stars(repos, stars=PILE_STARS, count=1100, topic="ai-agents")


def _leaks(repos, config):
    """Matching forks, archived repos and some under-min_stars ones: the emulator returns them anyway."""
    matching = [r for r in repos if matches(r, config)]
    under = [r.id for r in matching if r.stars < config.crawl.min_stars and not (r.fork or r.archived)]
    return {r.id for r in matching if r.fork or r.archived} | set(under[::20])


def test_crawl_past_the_cap_lists_exactly_the_expected_set(db, big_population):
    config = crawl_config()
    leaky = _leaks(big_population, config)
    assert len(leaky) > 100
    with emulated(big_population, clock=FakeClock(), leaky_ids=leaky) as emulator:
        root = "topic:ai-agents stars:>=200 archived:false"
        assert len(emulator.expected(root)) > CAP
        assert len(emulator.expected(f"topic:ai-agents stars:{PILE_STARS} archived:false")) > CAP
        result = run_crawl(db, emulator, config)
        log = emulator.search_requests()

    expected = expected_listed(big_population, config)
    assert listed_ids(db) == expected  # nothing missing, nothing extra
    assert result.complete and result.listed == len(expected)
    # Nothing duplicated: one row per repo, and every repo the API returned was stored once.
    assert db.execute("select count(*), count(distinct id), count(distinct full_name) from repos").fetchone() == (
        result.found,
        result.found,
        result.found,
    )
    # Leaked forks/archived/under-200 repos were received, stored, and not listed.
    stored_leaks = {
        row["id"]: row
        for row in db.query(f"select id, listed, unlisted_reason from repos where id in ({','.join(map(str, leaky))})")
    }
    assert set(stored_leaks) == leaky
    assert all(row["listed"] == 0 for row in stored_leaks.values())
    reasons = {row["unlisted_reason"].split(" (")[0] for row in stored_leaks.values()}
    assert reasons == {"fork", "archived", "below min_stars"}
    # Never past the 1,000th result: no page 11, and every part that was paged through held ≤ 1,000.
    assert max(r.page for r in log) <= MAX_PAGE
    assert all(r.status == 200 for r in log)
    parts = list(db.query("select * from crawl_parts where run_id = ?", [result.run_id]))
    leaves = [p for p in parts if p["state"] != "split"]
    assert all(p["total_count"] <= CAP for p in leaves)
    assert any("created:" in p["q"] for p in leaves), "the piled star value must be split by created: windows"
    assert any(p["split_reason"] == "cap" and f"stars:{PILE_STARS}" in p["q"] for p in parts)


def test_sibling_parts_never_overlap_and_cover_the_whole_range(big_population):
    """Children of every split partition their parent: inclusive ranges, no shared value, no gap."""
    with emulated(big_population) as emulator:
        parts = [Part("topic:ai-agents", 200), Part("topic:ai-agents", 200, 5000), Part("topic:ai-agents", 250, 250)]
        for q_part in parts:
            found = emulator.expected(q_part.q)
            sample = [emulator.entry(i).item for i in found[:100]]
            children = plan_split(q_part, len(found), sample, now=REFERENCE)
            assert len(children) >= 2
            ids = [i for child in children for i in emulator.expected(child.q)]
            assert sorted(ids) == sorted(found)  # each repo in exactly one child


def test_search_pacing_is_serial_spaced_and_never_trips_the_limit(db, big_population):
    """§7.B 25: instant answers still go out ≥ min_interval_s apart, one at a time; with the real
    30/min (10/min without a token) window the crawler waits for the reset instead of being refused."""
    repos = big_population
    clock = FakeClock()
    config = crawl_config(min_interval_s=2.0)
    with emulated(repos, clock=clock, search_limit=30, unauthenticated_search_limit=10) as emulator:
        result = run_crawl(db, emulator, config)
        log = emulator.search_requests()
    assert len(log) >= 50
    assert min(gaps([r.t for r in log])) >= 2.0
    spans = sorted((r.real_start, r.real_end) for r in log)
    assert all(later[0] >= earlier[1] for earlier, later in zip(spans, spans[1:], strict=False)), "requests overlapped"
    assert all(r.status == 200 for r in log), "a request was spent with the bucket empty"
    assert result.waits > 0  # unauthenticated: 10 per minute, so it waited for resets
    assert listed_ids(db) == expected_listed(repos, config)


def test_requests_carry_githubs_headers(db):
    repos = population(300)
    with emulated(repos) as emulator:
        run_crawl(db, emulator, crawl_config(topics=["ai-agents"], keywords=[]), token="ghp_" + "a" * 36)
        first = emulator.search_requests()[0]
    assert first.accept == "application/vnd.github+json"
    assert first.api_version == "2022-11-28"
    assert first.user_agent and first.user_agent.startswith("agentrank")
    assert first.auth == "Bearer"
    assert first.params["sort"] == "stars" and first.params["order"] == "desc" and first.params["per_page"] == "100"
    assert first.params["q"] == "topic:ai-agents stars:>=200 archived:false"


def test_without_a_token_no_authorization_header_is_sent(db):
    with emulated(population(200)) as emulator:
        run_crawl(db, emulator, crawl_config(topics=["ai-agents"], keywords=[]))
        assert {r.auth for r in emulator.log} == {None}


# -- the emulator is GitHub-shaped ---------------------------------------------------------------


def test_emulator_search_total_count_link_and_the_1000_cap(big_population):
    with emulated(big_population) as emulator:
        q = "topic:ai-agents stars:>=200 archived:false"
        total = len(emulator.expected(q))
        with httpx.Client(base_url=emulator.url) as http:
            first = http.get("/search/repositories", params={"q": q, "sort": "stars", "order": "desc", "per_page": 100})
            body = first.json()
            assert body["total_count"] == total > CAP  # uncapped
            assert body["incomplete_results"] is False and len(body["items"]) == 100
            assert set(first.links) == {"next", "last"}
            assert "page=10" in first.links["last"]["url"]  # last stops at the 1,000th result
            stars = [item["stargazers_count"] for item in body["items"]]
            assert stars == sorted(stars, reverse=True)
            tenth = http.get(first.links["last"]["url"])
            assert set(tenth.links) == {"prev", "first"}
            past = http.get("/search/repositories", params={"q": q, "per_page": 100, "page": 11})
            assert past.status_code == 422
            assert past.json()["message"] == "Only the first 1000 search results are available"
            default = http.get("/search/repositories", params={"q": q})
            assert len(default.json()["items"]) == 30  # per_page defaults to 30
            assert "page=34" in default.links["last"]["url"]  # ceil(1000 / 30)
            missing = http.get("/search/repositories")
            assert missing.status_code == 422 and missing.json()["message"] == "Validation Failed"
            small = http.get("/search/repositories", params={"q": "topic:no-such-topic"})
            assert small.json()["total_count"] == 0 and "link" not in small.headers


def test_emulator_qualifiers_follow_githubs_syntax():
    repos = population(400)
    with emulated(repos) as emulator:

        def ids(q):
            return set(emulator.expected(q))

        agents = {r.id for r in repos if "ai-agents" in r.topics and not r.fork}
        assert ids("topic:ai-agents") == agents  # forks are left out by default
        assert ids("topic:ai-agents fork:true") == {r.id for r in repos if "ai-agents" in r.topics}
        assert ids("topic:ai-agents stars:>=300") == {r.id for r in repos if r.id in agents and r.stars >= 300}
        assert ids("topic:ai-agents stars:200..300") == {
            r.id for r in repos if r.id in agents and 200 <= r.stars <= 300
        }
        assert ids("topic:ai-agents stars:<250") == {r.id for r in repos if r.id in agents and r.stars < 250}
        assert ids("topic:ai-agents archived:false") == {r.id for r in repos if r.id in agents and not r.archived}
        cut = datetime(2025, 6, 1, tzinfo=UTC)
        before = {r.id for r in repos if r.id in agents and r.created_at < cut}
        assert ids("topic:ai-agents created:<2025-06-01") == before
        assert ids("topic:ai-agents created:2025-06-01T00:00:00Z..*") == {
            r.id for r in repos if r.id in agents and r.created_at >= cut
        }
        phrase = {
            r.id
            for r in repos
            if not r.fork and "autonomous agent" in " ".join([r.name, r.description or "", *r.topics]).lower()
        }
        assert phrase and ids('"autonomous agent"') == phrase
    assert parse_query("stars:10..*").stars == (10, math.inf)


def test_emulator_rate_limit_window_and_primary_limit():
    clock = FakeClock()
    with emulated(population(100), clock=clock, search_limit=3, limit_status=429) as emulator:
        with httpx.Client(base_url=emulator.url, headers={"Authorization": "Bearer x"}) as http:
            answers = [http.get("/search/repositories", params={"q": "agent"}) for _ in range(4)]
            assert [a.headers["x-ratelimit-remaining"] for a in answers] == ["2", "1", "0", "0"]
            assert answers[0].headers["x-ratelimit-limit"] == "3"
            assert answers[0].headers["x-ratelimit-resource"] == "search"
            reset = int(answers[0].headers["x-ratelimit-reset"])
            assert reset == math.ceil(clock.now() + 60)
            assert answers[3].status_code == 429
            assert answers[3].json()["message"].startswith("API rate limit exceeded for user ID")
            clock.advance(61)
            again = http.get("/search/repositories", params={"q": "agent"})
            assert again.status_code == 200 and again.headers["x-ratelimit-remaining"] == "2"
            assert http.get("/rate_limit").json()["resources"]["search"]["remaining"] == 2


def test_emulator_items_have_githubs_shape():
    repos = population(200)
    with emulated(repos) as emulator:
        body = httpx.get(f"{emulator.url}/search/repositories", params={"q": "topic:ai-agents", "per_page": 5}).json()
    item = body["items"][0]
    assert len(item) == 80 and isinstance(item["score"], float) and isinstance(item["topics"], list)
    assert json.loads(json.dumps(item)) == item
