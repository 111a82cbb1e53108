"""Datasette metadata for an AgentRank database, built in Python.

Built rather than kept as a file so the canned ``recompute`` query is the SQL of
:mod:`scoring.sql` itself and the database name follows the file being served.
``agentrank serve`` passes it to Datasette; ``agentrank snapshot`` writes it next to the copy for
``datasette -i FILE -m FILE.metadata.json``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from markupsafe import escape

from classify.categories import CATEGORIES
from classify.reasons import EARLIER
from datasette_plugins.paths import agent_path
from datasette_plugins.settings import ServeConfig
from db.connection import PRIVATE_TABLE_PREFIXES
from db.runs import RUN_KINDS
from leaderboard.datasette import with_benchmark
from scoring.components import EXTRA_INPUTS, TABLE
from scoring.score import MIN_AGE_DAYS, SHOWN_SQL, WEIGHTS
from scoring.sql import RECOMPUTE_SQL

# Where the method is written up in full (relative to the project's source URL).
METHOD_DOC = "/blob/main/docs/score.md"

_SCORE_INPUTS = {
    "stars": "Stargazers (GitHub's stargazers_count) at the time of the crawl",
    "forks": "Forks (GitHub's forks_count) at the time of the crawl",
    "created_at": "When the repository was created (UTC)",
    "pushed_at": "Last push to any branch, as GitHub reported it (UTC)",
    **EXTRA_INPUTS,
}


def _weight(component: str) -> str:
    """A component's weight as a percentage: ``30 %``."""
    return f"{round(WEIGHTS[component] * 100, 1):g} %"


# The texts below come from the component table (scoring.components), so they follow any change to the method.
_FORMULA = " + ".join(f"{weight:.2f}·{name}" for name, weight in WEIGHTS.items())
_MEASURES = {c.name: c.measure for c in TABLE}
_COMPONENTS = {name: f"{_MEASURES[name]} (weight {_weight(name)})" for name in WEIGHTS}
# For the method page.
COMPONENT_MEASURES = _MEASURES
FORMULA = _FORMULA


def _reweight_sql() -> str:
    weights = ",\n  ".join(
        f"max(coalesce(cast(nullif(:w_{name}, '') as real), {round(WEIGHTS[name] * 100, 6)!r}), 0.0) as {name}"
        for name in WEIGHTS
    )
    # Each weight as a share first, summed in the order scoring.sql uses: the published weights give the
    # published scores exactly, not merely close ones. Scores equal to 9 decimals tie (as the method's
    # exact ties do), so stars and then the name decide.
    weighted = " + ".join(f"(w.{name} / w.total) * s.{name}" for name in WEIGHTS)
    total = " + ".join(f"{name}" for name in WEIGHTS)
    return f"""
with weights as (select
  {weights}
),
w as (select *, {total} as total from weights),
reweighted as (
  select s.full_name, s.repo_id, s.stars, s.rank as published_rank, s.score as published_score,
         case when w.total > 0 then {weighted} end as score
  from scores s, w
  where s.run_id = (select score_run_id from published where id = 1)
)
select full_name, {SHOWN_SQL.format("score")} as score,
       row_number() over ranking as rank,
       published_rank,
       published_rank - row_number() over ranking as places_up,
       {SHOWN_SQL.format("published_score")} as published_score
from reweighted
window ranking as (order by round(score, 9) desc, stars desc, full_name, repo_id)
order by rank
""".strip()


_TRUST = {
    "rank_best": "Best rank under the uncertainty model: the 5th percentile of the rank with the weights redrawn "
    "around their values and a week of the repo's own star and fork changes (docs/score.md)",
    "rank_worst": "Worst rank under the same model (95th percentile); rank_best <= rank <= rank_worst",
    "score_low": "Lowest score under the same model (5th percentile)",
    "score_high": "Highest score under the same model (95th percentile)",
    "flags": "Neutral observations that never change the score (JSON array): unusual-star-growth marks a week's "
    "star gain that neither the repo's earlier weeks nor repos with its fork gain, pushes and size explain",
}

_KEPT_WITH_SCORE = {
    "category": "The category the repo had when this run was scored (what the ranking shows)",
    "category_source": "model or correction",
    "category_probability": "The classifier's probability for that category (empty for corrections)",
    "category_uncertain": "1 when the classifier was not confident about the category",
    "stars_delta_7d": "Stars gained since the newest snapshot at least 6 days before as_of (empty without one, or when the repo was not seen after it)",
    "stars_delta_28d": "Stars gained since the newest snapshot at least 27 days before as_of: the 4-week trend (empty without one)",
    "forks_delta_7d": "Forks gained since the newest snapshot at least 6 days before as_of (empty without one, or when the repo was not seen after it)",
}

TABLES: dict[str, dict[str, Any]] = {
    "agents": {
        "description": "The current ranking: every listed repository with its AgentRank Score, components and "
        "category, ordered by rank. Click a name for its breakdown.",
        "columns": {
            "rank": "Position in the ranking: score descending, then stars descending, then name",
            "full_name": "owner/repo on GitHub; links to the repo's score breakdown",
            "html_url": "The repository on GitHub",
            "category": f"One of the {len(CATEGORIES)} categories (see the categories table)",
            "category_name": "The category's display name (categories.name)",
            "score": "AgentRank Score, 0-100, one decimal (the scores table keeps it unrounded)",
            **{name: text.replace("0-100", "0-100, one decimal") for name, text in _COMPONENTS.items()},
            "stars": _SCORE_INPUTS["stars"],
            "forks": _SCORE_INPUTS["forks"],
            "license_spdx": "SPDX id of the licence GitHub detected (NOASSERTION: a licence file GitHub could not identify)",
            "language": "Main language as GitHub detected it",
            "pushed_at": _SCORE_INPUTS["pushed_at"],
            "activity_bucket": "Days since the last push, in the buckets the activity component uses",
            "description": "The repository's description on GitHub",
            "topics": "The repository's GitHub topics (JSON array)",
            "owner": "GitHub login of the owner (user or organisation)",
            "repo_id": "GitHub's numeric repository id (stable across renames)",
            "score_run_id": "The score run this ranking comes from (see runs)",
            "as_of": "The instant the score was computed for (UTC)",
            "category_uncertain": "1 when the classifier was not confident about the category",
            "stars_delta_7d": _KEPT_WITH_SCORE["stars_delta_7d"],
            "likely_rank": "Where the rank likely lies: rank_best–rank_worst",
            **{name: text for name, text in _TRUST.items() if name != "score_low" and name != "score_high"},
            "score_low": _TRUST["score_low"] + ", one decimal",
            "score_high": _TRUST["score_high"] + ", one decimal",
        },
    },
    "repos": {
        "description": "Every repository the crawler has seen, listed or not, with its current GitHub metadata. "
        "Keyed by GitHub's numeric id, so renames keep their row.",
        "columns": {
            "id": "GitHub's numeric repository id",
            "node_id": "GitHub's GraphQL node id",
            "full_name": "Current owner/repo",
            "name": "Repository name without the owner",
            "owner_login": "Owner's GitHub login",
            "owner_id": "Owner's numeric GitHub id",
            "owner_type": "User or Organization",
            "owner_avatar_url": "Owner's avatar image",
            "html_url": "The repository on GitHub",
            "description": "Description on GitHub, stored as sent",
            "homepage": "Homepage URL as set on GitHub (not checked; may be anything)",
            "language": "Main language as GitHub detected it",
            "topics": "GitHub topics (JSON array)",
            "license_key": "GitHub's licence key",
            "license_name": "GitHub's licence name",
            "license_spdx": "SPDX id of the licence (NOASSERTION: unidentified licence file)",
            "stars": "Stargazers at the last crawl",
            "forks": "Forks at the last crawl",
            "open_issues": "Open issues and pull requests at the last crawl",
            "size_kb": "Repository size in KB as GitHub reports it",
            "default_branch": "Default branch",
            "created_at": _SCORE_INPUTS["created_at"],
            "pushed_at": _SCORE_INPUTS["pushed_at"],
            "updated_at": "Last change to the repository object on GitHub (UTC)",
            "archived": "1 when archived on GitHub (archived repos are not listed)",
            "fork": "1 when the repository is a fork (forks are not listed)",
            "matched": "1 when a configured topic or keyword search returned it (imports count as matched)",
            "listed": "1 when it is in the ranking: matched, enough stars, not a fork, not archived, not excluded",
            "unlisted_reason": "Why it is not listed, when it is not",
            "source": "How it was first found: crawl, import or correction",
            "first_seen_at": "First crawl or import that saw it (UTC)",
            "last_seen_at": "Latest crawl or import that saw it (UTC)",
            "first_seen_run": "Run that first saw it",
            "last_seen_run": "Latest run that saw it",
            "missing_since_run": "First complete crawl that no longer returned it",
        },
    },
    "repo_names": {
        "description": "Every name a repository has had; the breakdown page finds a repo by an old name too.",
        "columns": {
            "repo_id": "GitHub's numeric repository id",
            "full_name": "A name the repository had (or has)",
            "first_seen_at": "First time the name was seen (UTC)",
            "last_seen_at": "Latest time the name was seen (UTC)",
        },
    },
    "runs": {
        "description": "Every command that changed the database (crawl, import, classify, score, export, refresh "
        "and the benchmark imports), with its status and counts.",
        "columns": {
            "id": "Run id",
            "kind": "; ".join(f"{kind.name}: {kind.what}" for kind in RUN_KINDS),
            "parent_id": "The refresh run this stage belonged to",
            "started_at": "Start (UTC)",
            "finished_at": "End (UTC)",
            "status": "running, ok, failed or interrupted",
            "as_of": "For score runs, the instant the scores are computed for",
            "items": "Items the run handled",
            "saved": "Rows it saved",
            "new": "Repositories seen for the first time",
            "updated": "Repositories whose tracked fields changed",
            "rejected": "Items that failed validation (see rejects)",
            "listed": "Listed repositories after the run",
            "error": "Why the run failed, when it did",
            "details": "Stage-specific counts (JSON)",
        },
    },
    "demo_marker": {
        "description": "One row when `agentrank demo` built this database from synthetic data (then every page "
        "says so); empty in a real database.",
        "columns": {
            "id": "Always 1",
            "built_at": "When the demo's latest week was crawled (UTC)",
            "first_week": "The first simulated week (UTC)",
            "seed": "The synthetic population's seed",
            "size": "Repositories in the synthetic population",
            "weeks": "Weekly refreshes the demo has run",
            "note": "What the data is",
        },
    },
    "rejects": {
        "description": "Items a crawl or import refused, one row each with the reason; the rest of their batch was kept.",
        "columns": {
            "id": "Row id",
            "run_id": "The run that received the item",
            "item_ref": "Where the item came from (search page or file position)",
            "repo_id": "The item's repository id, when it had a usable one",
            "full_name": "The item's name, when it had one",
            "reason": "Which field failed and why",
        },
    },
    "snapshots": {
        "description": "Stars, forks and last push of each repository at every crawl or import: the history.",
        "columns": {
            "run_id": "The crawl or import run",
            "repo_id": "GitHub's numeric repository id",
            "full_name": "Name at that time",
            "stars": "Stars at that time",
            "forks": "Forks at that time",
            "pushed_at": "Last push as reported at that time (UTC)",
            "observed_at": "When the run saw it (UTC)",
        },
    },
    "scores": {
        "description": "Every score run's scores, with every input kept so anyone can recompute them "
        "(the recompute query does).",
        "columns": {
            "run_id": "The score run",
            "repo_id": "GitHub's numeric repository id",
            "full_name": "Name at scoring time",
            "as_of": "The instant the score is computed for (UTC)",
            "method_version": "Version of the scoring method",
            **_SCORE_INPUTS,
            "license_spdx": "SPDX id of the licence at scoring time",
            "license_osi": "1 when that SPDX id is OSI-approved in the SPDX licence list",
            "spdx_list_version": "Version of the SPDX licence list used for the OSI flag",
            "age_days": "Days from created_at to as_of (fractional)",
            "days_since_push": "Days from pushed_at to as_of (fractional, at least 0; empty when no push)",
            "stars_per_day": f"stars / max(age_days, {MIN_AGE_DAYS:g}): the momentum input",
            **_COMPONENTS,
            "score": f"AgentRank Score, 0-100, unrounded: {_FORMULA}",
            "rank": "Position in the run: score descending, then stars descending, then name",
            **_KEPT_WITH_SCORE,
            **_TRUST,
            "growth_check": "The figures the unusual-star-growth rule looked at (JSON): the last week's gain, the "
            "earlier weekly gains, forks gained, whether pushed, the peers' prediction, or why the repo was not judged",
        },
    },
    "validation": {
        "description": "How far each score run's ranking can be trusted, one row per run (the export's validation "
        "object; docs/score.md says what each figure means).",
        "columns": {
            "run_id": "The score run",
            "n": "Listed repos ranked in the run",
            "spearman_vs_stars": "Spearman's rho between rank and stars (average ranks for ties), positive when more "
            "stars go with a better rank: near 1, the ranking mostly follows stars",
            "kendall_tau_vs_previous": "Kendall's tau-b between this run's and the previous run's ranks over "
            "the repos ranked in both: near 1, a stable ranking (empty on the first run)",
            "previous_run": "The score run before this one by as-of date (see score_run_previous)",
            "previous_common": "Repos ranked in both runs",
            "wide_rank_range_share": "Share of repos whose rank range spans more than 10 places: how much of the "
            "ranking sits within its own noise",
            "crawl_run": "The crawl the coverage comes from",
            "crawl_coverage": "Items received against GitHub's total_count over that crawl's finished query parts "
            "(empty when the repos came from imports)",
            "classifier_cv_accuracy": "The classifier's 5-fold cross-validated accuracy, when the classify run measured it ([classify] cross_validate = true)",
            "flagged": "Repos flagged unusual-star-growth",
            "judged": "Repos with enough history (four weekly star counts) for the growth rule to judge",
            "details": "Why a figure is empty, and the parameters behind the figures (JSON)",
        },
    },
    "corrections": {
        "description": "Maintainers' corrections as the latest refresh applied them (the corrections file's "
        "history is in its git log): exclusions leave the listed population, includes add a repo the searches "
        "miss, category corrections override the classifier, claims name a repo's maker.",
        "columns": {
            "id": "Row id",
            "kind": "exclude, include, category or claim",
            "repo": "owner/repo as written in the corrections file",
            "repo_id": "GitHub's numeric repository id it resolved to",
            "value": "The category (for category) or the claiming GitHub login (for claim)",
            "reason": "Why, as the file says",
            "date": "The date the file gives for it",
            "by": "Who asked for it, as the file says",
            "line": "Line of the entry in the corrections file",
            "status": "applied, or why it could not be",
            "run_id": "The refresh that applied it",
            "updated_at": "When that refresh ran (UTC)",
        },
    },
    "categories": {
        "description": f"The {len(CATEGORIES)} categories every listed repository is sorted into.",
        "columns": {
            "id": "Category id",
            "name": "Display name",
            "description": "What belongs in it",
            "position": "Display order",
        },
    },
    "repo_categories": {
        "description": "Each repository's category, from the classifier or a maintainer's correction.",
        "columns": {
            "repo_id": "GitHub's numeric repository id",
            "category": "The category",
            "probability": "Classifier's probability for it (empty for corrections and rules)",
            "runner_up": "Second most likely category",
            "reason": "Why the classifier chose it (JSON: text, the deciding features, runner-up)",
            "runner_up_probability": "Its probability",
            "uncertain": "1 when the classifier was not confident; shown as uncertain",
            "source": "model or correction",
            "model_version": "Version of the classifier",
            "run_id": "The classify run",
            "classified_at": "When (UTC)",
            "input_hash": "Hash of the name, description and topics it was classified from (to redo only changed repos)",
        },
    },
    "category_corrections": {
        "description": "Category corrections from the corrections file: they override the classifier and are "
        "added to its training examples.",
        "columns": {
            "full_name": "owner/repo as the correction names it",
            "repo_id": "GitHub's numeric repository id it resolved to (empty until the repo is seen)",
            "category": "The category it must have",
            "reason": "Why, as the corrections file says",
            "updated_at": "When the correction was last applied (UTC)",
        },
    },
    "published": {
        "description": "Which score run the ranking (the agents view and the export) shows.",
        "columns": {
            "id": "Always 1",
            "score_run_id": "The published score run",
            "refresh_run_id": "The weekly refresh that produced it, if any",
            "published_at": "When it was published (UTC)",
        },
    },
}

TABLES["score_run_previous"] = {
    "description": "Which score run comes before each: runs follow each other by the date they score as of "
    "(the run id breaks a tie), so a what-if scored as of a later date is not the run before an ordinary one.",
    "columns": {
        "run_id": "A successful score run",
        "as_of": "The instant it scores as of",
        "previous_id": "The successful score run before it (empty for the first)",
    },
}

TABLES["published_ranking"] = {
    "description": "The query that computes the agents table from the published score run; publishing a run "
    "copies its rows into agents, so pages read a table with indexes instead of this join.",
    "columns": TABLES["agents"]["columns"],
}

_TABLE_OPTIONS: dict[str, dict[str, Any]] = {
    "agents": {
        "sort": "rank",
        "size": 50,  # half Datasette's default: the page renders twice as fast
        "facets": ["category", "license_spdx", "language", "activity_bucket"],
        "fts_table": "repos_fts",
        "fts_pk": "repo_id",
    },
    "repos": {"label_column": "full_name", "sort_desc": "stars"},
    "categories": {"label_column": "name", "sort": "position"},
    "scores": {"sort": "rank"},
    "runs": {"sort_desc": "id", "label_column": "started_at"},  # a run_id shows when the run started
    "_sqlite_migrations": {"hidden": True},
    "published_ranking": {"hidden": True},
    "score_run_previous": {
        "hidden": True
    },  # plumbing for the movers, rank changes and validation  # what publish() copies into the agents table (db/agents.py)
}

REWEIGHT_SQL = _reweight_sql()


def _rules_in_words(expression: str) -> str:
    """``expression`` (a stored category reason's text) with each rule an earlier classifier cited by
    number said in words, as the maker's page says it (classify.reasons)."""
    for earlier, words in EARLIER.items():
        expression = "replace({}, '{}', '{}')".format(expression, earlier.replace("'", "''"), words.replace("'", "''"))
    return expression


# The words a canned query's columns are headed with on its page (datasette_plugins/query_columns.py):
# what each column is, not its SQL name, which the JSON and CSV keep (and a heading's hover names).
_HEADINGS = {
    "rank": "Rank",
    "full_name": "Repository",
    "stars": "Stars",
    "forks": "Forks",
    "score": "Score",
    "category": "Category",
    "category_name": "Category",
    "category_uncertain": "Category uncertain (1: yes)",
    "description": "Description",
    "topics": "Topics",
    "license_spdx": "Licence",
    "pushed_at": "Last push",
    **{c.name: c.name.capitalize() for c in TABLE},
}
_PERCENT = "percent"  # a probability or a share (0 to 1) read as a percentage: 0.54 → 54 %
_INSTANT = (
    "datetime"  # a stored UTC instant as the maker's page dates it: "27 Nov 2026, 01:11 UTC" (a day: "23 Nov 2026")
)
# The words a canned query's form labels its fields with (the fields keep their names, which the URLs use).
_RUN_LABEL = "Score run id (empty: the published run)"

QUERIES: dict[str, dict[str, Any]] = {
    "category_review": {
        "title": "Category review queue",
        "description": "Listed repositories whose category the classifier was unsure of (or which are not "
        "classified yet), most visible first (best rank, then most stars), with the category it chose, how sure "
        "it was, the next likeliest category and why. Confirm or correct each with a [[category]] entry "
        "in the corrections file (the category id, last, is the id it takes), and the correction becomes a "
        "training example.",
        # What the page heads the rows with (templates/query.html): "12 repositories to review".
        "rows": ["repository to review", "repositories to review"],
        "headings": {
            **_HEADINGS,
            "category": "Category it chose",
            "probability": "How sure the classifier was",
            "runner_up": "Next likeliest category",
            "runner_up_probability": "How likely the next one was",
            "reason": "Why it chose it",
            "category_id": "Category id (for the corrections file)",
            "runner_up_id": "Next likeliest's id",
        },
        "formats": {"probability": _PERCENT, "runner_up_probability": _PERCENT},
        # The published run's categories (the scores rows behind `agents`), as every page and the export
        # show them: a correction or a re-classification leaves the queue with the next published run.
        # Categories by name, as every page shows them; their ids (for the corrections file) last.
        "sql": f"""
-- rounded down: a probability of 0.5467 is not shown as the threshold's 0.55
select a.rank, a.full_name, a.stars, coalesce(a.category_name, a.category, 'not classified yet') as category,
       cast(s.category_probability * 100 as integer) / 100.0 as probability,
       coalesce(second.name, c.runner_up) as runner_up, round(c.runner_up_probability, 2) as runner_up_probability,
       {_rules_in_words("json_extract(c.reason, '$.text')")} as reason, a.description, a.topics,
       a.category as category_id, c.runner_up as runner_up_id
from agents a
join scores s on s.run_id = a.score_run_id and s.repo_id = a.repo_id
left join repo_categories c on c.repo_id = a.repo_id and c.category = s.category and c.source = 'model'
left join categories second on second.id = c.runner_up
where (a.category_uncertain = 1 and s.category_source = 'model') or a.category is null
order by a.rank, a.stars desc, a.full_name
limit 1000
""".strip(),
    },
    "top_agents": {
        "title": "Top agents per category",
        "description": "The best-ranked repositories in each category: ten each, or as many as asked for, "
        "in every category or one.",
        "parameter_labels": {
            "per_category": "How many per category (empty: 10)",
            "category": "Category id (empty: every category)",
        },
        "headings": {
            **_HEADINGS,
            "category": "Category id",
            "category_rank": "Rank in its category",
            "rank": "Rank overall",
        },
        "formats": {"pushed_at": _INSTANT},
        "sql": """
select cat.name as category_name, a.category, a.category_uncertain, a.category_rank, a.rank, a.full_name, a.score,
       a.stars, a.forks, a.license_spdx, a.pushed_at, a.description
from (select *, row_number() over (partition by category order by rank) as category_rank from agents) a
left join categories cat on cat.id = a.category
where a.category_rank <= cast(coalesce(nullif(:per_category, ''), 10) as integer)
  and (:category = '' or a.category = :category)
order by cat.position, a.category_rank
""".strip(),
    },
    "my_agents": {
        "title": "My agents",
        "description": "An owner's repositories with their score, rank and components; unlisted ones show why.",
        "parameter_labels": {"owner": "Owner (a GitHub user or organisation)"},
        "headings": {**_HEADINGS, "listed": "Listed (1: yes)", "unlisted_reason": "Why it is not listed"},
        "sql": f"""
select r.full_name, a.rank, a.score, a.category, a.category_uncertain, {", ".join(f"a.{c.name}" for c in TABLE)},
       r.stars, r.forks, r.listed, r.unlisted_reason
from repos r
left join agents a on a.repo_id = r.id
where r.owner_login = :owner collate nocase
order by a.rank is null, a.rank, r.stars desc
""".strip(),
    },
    "recompute": {
        "title": "Recompute every score",
        "description": "Recomputes every component, score and rank from the inputs stored with each score row, "
        "next to the stored values; the difference is the recomputed minus the stored score (zero for every "
        "row). The page shows figures to one decimal, as the site does; the JSON and CSV have every digit. "
        "It recomputes the published run unless another is asked for, and shows a page of rows at a time "
        "from the rank asked for (the server returns at most that many at once).",
        "sql": f"""
select * from (
{RECOMPUTE_SQL.strip()}
)
-- from_rank: where the page starts, for rankings longer than the rows the server returns at once
where rank >= coalesce(cast(nullif(:from_rank, '') as integer), 1)
""".strip(),
        "headings": {
            **_HEADINGS,
            "rank": "Rank, recomputed",
            "stored_rank": "Rank, as stored",
            "repo_id": "GitHub id",
            "as_of": "Scored as of",
            "age_days": "Age (days)",
            "days_since_push": "Days since the last push",
            **{column: column.replace("_", " ").capitalize() for column in EXTRA_INPUTS},
            "score": "Score, recomputed",
            "stored_score": "Score, as stored",
            "difference": "Difference (recomputed − stored)",
            "tie_key": "Tie-break key (an exact integer)",
        },
        "formats": {
            **{c.name: "decimals" for c in TABLE},
            "score": "score",
            "stored_score": "score",
            "age_days": "decimals",
            "days_since_push": "decimals",
            "difference": "difference",
            "as_of": _INSTANT,
        },
        # Rankings longer than the server's page of rows: the next page starts after the last rank shown.
        "next_page": {"column": "rank", "parameter": "from_rank"},
        "parameter_labels": {"run_id": _RUN_LABEL, "from_rank": "Start at rank (empty: 1)"},
    },
    "recompute_summary": {
        "title": "Recompute check, in one row",
        "description": "The recompute query summarised over every repository: how many, the largest "
        "difference between a recomputed and a stored score, and how many ranks differ.",
        "headings": {
            "repos": "Repositories",
            "max_abs_difference": "Largest difference (recomputed − stored score)",
            "rank_mismatches": "Ranks that differ",
        },
        "formats": {"max_abs_difference": "difference"},
        "parameter_labels": {"run_id": _RUN_LABEL},
        "sql": f"""
select count(*) as repos, max(abs(difference)) as max_abs_difference,
       sum(rank != stored_rank) as rank_mismatches
from ({RECOMPUTE_SQL.strip()})
""".strip(),
    },
    "validation_figures": {
        "title": "How far the ranking can be trusted",
        "description": "The published score run's validation figures: how closely the rank follows stars, how "
        "stable it is against the previous run, how much of it lies within its own noise, the crawl's coverage, "
        "the classifier's accuracy and the repos flagged for unusual star growth.",
        "headings": {
            "run_id": "Score run",
            "n": "Repositories ranked",
            "spearman_vs_stars": "How closely the rank follows stars (−1 to 1)",
            "kendall_tau_vs_previous": "How stable against the previous run (−1 to 1)",
            "previous_run": "Previous score run",
            "previous_common": "Repositories ranked in both",
            "wide_rank_range_share": "Share whose likely rank spans more than 10 places",
            "crawl_coverage": "Crawl coverage",
            "classifier_cv_accuracy": "Classifier accuracy (cross-validated)",
            "flagged": "Flagged for unusual star growth",
            "judged": "With enough history to judge star growth",
            "notes": "Notes",
        },
        "formats": {"wide_rank_range_share": _PERCENT, "crawl_coverage": _PERCENT, "classifier_cv_accuracy": _PERCENT},
        "parameter_labels": {"run_id": _RUN_LABEL},
        "sql": """
select v.run_id, v.n, round(v.spearman_vs_stars, 3) as spearman_vs_stars,
       round(v.kendall_tau_vs_previous, 3) as kendall_tau_vs_previous, v.previous_run, v.previous_common,
       round(v.wide_rank_range_share, 3) as wide_rank_range_share, round(v.crawl_coverage, 3) as crawl_coverage,
       v.classifier_cv_accuracy, v.flagged, v.judged,
       -- why a figure is missing, in words (the full record, with the uncertainty model's settings,
       -- is the validation table's details and the export's validation object)
       nullif(trim(coalesce('Rank against stars: ' || json_extract(v.details, '$.spearman_vs_stars') || '. ', '')
         || coalesce('Stability: ' || json_extract(v.details, '$.kendall_tau_vs_previous') || '. ', '')
         || coalesce('Classifier accuracy: ' || json_extract(v.details, '$.classifier_cv_accuracy') || '. ', '')
         || coalesce('Crawl coverage: ' || json_extract(v.details, '$.crawl_coverage.reason') || '.', '')), '') as notes
from validation v
where v.run_id = coalesce(nullif(:run_id, ''), (select score_run_id from published where id = 1))
""".strip(),
    },
    "flagged_growth": {
        "title": "Unusual star growth",
        "description": "Repos in the published ranking flagged unusual-star-growth, with the figures behind the flag. "
        "A neutral observation from public star counts: it never changes the score.",
        "headings": {
            **_HEADINGS,
            "stars_delta_7d": "Stars gained in 7 days",
            "largest_earlier_weekly_gain": "Largest earlier weekly gain",
            "forks_gained_last_week": "Forks gained last week",
            "pushed_last_week": "Pushed last week (1: yes)",
            "expected_from_peers": "Gain expected from its peers",
        },
        "formats": {"expected_from_peers": "decimals"},
        "sql": """
select a.rank, a.full_name, a.stars, a.stars_delta_7d,
       json_extract(s.growth_check, '$.largest_earlier_weekly_gain') as largest_earlier_weekly_gain,
       json_extract(s.growth_check, '$.forks_gained_last_week') as forks_gained_last_week,
       json_extract(s.growth_check, '$.pushed_last_week') as pushed_last_week,
       json_extract(s.growth_check, '$.expected_from_peers') as expected_from_peers
from agents a join scores s on s.run_id = a.score_run_id and s.repo_id = a.repo_id
where a.flags like '%unusual-star-growth%'
order by a.rank
""".strip(),
    },
    "reweight": {
        "title": "Your own weights",
        "description": "Re-ranks the published run with your weights (percent; normalised when they do not add up to "
        "100), from the components stored with each score: the components stay as published, only the weights "
        "change. Empty fields keep the published weight: "
        + ", ".join(f"{name} {_weight(name)}" for name in WEIGHTS)
        + ". It shows a page of rows at a time from the rank asked for (the server returns at most that many "
        "at once).",
        "sql": f"""
select * from (
{REWEIGHT_SQL}
)
-- from_rank: where the page starts, for rankings longer than the rows the server returns at once
where rank >= coalesce(cast(nullif(:from_rank, '') as integer), 1)
order by rank
""".strip(),
        # Rankings longer than the server's page of rows: the next page starts after the last rank shown.
        "next_page": {"column": "rank", "parameter": "from_rank"},
        # the weights' fields, named w_<component> in the URL
        "parameter_labels": {
            **{
                f"w_{name}": f"{name.capitalize()} weight in percent (empty: the published {_weight(name)})"
                for name in WEIGHTS
            },
            "from_rank": "Start at rank (empty: 1)",
        },
        "headings": {
            **_HEADINGS,
            "score": "Score with your weights",
            "rank": "Rank with your weights",
            "published_rank": "Published rank",
            "places_up": "Places up (down: −)",
            "published_score": "Published score",
        },
    },
    "rank_changes": {
        "title": "Biggest rank changes since the previous run",
        "description": "Repositories ranked in both the published score run and the score run before it, "
        "by how many places they moved among those repositories (repos joining or leaving the list change a "
        "rank number, not a place), with what moved it: its activity bucket (its last push), its "
        "licence, or its stars and forks against the other repos' changes; each repository's page "
        "splits the last into its own part and the others' (empty until two score runs exist).",
        "headings": {
            **_HEADINGS,
            "previous_rank": "Rank before",
            "rank": "Rank now",
            "places_up": "Places up (down: −)",
            "moved_by": "What moved it",
            "stars_gained": "Stars gained",
            "previous_score": "Score before",
            "score": "Score now",
            "previous_run_day": "Run before",
            "run_day": "Run now",
        },
        # each run's day ("2026-11-23"), read as the instants are: "23 Nov 2026"
        "formats": {"previous_run_day": _INSTANT, "run_day": _INSTANT},
        "sql": f"""
with current_run as (select score_run_id as run_id from published where id = 1),
previous_run as (
  select previous_id as run_id from score_run_previous where run_id = (select run_id from current_run)
),
-- places among the repos ranked in both runs: newcomers and leavers change a rank number, not a place
place_now as (
  select repo_id, row_number() over (order by rank) as place from scores
  where run_id = (select run_id from current_run) and rank is not null
    and repo_id in (select repo_id from scores where run_id = (select run_id from previous_run) and rank is not null)
),
place_before as (
  select repo_id, row_number() over (order by rank) as place from scores
  where run_id = (select run_id from previous_run) and rank is not null
    and repo_id in (select repo_id from scores where run_id = (select run_id from current_run) and rank is not null)
),
-- each part of the score change in points, turned the way the repo moved (places up: +, down: −)
moves as (
  select c.repo_id, b.place - n.place as places_up, case when b.place > n.place then 1 else -1 end as way,
         c.activity - p.activity as activity, c.openness - p.openness as openness,
         c.popularity - p.popularity as popularity, c.adoption - p.adoption as adoption,
         c.momentum - p.momentum as momentum
  from scores c
  join scores p on p.repo_id = c.repo_id and p.run_id = (select run_id from previous_run)
  join place_now n on n.repo_id = c.repo_id
  join place_before b on b.repo_id = c.repo_id
  where c.run_id = (select run_id from current_run)
),
parts as (
  select repo_id, places_up, way * {WEIGHTS["activity"]!r} * activity as activity_part,
         way * {WEIGHTS["openness"]!r} * openness as licence_part,
         way * ({WEIGHTS["popularity"]!r} * popularity + {WEIGHTS["adoption"]!r} * adoption
           + {WEIGHTS["momentum"]!r} * momentum) as percentile_part
  from moves
)
select c.full_name, p.rank as previous_rank, c.rank, m.places_up,
       -- the part that pushed it furthest the way it moved, as the maker's page and the movers feed
       -- say (a bucket flip beside 40,000 new stars did not move it); the others' changes when no
       -- part of its own score pushed that way
       case
         when m.activity_part > 1e-9 and m.activity_part >= m.licence_part and m.activity_part >= m.percentile_part
           then 'its activity bucket (its last push) changed'
         when m.licence_part > 1e-9 and m.licence_part >= m.percentile_part then 'its licence changed'
         when c.stars = p.stars and c.forks = p.forks then 'the other repos'' changes (no new stars or forks)'
         else 'its stars and forks against the other repos'' changes (its page says which moved it)'
       end as moved_by,
       c.stars - p.stars as stars_gained,
       {SHOWN_SQL.format("p.score")} as previous_score, {SHOWN_SQL.format("c.score")} as score,
       substr(p.as_of, 1, 10) as previous_run_day, substr(c.as_of, 1, 10) as run_day
from parts m
join scores c on c.repo_id = m.repo_id and c.run_id = (select run_id from current_run)
join scores p on p.repo_id = m.repo_id and p.run_id = (select run_id from previous_run)
where m.places_up != 0
order by abs(m.places_up) desc, c.rank
limit 100
""".strip(),
    },
}


# What each component is measured from, in a few words (the instance description).
_MEASURED_BY = {c.name: c.measured_by for c in TABLE}


def description_html(database: str, source_url: str, example: str | None = None) -> str:
    """The instance description: the method in a sentence, and where to start."""
    breakdown = "click a repository's name for its breakdown"
    if example:
        breakdown += f' (<a href="{escape(agent_path(example))}">the top one\'s</a>)'
    parts = [f"{_weight(name)} {name} ({_MEASURED_BY[name]})" for name in WEIGHTS]
    return (
        "The most-starred open-source AI-agent repositories on GitHub, each with an <strong>AgentRank "
        "Score</strong> from 0 to 100 computed only from public GitHub data: "
        f"{', '.join(parts[:-1])} and {parts[-1]}, each measured against the other listed repos. "
        f'Start with the <a href="/{database}/agents">ranking</a>; {breakdown}: each component, its points '
        "and what would move it. Check every score with the "
        f'<a href="/{database}/recompute">recompute query</a>. '
        f'<a href="{escape(source_url.rstrip("/") + METHOD_DOC)}">The method in full</a>.'
    )


def build_metadata(
    database: str,
    settings: ServeConfig | None = None,
    table_names: Iterable[str] = (),
    example: str | None = None,
    demo_note: str | None = None,
) -> dict[str, Any]:
    """Metadata for serving ``database`` (Datasette's name for it: the file's stem).

    ``table_names`` lets private tables be hidden; ``example`` is a repo whose breakdown the
    description links to; ``demo_note`` (a database ``agentrank demo`` built) labels every page.
    """
    settings = settings or ServeConfig()
    tables: dict[str, dict[str, Any]] = {}
    for name in sorted({*TABLES, *_TABLE_OPTIONS}):
        tables[name] = {**TABLES.get(name, {}), **_TABLE_OPTIONS.get(name, {})}
    for name in table_names:
        if name.startswith(PRIVATE_TABLE_PREFIXES):  # operator-only state: hidden here, left out of snapshots
            tables.setdefault(name, {})["hidden"] = True
    return _sql_folded(
        with_benchmark(
            {
                "title": "AgentRank",
                "description_html": description_html(database, settings.source_url, example),
                "license": "Apache-2.0 (code); repository metadata from the public GitHub API",
                "license_url": "https://www.apache.org/licenses/LICENSE-2.0",
                "source": "GitHub REST API: search/repositories",
                "source_url": "https://docs.github.com/en/rest/search/search#search-repositories",
                "about": "AgentRank on GitHub",
                "about_url": settings.source_url,
                "plugins": {
                    "agentrank": {**settings.plugin_settings(), **({"demo_note": demo_note} if demo_note else {})}
                },
                "databases": {
                    database: {
                        "description_html": f'The AgentRank database. Start with <a href="/{database}/agents">the ranking '
                        "(the agents view)</a>; the tables hold every repository seen, every score run with its inputs, "
                        "and the run log.",
                        "tables": tables,
                        "queries": QUERIES,
                    }
                },
            },
            database,
        )
    )


def _sql_folded(metadata: dict[str, Any]) -> dict[str, Any]:
    """Every canned query opens on its results; its SQL is one click away (Datasette's hide_sql)."""
    for database in metadata["databases"].values():
        database["queries"] = {name: {**query, "hide_sql": True} for name, query in database["queries"].items()}
    return metadata
