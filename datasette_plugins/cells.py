"""Repository names in every table and query link to their breakdown page (``render_cell``)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from datasette import hookimpl
from markupsafe import Markup

from datasette_plugins.agent_page import correction
from datasette_plugins.formatting import signed, topic_list
from datasette_plugins.limits import limits
from datasette_plugins.paths import agent_path
from scoring.explain import rank_range_text

GITHUB_NAME = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
# Names there may be items that were never saved as repos.
NOT_REPOS = {"rejects"}
# Counts shown with thousands separators (and changes with a sign) in every table and query page.
COUNTS = {"stars", "forks", "open_issues", "stars_delta_7d", "stars_delta_28d", "forks_delta_7d", "stars_gained"}
DELTA = ("_7d", "_28d", "_gained")
# The agents table's likely_rank as stored ("11–19", and "14–14" when best and worst are equal).
LIKELY_RANK = re.compile(r"(\d+)–(\d+)")


def _is_id(column: str) -> bool:
    return column in ("id", "rowid", "pk") or column.endswith(("_id", "_ids", "id"))


def _a_figure(column: str) -> bool:
    """Is a whole number in this column a count or a rank (read with separators), not an id or a year?"""
    return not _is_id(column) and "year" not in column and column not in ("port", "version")


def _kind(row: Any) -> str | None:
    try:
        return row["agent_kind"]
    except (IndexError, KeyError, TypeError):
        return None


def _github_url(row: Any) -> str | None:
    try:
        url = row["html_url"]
    except (IndexError, KeyError, TypeError):
        return None
    return url if isinstance(url, str) and url.startswith("https://github.com/") else None


def _row_value(row: Any, column: str) -> Any:
    try:
        return row[column]
    except (IndexError, KeyError, TypeError):
        return None


def _uncertain(row: Any) -> bool:
    try:
        return bool(row["category_uncertain"])
    except (IndexError, KeyError, TypeError):
        return False


@hookimpl
def render_cell(row: Any, value: Any, column: str, table: str | None, database: str, datasette: Any):
    if column == "category" and isinstance(value, str) and _uncertain(row):
        # A low-confidence prediction is shown as such, not passed off as certain, and the maker's
        # correction is one click away when the row names the repo.
        name = _row_value(row, "full_name")
        if isinstance(name, str) and GITHUB_NAME.fullmatch(name):
            url = correction(limits(datasette).source_url, name, value, uncertain=True)["issue_url"]
            return Markup(
                '{} <a class="agentrank-uncertain" href="{}" rel="nofollow" title="the classifier was not confident: '
                'is it wrong? ask for a correction">(uncertain)</a>'
            ).format(value, url)
        return Markup(
            '{} <span class="agentrank-uncertain" title="the classifier was not confident">(uncertain)</span>'
        ).format(value)
    if column == "topics" and isinstance(value, str) and value.startswith("["):
        # A stored JSON array of topics (the review queue, the repos table) reads as the lists'
        # chips, each a search of the ranking, not as JSON.
        topics = topic_list(value, limit=100)
        if topics or value.strip() == "[]":
            search = datasette.urls.table(database, "agents") + "?_search="
            return Markup(" ").join(
                Markup('<a class="ar-chip" href="{}">{}</a>').format(search + quote(t), t) for t in topics
            )
    if column == "likely_rank" and isinstance(value, str) and (found := LIKELY_RANK.fullmatch(value)):
        # Read as the pages say it: "14", not "14–14"; the JSON and CSV keep the stored "best–worst".
        return rank_range_text(int(found.group(1)), int(found.group(2)))
    if column in COUNTS and isinstance(value, int) and not isinstance(value, bool):
        return signed(value) if column.endswith(DELTA) else f"{value:,}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1_000 and _a_figure(column):
        return f"{value:,}"  # any other count or rank (a query's figures: "#1,061"), never an id or a year
    if column == "agent" and isinstance(value, str) and GITHUB_NAME.fullmatch(value) and _kind(row) != "closed":
        # A leaderboard's agent that is a directory repo links to its maker's page.
        return Markup('<a class="agentrank-breakdown" href="{}">{}</a>').format(
            datasette.urls.path(agent_path(value)), value
        )
    if column != "full_name" or table in NOT_REPOS or not isinstance(value, str) or not GITHUB_NAME.fullmatch(value):
        return None
    html = Markup('<a class="agentrank-breakdown" href="{}">{}</a>').format(
        datasette.urls.path(agent_path(value)), value
    )
    github = _github_url(row)
    if github:
        html += Markup(
            ' <a class="agentrank-github" href="{}" title="{} on GitHub" rel="nofollow">GitHub&nbsp;↗</a>'
        ).format(github, value)
    return html
