"""Atom feeds of the directory: ``/-/feeds/new.atom``, ``/-/feeds/left.atom`` and ``/-/feeds/movers.atom``.

One entry per repository per score run (the latest runs up to the published one), each linking to
the maker's page. Built with ElementTree, which escapes every text; characters XML cannot carry
are dropped from repository text first.

Bounded: a run gives at most :data:`ENTRIES_PER_RUN` entries (the best-ranked), then one entry
"…and N more" linking to the full list, so a run that lists 40,000 new repositories makes a feed
of some hundreds of kilobytes (it was 23.6 MB, too big for the page cache, built on the event
loop). The feed is read and built in a SQL thread, and kept by the page cache like every page
that follows the published run.

datasette-atom (a renderer for SQL results) was considered: it fails on an empty result
(``max()`` of no rows), would need absolute links built in SQL and pulls in feedgen, lxml and
bleach; these three fixed feeds are simpler by hand.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any
from xml.etree import ElementTree as ET

from datasette import Response

from datasette_plugins.bidi import isolated
from datasette_plugins.cache import cache_control
from datasette_plugins.limits import limits
from datasette_plugins.pages import FEEDS, read
from datasette_plugins.paths import agent_path
from datasette_plugins.reading import ranking_database
from db import directory
from db.breakdown import run_population
from db.listing import reason_parts
from scoring import movement
from scoring.score import shown

ATOM = "http://www.w3.org/2005/Atom"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# Feed and entry ids are tag: URIs (RFC 4151) built from the feed, the score run and the repo id,
# never from public_url: moving the site (or fixing its URL) keeps every id, so readers do not
# show old entries again. The entry's link is the maker's page.
TAG_AUTHORITY = "tag:agentrank,2026:"
RUNS = 8  # score runs a feed covers
MOVERS_PER_RUN = 20
MIN_PLACES = 3  # the movers feed leaves out moves of fewer places
ENTRIES_PER_RUN = 50  # newly listed or left in one run; the rest are one "…and N more" entry
SUMMARY_CHARS = 500
# Characters XML 1.0 does not allow (control characters, lone surrogates, U+FFFE/U+FFFF).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def clean(text: Any, limit: int | None = None, *, isolate: bool = True) -> str:
    """Repo text for XML: characters XML cannot carry dropped, cut to ``limit``, and (``isolate``)
    isolated as a whole. A title isolates the repo's name in it instead, not the whole line."""
    value = _NOT_XML.sub("", "" if text is None else str(text))
    if limit is not None and len(value) > limit:
        value = value[: limit - 1] + "…"
    return isolated(value) if isolate else value


def _category(row: dict[str, Any]) -> str:
    if not row.get("category_name"):
        return ""
    # Marked as on every list: the classifier was not confident about it.
    return f" ({row['category_name']}, uncertain)" if row.get("category_uncertain") else f" ({row['category_name']})"


def _more(kind: str, run: dict[str, Any], shown_count: int, total: int, database: str) -> dict[str, Any]:
    """The entry that stands for the rest of a run's list, linking to where all of it is."""
    more = total - shown_count
    what = "newly listed" if kind == "new" else "that left the list"
    where = f"/{database}/agents" if kind == "new" else f"/{database}/repos?listed=0"
    return {
        "id": f"{TAG_AUTHORITY}feeds/{kind}/run-{run['id']}/more",
        "title": f"…and {more:,} more {'repository' if more == 1 else 'repositories'} {what} in this run",
        "summary": f"This feed shows the {shown_count:,} best-ranked of the {total:,} repositories {what} "
        f"in the run of {run['as_of'][:10]}; the link opens the full list.",
        "path": where,
        "updated": run["as_of"],
    }


def feed_id(kind: str) -> str:
    return f"{TAG_AUTHORITY}feeds/{kind}"


def entry_id(kind: str, run_id: int, repo_id: int) -> str:
    """The same for an entry wherever the directory is served (the run and repo ids, not the host)."""
    return f"{TAG_AUTHORITY}feeds/{kind}/run-{run_id}/repo-{repo_id}"


def _summary(row: dict[str, Any]) -> str:
    """The repo's description, or what the entry says when it has none (every entry has a summary)."""
    if row.get("description"):
        return clean(row["description"], SUMMARY_CHARS)
    return clean(row["title"], isolate=False) + ". The repository has no description on GitHub."


def feed_entries(conn: sqlite3.Connection, kind: str, database: str = "agentrank") -> list[dict[str, Any]]:
    """The entries of one feed, newest run first: name, title, summary, when and a key unique per run.

    At most :data:`ENTRIES_PER_RUN` repos per run (:data:`MOVERS_PER_RUN` movers), then one
    "…and N more" entry linking to the whole list on ``database``'s pages.

    An entry's ``updated`` is when the data behind it was observed (the repo's newest snapshot
    before the score run), else the run's reference time: entries of one run differ as their
    crawls did."""
    entries: list[dict[str, Any]] = []
    for run in directory.score_runs(conn, RUNS):
        start = len(entries)
        _run_entries(conn, kind, run, entries, database)
        repos = [row["repo_id"] for row in entries[start:] if "repo_id" in row]
        observed = directory.observed_times(conn, run["id"], repos)
        for row in entries[start:]:
            if "repo_id" in row:  # not the "…and N more" entry, which keeps the run's time
                row["updated"] = min(observed.get(row["repo_id"], run["as_of"]), run["as_of"])
    return entries


def _run_entries(
    conn: sqlite3.Connection, kind: str, run: dict[str, Any], entries: list[dict[str, Any]], database: str
) -> None:
    previous = run["previous_id"]
    if previous is None:
        return  # the first run: nothing to compare with
    if kind == "new":
        rows = directory.newly_listed(conn, run["id"], previous, ENTRIES_PER_RUN + 1)
        for row in rows[:ENTRIES_PER_RUN]:
            title = f"{isolated(row['full_name'])} is newly listed at #{row['rank']:,}{_category(row)}"
            entries.append({**row, "title": title, "updated": run["as_of"]})
        if len(rows) > ENTRIES_PER_RUN:
            total = directory.newly_listed_count(conn, run["id"], previous)
            entries.append(_more(kind, run, ENTRIES_PER_RUN, total, database))
    elif kind == "left":
        rows = directory.left_list(conn, run["id"], previous, ENTRIES_PER_RUN + 1)
        for row in rows[:ENTRIES_PER_RUN]:
            # As the maker's page says it, a maintainer's reason isolated (it may hold a right-to-left override).
            ours, theirs = reason_parts(row["unlisted_reason"]) if row["unlisted_reason"] else ("", "")
            reason = f": {ours}{isolated(theirs)}" if ours or theirs else ""
            title = f"{isolated(row['full_name'])} left the list (was #{row['previous_rank']:,}){reason}"
            entries.append({**row, "title": title, "updated": run["as_of"]})
        if len(rows) > ENTRIES_PER_RUN:
            total = directory.left_count(conn, run["id"], previous)
            entries.append(_more(kind, run, ENTRIES_PER_RUN, total, database))
    else:
        entries.extend(mover_entries(conn, run["id"], previous, run["as_of"]))


def mover_entries(
    conn: sqlite3.Connection, run_id: int, previous: int, as_of: str, limit: int | None = MOVERS_PER_RUN
) -> list[dict[str, Any]]:
    """One run's biggest movers, each said in words: first the news (moved by its own stars, forks
    or licence), biggest move first, then the noise (its activity bucket, the others' changes);
    ``limit`` of them in all (None: every candidate)."""
    population = movement.sorted_population(run_population(conn, previous))
    pairs = directory.rank_pairs(conn, run_id, previous)
    # Places among the repos ranked in both runs: a repo pushed down by newcomers did not fall.
    moves = [
        {
            **row,
            **movement.classify(
                row["before"],
                row["after"],
                population,
                directory.places_in_both(pairs, row["before"]["rank"], row["after"]["rank"]),
            ),
        }
        for row in directory.movers(conn, run_id, previous)
    ]
    # a place or two is no move worth a feed entry (a tie broken the other way, a neighbour's week)
    moves = [m for m in moves if abs(m["places_up"]) >= MIN_PLACES]
    moves.sort(key=lambda m: (m["kind"] != "news", -abs(m["places_up"]), m["after"]["rank"]))
    entries = []
    for move in moves[:limit]:
        after = move["after"]
        title = movement.title(isolated(move["full_name"]), move, after["rank"])
        score = f"score {shown(move['before']['score']):.1f} → {shown(after['score']):.1f}"
        label = (
            "news: its own stars, forks or licence" if move["kind"] == "news" else "noise: not its own stars or forks"
        )
        entries.append(
            {
                **move,
                "title": f"{title} ({score})",
                "updated": as_of,
                "atom_category": (move["kind"], label),
            }
        )
    return entries


def atom_document(kind: str, entries: list[dict[str, Any]], base: str, updated: str) -> bytes:
    """A valid Atom 1.0 feed (RFC 4287) of ``entries``; ``base`` is the directory's public URL."""
    ET.register_namespace("", ATOM)

    def sub(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> ET.Element:
        element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attributes)
        if text is not None:
            element.text = text
        return element

    feed = ET.Element(f"{{{ATOM}}}feed", {XML_LANG: "en"})
    self_url = f"{base}/-/feeds/{kind}.atom"
    sub(feed, "id", feed_id(kind))
    sub(feed, "title", f"AgentRank: {FEEDS[kind]}")
    sub(feed, "updated", updated)
    sub(feed, "link", rel="self", type="application/atom+xml", href=self_url)
    sub(feed, "link", rel="alternate", type="text/html", href=f"{base}/")
    author = sub(feed, "author")
    sub(author, "name", "AgentRank")
    for row in entries:
        page = base + (row["path"] if "path" in row else agent_path(row["full_name"]))
        entry = sub(feed, "entry")
        if "path" in row:  # "…and N more": to the whole list
            sub(entry, "id", row["id"])
        else:
            sub(entry, "id", entry_id(kind, row["run_id"], row["repo_id"]))
        sub(entry, "title", clean(row["title"], isolate=False))  # its name is isolated already
        sub(entry, "updated", row["updated"])
        sub(entry, "link", rel="alternate", type="text/html", href=page)
        if row.get("atom_category"):
            term, label = row["atom_category"]
            sub(entry, "category", term=term, label=label)
        sub(entry, "summary", row["summary"] if "path" in row else _summary(row), type="text")
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="utf-8", xml_declaration=False)


async def feed(datasette: Any, request: Any) -> Response:
    kind = request.url_vars["kind"]
    database = await ranking_database(datasette)
    if kind not in FEEDS or database is None:
        return Response.text("No such feed: the feeds are " + ", ".join(f"{k}.atom" for k in FEEDS), status=404)

    base = limits(datasette).public_url.rstrip("/")

    def build(conn: sqlite3.Connection) -> bytes:
        # Read and built in a SQL thread: the event loop goes on serving other pages meanwhile.
        run = directory.published_run(conn)
        entries = feed_entries(conn, kind, database.name)
        return atom_document(kind, entries, base, run["as_of"] if run else "1970-01-01T00:00:00Z")

    body = await read(datasette, database, build)
    # Like every page that follows the published run: a refresh shows within cache_max_age.
    control = cache_control(limits(datasette).cache_max_age)
    return Response(body, content_type="application/atom+xml; charset=utf-8", headers={"Cache-Control": control})


ROUTES = [(r"^/-/feeds/(?P<kind>[a-z]+)\.atom$", feed)]
