"""The benchmark methods' pages in a real browser (Debian's chromium through Playwright) against `agentrank serve`.

Screenshots go to test-artifacts/benchmark-*.png.
"""

from __future__ import annotations

import pytest

from tests.methods_helpers import BENCHMARK_PAGES, build_methods_db
from tests.publish_helpers import agentrank_serve, free_port, running
from tests.test_publish_browser import browser, page, shot  # noqa: F401 (pytest fixtures)


@pytest.fixture(scope="module")
def methods_server(tmp_path_factory):
    directory = tmp_path_factory.mktemp("methods")
    db_path = build_methods_db(directory)
    port = free_port()
    with running(agentrank_serve(db_path, port), port, directory / "serve.log") as server:
        yield server


def test_the_over_time_chart_marks_a_version_change_with_a_diamond(page, methods_server):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{methods_server.url}/-/benchmark/over-time/rs9")
    expect(page.locator("h1")).to_have_text("rs9: over time")
    acme = page.locator("section.agentrank-trend", has=page.locator("h2", has_text="acme/coder"))
    # acme/coder moved from 1.0 to 1.1 between the two runs: one diamond per panel (tasks passed, cost per pass).
    diamonds = acme.locator("svg .agentrank-diamond")
    expect(diamonds).to_have_count(2)
    expect(diamonds.first.locator("title")).to_contain_text("version changed (1.0 → 1.1")
    expect(acme.locator("svg circle")).to_have_count(2)  # the first run is a plain point in both panels
    # The agent is a listed repo: its name links to the maker's page.
    expect(acme.locator("h2 a.agentrank-breakdown")).to_have_attribute("href", "/-/agent/acme/coder")
    closed = page.locator("section.agentrank-trend", has=page.locator("h2", has_text="Closed Agent X"))
    expect(closed.locator("svg .agentrank-diamond")).to_have_count(0)  # same version both runs: no diamond
    expect(closed.locator("svg text.agentrank-unknown").first).to_contain_text("—")  # price unknown, never $0
    diamonds.first.hover()
    shot(page, "benchmark-over-time")
    assert page.errors == []


def test_a_run_page_has_full_results_and_a_json_download(page, methods_server):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{methods_server.url}/-/benchmark/runs/rs9/2026-11-01")
    rows = page.locator("table.agentrank-run tbody tr")
    expect(rows).to_have_count(4)
    expect(rows.nth(0)).to_contain_text("Closed Agent X")
    expect(rows.nth(0)).to_contain_text("price unknown")
    acme = rows.nth(1)
    expect(acme).to_contain_text("50.0")  # 1 of 2 counted tasks passed
    expect(acme).to_contain_text("1 of 2 (1 infrastructure error left out)")
    expect(acme).to_contain_text("87.5")  # partial credit
    expect(acme).to_contain_text("$0.40 (lower bound) (list price)")  # a cost always prints its source
    expect(rows.nth(2)).to_contain_text("— (not ranked: 1 of 3 tasks)")  # late/agent: listed, no rank
    expect(rows.nth(3)).to_contain_text("accounts/fireworks/models/qwen3-coder-480b-a35b-instruct")
    with page.expect_download() as download:
        page.locator("a.agentrank-download").click()
    assert download.value.suggested_filename.endswith(".json")
    page.locator("details.agentrank-results").nth(1).locator("summary").click()
    shot(page, "benchmark-run")
    assert page.errors == []


def test_the_index_page_shows_version_components_and_the_missing_suite(page, methods_server):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{methods_server.url}/-/benchmark/index")
    expect(page.locator("section.agentrank-index h2")).to_have_text("Coding Agent Index v1.5")
    expect(page.locator("section.agentrank-index")).to_contain_text("Components, equal weights: deep, term, qna.")
    rows = page.locator("section.agentrank-index table.agentrank-index-entries tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator("td.agentrank-value")).to_have_text("66.7")  # pass@1 (100 + 100 + 0) / 3
    expect(rows.nth(1).locator("td.agentrank-value")).to_contain_text("no counted attempt in qna")
    # The efficiency means per token type and the index's version history.
    expect(rows.nth(0)).to_contain_text("input 2,000 · cached 500 · cache write 100 · reasoning — · output 2,000")
    expect(rows.nth(0)).to_contain_text("1 min 20 s agent")  # 80 s, as people read a duration
    expect(page.locator("section.agentrank-index")).to_contain_text("Version history")
    expect(page.locator("section.agentrank-index")).to_contain_text("v1.5 (current)")
    shot(page, "benchmark-index")
    assert page.errors == []


def test_the_fitscore_page_shows_judgement_calls_and_marks_the_figure_that_does_not_recompute(page, methods_server):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{methods_server.url}/-/benchmark/fitscore")
    table = page.locator("table.agentrank-fitscores tbody tr")
    expect(table).to_have_count(5)
    expect(table.nth(0)).to_contain_text("Claude Code")
    expect(table.nth(0).locator("td.agentrank-value")).to_have_text("94")
    mismatch = page.locator("ul.agentrank-judgements li.agentrank-mismatch")
    expect(mismatch).to_have_count(1)
    expect(mismatch).to_contain_text("setup counted from the install")
    expect(mismatch).to_contain_text("The published figure 77 does not recompute: the formula gives 75.")
    expect(page.locator("ul.agentrank-judgements li", has_text="T4 claims over-broad")).to_contain_text("85")
    shot(page, "benchmark-fitscore")
    assert page.errors == []


def test_a_task_page_shows_its_validation_and_the_attempts_kept_apart(page, methods_server):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{methods_server.url}/-/benchmark/tasks/rs9/t4")
    expect(page.locator("p.agentrank-mismatch")).to_contain_text("the untouched code passes 5 of 5 hidden tests")
    expect(page.locator("tbody tr").last).to_contain_text("no: failed validation")
    # Hostile text in an agent's name is shown as text, never run.
    expect(page.locator("body")).to_contain_text('<img src=x onerror="window.__agentrank_xss = 3">')
    assert page.evaluate("window.__agentrank_xss") is None
    shot(page, "benchmark-task")
    assert page.errors == []


def test_the_leaderboard_has_a_board_per_suite_and_says_why_an_entry_has_no_rank(page, methods_server):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{methods_server.url}/-/leaderboard")
    verified = page.locator("section#verified")
    # The methods database has several suites: each is a board of its own, ranks restart at 1.
    assert verified.locator("h3").count() >= 3
    rs9 = verified.locator("h3", has_text="Suite rs9").locator("xpath=following-sibling::table[1]")
    expect(rs9.locator("tbody tr").first.locator("td").first).to_have_text("#1")
    # An entry that attempted part of the suite is listed with "n of m tasks" and no rank.
    expect(rs9.locator("tbody tr", has_text="late/agent").locator("td").first).to_have_text("— (1 of 3 tasks)")
    # Variants of one agent version and model are told apart by their settings.
    expect(verified).to_contain_text("reasoning=low")
    # The methods' pages are one click away.
    expect(page.locator("a[href='/-/benchmark']").first).to_be_visible()
    shot(page, "benchmark-leaderboard")
    assert page.errors == []


# Every table box wider than its room (it would scroll inside itself, clipped) and every key figure
# (rank, agent, headline or score, cost: td.ar-key) that is off screen or hidden.
_TABLE_RULE = """() => {
  const width = document.documentElement.clientWidth;
  const clipped = Array.from(document.querySelectorAll("table, .agentrank-scroll"))
    .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
    .map(e => `${e.className}: ${e.scrollWidth} > ${e.clientWidth}`);
  const keys = Array.from(document.querySelectorAll("td.ar-key")).filter(e => e.offsetParent !== null);
  const offscreen = keys.filter(e => {
    const box = e.getBoundingClientRect();
    return box.width === 0 || box.left < 0 || box.right > width + 1;
  }).map(e => e.dataset.label + ": " + e.textContent.trim().slice(0, 40));
  // On a phone each row is a card as wide as the text column.
  const narrow = width >= 760 ? [] : Array.from(document.querySelectorAll("table.ar-cards tbody tr"))
    .filter(e => e.offsetParent !== null)
    .filter(e => e.getBoundingClientRect().width < 0.9 * e.closest("table").parentElement.clientWidth)
    .map(e => e.textContent.trim().slice(0, 40));
  return {scroll: document.documentElement.scrollWidth, clipped, keys: keys.length, offscreen, narrow};
}"""


@pytest.mark.parametrize("width", [1400, 1024, 800, 390])
@pytest.mark.parametrize("path", BENCHMARK_PAGES)
def test_benchmark_tables_are_readable_on_a_wide_screen_and_a_phone(browser, methods_server, path, width):  # noqa: F811
    """At 1,400 px nothing is clipped in a scroll box; at 390 px the page never scrolls sideways and the key
    figures of every row (rank, agent, headline or score, cost) are on screen: each row is a card. A laptop
    or tablet window (1,024 and 800 px) scrolled sideways on six pages: a table that does not fit is cards."""
    view = browser.new_page(viewport={"width": width, "height": 900})
    view.goto(f"{methods_server.url}{path}")
    found = view.evaluate(_TABLE_RULE)
    name = path.strip("/").replace("/", "-").replace("-", "_") or "home"
    shot(view, f"benchmark-table-{name}-{width}")
    view.close()
    assert found["scroll"] <= width, (path, width, found)
    assert found["clipped"] == [], (path, width, found)
    assert found["offscreen"] == [], (path, width, found)
    assert found["narrow"] == [], (path, width, found)
    if path not in ("/-/benchmark/over-time/rs9",):
        assert found["keys"] > 0, (path, "no key figures marked")


def test_the_hub_is_one_click_from_home_and_every_benchmark_page(page, methods_server):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{methods_server.url}/")
    page.locator("a[href='/-/benchmark']").first.click()
    expect(page.locator("h1")).to_have_text("Task benchmark")
    for label, heading in (
        ("AiFolder scorecard", "AiFolder scorecard"),
        ("Indexes", "Indexes"),
        ("FitScore", "FitScore"),
        ("Verified leaderboard", "Benchmark leaderboards"),
    ):
        page.locator("nav.agentrank-bench-nav a", has_text=label).click()
        expect(page.locator("h1")).to_have_text(heading)
        page.locator("nav.agentrank-bench-nav a", has_text="Benchmark hub").click()
        expect(page.locator("h1")).to_have_text("Task benchmark")
    page.locator("a[href='/-/benchmark/runs/rs9/2026-11-01']").first.click()
    expect(page.locator("h1")).to_have_text("rs9: run of 2026-11-01")
    page.locator("a", has_text="rs9 over time").click()
    expect(page.locator("h1")).to_have_text("rs9: over time")
    assert page.errors == []


def test_a_table_too_wide_for_paper_prints_as_cards(browser, methods_server):  # noqa: F811
    """A table that fit a wide screen printed as a box cut at the page edge (print is about 700 px)."""
    view = browser.new_page(viewport={"width": 1400, "height": 900})
    view.goto(f"{methods_server.url}/-/leaderboard")
    cards = "() => document.querySelectorAll('table.ar-cards.ar-as-cards').length"
    wide = "() => Array.from(document.querySelectorAll('table.ar-cards')).filter(t => t.getBoundingClientRect().width > 680).length"
    on_screen, too_wide = view.evaluate(cards), view.evaluate(wide)
    view.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    printed = view.evaluate(cards)
    view.evaluate("() => window.dispatchEvent(new Event('afterprint'))")
    after = view.evaluate(cards)
    view.close()
    assert on_screen == 0 and too_wide > 0
    assert printed >= too_wide and after == 0
