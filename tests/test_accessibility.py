"""Accessibility of the project's pages: axe-core (the engine shipped in the ``axe-playwright-python``
package) in Debian's Chromium finds no serious or critical violation; and, without a browser,
every page has a language, one ``<main>`` landmark and no id with a space in it.

What axe still reports is moderate or minor: ``heading-order`` on Datasette's own table and query
pages (its forms put an ``<h3>`` under the ``<h1>``), ``landmark-unique`` on the home page, and
``empty-table-header`` on the benchmark home (docs/publishing.md, "Accessibility").
"""

from __future__ import annotations

import re

import pytest

from tests.test_publish_browser import browser  # noqa: F401  (the browser fixture)

# The project's own pages, and Datasette's pages as the plugin dresses them.
PAGES = [
    "/",
    "/agentrank/agents",
    "/agentrank/agents?_view=table",
    "/agentrank/agents?_sort=stars&category=coding",
    "/agentrank",
    "/agentrank?sql=select+1",
    "/agentrank/scores",
    "/agentrank/top_agents",
    "/agentrank/category_review",
    "/-/agent/{top}",
    "/-/category/coding",
    "/-/owner/{owner}",
    "/-/method",
    "/-/movers",
    "/-/leaderboard",
    "/-/benchmark",
    "/-/benchmark/index",
    "/-/benchmark/fitscore",
    "/-/benchmark/scorecard",
    "/-/benchmark/over-time/demo-pack",
    "/-/agent/no-such/repo",
]


def top_and_owner(url: str) -> dict[str, str]:
    import httpx

    top = httpx.get(f"{url}/agentrank/agents.json?_shape=array&_size=1", timeout=30).json()[0]["full_name"]
    return {"top": top, "owner": top.split("/")[0]}


@pytest.fixture(scope="module")
def axe():
    return pytest.importorskip("axe_playwright_python.sync_playwright").Axe()


@pytest.fixture(scope="module")
def names(demo_server):
    return top_and_owner(demo_server.url)


# One test per page: a failure names its page, and xdist deals the file out among the others (as one
# test of 25 s it was dealt out last and kept a worker busy after the rest had finished).
@pytest.mark.parametrize("path", PAGES)
def test_axe_finds_no_serious_or_critical_violation(browser, demo_server, axe, names, path):  # noqa: F811
    page = browser.new_page()
    page.goto(demo_server.url + path.format(**names))
    page.wait_for_load_state("load")
    violations = axe.run(page).response["violations"]
    page.close()
    bad = [
        f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]
    assert bad == []


def test_every_page_has_a_language_one_main_and_ids_without_spaces(demo_server):
    import httpx

    names = top_and_owner(demo_server.url)
    for path in [*PAGES, "/-/benchmark/index"]:
        html = httpx.get(demo_server.url + path.format(**names), timeout=30).text
        assert re.search(r'<html lang="en">', html), path
        assert len(re.findall(r"<main[\s>]", html)) == 1, path
        ids = re.findall(r'\sid="([^"]*)"', html)
        assert ids and not [i for i in ids if not i or re.search(r"\s", i)], (path, ids)
