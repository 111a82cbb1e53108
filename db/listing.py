"""The listing rule of the design, in one place.

A repository is listed when it matched a configured query (imported items count as matched),
has at least ``min_stars`` stars, is neither a fork nor archived, and no correction excludes it.
The API's own filters are not trusted: the rule is checked again on every item.
"""

from __future__ import annotations


def unlisted_reason(
    *,
    matched: bool,
    stars: int,
    fork: bool,
    archived: bool,
    min_stars: int,
    excluded: str | None = None,
    missing: bool = False,
) -> str | None:
    """Why a repository is not listed, or None when it is."""
    if excluded is not None:
        return f"excluded by correction: {excluded}"
    if fork:
        return "fork"
    if archived:
        return "archived"
    if stars < min_stars:
        return f"below min_stars ({stars} < {min_stars})"
    if missing:
        return "missing from the latest complete crawl"
    if not matched:
        return "matched no configured topic or keyword"
    return None
