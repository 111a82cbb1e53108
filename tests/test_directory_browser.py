"""The directory pages in a real browser (Debian's chromium via Playwright) at 1,400 px and 390 px.

Layout figures are measured in the page: how tall 50 rows are, where the first row starts, and that
nothing is wider than the screen. Screenshots go to test-artifacts/directory-*.png.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

import pytest

from tests.publish_helpers import HOSTILE_NEW_NAME, XSS_NAME
from tests.test_publish_browser import browser, shot  # noqa: F401  (the browser fixture)

WIDTHS = {"desktop": {"width": 1400, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=list(WIDTHS))
def view(request, browser):  # noqa: F811
    size = WIDTHS[request.param]
    context = browser.new_context(viewport=size, is_mobile=request.param == "phone")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.label, page.size = request.param, size
    yield page
    context.close()


def figures(page) -> dict:
    return page.evaluate(
        """() => {
          const first = document.querySelector('.ar-line');
          return {
            height: document.documentElement.scrollHeight,
            width: document.documentElement.scrollWidth,
            first_top: first ? first.getBoundingClientRect().top + window.scrollY : null,
            lines: document.querySelectorAll('.ar-line').length,
          };
        }"""
    )


def no_sideways_scroll(page) -> None:
    assert figures(page)["width"] <= page.size["width"], f"{page.url} scrolls sideways at {page.size['width']} px"


def nothing_hidden_in_a_box(page) -> None:
    """No table (or scroll box) is wider than the room it has: a column scrolled out of sight inside a
    box passes the page-width check but hides a figure on a phone."""
    clipped = page.evaluate(
        """() => Array.from(document.querySelectorAll("main table, main .agentrank-scroll"))
          .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
          .map(e => `${e.className || e.tagName}: ${e.scrollWidth} > ${e.clientWidth}`)"""
    )
    assert not clipped, f"{page.url} at {page.size['width']} px: {clipped}"


@pytest.mark.parametrize("width", [1024, 1200])
def test_the_home_ranking_reads_in_a_laptop_window(browser, directory_server, width):  # noqa: F811
    """Between 900 and about 1,250 px the side column left the ranking too little room for its fixed
    columns: each name was a column one letter wide and 700 px tall, and "pushed …" ran into the side."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(directory_server.url + "/")
    names = page.evaluate(
        """() => Array.from(document.querySelectorAll('.ar-top .ar-name')).map(a => {
          const box = a.getBoundingClientRect();
          return [a.textContent, box.width, box.height];
        })"""
    )
    overlap = page.evaluate(
        """() => {
          const side = document.querySelector('.ar-home-side').getBoundingClientRect().left;
          return Array.from(document.querySelectorAll('.ar-top .ar-line > *'))
            .filter(e => e.getBoundingClientRect().right > side + 1).length;
        }"""
    )
    shot(page, f"directory-home-{width}", full_page=False)
    width_now = page.evaluate("document.documentElement.scrollWidth")
    page.close()
    assert names and all(h < 60 for _, _, h in names), [n for n in names if n[2] >= 60][:3]
    assert overlap == 0 and width_now <= width


def test_home(view, directory_server):
    from playwright.sync_api import expect

    view.goto(directory_server.url + "/")
    expect(view.locator("#ar-search")).to_be_visible()
    expect(view.locator(".ar-category-grid li")).to_have_count(15)
    expect(view.locator(".ar-top .ar-line")).to_have_count(25)
    # The ranking comes first: the search is above it and the first row is on the first screen.
    first = view.locator(".ar-top .ar-line").first.bounding_box()
    search = view.locator("#ar-search").bounding_box()
    assert search["y"] < first["y"] and first["y"] + first["height"] <= view.size["height"], (first, view.size)
    shot(view, f"directory-home-fold-{view.label}", full_page=False)
    expect(view.locator(".ar-new .ar-line")).to_have_count(4)
    assert view.locator('link[rel=alternate][type="application/atom+xml"]').count() == 3
    no_sideways_scroll(view)
    shot(view, f"directory-home-{view.label}")
    # Searching from the home page lands on the ranking, filtered.
    view.fill("#ar-search", "security")
    view.locator("#ar-search").press("Enter")
    expect(view.locator(".ar-line a.agentrank-breakdown", has_text=XSS_NAME)).to_be_visible()
    assert view.evaluate("window.__agentrank_xss") is None and not view.errors


def test_compact_list(view, directory_server):
    from playwright.sync_api import expect

    view.goto(directory_server.url + "/agentrank/agents")
    expect(view.locator(".ar-line")).to_have_count(50)
    measured = figures(view)
    assert measured["first_top"] < view.size["height"], measured  # the first row is above the fold
    if view.label == "desktop":
        assert measured["height"] < 5000, measured
    no_sideways_scroll(view)
    shot(view, f"directory-agents-{view.label}", full_page=False)
    # The description is one line, however long (the hostile one is 10,000 characters).
    view.goto(directory_server.url + "/agentrank/agents?_search=gnp")
    line = view.locator(".ar-line", has_text=HOSTILE_NEW_NAME)
    expect(line).to_have_count(1)
    assert line.locator(".ar-desc").evaluate("e => e.getBoundingClientRect().height") < 30
    no_sideways_scroll(view)
    assert view.evaluate("window.__agentrank_xss") is None
    shot(view, f"directory-agents-hostile-{view.label}", full_page=False)
    # Datasette's full table view ends with the table's schema, whose index names are long words.
    view.goto(directory_server.url + "/agentrank/agents?_view=table")
    expect(view.locator("pre.wrapped-sql").first).to_be_visible()
    no_sideways_scroll(view)


def test_category_and_owner_pages(view, directory_server, directory_db):
    from playwright.sync_api import expect

    view.goto(f"{directory_server.url}/-/category/{directory_db.category}")
    expect(view.locator("h1")).to_be_visible()
    assert view.locator(".ar-ranking .ar-line").count() >= 5
    # The ranking leads, as on the home page: its first row is on the first screen.
    first = view.locator(".ar-ranking .ar-line").first.bounding_box()
    assert first["y"] + first["height"] <= view.size["height"], (first, view.size)
    no_sideways_scroll(view)
    shot(view, f"directory-category-{view.label}")
    view.goto(f"{directory_server.url}/-/owner/{HOSTILE_NEW_NAME.split('/')[0]}")
    expect(view.locator(".ar-line")).to_have_count(1)
    no_sideways_scroll(view)
    assert view.evaluate("window.__agentrank_xss") is None
    shot(view, f"directory-owner-{view.label}")
    view.goto(f"{directory_server.url}/-/owner/nobody-at-all")
    expect(view.locator("h1")).to_have_text("Owner not found")
    view.locator("a.ar-home").click()
    expect(view.locator("#ar-search")).to_be_visible()


def test_makers_page_history_and_badge(view, directory_server, directory_db):
    from playwright.sync_api import expect

    view.goto(f"{directory_server.url}/-/agent/{directory_db.top_name}")
    chart = view.locator("svg.history-chart")
    expect(chart).to_be_visible()
    box = chart.bounding_box()
    assert box["height"] > 100 and box["width"] <= view.size["width"]
    expect(chart.locator("polyline")).to_have_count(3)
    # Dated: the axis labels are dates, and the runs sit where their dates put them.
    dates = chart.locator("text.history-date").all_text_contents()
    assert len(dates) >= 2 and all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", d) for d in dates), dates
    assert chart.locator("text.history-value").count() == 6  # each panel's scale
    badge = view.locator(".agentrank-badge img")
    badge.scroll_into_view_if_needed()
    assert badge.evaluate("img => img.complete && img.naturalWidth") > 100  # the badge loaded and has width
    score = view.locator(".agentrank-score strong").inner_text()
    no_sideways_scroll(view)
    expect(view.locator("table.agentrank-change-table")).to_have_count(1)
    nothing_hidden_in_a_box(view)  # the score change's Points column included
    view.locator(".agentrank-history").scroll_into_view_if_needed()
    shot(view, f"directory-makers-history-{view.label}", full_page=False)
    view.goto(f"{directory_server.url}/-/agent/{directory_db.top_name}/badge.svg")
    assert f"{score} · #1" in view.locator("svg").text_content()
    shot(view, f"directory-badge-{view.label}", full_page=False)


def test_feed_and_leaderboard(view, directory_server, directory_db):
    from playwright.sync_api import expect

    response = view.goto(f"{directory_server.url}/-/feeds/new.atom")
    assert response.status == 200 and response.headers["content-type"].startswith("application/atom+xml")
    root = ET.fromstring(response.body())
    assert len(root.findall("{http://www.w3.org/2005/Atom}entry")) == 4
    shot(view, f"directory-feed-{view.label}", full_page=False)
    view.goto(f"{directory_server.url}/-/leaderboard")
    expect(view.locator("section.ar-tier")).to_have_count(2)
    expect(view.locator("#verified a.agentrank-breakdown").first).to_have_text(directory_db.top_name)
    no_sideways_scroll(view)
    shot(view, f"directory-leaderboard-{view.label}")
    view.goto(f"{directory_server.url}/-/method")
    expect(view.locator("form.ar-reweight input")).to_have_count(5)
    assert "select " not in view.locator("main, .content, body").first.inner_text().lower()
    no_sideways_scroll(view)
    nothing_hidden_in_a_box(view)  # the weights table's last column too
    shot(view, f"directory-method-{view.label}")
    view.goto(f"{directory_server.url}/-/movers")  # the directory has two runs: who moved, in words
    expect(view.locator("h1")).to_have_text("The week's biggest movers")
    no_sideways_scroll(view)
    shot(view, f"directory-movers-{view.label}")
    view.goto(f"{directory_server.url}/agentrank/verified_leaderboard")
    first_row = view.locator("table.rows-and-columns tbody tr").first
    assert first_row.bounding_box()["y"] < view.size["height"]  # the SQL is folded away: rows come first
    shot(view, f"directory-leaderboard-query-{view.label}", full_page=False)


def _weights_order(view) -> list[str]:
    return view.locator("#ar-weights-list .ar-weights-name").all_inner_texts()


def test_your_own_weights_reranks_in_the_browser(view, directory_server):
    """Moving a weight re-ranks the list at once, says how far each repo moved against the
    published rank, keeps the weights in a shareable URL, and shows no SQL."""
    from playwright.sync_api import expect

    view.goto(directory_server.url + "/-/weights")
    expect(view.locator("#ar-weights-list .ar-weights-row")).to_have_count(100)
    published = _weights_order(view)
    published_scores = view.locator("#ar-weights-list .ar-weights-score").all_inner_texts()
    assert view.locator("#ar-weights-list .ar-weights-moved").first.inner_text() == "= published #1"
    page_text = view.locator("body").inner_text().lower()
    assert "select " not in page_text and "w_popularity" not in page_text
    no_sideways_scroll(view)
    shot(view, f"directory-weights-{view.label}", full_page=False)
    # All weight on activity (the days since the last push): the order changes without a reload.
    for name in ("popularity", "adoption", "momentum", "openness"):
        view.fill(f"#w-{name}", "0")
    view.fill("#w-activity", "100")
    expect(view.locator("#r-activity")).to_have_value("100")
    changed = _weights_order(view)
    assert changed != published
    assert "weights?" in view.url and "activity=100" in view.url and "popularity=0" in view.url
    moved = view.locator("#ar-weights-list .ar-weights-moved").all_inner_texts()
    assert any(m.startswith(("▲", "▼")) for m in moved), moved[:5]
    shot(view, f"directory-weights-moved-{view.label}", full_page=False)
    # The shared URL shows the same order straight from the server.
    shared = view.url
    view.goto(shared)
    assert _weights_order(view) == changed
    # A slider moves the number with it.
    view.locator("#r-popularity").fill("40")
    expect(view.locator("#w-popularity")).to_have_value("40")
    # Back at the published weights, the script gives every repo its published place and score.
    for name, weight in (("popularity", 30), ("adoption", 20), ("activity", 25), ("momentum", 15), ("openness", 10)):
        view.fill(f"#w-{name}", str(weight))
    expect(view.locator("#ar-weights-list .ar-weights-moved").first).to_have_text("= published #1")
    assert _weights_order(view) == published
    assert view.locator("#ar-weights-list .ar-weights-score").all_inner_texts() == published_scores
    expect(view.locator("#ar-weights-note")).to_be_hidden()
    # Every weight at 0 ranks nothing: the published order stays, and the page says why.
    for name in ("popularity", "adoption", "activity", "momentum", "openness"):
        view.fill(f"#w-{name}", "0")
    expect(view.locator("#ar-weights-note")).to_have_text(
        "Every weight is 0, which ranks nothing: the published weights are used."
    )
    assert _weights_order(view) == published
    assert view.locator("#ar-weights-list .ar-weights-score").all_inner_texts() == published_scores


def test_compare_page(view, directory_server, directory_db):
    from playwright.sync_api import expect

    view.goto(f"{directory_server.url}/-/agent/{directory_db.top_name}")
    view.locator("a", has_text="compare with others").click()
    expect(view.locator(".ar-compare-table thead th a")).to_have_count(1)
    view.goto(f"{directory_server.url}/agentrank/agents")
    names = view.locator(".ar-line a.agentrank-breakdown").all_inner_texts()[:3]
    query = "&".join(f"repo={n}" for n in names)
    view.goto(f"{directory_server.url}/-/compare?{query}&repo={names[0]}x")
    expect(view.locator(".ar-compare-table thead th a")).to_have_count(3)
    expect(view.locator(".ar-compare-table tbody tr")).to_have_count(3 + 5)  # score, rank, category, 5 components
    expect(view.locator(".agentrank-did-you-mean, .agentrank-note", has_text="Did you mean")).to_be_visible()
    charts = view.locator(".ar-compare-chart svg.history-chart")
    expect(charts).to_have_count(3)
    expect(charts.first.locator("polyline")).to_have_count(3)
    dates = charts.first.locator("text.history-date").all_text_contents()
    assert dates and all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", d) for d in dates), dates
    no_sideways_scroll(view)
    nothing_hidden_in_a_box(view)  # on a phone the table turns into one card per figure
    shot(view, f"directory-compare-{view.label}")
    # A name as long as GitHub allows, one word: the table's heading and the charts' legend wrap it.
    view.goto(f"{directory_server.url}/-/compare?{query}&repo={HOSTILE_NEW_NAME}")
    expect(view.locator(".ar-compare-table thead th a")).to_have_count(4)
    no_sideways_scroll(view)


def test_the_review_queue_with_its_sql_shown_fits_a_phone(view, directory_server):
    # "(show)" opens ?_show_sql=1: the canned query's SQL, one long unwrapped line, made the page
    # 1,153 px wide on a 390 px phone.
    view.goto(f"{directory_server.url}/agentrank/category_review?_show_sql=1")
    assert view.locator("#sql-query").count() == 1
    no_sideways_scroll(view)


def test_compare_says_which_name_it_left_out_and_fits_a_phone(view, directory_server):
    from playwright.sync_api import expect

    from datasette_plugins.pages import COMPARE_MOST

    view.goto(f"{directory_server.url}/agentrank/agents")
    names = view.locator(".ar-line a.agentrank-breakdown").all_inner_texts()[:COMPARE_MOST]
    # the longest name GitHub allows, one word, is the one left out
    query = "&".join(f"repo={n}" for n in [*names, HOSTILE_NEW_NAME])
    view.goto(f"{directory_server.url}/-/compare?{query}")
    expect(view.locator(".ar-compare-table thead th a")).to_have_count(COMPARE_MOST)
    note = view.locator(".ar-left-out")
    expect(note).to_be_visible()
    expect(note).to_contain_text(f"Compare shows up to four repositories at a time: {HOSTILE_NEW_NAME} was left out.")
    no_sideways_scroll(view)
    shot(view, f"directory-compare-left-out-{view.label}")


def test_the_review_queue_is_headed_by_what_it_lists(view, directory_server):
    from playwright.sync_api import expect

    view.goto(f"{directory_server.url}/agentrank/category_review")
    expect(view.locator("h2.ar-query-rows")).to_have_text(
        re.compile(r"^\d+ repositor(y|ies) to review\s+\(show the SQL\)$")
    )
    expect(view.get_by_text("Custom SQL query")).to_have_count(0)
    no_sideways_scroll(view)
    shot(view, f"directory-review-queue-{view.label}")


def test_the_review_queue_columns_read_in_words(view, directory_server):
    # Eighteenth pass: the headings were SQL names (runner_up_probability) and the figures 0.36.
    from playwright.sync_api import expect

    view.goto(f"{directory_server.url}/agentrank/category_review")
    headings = view.locator("table.rows-and-columns thead th")
    expect(headings.nth(4)).to_have_text("How sure the classifier was")
    expect(headings.nth(6)).to_have_text("How likely the next one was")
    assert not any("_" in h for h in headings.all_inner_texts())
    expect(view.locator("td.col-probability").first).to_have_text(re.compile(r"^\d{1,3} %$"))
    # On a phone each row is a card whose lines Datasette labels with the column's SQL name (from CSS).
    label = view.locator("td.col-probability").first.evaluate("td => getComputedStyle(td, '::before').content")
    assert label == ('"How sure the classifier was"' if view.label == "phone" else "none")
