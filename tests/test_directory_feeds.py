"""The Atom feeds: parsed as Atom, exactly the repos newly listed (or gone) in the latest run, hostile text escaped."""

from __future__ import annotations

import re
import sqlite3
from xml.etree import ElementTree as ET

import pytest

from agentrank.config import ServeConfig
from agentrank.serve import build_datasette
from tests.publish_helpers import HOSTILE_NEW_NAME, HOSTILE_TEXT

A = "{http://www.w3.org/2005/Atom}"
BASE = "https://agentrank.example"


@pytest.fixture(scope="module")
def datasette(directory_db):
    return build_datasette(directory_db.path, ServeConfig(heap_limit_mb=0, public_url=BASE))


async def parsed(datasette, kind: str) -> ET.Element:
    response = await datasette.client.get(f"/-/feeds/{kind}.atom")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/atom+xml; charset=utf-8"
    root = ET.fromstring(response.content)
    # RFC 4287: a feed has an id, a title, an updated date, an author and a self link; each entry an
    # id, a title, an updated date and (here) a link to the maker's page.
    assert root.tag == f"{A}feed"
    for tag in ("id", "title", "updated", "author"):
        assert root.find(f"{A}{tag}") is not None, tag
    assert root.find(f"{A}link[@rel='self']").get("href") == f"{BASE}/-/feeds/{kind}.atom"
    ids = [e.findtext(f"{A}id") for e in root.iter(f"{A}entry")]
    assert len(ids) == len(set(ids))  # one entry per repo per run
    for entry in root.iter(f"{A}entry"):
        assert entry.findtext(f"{A}title") and entry.findtext(f"{A}updated").endswith("Z")
        assert entry.find(f"{A}link[@rel='alternate']").get("href").startswith(f"{BASE}/-/agent/")
    return root


def linked_names(root: ET.Element) -> list[str]:
    prefix = f"{BASE}/-/agent/"
    return [e.find(f"{A}link").get("href").removeprefix(prefix) for e in root.iter(f"{A}entry")]


@pytest.mark.asyncio
async def test_new_feed_lists_exactly_the_newly_listed_repos(datasette, directory_db):
    conn = sqlite3.connect(directory_db.path)
    published, previous = conn.execute(
        "select score_run_id, (select max(id) from runs where kind = 'score' and status = 'ok' and id < score_run_id) "
        "from published"
    ).fetchone()
    expected = {
        name
        for (name,) in conn.execute(
            "select full_name from scores where run_id = ? and repo_id not in (select repo_id from scores where run_id = ?)",
            [published, previous],
        )
    }
    root = await parsed(datasette, "new")
    assert len(expected) == 4 and set(linked_names(root)) == expected and len(linked_names(root)) == 4
    hostile = next(e for e in root.iter(f"{A}entry") if e.find(f"{A}link").get("href").endswith(HOSTILE_NEW_NAME))
    summary = hostile.findtext(f"{A}summary")
    # The text itself, cut short, inside a bidi isolate so its RTL override cannot spill over.
    assert summary == "\u2068" + HOSTILE_TEXT[:499] + "…" + "\u2069"


@pytest.mark.asyncio
async def test_left_feed_lists_the_repos_that_left(datasette, directory_db):
    conn = sqlite3.connect(directory_db.path)
    archived = {r[0] for r in conn.execute("select full_name from repos where unlisted_reason = 'archived'")}
    root = await parsed(datasette, "left")
    assert set(linked_names(root)) == archived and len(archived) == 2
    # In the maker's page's words, not the stored code.
    assert all(
        e.findtext(f"{A}title").endswith("it is archived on GitHub, and archived repositories are not listed")
        for e in root.iter(f"{A}entry")
    )


def test_a_feed_title_isolates_the_name_not_the_whole_line():
    from datasette_plugins.feeds import atom_document, isolated

    name = "rtl-owner/rtl\u202eevil"
    assert isolated(name) == "\u2068" + name + "\u2069" and isolated("plain/name") == "plain/name"
    entry = {"full_name": name, "title": f"{isolated(name)} moved up 2 places to #3", "run_id": 1, "repo_id": 2}
    document = atom_document("movers", [{**entry, "updated": "2026-11-30T06:00:00Z"}], BASE, "2026-11-30T06:00:00Z")
    title = ET.fromstring(document).find(f"{A}entry/{A}title").text
    assert title == "\u2068" + name + "\u2069 moved up 2 places to #3"  # what follows the name reads as written


@pytest.mark.asyncio
async def test_movers_feed_and_its_escaping(datasette):
    root = await parsed(datasette, "movers")
    titles = [e.findtext(f"{A}title") for e in root.iter(f"{A}entry")]
    assert 0 < len(titles) <= 20 and all(
        re.search(r" (rose|fell|moved (up|down)) [\d,]+ places? to #", t) for t in titles
    )
    raw = (await datasette.client.get("/-/feeds/new.atom")).text
    assert "<script>" not in raw and "<b onmouseover" not in raw and "&lt;script&gt;" in raw


@pytest.mark.asyncio
async def test_unknown_feed_is_a_404(datasette):
    assert (await datasette.client.get("/-/feeds/nothing.atom")).status_code == 404


def test_text_xml_cannot_carry_is_dropped():
    from datasette_plugins.feeds import atom_document

    entry = {"full_name": "a/b", "title": "bad \x00\x1b title", "description": "x\x0cy", "run_id": 1, "repo_id": 2}
    document = atom_document("new", [{**entry, "updated": "2026-11-30T06:00:00Z"}], BASE, "2026-11-30T06:00:00Z")
    root = ET.fromstring(document)
    assert root.find(f"{A}entry/{A}title").text == "bad  title" and root.find(f"{A}entry/{A}summary").text == "xy"


@pytest.mark.asyncio
async def test_entry_ids_do_not_change_with_the_public_url(datasette, directory_db):
    elsewhere = build_datasette(directory_db.path, ServeConfig(heap_limit_mb=0, public_url="https://moved.example/ar"))
    for kind in ("new", "left", "movers"):
        here, there = (
            await parsed(datasette, kind),
            ET.fromstring((await elsewhere.client.get(f"/-/feeds/{kind}.atom")).content),
        )
        ids = [e.findtext(f"{A}id") for e in here.iter(f"{A}entry")]
        assert ids and ids == [e.findtext(f"{A}id") for e in there.iter(f"{A}entry")]
        assert here.findtext(f"{A}id") == there.findtext(f"{A}id")
        # tag: URIs (RFC 4151) from the feed, the run and the repo: no host in them.
        assert all(i.startswith("tag:agentrank,2026:feeds/") and "example" not in i for i in ids)
        # The links do move with the site.
        assert there.find(f"{A}entry/{A}link").get("href").startswith("https://moved.example/ar/-/agent/")


@pytest.mark.asyncio
async def test_every_entry_has_a_summary_a_language_and_a_link_that_resolves(datasette):
    for kind in ("new", "left", "movers"):
        root = await parsed(datasette, kind)
        assert root.get("{http://www.w3.org/XML/1998/namespace}lang") == "en"
        for entry in root.iter(f"{A}entry"):
            assert entry.findtext(f"{A}summary"), entry.findtext(f"{A}title")
            link = entry.find(f"{A}link").get("href").removeprefix(BASE)
            assert (await datasette.client.get(link)).status_code == 200, link


def test_an_entry_without_description_says_so_in_its_summary():
    from datasette_plugins.feeds import atom_document

    entry = {"full_name": "a/b", "title": "a/b is newly listed at #3", "description": None, "run_id": 1, "repo_id": 2}
    root = ET.fromstring(
        atom_document("new", [{**entry, "updated": "2026-11-30T06:00:00Z"}], BASE, "2026-11-30T06:00:00Z")
    )
    assert (
        root.findtext(f"{A}entry/{A}summary")
        == "a/b is newly listed at #3. The repository has no description on GitHub."
    )


def test_entries_of_one_run_are_updated_when_their_data_was_observed(directory_db, tmp_path):
    import shutil

    from datasette_plugins.feeds import feed_entries

    copy = tmp_path / "copy.db"
    shutil.copy(directory_db.path, copy)
    conn = sqlite3.connect(copy)
    conn.row_factory = sqlite3.Row
    entries = feed_entries(conn, "movers")
    run_id = entries[0]["run_id"]
    first, second = [e["repo_id"] for e in entries if e["run_id"] == run_id][:2]
    # Crawled at different times before the run (as a real crawl of many pages is).
    conn.execute(
        "update snapshots set observed_at = '2026-11-29T10:00:00Z' where repo_id = ? and run_id < ?", [first, run_id]
    )
    conn.execute(
        "update snapshots set observed_at = '2026-11-29T11:30:00Z' where repo_id = ? and run_id < ?", [second, run_id]
    )
    updated = {e["repo_id"]: e["updated"] for e in feed_entries(conn, "movers") if e["run_id"] == run_id}
    assert updated[first] == "2026-11-29T10:00:00Z" and updated[second] == "2026-11-29T11:30:00Z"
