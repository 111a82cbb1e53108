"""Done-when 2: every API and network fault of research/reliability.md §7.B (1–19, 24, 25 is in
test_crawl_complete.py, 20–23 in test_crawl_fetch_repo.py), against the emulator and a fake clock."""

from __future__ import annotations

import json
import math
import socket

import pytest

from agentrank.crawl import crawl
from crawler import emulator as faults
from crawler.client import GitHubClient, GitHubError, GitHubUnavailable, RateLimitExhausted
from crawler.clock import FakeClock
from crawler.search import MAX_PAGE
from tests.crawl_helpers import crawl_config, emulated, expected_listed, gaps, listed_ids, population, run_crawl

TOPIC = "ai-agents"
Q = f"topic:{TOPIC} stars:>=200 archived:false"


@pytest.fixture(scope="module")
def repos():
    """About 400 repos matching topic:ai-agents with ≥ 200 stars: a part of 4-5 pages."""
    return population(3000, seed=21)


def one_topic(**github):
    github.setdefault("min_interval_s", 2.0)
    return crawl_config(topics=[TOPIC], keywords=[], **github)


def faulted(log, kind):
    return [i for i, r in enumerate(log) if r.fault == kind]


def assert_complete(db, repos, config):
    assert listed_ids(db) == expected_listed(repos, config)


# -- 1, 2: the primary limit ----------------------------------------------------------------------


@pytest.mark.parametrize("status", [403, 429])
def test_primary_limit_pauses_until_reset_and_resends_the_same_request(db, repos, status, caplog):
    clock = FakeClock()
    config = one_topic()
    with emulated(repos, clock=clock) as emulator:
        emulator.inject(faults.primary_limit(reset_in=120, status=status, page=2))
        result = run_crawl(db, emulator, config)
        log = emulator.search_requests()
    [i] = faulted(log, "primary")
    assert log[i].status == status
    assert log[i + 1].params == log[i].params  # the same request, sent again
    assert log[i + 1].t >= math.ceil(log[i].t + 120) + 1  # not before reset + 1 s
    assert result.waits == 1 and result.complete
    assert_complete(db, repos, config)
    lines = [r.getMessage() for r in caplog.records if "rate-limited" in r.getMessage()]
    assert len(lines) == 1 and "primary rate limit" in lines[0] and "until" in lines[0]


# -- 4, 5, 6: secondary limits ---------------------------------------------------------------------


def test_secondary_limit_with_retry_after_pauses_every_request(db, repos):
    clock = FakeClock()
    config = one_topic()
    with emulated(repos, clock=clock) as emulator:
        emulator.inject(faults.secondary_limit(retry_after=7, page=2))
        run_crawl(db, emulator, config)
        log = emulator.log
    [i] = faulted(log, "secondary")
    assert log[i + 1].t - log[i].t >= 7  # nothing at all was sent during the pause
    assert log[i + 1].params == log[i].params
    assert_complete(db, repos, config)


def test_a_pause_holds_requests_to_other_endpoints_too(repos):
    """The pause is global: a different request after the refused one waits it out as well."""
    clock = FakeClock()
    with emulated(repos, clock=clock) as emulator:
        emulator.inject(faults.secondary_limit(retry_after=30))
        with GitHubClient(one_topic(max_retries=0).github, api_url=emulator.url, clock=clock) as client:
            with pytest.raises(RateLimitExhausted):
                client.get("/search/repositories", params={"q": "agent"})
            client.get(f"/repos/{repos[0].full_name}")
        log = emulator.log
    assert [r.path for r in log] == ["/search/repositories", f"/repos/{repos[0].full_name}"]
    assert log[1].t - log[0].t >= 30


def test_secondary_limit_without_retry_after_backs_off_exponentially_then_fails_cleanly(db, repos):
    clock = FakeClock()
    config = one_topic(secondary_wait_s=60, max_retries=5, max_wait_s=100_000)
    with emulated(repos, clock=clock) as emulator:
        fault = emulator.inject(faults.secondary_limit(page=3, times=None))
        with pytest.raises(RateLimitExhausted, match="still rate-limited"):
            run_crawl(db, emulator, config)
        hits = [r.t for r in emulator.search_requests() if r.fault == "secondary"]
        assert gaps(hits) == [60, 120, 240, 480, 900]  # 6 attempts (max_retries = 5); one wait ≤ 15 min
        run = db["runs"].get(1)
        assert run["status"] == "failed" and "still rate-limited" in run["error"]
        part = next(db.query("select * from crawl_parts where run_id = 1"))
        assert part["next_page"] == 3 and part["pages"] == 2  # the checkpoint: pages 1-2 are saved
        fault.times = fault.used  # GitHub relents
        result = run_crawl(db, emulator, config)
        assert result.run_id == 1 and result.resumed
        assert emulator.search_requests()[len(hits) + 2].page == 3  # resumed at the page that failed
    assert_complete(db, repos, config)


@pytest.mark.parametrize("status", [403, 429])
def test_abuse_detection_wording_is_a_secondary_limit(db, repos, status):
    clock = FakeClock()
    config = one_topic()
    with emulated(repos, clock=clock) as emulator:
        emulator.inject(faults.secondary_limit(wording="abuse", status=status, page=2))
        run_crawl(db, emulator, config)
        log = emulator.search_requests()
    [i] = faulted(log, "secondary")
    assert log[i + 1].t - log[i].t >= 60
    assert_complete(db, repos, config)


# -- 7, 8: refusals that retrying cannot fix --------------------------------------------------


def test_plain_403_is_not_retried(db, repos):
    clock = FakeClock()
    with emulated(repos, clock=clock) as emulator:
        emulator.inject(faults.error_status(403, "Resource not accessible by personal access token", page=2))
        with pytest.raises(GitHubError, match="403 Resource not accessible by personal access token") as caught:
            run_crawl(db, emulator, one_topic())
        log = emulator.search_requests()
    assert type(caught.value) is GitHubError
    assert [r.status for r in log] == [200, 403]  # no retry
    assert db["runs"].get(1)["status"] == "failed"


def test_bad_credentials_fail_fast(db, repos):
    with emulated(repos, clock=FakeClock(), tokens={"ghp_" + "b" * 36}) as emulator:
        with pytest.raises(GitHubError, match="401 Bad credentials") as caught:
            run_crawl(db, emulator, one_topic(), token="ghp_" + "c" * 36)
        assert len(emulator.log) == 1
    assert "ghp_" not in str(caught.value)


@pytest.mark.parametrize("status", [400, 404, 422])
def test_other_client_errors_are_not_retried(db, repos, status):
    with emulated(repos, clock=FakeClock()) as emulator:
        emulator.inject(faults.error_status(status, page=1))
        with pytest.raises(GitHubError, match=str(status)):
            run_crawl(db, emulator, one_topic())
        assert len(emulator.search_requests()) == 1


# -- 9, 10: 5xx --------------------------------------------------------------------------------------


def test_a_burst_of_5xx_is_retried_with_growing_jittered_backoff(db, repos):
    clock = FakeClock()
    config = one_topic()
    with emulated(repos, clock=clock) as emulator:
        for status in (502, 503, 504):
            emulator.inject(faults.error_status(status, page=2))
        result = run_crawl(db, emulator, config)
        log = emulator.search_requests()
    failed = faulted(log, "status")
    assert [log[i].status for i in failed] == [502, 503, 504]
    waits = gaps([log[i].t for i in [*failed, failed[-1] + 1]])
    assert 2 <= waits[0] < 3 and 4 <= waits[1] < 5 and 8 <= waits[2] < 9  # 2, 4, 8 s plus up to 1 s jitter
    assert result.retries == 3
    part = next(db.query("select pages, items, total_count from crawl_parts"))
    last_page = part["total_count"] - 100 * (math.ceil(part["total_count"] / 100) - 1)
    # each page landed once, + the verification's first and last pages
    assert part["items"] == part["total_count"] + 100 + last_page
    assert_complete(db, repos, config)


def test_persistent_5xx_gives_up_after_max_retries_with_the_checkpoint_intact(db, repos):
    clock = FakeClock()
    with emulated(repos, clock=clock) as emulator:
        emulator.inject(faults.error_status(502, page=2, times=None))
        with pytest.raises(GitHubUnavailable, match="kept failing after 6 attempts"):
            run_crawl(db, emulator, one_topic(max_retries=5))
        log = emulator.search_requests()
    tries = [r.t for r in log if r.status == 502]
    assert len(tries) == 6
    assert 62 <= tries[-1] - tries[0] < 67  # 2 + 4 + 8 + 16 + 32 s, jittered: about a minute
    assert db["runs"].get(1)["status"] == "failed"
    assert next(db.query("select next_page, pages from crawl_parts")) == {"next_page": 2, "pages": 1}
    assert db.execute("select count(*) from repos").fetchone()[0] == 100  # page 1 kept


# -- 11, 12, 13: broken transport and bodies --------------------------------------------------------


@pytest.mark.parametrize(
    ("make_fault", "github"),
    [
        (lambda: faults.slow(3.0, page=2), {"timeout_s": 1.0}),  # 11: the answer comes after the read timeout
        (lambda: faults.cut_body(page=2), {}),  # 12: the connection closes mid-body
        (lambda: faults.html_page(page=2), {}),  # 13: a 200 "Unicorn!" HTML page
    ],
    ids=["read-timeout", "cut-body", "html-200"],
)
def test_transient_failures_are_retried_and_never_saved(db, repos, make_fault, github):
    config = one_topic(**github)
    with emulated(repos, clock=FakeClock()) as emulator:
        fault = emulator.inject(make_fault())
        result = run_crawl(db, emulator, config)
        assert [r.fault for r in emulator.search_requests()].count(fault.kind) == 1
    assert result.retries == 1 and result.rejected == 0 and result.complete
    assert_complete(db, repos, config)


def test_connection_refused_fails_at_once_and_records_nothing(db):
    """Issue 28 point 7: nothing listens there, and waiting does not change that (a timeout or a
    broken answer is retried; see test_transient_failures_are_retried_and_never_saved)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    clock = FakeClock()
    config = one_topic(max_retries=5)
    with pytest.raises(GitHubUnavailable, match="connection failed.*cannot reach 127.0.0.1"):
        crawl(db, config, api_url=f"http://127.0.0.1:{port}", clock=clock, progress=False)
    assert clock.sleeps == []  # not retried: the old client slept 2 + 4 + 8 + ... s (70 s at the defaults)
    assert db.execute("select count(*) from runs").fetchone()[0] == 0
    assert db.execute("select count(*) from repos").fetchone()[0] == 0


def test_persistent_html_fails_without_storing_anything_from_it(db, repos):
    with emulated(repos, clock=FakeClock()) as emulator:
        emulator.inject(faults.html_page(times=None))
        with pytest.raises(GitHubUnavailable, match="not JSON"):
            run_crawl(db, emulator, one_topic())
    assert db.execute("select count(*) from repos").fetchone()[0] == 0
    assert db.execute("select count(*) from rejects").fetchone()[0] == 0


def test_200_with_an_error_object_is_a_rate_limit(db, repos, caplog):
    clock = FakeClock()
    config = one_topic()
    with emulated(repos, clock=clock) as emulator:
        emulator.inject(faults.error_object("API rate limit exceeded for user ID 1.", page=2))
        result = run_crawl(db, emulator, config)
        log = emulator.search_requests()
    [i] = faulted(log, "error_object")
    assert log[i + 1].t - log[i].t >= 60 and log[i + 1].params == log[i].params
    assert result.waits == 1 and result.rejected == 0
    assert_complete(db, repos, config)
    # Named for what GitHub said (a primary limit without its headers), not a secondary limit.
    lines = [r.getMessage() for r in caplog.records if "rate-limited" in r.getMessage()]
    assert len(lines) == 1 and "rate limit, no reset time given" in lines[0] and "secondary" not in lines[0]


# -- 15: incomplete_results -----------------------------------------------------------------------


def test_incomplete_page_is_asked_for_again(db, repos):
    config = one_topic()
    with emulated(repos, clock=FakeClock()) as emulator:
        emulator.inject(faults.incomplete(page=2))
        result = run_crawl(db, emulator, config)
        log = emulator.search_requests()
    [i] = faulted(log, "incomplete")
    assert log[i + 1].params == log[i].params
    assert result.complete
    assert_complete(db, repos, config)


def test_persistently_incomplete_query_is_split_and_its_parts_finish_it(db, repos):
    config = one_topic()
    with emulated(repos, clock=FakeClock()) as emulator:
        emulator.inject(faults.incomplete(q=Q, times=None))
        result = run_crawl(db, emulator, config)
        assert sum(r.params["q"] == Q for r in emulator.search_requests()) == 3  # asked twice more, then split
    parts = list(db.query("select q, state, split_reason from crawl_parts order by id"))
    assert parts[0]["state"] == "split" and all(p["split_reason"] == "incomplete" for p in parts[1:])
    assert result.complete
    assert_complete(db, repos, config)


def test_an_incomplete_crawl_records_misses_but_delists_nothing(db, repos):
    config = one_topic()
    with emulated(repos, clock=FakeClock()) as emulator:
        run_crawl(db, emulator, config)
        gone = sorted(expected_listed(repos, config))[:3]
        for repo_id in gone:
            emulator.delete(repo_id)
        emulator.inject(faults.incomplete(q=f"topic:{TOPIC}", times=None))
        second = run_crawl(db, emulator, config)
        assert not second.complete and second.delisted == 0 and second.missing == 3
        assert listed_ids(db) == expected_listed(repos, config)  # still listed
        misses = {row["repo_id"]: row["complete"] for row in db.query("select * from crawl_misses")}
        assert misses == dict.fromkeys(gone, 0)
        emulator.faults.clear()
        third = run_crawl(db, emulator, config)
    assert third.complete and third.delisted == 3
    rows = list(
        db.query(
            f"select listed, unlisted_reason, missing_since_run from repos where id in ({','.join(map(str, gone))})"
        )
    )
    assert all(
        r["listed"] == 0
        and r["unlisted_reason"] == "missing from the latest complete crawl"
        and r["missing_since_run"] == third.run_id
        for r in rows
    )


# -- 16: the cap (also test_crawl_complete.py) ------------------------------------------------------


def test_page_past_the_cap_is_a_422_that_is_not_retried(repos):
    with emulated(repos, clock=FakeClock()) as emulator:
        with GitHubClient(one_topic().github, api_url=emulator.url, clock=emulator.clock) as client:
            with pytest.raises(GitHubError, match="422.*Only the first 1000 search results are available"):
                client.get("/search/repositories", params={"q": "agent", "per_page": 100, "page": MAX_PAGE + 1})
        assert len(emulator.log) == 1


# -- 17, 18: shifting and duplicated results -----------------------------------------------------------


def test_results_shifting_between_pages_are_caught_by_verification(db, repos):
    config = one_topic()
    with emulated(repos, clock=FakeClock()) as emulator:
        before = set(emulator.expected(Q))
        emulator.inject(faults.shift_pages(insert=3, promote=2, page=2, q=Q))
        result = run_crawl(db, emulator, config)
        after = emulator.expected(Q)
        newcomers = set(after) - before
    assert len(newcomers) == 3
    assert set(after) <= listed_ids(db)  # the newcomers and the promoted repos were all found
    part = next(db.query("select sweeps, verified, incomplete from crawl_parts"))
    assert part == {"sweeps": 1, "verified": 1, "incomplete": 0}  # one re-sweep caught what moved
    assert result.complete
    assert db.execute("select count(*) from snapshots where run_id = ?", [result.run_id]).fetchone()[0] == len(after)


def test_a_promoted_repo_is_found_even_when_a_repo_that_left_evens_the_count(db, repos):
    """A repo rises onto a page already served while one already seen leaves the query: the count of
    repos seen matches the new total, yet one is missing. The part's total moved while it was
    paged, so it is swept again before it is trusted (it was called complete, and the riser
    delisted by the next complete crawl)."""
    config = one_topic()
    with emulated(repos, clock=FakeClock()) as emulator:
        emulator.inject(faults.shift_pages(insert=0, promote=1, leave=1, page=2, q=Q))
        result = run_crawl(db, emulator, config)
        after = emulator.expected(Q)
    assert set(after) <= listed_ids(db)  # the promoted repo was found
    part = next(db.query("select sweeps, verified, incomplete from crawl_parts"))
    assert part == {"sweeps": 1, "verified": 1, "incomplete": 0}
    assert result.complete


def test_a_part_whose_results_keep_moving_through_every_sweep_is_not_trusted(db, repos):
    """Repos rising onto pages already served while seen ones leave, on every pass: after the two
    sweeps the part was trusted on its count (which includes the repos that left), so the crawl was
    called complete and delisted repos that matched the query the whole time."""
    config = one_topic()
    with emulated(repos, clock=FakeClock()) as emulator:
        first = run_crawl(db, emulator, config)
        assert first.complete
        emulator.inject(faults.shift_pages(insert=0, promote=1, leave=1, page=2, q=Q, times=None))
        second = run_crawl(db, emulator, config)
        still_matching = set(emulator.expected(Q))
    assert not second.complete
    part = next(db.query("select sweeps, incomplete, flags from crawl_parts where run_id = ?", [second.run_id]))
    assert part["sweeps"] == 2 and part["incomplete"] == 1 and "still moving" in part["flags"]
    assert still_matching <= listed_ids(db), "nothing that still matches is delisted"


def test_a_repo_twice_in_one_page_is_stored_once(db, repos):
    config = one_topic()
    with emulated(repos, clock=FakeClock()) as emulator:
        emulator.inject(faults.duplicate_item(page=1, q=Q))
        result = run_crawl(db, emulator, config)
    assert result.complete and result.rejected == 0
    assert_complete(db, repos, config)


# -- 19: renames ----------------------------------------------------------------------------------------


def test_a_renamed_repo_keeps_its_row_and_history(db, repos):
    config = one_topic()
    target = sorted(expected_listed(repos, config))[0]
    with emulated(repos, clock=FakeClock()) as emulator:
        first = run_crawl(db, emulator, config)
        old_name = emulator.entry(target).full_name
        emulator.rename(target, "new-owner/new-name")
        second = run_crawl(db, emulator, config)
    assert second.run_id != first.run_id
    row = db["repos"].get(target)
    assert row["full_name"] == "new-owner/new-name" and row["owner_login"] == "new-owner"
    assert row["first_seen_run"] == first.run_id and row["listed"] == 1
    names = {r["full_name"] for r in db.query("select full_name from repo_names where repo_id = ?", [target])}
    assert names == {old_name, "new-owner/new-name"}
    runs = [r["run_id"] for r in db.query("select run_id from snapshots where repo_id = ? order by run_id", [target])]
    assert runs == [first.run_id, second.run_id]
    assert db.execute("select count(*) from repos where full_name = ?", [old_name]).fetchone()[0] == 0


# -- 24: missing rate-limit headers -------------------------------------------------------------------


def test_missing_rate_headers_fall_back_to_default_pacing(db, repos):
    clock = FakeClock()
    config = one_topic(min_interval_s=2.0)
    with emulated(repos, clock=clock) as emulator:
        emulator.inject(faults.no_rate_headers(times=None))
        result = run_crawl(db, emulator, config)
        log = emulator.search_requests()
    assert all(r.fault == "no_rate_headers" for r in log)
    assert min(gaps([r.t for r in log])) >= 2.0
    assert result.complete and result.waits == 0
    assert_complete(db, repos, config)


def test_crawl_parts_record_what_github_said(db, repos):
    """Per query part: total_count, pages fetched, items received and the incomplete flags."""
    with emulated(repos, clock=FakeClock()) as emulator:
        emulator.inject(faults.incomplete(q=Q, times=None))
        run_crawl(db, emulator, one_topic())
    rows = list(db.query("select * from crawl_parts order by id"))
    root = rows[0]
    assert root["total_count"] > 0 and root["pages"] == 1 and root["items"] == 100
    assert all(r["pages"] >= 1 and r["items"] >= 0 and r["total_count"] is not None for r in rows)
    # Split, so not incomplete itself; its flags say its first page was (so its total, which may be
    # short, is not held against its parts' totals).
    assert root["incomplete"] == 0 and json.loads(root["flags"]) == ["incomplete_results"]


def test_a_5xx_retry_after_within_max_wait_is_waited_and_said(db, repos, caplog):
    clock = FakeClock()
    config = one_topic()
    with emulated(repos, clock=clock) as emulator:
        emulator.inject(faults.error_status(503, page=2, headers={"Retry-After": "30"}))
        with caplog.at_level("WARNING"):
            run_crawl(db, emulator, config)
        log = emulator.search_requests()
    [i] = faulted(log, "status")
    assert log[i + 1].t - log[i].t >= 30 and log[i + 1].params == log[i].params
    assert any("waiting 30 s as its Retry-After asks" in r.getMessage() for r in caplog.records)
    assert_complete(db, repos, config)


def test_a_repo_joining_at_the_bottom_while_one_leaves_the_top_is_found(db, repos):
    """Once the part is paged, a repo crosses min_stars (joins at its last page) while one already
    served leaves at the top: the total stays level and the first page shows nothing new, so a
    count-only check trusted the part and missed the newcomer (a later complete crawl would have
    delisted it had it been listed before). The verification also reads the last page, finds a
    repo never returned there, and sweeps the part again (which also finds the repos that slid
    up a page when the top one left)."""
    config = one_topic()
    with emulated(repos, clock=FakeClock()) as emulator:
        before = emulator.expected(Q)
        # once every page was served: the part looks finished, and changes before it is verified
        last_page = math.ceil(len(before) / 100)
        emulator.inject(faults.shift_pages(insert=0, promote=0, leave=1, enter=1, page=last_page, q=Q))
        result = run_crawl(db, emulator, config)
        after = emulator.expected(Q)
    assert len(after) == len(before) and set(after) != set(before)  # the total stayed level
    assert set(after) <= listed_ids(db)  # the newcomer at the bottom was found
    part = next(db.query("select sweeps, verified, incomplete from crawl_parts"))
    assert part == {"sweeps": 1, "verified": 1, "incomplete": 0}
    assert result.complete


def test_a_server_that_answers_too_slowly_is_not_called_unreachable(db, repos):
    # It accepts the connection, then takes longer than timeout_s: the network, the proxy and the
    # URL are fine, so the error does not send the user to check them.
    with emulated(repos, clock=FakeClock()) as emulator:
        emulator.inject(faults.slow(2.0, times=None))
        with pytest.raises(GitHubUnavailable) as raised:
            run_crawl(db, emulator, one_topic(timeout_s=0.5, max_retries=1))
    assert "within timeout_s (0.5 s)" in str(raised.value) and "cannot reach" not in str(raised.value)


def test_a_configured_query_that_suddenly_holds_nothing_is_not_trusted(db, repos):
    """GitHub's search answers one configured query with nothing (an outage, an index rebuilt): the
    repos only that query found would be delisted, too few for the 20 % guard to notice. A query
    that held many repos last time and none now makes the crawl incomplete: nothing is delisted."""
    config = crawl_config(topics=[TOPIC, "llm", "agents", "openai", "gpt"], keywords=[])
    empty = json.dumps({"total_count": 0, "incomplete_results": False, "items": []})
    with emulated(repos, clock=FakeClock()) as emulator:
        first = run_crawl(db, emulator, config)
        assert first.complete
        listed = listed_ids(db)
        emulator.inject(faults.raw_answer(empty, q=f"topic:{TOPIC}", times=None))
        second = run_crawl(db, emulator, config)
        assert second.missing > 0 and not second.complete and second.delisted == 0
        assert listed_ids(db) == listed
        (flags,) = [r["flags"] for r in db.query("select flags from crawl_parts where run_id = ? and incomplete = 1", [second.run_id])]  # fmt: skip
        assert "GitHub returned no results where the last crawl found" in flags
        # Still empty a week later: believed (the last crawl found none), the repos only it found go.
        third = run_crawl(db, emulator, config)
        assert third.complete and third.delisted == second.missing
        emulator.faults.clear()
        fourth = run_crawl(db, emulator, config)
    assert fourth.complete and listed_ids(db) == listed
