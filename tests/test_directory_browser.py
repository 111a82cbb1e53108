"""The directory pages in a real browser (Debian's chromium via Playwright) at 1,400 px and 390 px.

Layout figures are measured in the page: how tall 50 rows are, where the first row starts, and that
nothing is wider than the screen. Screenshots go to test-artifacts/directory-*.png.
"""

from __future__ import annotations

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


def test_home(view, directory_server):
    from playwright.sync_api import expect

    view.goto(directory_server.url + "/")
    expect(view.locator("#ar-search")).to_be_visible()
    expect(view.locator(".ar-category-grid li")).to_have_count(15)
    expect(view.locator(".ar-top .ar-line")).to_have_count(10)
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


def test_category_and_owner_pages(view, directory_server, directory_db):
    from playwright.sync_api import expect

    view.goto(f"{directory_server.url}/-/category/{directory_db.category}")
    expect(view.locator("h1")).to_be_visible()
    assert view.locator(".ar-ranking .ar-line").count() >= 5
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
    badge = view.locator(".agentrank-badge img")
    badge.scroll_into_view_if_needed()
    assert badge.evaluate("img => img.complete && img.naturalWidth") > 100  # the badge loaded and has width
    score = view.locator(".agentrank-score strong").inner_text()
    no_sideways_scroll(view)
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
    no_sideways_scroll(view)
    shot(view, f"directory-method-{view.label}")
    view.goto(f"{directory_server.url}/agentrank/verified_leaderboard")
    first_row = view.locator("table.rows-and-columns tbody tr").first
    assert first_row.bounding_box()["y"] < view.size["height"]  # the SQL is folded away: rows come first
    shot(view, f"directory-leaderboard-query-{view.label}", full_page=False)
