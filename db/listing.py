"""The listing rule of the design, in one place.

A repository is listed when it matched a configured query (imported items count as matched),
has at least ``min_stars`` stars, is neither a fork nor archived, and no correction excludes it.
The API's own filters are not trusted: the rule is checked again on every item.
"""

from __future__ import annotations

import re

# How a stored unlisted reason begins when a correction excludes the repo (its reason follows).
EXCLUDED = "excluded by correction: "


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
        return EXCLUDED + excluded
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


# Set by db.repos.unlist_name_twins: another id holds the same name (case and Unicode look-alikes aside).
TWIN_REASON = "name held by a newer repo (id {id})"
_TWIN = re.compile(r"name held by a newer repo \(id (\d+)\)")
_BELOW = re.compile(r"below min_stars \((\d+) < (\d+)\)")


def reason_in_words(reason: str | None) -> str | None:
    """A stored unlisted reason as a maker reads it (the stored text stays short and stable)."""
    if reason is None:
        return None
    ours, theirs = reason_parts(reason)
    return ours + theirs


def reason_parts(reason: str) -> tuple[str, str]:
    """A stored unlisted reason in words, split into ours and the text we did not write (a
    maintainer's exclusion reason, from the corrections file: the pages isolate it, since it may
    hold bidirectional controls that would reorder our words around it). Either part may be empty."""
    below = _BELOW.fullmatch(reason)
    if below:
        stars, needed = (int(n) for n in below.groups())
        return f"it has {stars:,} stars, fewer than the {needed:,} a repository needs to be listed", ""
    twin = _TWIN.fullmatch(reason)
    if twin:
        return (
            f"another repository (GitHub id {twin.group(1)}) has the same name (letter case and look-alike "
            "characters aside) and was seen more recently: a name belongs to one repository at a time, so only "
            "that one is listed",
            "",
        )
    if reason.startswith(EXCLUDED):
        return "a maintainer's correction excludes it: ", reason.removeprefix(EXCLUDED)
    known = {
        "fork": "it is a fork, and forks are not listed (the original repository is)",
        "archived": "it is archived on GitHub, and archived repositories are not listed",
        "missing from the latest complete crawl": "the latest complete crawl of GitHub's search did not find it",
        "matched no configured topic or keyword": "it has none of the topics or keywords the directory searches for",
    }
    return (known[reason], "") if reason in known else ("", reason)
