"""The directory in a real browser: Debian's chromium driven by Playwright against `agentrank serve`.

Screenshots go to test-artifacts/. Without chromium these tests skip, unless
AGENTRANK_REQUIRE_BROWSER=1 (CI), where a missing browser is a failure.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from classify.categories import CATEGORIES
from tests.publish_helpers import ARTIFACTS, XSS_DESCRIPTION, XSS_NAME

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def chromium_path() -> str | None:
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


@pytest.fixture(scope="module")
def browser():
    executable = chromium_path()
    if executable is None:
        if os.environ.get("AGENTRANK_REQUIRE_BROWSER") == "1":
            pytest.fail("AGENTRANK_REQUIRE_BROWSER=1 but chromium is not installed (apt-get install -y chromium)")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=DESKTOP)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.errors = errors
    yield opened
    context.close()


def shot(page, name: str, full_page: bool = True) -> Path | None:
    """test-artifacts/NAME.png, for a person to look at, when asked for: `make screenshots` sets
    AGENTRANK_SCREENSHOTS=1. No assertion reads them, and encoding a full page costs chromium
    about 0.3 s of CPU (some 15 s over the suite), so the test loop leaves them out."""
    if os.environ.get("AGENTRANK_SCREENSHOTS") != "1":
        return None
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def test_agents_page_shows_the_ranking_and_search(page, live_server, published_db):
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/agentrank/agents")
    expect(page.locator("h1")).to_contain_text("ranking")
    first = page.locator(".ar-line").first
    expect(first.locator(".ar-rank")).to_have_text("#1")
    expect(first.locator("a.agentrank-breakdown")).to_have_text(published_db.top_name)
    shot(page, "agents-desktop", full_page=False)
    page.fill("input#_search", "security")
    page.locator("input#_search").press("Enter")
    expect(page.locator(".ar-line a.agentrank-breakdown", has_text=XSS_NAME)).to_be_visible()
    # The full table with every column: its long list of column descriptions is folded away.
    page.goto(f"{live_server.url}/agentrank/agents?_view=table")
    expect(page.locator("details.agentrank-columns summary")).to_have_text("What the columns mean")
    expect(page.locator("dl.column-descriptions")).to_be_hidden()
    expect(page.locator("table.rows-and-columns tbody tr").first.locator("td.col-rank")).to_have_text("1")
    assert not page.errors


def test_facet_click_filters_the_ranking(page, live_server, published_db):
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/agentrank/agents")
    category = published_db.category
    name = next(c.name for c in CATEGORIES if c.id == category)
    page.locator(".facet-info[data-column=category] a", has_text=name).first.click()
    expect(page).to_have_url(f"{live_server.url}/agentrank/agents?category={category}")
    cells = page.locator(".ar-line .ar-cat")
    expect(cells.first).to_contain_text(name)
    # A low-confidence category carries an "(uncertain)" marker after its name.
    assert {text.strip().removesuffix(" (uncertain)") for text in cells.all_inner_texts()} == {name}
    shot(page, "agents-facet-category", full_page=False)


def test_clicking_a_name_opens_its_breakdown(page, live_server, published_db):
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/agentrank/agents")
    page.locator(".ar-line a.agentrank-breakdown").first.click()
    expect(page).to_have_url(f"{live_server.url}/-/agent/{published_db.top_name}")
    expect(page.locator(".agentrank-score strong")).to_have_text(re.compile(r"^\d{1,3}\.\d$"))


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_makers_page_at_desktop_and_phone_width(browser, live_server, published_db, viewport):
    from playwright.sync_api import expect

    size = DESKTOP if viewport == "desktop" else PHONE
    context = browser.new_context(viewport=size, is_mobile=viewport == "phone")
    page = context.new_page()
    page.goto(f"{live_server.url}/-/agent/{published_db.top_name}")
    expect(page.locator("h1")).to_have_text(published_db.top_name)
    expect(page.locator(".agentrank-component")).to_have_count(5)
    for name in ("popularity", "adoption", "activity", "momentum", "openness"):
        expect(page.locator(f"#{name} h3")).to_be_visible()
        expect(page.locator(f"#{name} li").first).to_be_visible()
    expect(page.locator(".agentrank-chart svg")).to_have_count(2)
    expect(page.locator(".agentrank-history tbody tr")).to_have_count(2)
    expect(page.locator("a", has_text="Ask for a correction")).to_be_visible()
    # Nothing is wider than the screen: no sideways scrolling on a phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    shot(page, f"makers-page-{viewport}")
    context.close()


def test_script_in_a_description_is_shown_as_text(page, live_server):
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/-/agent/{XSS_NAME}")
    expect(page.locator(".agentrank-description")).to_have_text(XSS_DESCRIPTION)
    assert page.evaluate("window.__agentrank_xss") is None
    shot(page, "hostile-description-makers-page", full_page=False)
    page.goto(f"{live_server.url}/agentrank/agents?_search=xss")
    expect(page.locator(".ar-line .ar-desc").first).to_contain_text("<script>window.__agentrank_xss = 1</script>")
    assert page.evaluate("window.__agentrank_xss") is None
    shot(page, "hostile-description-agents", full_page=False)
    # A right-to-left override in GitHub text stays inside its element: names, links and cells are isolated.
    for selector in ("h1", "a.agentrank-breakdown", ".ar-line .ar-desc"):
        assert page.locator(selector).first.evaluate("e => getComputedStyle(e).unicodeBidi") == "isolate", selector


def test_demo_in_the_browser(page, demo_server):
    """Done-when 1: what `agentrank demo` serves, looked at in a browser (screenshots for people)."""
    from playwright.sync_api import expect

    log = demo_server.log_path.read_text()
    agents_url = re.search(r"Datasette: (\S+)", log).group(1)
    page.goto(agents_url)
    expect(page.locator(".ar-line .ar-rank").first).to_have_text("#1")
    expect(page.locator(".facet-info[data-column=category]")).to_be_visible()
    shot(page, "demo-agents", full_page=False)
    page.locator(".ar-line a.agentrank-breakdown").first.click()
    expect(page.locator(".agentrank-component")).to_have_count(5)
    shot(page, "demo-makers-page")
    assert not page.errors
