"""One repository by name (``GET /repos/{owner}/{repo}``), for corrections that add a repo.

A 301 (rename or transfer) is followed on the same origin only, so the token never travels to
another host; 404/410 mean the repo is gone and 451 that it is blocked (e.g. DMCA). None of
these is retried. The caller records the state; it never drops a row on this evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote, urljoin, urlsplit

from crawler.client import GitHubClient, GitHubError

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")
REDIRECTS = (301, 302, 307, 308)
MAX_REDIRECTS = 3


@dataclass
class RepoFetch:
    state: Literal["ok", "gone", "blocked"]
    requested: str
    item: dict[str, Any] | None = None  # the repository JSON when state is ok
    full_name: str | None = None  # its current name (differs from requested after a rename)
    moved: bool = False
    block_reason: str | None = None
    block_url: str | None = None


def _is_repo(data: Any) -> bool:
    return isinstance(data, dict) and type(data.get("id")) is int and isinstance(data.get("full_name"), str)


def fetch_repo(client: GitHubClient, full_name: str) -> RepoFetch:
    """The repository ``owner/repo`` as GitHub has it now, or why it cannot be had."""
    full_name = full_name.strip()
    if not _NAME.match(full_name):
        raise GitHubError(f"not a repository name (expected OWNER/REPO): {full_name!r}")
    owner, name = full_name.split("/")
    url = f"{client.api_url}/repos/{quote(owner)}/{quote(name)}"
    moved = False
    for _ in range(MAX_REDIRECTS + 1):
        r = client.get(url, expect=_is_repo, allow=(*REDIRECTS, 404, 410, 451))
        if r.status in REDIRECTS:
            location = r.headers.get("location")
            if not location:
                raise GitHubError(f"GitHub answered {r.status} for {full_name} without a Location")
            target = urljoin(url, location)
            if not client.same_origin(target):
                raise GitHubError(
                    f"GitHub redirected {full_name} to another origin ({urlsplit(target).netloc}); not followed"
                )
            url, moved = target, True
            continue
        if r.status in (404, 410):
            return RepoFetch("gone", full_name, moved=moved)
        if r.status == 451:
            raw = r.data.get("block") if isinstance(r.data, dict) else None
            block = raw if isinstance(raw, dict) else {}
            return RepoFetch(
                "blocked", full_name, moved=moved, block_reason=block.get("reason"), block_url=block.get("html_url")
            )
        return RepoFetch("ok", full_name, item=r.data, full_name=r.data["full_name"], moved=moved)
    raise GitHubError(f"too many redirects fetching {full_name}")
