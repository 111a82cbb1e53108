"""§7.B 20–23: single-repo GETs (``fetch_repo``, used by corrections that add a repo by name)."""

from __future__ import annotations

import pytest

from crawler import emulator as faults
from crawler.client import GitHubClient, GitHubError
from crawler.clock import FakeClock
from crawler.repository import fetch_repo
from tests.crawl_helpers import TOKEN, crawl_config, emulated, population


@pytest.fixture(scope="module")
def repos():
    return population(50, seed=41)


def client_for(emulator, token=TOKEN):
    return GitHubClient(crawl_config().github, api_url=emulator.url, token=token, clock=emulator.clock)


def test_fetch_repo_by_name(repos):
    with emulated(repos, clock=FakeClock()) as emulator, client_for(emulator) as client:
        got = fetch_repo(client, repos[0].full_name)
        assert [r.path for r in emulator.log] == [f"/repos/{repos[0].full_name}"]
    assert got.state == "ok" and got.item["id"] == repos[0].id and got.full_name == repos[0].full_name
    assert not got.moved


def test_301_after_a_rename_is_followed_on_the_same_origin_with_the_token(repos):
    target = repos[1]
    with emulated(repos, clock=FakeClock()) as emulator, client_for(emulator) as client:
        emulator.rename(target.id, "new-owner/new-name")
        got = fetch_repo(client, target.full_name)
        log = emulator.log
    assert [(r.path, r.status) for r in log] == [
        (f"/repos/{target.full_name}", 301),
        (f"/repositories/{target.id}", 200),
    ]
    assert [r.auth for r in log] == ["Bearer", "Bearer"]
    assert got.state == "ok" and got.moved and got.full_name == "new-owner/new-name"
    assert got.item["id"] == target.id  # same id: the caller re-keys nothing


def test_a_redirect_to_another_origin_is_not_followed_and_the_token_stays_home(repos):
    with emulated(repos) as other, emulated(repos, clock=FakeClock()) as emulator, client_for(emulator) as client:
        emulator.inject(faults.redirect(f"{other.url}/repos/{repos[2].full_name}"))
        with pytest.raises(GitHubError, match="another origin") as caught:
            fetch_repo(client, repos[2].full_name)
        assert other.log == []  # the other server never heard from us, so never saw the Authorization header
        assert len(emulator.log) == 1
    assert TOKEN not in str(caught.value)


def test_a_deleted_repo_is_gone_without_retry(repos):
    with emulated(repos, clock=FakeClock()) as emulator, client_for(emulator) as client:
        emulator.delete(repos[3].id)
        got = fetch_repo(client, repos[3].full_name)
        assert len(emulator.log) == 1
    assert got.state == "gone" and got.item is None


def test_a_dmca_blocked_repo_is_blocked_without_retry(repos):
    with emulated(repos, clock=FakeClock()) as emulator, client_for(emulator) as client:
        emulator.block(repos[4].id, "dmca")
        got = fetch_repo(client, repos[4].full_name)
        assert len(emulator.log) == 1
    assert got.state == "blocked" and got.block_reason == "dmca" and got.block_url.startswith("https://")


def test_not_a_repository_name(repos):
    with emulated(repos) as emulator, client_for(emulator) as client:
        with pytest.raises(GitHubError, match="expected OWNER/REPO"):
            fetch_repo(client, "no-slash")
        assert emulator.log == []


def test_single_repo_gets_are_retried_on_5xx_like_searches(repos):
    with emulated(repos, clock=FakeClock()) as emulator, client_for(emulator) as client:
        emulator.inject(faults.error_status(503, path="/repos/"))
        got = fetch_repo(client, repos[5].full_name)
        assert [r.status for r in emulator.log] == [503, 200]
    assert got.state == "ok"
