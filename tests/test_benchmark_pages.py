"""The benchmark pages served in-process (real Datasette, real SQLite): the hub's links, links for awkward
names, ledger text past the served value limit, the AiFolder scorecard page and the leaderboard queries.
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentrank.cli import cli
from agentrank.config import ServeConfig
from agentrank.serve import build_datasette
from tests.benchmark_attempts import attempt
from tests.methods_helpers import AWKWARD, BENCHMARK_PAGES, build_methods_db
from tests.test_benchmark_methods import task

SETTINGS = ServeConfig(heap_limit_mb=0)


@pytest.fixture(scope="module")
def methods_db(tmp_path_factory):
    return build_methods_db(tmp_path_factory.mktemp("pages"))


@pytest.fixture(scope="module")
def datasette(methods_db):
    return build_datasette(methods_db, SETTINGS)


def text_of(page: str) -> str:
    """The text as a reader sees it: an isolate (<bdi>) or a date's <time> is inline, it adds no space."""
    page = re.sub(r"</?(?:bdi|time)\b[^>]*>", "", page)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page))).strip()


def hrefs(page: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r'href="([^"]+)"', page)]


def h1(page: str) -> str:
    found = re.search(r"<h1>(.*?)</h1>", page, re.S)
    return text_of(found.group(1)) if found else ""


@pytest.mark.asyncio
async def test_the_hub_links_every_benchmark_part_and_every_part_links_back(datasette):
    hub = (await datasette.client.get("/-/benchmark")).text
    links = hrefs(hub)
    for wanted in (
        "/-/leaderboard#verified",
        "/-/leaderboard#community",
        "/-/benchmark/runs/rs9/2026-11-01",
        "/-/benchmark/over-time/rs9",
        "/-/benchmark/scorecard",
        "/-/benchmark/index",
        "/-/benchmark/fitscore",
        "/-/benchmark/tasks/rs9/t4",
    ):
        assert wanted in links, wanted
    # Verified and community are two boards, with their own counts.
    assert re.search(r"Verified leaderboard ?: \d+ entries, \d+ ranked", text_of(hub))
    assert re.search("Community leaderboard ?: 1 entry, 1 ranked", text_of(hub))
    # The home page reaches the hub in one click.
    assert "/-/benchmark" in hrefs((await datasette.client.get("/")).text)
    # Every benchmark page links back to the hub and to every other part.
    for path in BENCHMARK_PAGES:
        response = await datasette.client.get(path)
        assert response.status_code == 200, path
        links = hrefs(response.text)
        for part in ("/-/benchmark", "/-/leaderboard#verified", "/-/leaderboard#community", "/-/benchmark/scorecard",
                     "/-/benchmark/index", "/-/benchmark/fitscore", "/-/benchmark#runs", "/-/benchmark#over-time"):  # fmt: skip
            assert part in links, (path, part)


@pytest.mark.asyncio
async def test_awkward_names_get_links_that_reach_their_own_page(datasette):
    """A suite with "/", a run ending ".json", a task ".." and an agent "probe/..": each link is one
    path segment per name (no "/" inside a name, no dot segment a browser would resolve, no ".json" end)."""
    suite, run, task_id = AWKWARD["suite"], AWKWARD["run"], AWKWARD["task"]
    hub = (await datasette.client.get("/-/benchmark")).text
    run_links = [h for h in hrefs(hub) if h.startswith("/-/benchmark/runs/") and "v2" in h]
    assert len(run_links) == 1
    (run_link,) = run_links
    assert run_link.count("/") == 5 and not run_link.endswith(".json") and "/../" not in run_link
    page = await datasette.client.get(run_link)
    assert page.status_code == 200 and h1(page.text) == f"{suite}: run of {run}"
    assert AWKWARD["agent"] in text_of(page.text)
    assert "demo_data" not in page.text  # the demo's marker setting is not an entry's setting to show
    # The run's JSON twin is the run's, not a run named "r".
    twin = await datasette.client.get(run_link + ".json")
    assert twin.status_code == 200 and twin.json()["run"] == run
    over_time = next(h for h in hrefs(hub) if h.startswith("/-/benchmark/over-time/") and "v2" in h)
    assert h1((await datasette.client.get(over_time)).text) == f"{suite}: over time"
    scorecard = (await datasette.client.get("/-/benchmark/scorecard")).text
    (task_link,) = [h for h in hrefs(scorecard) if h.startswith("/-/benchmark/tasks/") and "v2" in h]
    assert not any(segment in (".", "..") for segment in task_link.split("/"))
    task_page = await datasette.client.get(task_link)
    assert task_page.status_code == 200 and h1(task_page.text) == f"{suite}: {task_id}"


@pytest.mark.asyncio
async def test_the_scorecard_is_a_page_with_every_field_median_spread_and_cost_source(datasette):
    response = await datasette.client.get("/-/benchmark/scorecard")
    assert response.status_code == 200
    page = response.text
    text = text_of(page)
    assert h1(page) == "AiFolder scorecard"
    assert "not a ranking" in text
    # Per agent and task: median and spread; "—" for what was not measured (no regression tests recorded).
    assert "median score (spread)" in text and "100.0 (100.0–100.0)" in text
    # A wall-time spread carries its unit, like the median beside it (it read "8 min 51 s (182–879)").
    walls = re.findall(r'data-label="median wall time">([^<]+) <span class="agentrank-source">\(([^)]*)\)', page)
    assert walls
    for median, spread in walls:
        low, high = spread.split(" to ")
        assert all(re.fullmatch(r"[\d,]+ (s|min( \d+ s)?|h \d\d min)", v) for v in (median, low, high)), (
            median,
            spread,
        )
    assert 'data-label="regression tests">—</td>' in page
    # A list-price cost carries its source and the date of the price list; an observed one its own date.
    assert re.search(r"\$0\.\d\d \(list price, rate of \d{1,2} [A-Z][a-z]{2} \d{4}\)", text)
    assert re.search(r"\$0\.05 \(self-reported, rate of 3 Nov 2026\)", text)
    # Links to the raw log and the diff.
    assert any(h.startswith("https://logs.example.org/") and h.endswith(".diff") for h in hrefs(page))
    assert "raw log" in text
    # Not a canned query: no SQL on the page.
    assert "select " not in text.lower()


@pytest.mark.asyncio
async def test_every_cost_on_the_run_and_task_pages_prints_its_source(datasette):
    run = text_of((await datasette.client.get("/-/benchmark/runs/rs9/2026-11-01")).text)
    assert "$0.40 (lower bound) (list price)" in run
    # How many attempts were left out as infrastructure errors, and why.
    assert "1 attempt left out as an infrastructure error" in run
    # Billed through a router: the billed figure with its source, and the list price of the same tokens.
    routed = (await datasette.client.get("/-/benchmark/runs/routed/2026-11-02")).text
    routed_text = text_of(routed)
    assert "$0.20 (provider invoice) billed; at list price: $0.90" in routed_text
    # An entry with part of the suite is not ranked; its cost-score column shows its known cost.
    partial = re.search(r'<tr class="agentrank-unranked">(.*?)</tr>', routed, re.S).group(1)
    assert "partial/agent" in partial
    assert text_of(re.search(r'data-label="cost–score">(.*?)</td>', partial, re.S).group(1)) == "not ranked; cost $0.21"
    # Errors: how many were left out as infrastructure errors and why; agent errors count as fails.
    assert "1 attempt left out as an infrastructure error" in routed_text
    assert "acme/coder 2 (verified): 1: provider returned 502 (task r3)" in routed_text
    assert (
        "Agent errors (the agent itself failed to run properly) count as fails: partial/agent 1: 1 (crashed on start)"
        in routed_text
    )
    task_r2 = text_of((await datasette.client.get("/-/benchmark/tasks/routed/r2")).text)
    assert "yes, as a fail (agent error: crashed on start)" in task_r2
    twin = (await datasette.client.get("/-/benchmark/runs/routed/2026-11-02.json")).json()
    acme = next(e for e in twin["entries"] if e["agent"] == "acme/coder")
    assert (acme["total_cost_usd"], acme["total_list_cost_usd"]) == (pytest.approx(0.2), pytest.approx(0.9))
    task = (await datasette.client.get("/-/benchmark/tasks/rs9/t1")).text
    costs = [text_of(c) for c in re.findall(r'data-label="cost">(.*?)</td>', task, re.S)]
    assert costs and any(c != "—" for c in costs)
    for cost in costs:
        assert cost == "—" or re.fullmatch(
            r"\$[\d,]+\.\d\d( \(lower bound\))? \((list price|dashboard|self-reported|provider invoice)\).*", cost
        ), cost
    # The attempt list shows the tier.
    assert re.findall(r'data-label="tier">(\w+)</td>', task) and set(
        re.findall(r'data-label="tier">(\w+)</td>', task)
    ) <= {"verified", "community"}


@pytest.mark.asyncio
async def test_no_benchmark_page_shows_raw_field_names(datasette):
    for path in BENCHMARK_PAGES:
        text = text_of((await datasette.client.get(path)).text)
        for raw in ("demo_data", "_usd", "None", "null_reason", "True", "False", "nan"):
            assert raw not in text.split(), (path, raw)
            assert f"{raw}=" not in text, (path, raw)


@pytest.mark.asyncio
async def test_the_leaderboard_queries_hide_their_sql(datasette):
    for name in ("verified_leaderboard", "community_leaderboard", "agent_attempts", "task_results"):
        page = (await datasette.client.get(f"/methods/{name}")).text
        assert '<textarea id="sql-editor"' not in page, name
        assert "_show_sql=1" in page, name


def _huge_ledger(directory: Path) -> Path:
    """A ledger whose text passes the served value limit: a 2 MB assessment note, ~3,000 judgement
    calls, and a task with 5,000 per-test results."""
    db_path = directory / "huge.db"
    note = "slow " * 400_000
    judgements = "".join(
        f'[[assessment.judgement]]\ncall = "reading {i}"\nscores = {{ setup = 3 }}\n' for i in range(3_000)
    )
    (directory / "assessments.toml").write_text(
        "[[assessment]]\n"
        'agent = "Big Notes"\nsuite = "s"\n'
        "scores = { cost = 3, speed = 5, setup = 4, agent = 5, privacy = 4 }\n"
        f'notes = {{ cost = "{note}" }}\n' + judgements
    )
    (directory / "tasks.json").write_text(json.dumps([task("t1", 0, 5_000, hidden=5_000, suite="s")]))
    (directory / "attempts.json").write_text(
        json.dumps(
            [attempt("Big Notes", "1", "t1", 1, "2026-11-01T09:00:00Z", "verified", 4_000, 5_000, 9, None, suite="s")]
        )
    )
    for step in (
        ["import-tasks", "tasks.json"],
        ["import-attempts", "attempts.json", "--verified"],
        ["import-assessments", "assessments.toml"],
    ):
        result = CliRunner().invoke(
            cli, ["--db", str(db_path), step[0], str(directory / step[1]), *step[2:]], catch_exceptions=False
        )
        assert result.exit_code == 0, (step, result.output)
    return db_path


@pytest.mark.asyncio
async def test_ledger_text_past_the_value_limit_is_cut_on_the_page_not_an_error(tmp_path):
    datasette = build_datasette(_huge_ledger(tmp_path), SETTINGS)
    fitscore = await datasette.client.get("/-/benchmark/fitscore")
    assert fitscore.status_code == 200
    text = text_of(fitscore.text)
    assert "Some ledger text is too long to show here" in text and "The page's JSON has everything" in text
    assert "characters in all" in text  # the 2 MB note, cut
    assert len(fitscore.text) < 1_000_000
    task_page = await datasette.client.get("/-/benchmark/tasks/s/t1")
    assert task_page.status_code == 200
    assert "list items left out" in text_of(task_page.text)
    # The JSON twin keeps everything.
    full = (await datasette.client.get("/-/benchmark/fitscore.json")).json()
    assert full[0]["notes"]["cost"] == "slow " * 400_000
    assert len(full[0]["judgements"]) == 3_000


@pytest.mark.asyncio
async def test_the_hub_links_every_task_page_including_tasks_without_a_record(tmp_path):
    """A task with attempts and no record has a page (why it does not count), but the hub listed only
    task records; and that page said "No task record: no task record: …"."""
    db_path = tmp_path / "stray.db"
    (tmp_path / "tasks.json").write_text(json.dumps([task("t1", 0, 5, suite="s")]))
    attempts = [
        attempt("a/x", "1", t, 1, "2026-11-01T09:00:00Z", "verified", 5, 5, 9, 1.0, suite=suite)
        for t, suite in (("t1", "s"), ("t9", "s"), ("u1", "open"))
    ]
    (tmp_path / "attempts.json").write_text(json.dumps(attempts))
    for step in (
        ["import-attempts", "attempts.json", "--verified"],
        ["import-tasks", "tasks.json", "--leave-uncounted"],
    ):
        result = CliRunner().invoke(cli, ["--db", str(db_path), step[0], str(tmp_path / step[1]), *step[2:]])
        assert result.exit_code == 0, (step, result.output)
    datasette = build_datasette(db_path, SETTINGS)
    hub = (await datasette.client.get("/-/benchmark")).text
    links = hrefs(hub)
    assert {"/-/benchmark/tasks/s/t1", "/-/benchmark/tasks/s/t9", "/-/benchmark/tasks/open/u1"} <= set(links)
    text = text_of(hub)
    assert "s t9 — not counted: no task record 1" in text
    assert "open u1 — counts (its suite has no task records) 1" in text
    page = text_of((await datasette.client.get("/-/benchmark/tasks/s/t9")).text)
    assert (
        "No task record: t9 is not among suite s's tasks." in page
        and "no task record: no task record" not in page.lower()
    )


@pytest.mark.asyncio
async def test_the_hub_says_who_leads_each_board_and_by_how_much(tmp_path):
    """The hub counted each tier's entries and ranked entries but never said who was first: a reader
    had to open each board. It now names each suite's first entry per tier, its mean score and the
    second's, says so when the second is level on mean score, and when the first is the only one."""
    db_path = tmp_path / "leaders.db"
    (tmp_path / "tasks.json").write_text(json.dumps([task("t1", 0, 5, suite="s"), task("t2", 0, 5, suite="s")]))
    day = "2026-11-01T09:00:00Z"
    verified = [
        attempt("a/alpha", "1", "t1", 1, day, "verified", 5, 5, 9, 1.0, suite="s"),
        attempt("a/alpha", "1", "t2", 1, day, "verified", 5, 5, 9, 1.0, suite="s"),
        attempt("b/beta", "2", "t1", 1, day, "verified", 4, 5, 9, 1.0, suite="s"),
        attempt("b/beta", "2", "t2", 1, day, "verified", 5, 5, 9, 1.0, suite="s"),
        attempt("e/eps", "1", "u1", 1, day, "verified", 3, 5, 9, 1.0, suite="open"),
    ]
    # Two community entries level on every score figure: the cheaper one is first.
    community = [
        attempt(agent, "1", t, 1, day, "community", 5, 5, 9, cost, suite="s")
        for agent, cost in (("c/gamma", 1.0), ("d/delta", 2.0))
        for t in ("t1", "t2")
    ]
    (tmp_path / "verified.json").write_text(json.dumps(verified))
    (tmp_path / "community.json").write_text(json.dumps(community))
    for step in (
        ["import-tasks", "tasks.json"],
        ["import-attempts", "verified.json", "--verified"],
        ["import-attempts", "community.json"],
    ):
        result = CliRunner().invoke(cli, ["--db", str(db_path), step[0], str(tmp_path / step[1]), *step[2:]])
        assert result.exit_code == 0, (step, result.output)
    datasette = build_datasette(db_path, SETTINGS)
    text = text_of((await datasette.client.get("/-/benchmark")).text)
    boards = text.split("one board per tier and suite.")[1]
    verified_line = boards.split("Verified leaderboard")[1].split("Community leaderboard")[0]
    community_line = boards.split("Community leaderboard")[1].split("RS9 runs")[0]
    assert "First on open: e/eps 1 on m-large, mean score 60.0 (the only one ranked)" in verified_line, text
    assert "First on s: a/alpha 1 on m-large, mean score 100.0 (the second: 90.0)" in verified_line, text
    assert "First on s: c/gamma 1 on m-large, mean score 100.0 (the second is level on mean score;" in community_line
    assert "d/delta" not in community_line and "a/alpha" not in community_line
    hub = (await datasette.client.get("/-/benchmark.json")).json()
    leaders = {(e["tier"], e["suite"]): e["agent"] for t in hub["tiers"].values() for e in t["leaders"]}
    assert leaders == {("verified", "open"): "e/eps", ("verified", "s"): "a/alpha", ("community", "s"): "c/gamma"}


# Fifteenth pass: words a visitor may not know, and charts that look alike though their figures differ.
EXPLAINED = {
    "RS9": "a published benchmark method",
    "pass@1": "how often one attempt passes a task",
    "frontier": "no other ranked entry costs as little or less",
}


def with_hover_text(page: str) -> str:
    """The text with each explained word's hover text after it, as a reader who hovers it sees."""
    return re.sub(r'<abbr class="agentrank-term" title="([^"]*)">(.*?)</abbr>', r"\2 (\1)", page)


@pytest.mark.asyncio
async def test_benchmark_words_are_explained_where_a_page_first_uses_them(datasette):
    """ "RS9", "pass@1" and "frontier" stood on the pages unexplained (the hub's key, closed, said RS9
    was "explained on its own page"; it has none)."""
    seen = set()
    for path in BENCHMARK_PAGES:
        page = (await datasette.client.get(path)).text
        body = page[page.index("<body") :]
        text = text_of(with_hover_text(body))
        for word, words in EXPLAINED.items():
            first = text.find(word)
            if first < 0:
                continue
            seen.add(word)
            near = text[max(0, first - 40) : first + len(word) + 260].lower()
            assert words in near, (path, word, near)
    assert seen == set(EXPLAINED)
    # The hub's key says what RS9 is, in words.
    hub = text_of((await datasette.client.get("/-/benchmark")).text)
    assert "RS9 The name of a published benchmark method" in hub and "explained on its own page" in hub


@pytest.mark.asyncio
async def test_over_time_charts_share_their_scales(tmp_path):
    """Each agent's chart ran from 0 to its own highest figure, so an agent passing half the tasks and
    one passing all of them drew their lines at the same height, and so did a $2.00 and a $0.25 cost
    per pass."""
    db_path = tmp_path / "scales.db"
    (tmp_path / "tasks.json").write_text(json.dumps([task("t1", 0, 5, suite="s"), task("t2", 0, 5, suite="s")]))
    attempts = [
        attempt(agent, "1", t, 1, day, "verified", 5 if agent == "b/full" or t == "t1" else 3, 5, 9, cost, suite="s")
        for agent, cost in (("a/half", 1.0), ("b/full", 0.25))
        for t in ("t1", "t2")
        for day in ("2026-11-01T09:00:00Z", "2026-11-08T09:00:00Z")
    ]
    (tmp_path / "attempts.json").write_text(json.dumps(attempts))
    for step in (["import-tasks", "tasks.json"], ["import-attempts", "attempts.json", "--verified"]):
        result = CliRunner().invoke(cli, ["--db", str(db_path), step[0], str(tmp_path / step[1]), *step[2:]])
        assert result.exit_code == 0, (step, result.output)
    datasette = build_datasette(db_path, SETTINGS)
    page = (await datasette.client.get("/-/benchmark/over-time/s")).text
    # One figure is one height on every chart, and another figure another height.
    heights: dict[str, set[str]] = {}
    for cy, title in re.findall(r'<circle cx="[^"]*" cy="([^"]*)" r="5"><title>([^<]*)</title>', page):
        figure = re.search(r": (tasks passed \d+ %|cost per pass \$[\d.]+)", html.unescape(title)).group(1)
        heights.setdefault(figure, set()).add(cy)
    assert set(heights) == {"tasks passed 50 %", "tasks passed 100 %", "cost per pass $2.00", "cost per pass $0.25"}
    assert all(len(ys) == 1 for ys in heights.values()), heights
    assert heights["tasks passed 50 %"] != heights["tasks passed 100 %"], heights
    assert heights["cost per pass $2.00"] != heights["cost per pass $0.25"], heights
    # Each chart says its scale: the same on every chart, and the page says so.
    charts = re.findall(r'<svg class="agentrank-over-time".*?</svg>(?=\s*<p)', page, re.S)
    assert len(charts) == 2
    for chart in charts:
        tops = re.findall(r'<text class="agentrank-axis agentrank-scale-top"[^>]*>([^<]*)</text>', chart)
        assert tops == ["100 %", "$2.00"], tops
    assert (
        "Every chart on this page has the same scales, so one agent's heights compare with another's: tasks passed "
        "from 0 to 100 %, cost per pass from $0 to $2.00 (the highest cost per pass here)."
    ) in text_of(page)


# Eighteenth pass: the ledger's canned queries in plain words.

LEDGER_QUERIES = {
    "verified_leaderboard": "",
    "community_leaderboard": "",
    "agent_attempts": "?agent=acme/coder",
    "task_results": "?task=t1",
    "aifolder_scorecard": "?suite=",
    "aifolder_task_spread": "?suite=",
    "attempts_not_counted": "",
}


def _headed(page: str) -> list[tuple[str, str]]:
    """Each column of a query page as (its CSS name, its heading as a reader sees it)."""
    return [
        (column, text_of(words))
        for column, words in re.findall(r'<th class="col-([^"]*)" scope="col"[^>]*>(.*?)</th>', page, re.S)
    ]


def _cells(page: str, column: str) -> list[str]:
    return [text_of(c) for c in re.findall(rf'<td class="col-{column}">(.*?)</td>', page, re.S)]


@pytest.mark.asyncio
async def test_the_ledger_queries_head_their_columns_in_words_and_format_their_figures(datasette):
    """The ledger's canned queries were headed by their SQL names with underscores turned into spaces
    ("solve rate 95", "cost score pareto", "total cost usd") and read "0.40 (provider-dashboard)" and
    "1800" where every benchmark page says "$0.40" and "30 min". The JSON keeps the names and text."""
    for name, args in LEDGER_QUERIES.items():
        page = (await datasette.client.get(f"/methods/{name}{args}")).text
        data = (await datasette.client.get(f"/methods/{name}.json?_shape=objects&{args.lstrip('?')}")).json()
        headed = _headed(page)
        assert data["rows"] and [c for c, _ in headed] == data["columns"], name
        for column, words in headed:
            # Words, never the SQL's name: no underscore, and not the bare column name.
            assert "_" not in words and words != column and words[0].isupper(), (name, column, words)
            assert f'title="{column} in the JSON and CSV"' in page, (name, column)
    board = (await datasette.client.get("/methods/verified_leaderboard")).text
    rows = (await datasette.client.get("/methods/verified_leaderboard.json?_shape=array")).json()
    headings = dict(_headed(board))
    assert headings["solve_rate_95"] == "Solve rate, 95 % interval (low–high)"
    assert headings["cost_score_pareto"] == "On the cost–score frontier"
    assert headings["total_cost_usd"] == "Total cost (source)"
    # Costs in dollars, as the pages show them; the words beside them kept; a dash stays a dash.
    costs = _cells(board, "total_cost_usd")
    assert [r["total_cost_usd"] for r in rows if r["total_cost_usd"] != "—"]  # the JSON: "0.40 (provider-dashboard)"
    amounts = [c.split(" (")[0] for c in costs]  # the sources beside them in words: the next test
    assert amounts == [("—" if r["total_cost_usd"] == "—" else "$" + r["total_cost_usd"].split(" (")[0]) for r in rows]
    per_solve = _cells(board, "cost_per_solved_task")
    assert any(c.startswith("$") for c in per_solve) and not any(re.match(r"\d", c) for c in per_solve)
    assert "— (cost unknown for 18 of 18 attempts)" in per_solve  # counts in the words are not dollars
    # The solve rate and its interval in percent; times in minutes and seconds.
    assert all(c.endswith(" %") or c == "—" for c in _cells(board, "solve_rate") + _cells(board, "solve_rate_95"))
    assert "20.7–100.0 %" in _cells(board, "solve_rate_95")
    times = _cells(board, "mean_wall_seconds")
    assert "1 min 40 s" in times and not any(re.fullmatch(r"\d+", t) for t in times), times
    attempts = (await datasette.client.get("/methods/agent_attempts?agent=acme/coder")).text
    assert "$0.18 (lower bound)" in _cells(attempts, "cost_usd") and "30 min" in _cells(attempts, "wall_seconds")
    assert not any(re.fullmatch(r"[\d.]+", c) for c in _cells(attempts, "cost_usd"))


@pytest.mark.asyncio
async def test_the_ledger_queries_label_their_fields_in_words_named_as_the_urls_name_them(datasette):
    """The fields were labelled `agent`, `task`, `suite`: the parameters' names. They are labelled in
    words; the inputs keep their names, so a link such as ?agent=acme/coder still fills them."""
    fields = {
        "agent_attempts": ("agent", "Agent (owner/repo, or a closed agent's name)"),
        "task_results": ("task", "Task id"),
        "aifolder_scorecard": ("suite", "Suite (empty: every suite)"),
        "aifolder_task_spread": ("suite", "Suite (empty: every suite)"),
    }
    for name, (parameter, words) in fields.items():
        page = (await datasette.client.get(f"/methods/{name}{LEDGER_QUERIES[name]}")).text
        found = re.search(r'<label for="(qp\d+)"[^>]*>(.*?)</label> <input type="text" id="\1" name="([^"]+)"', page)
        assert found, name
        assert (html.unescape(found.group(2)), found.group(3)) == (words, parameter), name


# Eighteenth pass, again: instants, settings and cost sources in the ledger's queries as the pages say them.

INSTANT = re.compile(
    r'<time datetime="(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)">(\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC)</time>'
)


def _raw_cells(page: str, column: str) -> list[str]:
    return re.findall(rf'<td class="col-{column}">(.*?)</td>', page, re.S)


@pytest.mark.asyncio
async def test_the_ledger_queries_show_instants_settings_and_cost_sources_as_the_pages_do(datasette):
    """The ledger's queries showed "2026-11-01T09:00:00Z" under "First attempt (UTC)", settings as a JSON
    object ({"reasoning": "high"}) and costs as "$0.40 (provider-dashboard)", where the maker's page
    dates in words and the benchmark pages say "reasoning=high" and "$0.40 (dashboard)". The JSON keeps
    the instants, the JSON object and the ledger's names."""
    board = (await datasette.client.get("/methods/verified_leaderboard")).text
    rows = (await datasette.client.get("/methods/verified_leaderboard.json?_shape=array")).json()
    # Each instant in words, the instant itself in the <time> element (and the JSON).
    for column in ("first_date", "last_date"):
        cells = _raw_cells(board, column)
        assert cells and all(INSTANT.fullmatch(c) for c in cells), (column, cells)
        assert [INSTANT.fullmatch(c).group(1) for c in cells] == [r[column] for r in rows], column
    # The cells say "UTC": the headings need not.
    headings = dict(_headed(board))
    assert (headings["first_date"], headings["last_date"]) == ("First attempt", "Last attempt")
    assert "2026-11-05T09:31:00Z" in [r["first_date"] for r in rows]
    assert "5 Nov 2026, 09:31 UTC" in [text_of(c) for c in _raw_cells(board, "first_date")]
    assert not re.search(r">\d{4}-\d\d-\d\dT", board)  # no raw instant as a cell's text
    # Settings as the leaderboard page lists them; none to show (or only the demo's marker) is "—".
    settings = _cells(board, "settings")
    assert {"reasoning=high", "reasoning=low", "—"} <= set(settings), settings
    assert not any("{" in s or '"' in s or "demo_data" in s for s in settings), settings
    assert {r["settings"] for r in rows} >= {'{"reasoning": "high"}', "{}"}  # the JSON: the stored object
    leaderboard = text_of((await datasette.client.get("/-/leaderboard")).text)
    assert "(reasoning=high)" in leaderboard and "(list price)" in leaderboard and "(dashboard)" in leaderboard
    # Cost sources in the pages' words, beside the costs and in their own column.
    costs = _cells(board, "total_cost_usd")
    assert {"$0.40 (dashboard)", "$0.20 (provider invoice)", "$0.09 (list price)"} <= set(costs), costs
    assert "0.40 (provider-dashboard)" in [r["total_cost_usd"] for r in rows]  # the JSON keeps the names
    attempts = (await datasette.client.get("/methods/agent_attempts?agent=acme/coder")).text
    data = (await datasette.client.get("/methods/agent_attempts.json?_shape=array&agent=acme/coder")).json()
    sources = _cells(attempts, "cost_source")
    assert {"dashboard", "list price"} <= set(sources), sources
    # An attempt without a cost has no source: "—", as the pages mark what was not given (it was blank).
    assert None in {r["cost_source"] for r in data} and "—" in sources and "" not in sources, sources
    # Flags as words ("infra-error", "none"), not the JSON list ("[]") the JSON keeps.
    flags = _cells(attempts, "flags")
    assert {"none", "infra-error"} <= set(flags) and not any("[" in f for f in flags), flags
    assert {"[]", '["infra-error"]'} <= {r["flags"] for r in data}
    assert {"provider-dashboard", "api-list-price"} <= {r["cost_source"] for r in data}
    for page in (board, attempts):
        cells = " ".join(text_of(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", page, re.S))
        for raw in ("provider-dashboard", "api-list-price", "provider-invoice", '{"', "T09:00:00Z"):
            assert raw not in cells, raw
    assert all(INSTANT.fullmatch(c) for c in _raw_cells(attempts, "date"))
    assert [INSTANT.fullmatch(c).group(1) for c in _raw_cells(attempts, "date")] == [r["date"] for r in data]
    # The scorecard's dates too.
    scorecard = (await datasette.client.get("/methods/aifolder_scorecard?suite=")).text
    assert _raw_cells(scorecard, "date") and all(INSTANT.fullmatch(c) for c in _raw_cells(scorecard, "date"))


def test_every_cost_source_has_words_in_one_place():
    """The pages' words for cost sources lived in a template and the queries had none: one mapping
    now, beside the sources the ledger accepts, and no template keeps a copy."""
    from typing import get_args

    from leaderboard.attempt import COST_SOURCE_LABELS, CostSource

    assert set(COST_SOURCE_LABELS) == set(get_args(CostSource))
    templates = Path(__file__).resolve().parent.parent / "datasette_plugins" / "templates"
    for template in templates.glob("*.html"):
        assert '"provider-dashboard": "dashboard"' not in template.read_text(encoding="utf-8"), template.name


@pytest.mark.asyncio
async def test_hostile_settings_are_escaped_and_isolated_on_the_queries_and_the_pages(tmp_path):
    """Settings come from imported files. A setting named <script> with a right-to-left override in its
    value reads as text on the leaderboard query and the agent's attempts, as on the leaderboard page:
    escaped, and in an isolate, so the override cannot reverse the rest of the line."""
    db_path = tmp_path / "hostile.db"
    (tmp_path / "tasks.json").write_text(json.dumps([task("t1", 0, 5, suite="s")]))
    hostile = {"<script>alert(1)</script>": "\u202eevil", "demo_data": True, "effort": "high"}
    attempts = [
        attempt("a/x", "1", "t1", 1, "2026-11-27T01:11:00Z", "verified", 5, 5, 9, 1.0, suite="s", settings=hostile)
    ]
    (tmp_path / "attempts.json").write_text(json.dumps(attempts))
    for step in (["import-tasks", "tasks.json"], ["import-attempts", "attempts.json", "--verified"]):
        result = CliRunner().invoke(cli, ["--db", str(db_path), step[0], str(tmp_path / step[1]), *step[2:]])
        assert result.exit_code == 0, (step, result.output)
    datasette = build_datasette(db_path, SETTINGS)
    shown = "&lt;script&gt;alert(1)&lt;/script&gt;=\u2068\u202eevil\u2069, effort=high"
    for path in ("/hostile/verified_leaderboard", "/hostile/agent_attempts?agent=a/x"):
        page = (await datasette.client.get(path)).text
        assert "<script>alert" not in page, path
        assert _raw_cells(page, "settings") == [shown], path
        assert '<time datetime="2026-11-27T01:11:00Z">27 Nov 2026, 01:11 UTC</time>' in page, path
    rows = (await datasette.client.get("/hostile/verified_leaderboard.json?_shape=array")).json()
    assert json.loads(rows[0]["settings"]) == hostile and rows[0]["first_date"] == "2026-11-27T01:11:00Z"
    page = (await datasette.client.get("/-/leaderboard")).text
    assert "<script>alert" not in page and "(" + shown + ")" in page


@pytest.mark.asyncio
async def test_the_benchmark_pages_date_as_the_makers_page_and_the_queries_do(datasette, methods_db):
    """The benchmark pages said "2026-11-03" (the hub's runs, the index's versions, the scorecard's
    attempts and price dates, a task's attempts) and a task's validation "2026-10-30 12:00 UTC", where
    the maker's page and the canned queries say "3 Nov 2026" and "30 Oct 2026, 12:00 UTC". Each reads
    that way now, in a <time> holding the stored value; a run keeps its name ("run 2026-11-01")."""
    from scoring.explain import when

    dated = re.compile(r'<time datetime="([^"]+)">(\d{1,2} [A-Z][a-z]{2} \d{4})(, \d\d:\d\d UTC)?</time>')
    conn = sqlite3.connect(methods_db)
    pages = {}
    for path in ("/-/benchmark", "/-/benchmark/index", "/-/benchmark/scorecard", "/-/benchmark/tasks/rs9/t4"):
        page = (await datasette.client.get(path)).text
        # No date left as "2026-11-03" in what a visitor reads, but for a run's name (a link, or "(run …)").
        read = text_of(re.sub(r"<a [^>]*>[^<]*</a>|\(run [^)]*\)", "", page))
        assert not re.search(r"\d{4}-\d\d-\d\d", read), (path, re.findall(r".{30}\d{4}-\d\d-\d\d.{10}", read))
        times = dated.findall(page)
        assert times and all(shown == when(value) for value, shown, _ in times), (path, times)
        pages[path] = page
    # The hub's runs, each dated by its earliest attempt.
    run_dates = re.findall(r'data-label="date">(.*?)</td>', pages["/-/benchmark"])
    assert run_dates and all(dated.fullmatch(d) for d in run_dates), run_dates
    # The index's versions: when the configuration first had each.
    ((first_seen,),) = conn.execute("select first_seen from benchmark_index_versions").fetchall()
    assert (
        f'data-label="first published"><time datetime="{first_seen}">{when(first_seen)}</time></td>'
        in (pages["/-/benchmark/index"])
    )
    # The scorecard's attempts, and the date of the price a cost was worked out at.
    scorecard = text_of(pages["/-/benchmark/scorecard"])
    assert "$0.05 (self-reported, rate of 3 Nov 2026)" in scorecard
    assert "(list price, rate of 5 Nov 2026)" in scorecard
    assert (
        '<td class="ar-date" data-label="date"><time datetime="2026-11-05T09:31:00Z">5 Nov 2026</time></td>'
        in (pages["/-/benchmark/scorecard"])
    )
    # A task's validation, to the minute as the queries give an instant, and its attempts' dates.
    task = pages["/-/benchmark/tasks/rs9/t4"]
    ((validated,),) = conn.execute(
        "select validated_at from benchmark_task_records where suite = 'rs9' and task_id = 't4'"
    ).fetchall()
    assert validated == "2026-10-30T12:00:00Z"
    validation = re.search(r"<h2>Validation.*?</h2>", task, re.S).group(0)
    assert validation == '<h2>Validation of <time datetime="2026-10-30T12:00:00Z">30 Oct 2026, 12:00 UTC</time></h2>'
    attempt_dates = re.findall(r'<td data-label="date">(<time[^>]*>[^<]*</time>)', task)
    assert attempt_dates and all(dated.fullmatch(d) and not dated.fullmatch(d).group(3) for d in attempt_dates)
    # The JSON keeps the stored values.
    card = (await datasette.client.get("/-/benchmark/scorecard.json")).json()
    assert "2026-11-03" in json.dumps(card) and "3 Nov 2026" not in json.dumps(card)
