"""What Datasette publishes of the ledger: table descriptions and canned queries, and the maker's page data.

``DATASETTE_METADATA`` is a fragment for ONE database entry of Datasette's metadata: merge its
``tables`` and ``queries`` into ``metadata["databases"][<database name>]`` (``with_benchmark``
does that without touching the original). ``benchmark_summary`` is the maker's page data,
rendered by ``datasette_plugins/templates/_benchmark.html``.

The canned queries show a missing figure as "—" (SQLite's printf would print NULL as 0.0, so
every figure goes through ``_shown``); the tables keep the numbers and NULLs as stored.
"""

from __future__ import annotations

import copy
from typing import Any

from leaderboard.summary import benchmark_summary

__all__ = ["DATASETTE_METADATA", "benchmark_summary", "with_benchmark"]

DASH = "—"


def _shown(column: str, fmt: str, alias: str | None = None) -> str:
    return f"case when {column} is null then '{DASH}' else printf('{fmt}', {column}) end as {alias or column}"


def _leaderboard_sql(tier: str) -> str:
    return f"""
select
  coalesce(rank, '{DASH} (' || coverage || ')', '{DASH}') as rank,
  agent,
  agent_version as version,
  case when version_changed then 'changed from ' || previous_version else '' end as version_change,
  model,
  suite,
  settings,
  coalesce(coverage, tasks || ' of ' || tasks_total || ' tasks') as tasks_covered,
  first_date,
  last_date,
  attempts,
  tasks,
  {_shown("mean_score", "%.1f")},
  {_shown("solve_rate", "%.1f")},
  case when solve_rate_low is null then '{DASH}'
       else printf('%.1f–%.1f', solve_rate_low, solve_rate_high) end as solve_rate_95,
  case overlaps_next when 1 then 'overlaps the next: the order may be luck' when 0 then 'clear of the next'
       else '' end as interval_vs_next,
  case pareto when 1 then 'on the frontier' when 0 then ''
       else case when cost_per_attempt is null then '{DASH} (cost unknown)'
                 else printf('not ranked; %.2f per attempt', cost_per_attempt) end end as cost_score_pareto,
  case when cost_per_solved_task is null then '{DASH} (' || cost_per_solved_task_null_reason || ')'
       else printf('%.2f', cost_per_solved_task) end as cost_per_solved_task,
  case when total_cost_usd is null then '{DASH}' else printf('%.2f', total_cost_usd)
       || case when cost_source is not null and cost_lower_bound then ' (' || cost_source || '; lower bound)'
               when cost_source is not null then ' (' || cost_source || ')'
               when cost_lower_bound then ' (lower bound)' else '' end end as total_cost_usd,
  {_shown("mean_wall_seconds", "%.0f")},
  {_shown("median_wall_seconds", "%.0f")},
  disqualified,
  infra_errors,
  timed_out
from benchmark_entries
where tier = '{tier}'
order by suite, benchmark_entries.rank is null, benchmark_entries.rank, agent, agent_version, model
"""


_AGENT_ATTEMPTS_SQL = f"""
select
  tier,
  date,
  agent,
  agent_version as version,
  case when lag(agent_version) over runs != agent_version
       then 'changed from ' || lag(agent_version) over runs else '' end as version_change,
  model,
  task_id,
  attempt,
  case when counted then printf('%.1f', score) else '{DASH} (not counted)' end as score,
  case when solved is null then '{DASH}' when solved then 'yes' else 'no' end as solved,
  coalesce(tests_passed || ' / ' || tests_total, '{DASH}') as hidden_tests,
  flags,
  {_shown("wall_seconds", "%.0f")},
  case when coalesce(cost_usd, list_cost_usd) is null then '{DASH} (price unknown)'
       else printf('%.2f', coalesce(cost_usd, list_cost_usd))
            || case when cost_lower_bound then ' (lower bound)' else '' end end as cost_usd,
  case when cost_usd is null and list_cost_usd is not null then 'api-list-price' else cost_source end
    as cost_source,
  coalesce(human_interventions, '{DASH}') as human_interventions,
  permission_mode,
  network_access,
  settings,
  log_url,
  diff_url
from benchmark_attempts
where agent = :agent collate nocase
window runs as (partition by tier order by date, agent_version, model, task_id, attempt)
order by tier, date, task_id, attempt
"""

_TASK_RESULTS_SQL = f"""
select
  tier,
  agent,
  agent_version as version,
  model,
  attempts,
  solved,
  {_shown("mean_score", "%.1f")},
  {_shown("min_score", "%.1f")},
  {_shown("median_score", "%.1f")},
  {_shown("max_score", "%.1f")},
  {_shown("mean_wall_seconds", "%.0f")},
  disqualified,
  infra_errors
from benchmark_tasks
where task_id = :task
order by tier, benchmark_tasks.mean_score is null, benchmark_tasks.mean_score desc, agent, agent_version, model
"""

_FIGURE_COLUMNS = {
    "attempts": "attempts that count (infra errors left out; disqualified ones in, scoring 0)",
    "infra_errors": "attempts lost to an infrastructure error: they count neither for nor against",
    "disqualified": "attempts flagged modified-tests, added-dependency or reward-hacking: scored 0",
    "timed_out": "attempts that hit the time limit (scored on their hidden tests as usual)",
    "tasks": "distinct tasks with at least one counted attempt",
    "solved": "counted attempts that passed every hidden test",
    "mean_score": "mean over tasks of the task's mean attempt score (% of hidden tests passed)",
    "solve_rate": "mean over tasks of the share of the task's attempts that solved it (%)",
    "mean_wall_seconds": "mean wall-clock seconds of counted attempts with a measured time; null when none",
    "median_wall_seconds": "median wall-clock seconds, same attempts",
    "wall_unknown": "counted attempts without a measured time",
    "total_cost_usd": "sum of the counted attempts' costs; null when any cost is unknown",
    "cost_unknown": "counted attempts without a measured cost",
    "cost_per_solved_task": "total cost / solved attempts; null when nothing was solved or any cost is unknown",
    "cost_per_solved_task_null_reason": "why cost_per_solved_task is null",
    "cost_lower_bound": "1 when an attempt's cost is a lower bound (it stopped before reporting its final usage)",
    "human_interventions": "total human interventions; null when any attempt did not record them",
    "cost_source": "where the costs come from (provider-dashboard, provider-invoice, api-list-price, self-reported)",
    "cost_per_attempt": "total cost / counted attempts; known for an unranked entry too",
    "agent_errors": "counted attempts where the agent itself failed to run properly (fails)",
    "error_reasons": "infra and agent errors by reason, with counts (JSON)",
}

_IDENTITY_COLUMNS = {
    "tier": "verified: run by the site with a published log; community: submitted, score re-checked, "
    "identity, time and cost self-reported",
    "agent": "the directory repo owner/repo, or a closed agent's name",
    "agent_kind": "repo (an agent in the directory) or closed (a named agent without a repo)",
    "agent_version": "the agent's version as reported for the attempt",
    "model": "the model the agent ran on",
}

_TABLES: dict[str, Any] = {
    "benchmark_attempts": {
        "description": "Every task-benchmark attempt imported with `agentrank import-attempts`, with its score "
        "(% of hidden tests passed; 0 when disqualified; null for an infra error, which does not count).",
        "facets": ["tier", "agent", {"array": "flags"}],
        "sort_desc": "date",
        "columns": {
            "attempt_id": "hash of tier, agent, agent_version, model, task_id, attempt, suite, run and settings: re-imports update it",
            **_IDENTITY_COLUMNS,
            "task_id": "the benchmark task",
            "attempt": "attempt number on that task (1, 2, ...)",
            "tokens_input": "input tokens; null when not known",
            "tokens_cached": "cached input tokens; null when not known",
            "tokens_output": "output tokens; null when not known",
            "tokens_reasoning": "reasoning tokens; null when not known",
            "human_interventions": "times a person stepped in; null when not recorded",
            "permission_mode": "what the agent was allowed to do without asking",
            "network_access": "1 when the agent had network access",
            "log_url": "the published log of the run",
            "diff_url": "the diff the agent produced",
            "disqualified": "1 when a disqualifying flag scored it 0",
            "settings": "the agent's other settings (JSON)",
            "date": "when the attempt started (UTC)",
            "tests_passed": "hidden tests passed",
            "tests_total": "hidden tests run",
            "wall_seconds": "wall-clock seconds; null when not measured",
            "cost_usd": "cost in US dollars; null when not measured (never estimated)",
            "cost_source": "provider-dashboard, provider-invoice, api-list-price or self-reported",
            "flags": "modified-tests, added-dependency, reward-hacking (disqualify), infra-error, timed-out",
            "score": "% of hidden tests passed; 0 when disqualified; null when the attempt does not count",
            "solved": "1 when every hidden test passed and the attempt is not disqualified",
            "counted": "0 for an infra error, which counts neither for nor against",
            "first_run_id": "the import-attempts run that first stored it",
            "changed_run_id": "the last import-attempts run that changed it",
        },
    },
    "benchmark_entries": {
        "description": "The leaderboards: one row per agent version on a model in a tier, ranked within its tier "
        "by mean score, then solve rate, then cost per solved task, then mean wall time.",
        "facets": ["tier", "agent"],
        "sort": "rank",
        "columns": {
            **_IDENTITY_COLUMNS,
            "rank": "position within the tier; null when no attempt counted",
            "version_changed": "1 when the agent's previous dated run in this tier had another version",
            "previous_version": "that previous version",
            "latest": "1 for the agent's most recent version in this tier",
            "first_date": "first attempt of this entry",
            "last_date": "last attempt of this entry",
            **_FIGURE_COLUMNS,
        },
    },
    "benchmark_agents": {
        "description": "Each agent's figures per tier over all its versions and models.",
        "facets": ["tier"],
        "columns": {
            **{k: v for k, v in _IDENTITY_COLUMNS.items() if k in ("tier", "agent", "agent_kind")},
            "versions": "versions run, oldest first (JSON)",
            "latest_version": "the most recent version run",
            "first_date": "first attempt",
            "last_date": "last attempt",
            **_FIGURE_COLUMNS,
        },
    },
    "benchmark_tasks": {
        "description": "Per-task results of each entry: the spread of attempt scores (min, median, max).",
        "facets": ["tier", "task_id"],
        "columns": {
            **{k: v for k, v in _IDENTITY_COLUMNS.items() if k != "agent_kind"},
            "task_id": "the benchmark task",
            **{
                k: _FIGURE_COLUMNS[k]
                for k in ("attempts", "infra_errors", "disqualified", "solved", "mean_wall_seconds")
            },
            "min_score": "lowest counted attempt score",
            "median_score": "median counted attempt score",
            "max_score": "highest counted attempt score",
            "mean_score": "mean counted attempt score",
            "solve_rate": "% of counted attempts that solved the task",
        },
    },
}

_VARIANT = {
    "suite": "the benchmark the tasks belong to",
    "agent": "the directory repo owner/repo, or a closed agent's name",
    "agent_kind": "repo or closed",
    "agent_version": "the agent's version",
    "model": "the model it ran on",
    "settings": "the agent's other settings (JSON): a different setting is a different entry",
    "rank": "position among entries that attempted every task; null for partial coverage",
}
_COVERAGE = {
    "tasks_total": "tasks in the board's task set (the suite's validated tasks, or every task with a counted attempt)",
    "coverage": "'n of m tasks' when the entry attempted part of the task set (then it has no rank)",
    "solve_rate_low": "95 % Wilson interval of the solve rate (solved of counted attempts): low end",
    "solve_rate_high": "95 % Wilson interval: high end",
    "overlaps_next": "1 when this interval overlaps the next ranked entry's: their order may be luck",
    "pareto": "1 on the cost–score Pareto frontier, 0 off it, null when the cost is unknown",
    "incomplete": "why the entry is not ranked: infrastructure errors on more than a third of its attempts",
}
_METHOD_TABLES: dict[str, Any] = {
    "benchmark_task_records": {
        "description": "Each task with the harness's validation (agentrank import-tasks): it counts when the untouched "
        "code fails and the reference fix passes every hidden test. Pages: /-/benchmark.",
        "columns": {
            "suite": _VARIANT["suite"],
            "task_id": "the task",
            "title": "its title",
            "brief_url": "the written brief",
            "visible_tests": "tests the agent can run",
            "hidden_tests": "tests the agent never sees",
            "baseline_passed": "hidden tests the untouched code passes (must be fewer than all)",
            "reference_passed": "hidden tests the reference fix passes (must be all)",
            "validated_at": "when the harness ran the validation",
            "per_test": "each hidden test's result on the untouched code and the reference fix (JSON)",
            "counts": "1 when the validation proves the task discriminates",
            "reason": "why it does not count",
            "run_id": "the import-tasks run that stored it",
        },
    },
    "benchmark_prices": {
        "description": "Model list prices (agentrank import-prices), in force from a date.",
        "columns": {
            "model": "the model as the attempts name it",
            "from_date": "the price is in force from this date until the next one",
            "input": "USD per million uncached input tokens",
            "cached_input": "USD per million cached input tokens",
            "cache_write": "USD per million tokens written to the cache",
            "output": "USD per million output tokens (reasoning included)",
            "run_id": "the import-prices run that stored it",
        },
    },
    "benchmark_assessments": {
        "description": "FitScore assessments as imported (agentrank import-assessments).",
        "columns": {
            "agent": "the agent as in the attempts",
            "suite": "whose attempts give quality and reliability",
            "scores": "criteria given by the assessment (JSON, 1–5)",
            "notes": "why each given score (JSON)",
            "published": "the FitScore published elsewhere, to reconcile",
            "judgements": "judgement calls: the criteria each reading changes (JSON)",
            "weights": "the criteria's weights (JSON, sum 100)",
            "run_id": "the import-assessments run that stored it",
        },
    },
    "benchmark_index_defs": {
        "description": "The indexes configured with [[benchmark.index]].",
        "columns": {"name": "the index", "version": "its version", "suites": "its component suites (JSON)"},
    },
    "benchmark_rs9_runs": {
        "description": "The RS9 run view per suite, dated run and entry (pages: /-/benchmark): headline = % of tasks "
        "passed, partial credit breaks ties, cost per pass, version changes.",
        "columns": {
            **_VARIANT,
            "run": "the dated run",
            "attempted": "tasks attempted, infrastructure errors included",
            "tasks": "tasks counted (infrastructure errors left out)",
            "infra_errors": "attempts lost to an infrastructure error",
            "passed": "tasks whose every counted attempt passed (a time-out is not a pass)",
            "headline": "100 · passed / tasks",
            "partial_credit": "mean over tasks of the % of checks passed",
            "total_cost_usd": "total cost (list price from tokens where none was reported); null: price unknown",
            "cost_lower_bound": "1 when an attempt stopped before reporting its final usage",
            "cost_unknown": "counted attempts without a cost",
            "cost_per_pass": "total cost / passed; null when nothing passed or the price is unknown",
            "version_changed": "1 when the version or model differs from this agent's previous run in the suite",
            "previous_version": "the version in that previous run",
            "previous_model": "the model in that previous run",
            "results": "per-task results (JSON)",
            **_COVERAGE,
        },
    },
    "benchmark_index_entries": {
        "description": "Each configured index's entries (page: /-/benchmark/index).",
        "columns": {
            **_VARIANT,
            "name": "the index",
            "version": "the index's version",
            "suites": "its component suites (JSON)",
            "value": "equal-weight mean of the per-suite mean scores; null when a suite is missing",
            "null_reason": "why value is null",
            "per_suite": "each suite's mean score (JSON)",
            "mean_cost_usd": "mean cost per attempt across the suites, as the attempts gave it (cost_source), "
            "unknowns left out",
            "cost_lower_bound": "1 when an attempt stopped before reporting its final usage: the mean cost is a "
            "lower bound",
            "mean_list_cost_usd": "mean cost per attempt at the provider's list price of its tokens (seed 003), "
            "unknowns left out",
            "mean_tokens": "mean input + output tokens per attempt, unknowns left out",
            "mean_wall_seconds": "mean wall time per attempt, unknowns left out",
        },
    },
    "benchmark_fitscores": {
        "description": "FitScores with their criteria and judgement calls (page: /-/benchmark/fitscore).",
        "columns": {
            "agent": _VARIANT["agent"],
            "agent_kind": _VARIANT["agent_kind"],
            "suite": "whose attempts give quality and reliability",
            "criteria": "the seven criteria, 1–5 (JSON)",
            "derived": "quality and reliability per task, from the attempts (JSON)",
            "weights": "the weights used (JSON)",
            "fitscore": "round half up of Σ score × weight / 5; null without runs",
            "published": "the figure published elsewhere",
            "matches_published": "0 when the published figure does not recompute",
            "judgements": "each judgement call with its FitScore (JSON)",
            "has_runs": "0 for a candidate without runs: facts, no FitScore",
            "notes": "why each given score (JSON)",
        },
    },
}
_TABLES["benchmark_attempts"]["columns"].update(
    {
        "suite": _VARIANT["suite"],
        "run": "the dated benchmark run",
        "quality": "FitScore rubric 1–5",
        "unrelated_changes": "changes outside the task's scope",
        "regression_passed": "existing tests passed after the change",
        "regression_total": "existing tests run",
        "repo_commit": "the starting commit",
        "limit_seconds": "the task's time limit",
        "tokens_cache_write": "tokens written to the provider's cache",
        "cost_lower_bound": "1 when the run stopped before its final usage was reported",
        "list_cost_usd": "the list-price cost from tokens (agentrank import-prices); null: price unknown",
        "task_status": "null when the task counts; else why it does not (the attempt is kept apart)",
    }
)
_TABLES["benchmark_entries"]["columns"].update({"suite": _VARIANT["suite"], "settings": _VARIANT["settings"]})
_TABLES["benchmark_entries"]["columns"].update(_COVERAGE)
_TABLES["benchmark_tasks"]["columns"].update({"suite": _VARIANT["suite"], "settings": _VARIANT["settings"]})
_TABLES.update(_METHOD_TABLES)
# Issue 26: every method keeps the tiers apart, runs carry their date, and the new figures.
_TIER = "verified (run by the site) or community (submitted): never pooled, ranked within its tier"
_TABLES["benchmark_attempts"]["columns"].update(
    {
        "agent_seconds": "the agent's own part of the wall time, where the harness reports it",
        "error_detail": "what went wrong, for an infra-error or agent-error attempt",
    }
)
_TABLES["benchmark_agents"]["columns"].update(
    {k: _FIGURE_COLUMNS[k] for k in ("cost_source", "cost_per_attempt", "agent_errors", "error_reasons")}
)
_TABLES["benchmark_assessments"]["columns"].update(
    {
        "tier": "the tier whose attempts it is computed from (null: verified when the agent has verified attempts)",
        "runs": "the dated runs it names (JSON; null: the agent's latest run in the suite)",
    }
)
_TABLES["benchmark_rs9_runs"]["columns"].update(
    {
        "tier": _TIER,
        "run_date": "the run's earliest attempt's date: runs are ordered by it, the name breaking ties",
        "first_date": "this entry's first attempt in the run",
        "attempts": "counted attempts",
        "solved": "counted attempts that passed every hidden test",
        "agent_errors": _FIGURE_COLUMNS["agent_errors"],
        "error_reasons": _FIGURE_COLUMNS["error_reasons"],
        "total_list_cost_usd": "the same tokens at the public list price; null when any attempt cannot be priced",
        "cost_source": _FIGURE_COLUMNS["cost_source"],
        "incomplete": _COVERAGE["incomplete"],
    }
)
_TABLES["benchmark_index_entries"]["columns"].update(
    {
        "tier": _TIER,
        "value": "equal-weight mean of the per-suite pass@1; null when a suite is missing",
        "per_suite": "each suite's pass@1: mean over counted tasks of the share of attempts passing every test (JSON)",
        "coverage": "'suite: n of m tasks' for each suite the entry did not fully attempt (then it has no rank)",
        "incomplete": _COVERAGE["incomplete"],
        "attempts": "counted attempts across the suites",
        "infra_errors": "attempts lost to an infrastructure error",
        "cost_source": _FIGURE_COLUMNS["cost_source"],
        "mean_tokens_input": "mean input tokens per attempt (cached reads and cache writes included), unknowns left out",
        "mean_tokens_cached": "mean cached input tokens per attempt, unknowns left out",
        "mean_tokens_cache_write": "mean cache-write tokens per attempt, unknowns left out",
        "mean_tokens_reasoning": "mean reasoning tokens per attempt, unknowns left out",
        "mean_tokens_output": "mean output tokens per attempt (reasoning included), unknowns left out",
        "mean_agent_seconds": "mean agent time per attempt where reported",
    }
)
_TABLES["benchmark_fitscores"]["columns"].update(
    {
        "tier": _TIER,
        "runs": "the dated runs it is computed from (JSON)",
        "runs_named": "0 when the runs are the default: the agent's latest run in the suite by date",
        "versions": "the agent version and model of those attempts (JSON)",
        "settings_variants": "the settings variants of those attempts (JSON); more than one: the FitScore pools them",
        "median_wall_seconds": "median wall time of those attempts",
        "rank": "within the suite and tier: FitScore, then the unrounded sum, then name",
        "weighted_sum": "Σ score × weight / 5 before rounding",
        "derived": "quality, reliability and speed per task, from the attempts (JSON)",
    }
)
_TABLES["benchmark_index_versions"] = {
    "description": "Each index's version history: the suites each version averaged, first configured when.",
    "columns": {
        "name": "the index",
        "version": "its version",
        "suites": "the component suites of that version (JSON)",
        "first_seen": "when the configuration first had it (null: before the history was kept)",
    },
}
_TABLES["benchmark_method_items"] = {
    "description": "The items of registered benchmark methods without a table of their own (page: "
    "/-/benchmark/methods/KEY).",
    "columns": {
        "method": "the method's key in the registry",
        "position": "the item's position",
        "tier": _TIER,
        "item": "the item's figures (JSON)",
    },
}

# The words each canned query's columns are headed with on its page, as the benchmark pages say them
# (datasette_plugins/query_columns.py; the JSON and CSV keep the SQL's names), and how its figures read
# there: costs in dollars with their sources in words, times in minutes and seconds, a solve rate and its
# interval in percent, instants as dates and times ("27 Nov 2026, 01:11 UTC"), settings as "key=value".
_HEADINGS: dict[str, str] = {
    "tier": "Tier",
    "suite": "Suite",
    "agent": "Agent",
    "version": "Version",
    "version_change": "Version change",
    "model": "Model",
    "settings": "Other settings",
    "task_id": "Task",
    "attempt": "Attempt",
    "date": "Started",
    "run": "Run",
    "attempts": "Attempts counted",
    "solved": "Attempts solved",
    "disqualified": "Attempts disqualified (scored 0)",
    "infra_errors": "Attempts lost to infrastructure errors (not counted)",
    "mean_score": "Mean score (% of hidden tests passed)",
    "min_score": "Lowest score",
    "median_score": "Median score",
    "max_score": "Highest score",
    "mean_wall_seconds": "Mean time",
    "flags": "Flags",
}
_FORMATS: dict[str, str] = {
    "mean_wall_seconds": "duration",
    "wall_seconds": "duration",
    "date": "datetime",
    "settings": "settings",
    "flags": "names",
}
_LEADERBOARD_HEADINGS = {
    **_HEADINGS,
    "rank": "Rank (in its tier and suite)",
    "tasks_covered": "Tasks attempted",
    "first_date": "First attempt",
    "last_date": "Last attempt",
    "tasks": "Tasks with a counted attempt",
    "solve_rate": "Solve rate",
    "solve_rate_95": "Solve rate, 95 % interval (low–high)",
    "interval_vs_next": "Interval against the next entry",
    "cost_score_pareto": "On the cost–score frontier",
    "cost_per_solved_task": "Cost per solved task",
    "total_cost_usd": "Total cost (source)",
    "median_wall_seconds": "Median time",
    "timed_out": "Attempts that hit the time limit",
}
_LEADERBOARD_FORMATS = {
    **_FORMATS,
    "median_wall_seconds": "duration",
    "first_date": "datetime",
    "last_date": "datetime",
    "solve_rate": "points",
    "solve_rate_95": "points",
    "cost_score_pareto": "dollars",
    "cost_per_solved_task": "dollars",
    "total_cost_usd": "dollars",
}
_ATTEMPT_HEADINGS = {
    "score": "Score (% of hidden tests passed)",
    "solved": "Solved",
    "hidden_tests": "Hidden tests passed",
    "wall_seconds": "Time",
    "human_interventions": "Human interventions",
    "permission_mode": "Permissions",
    "network_access": "Network access",
}

_QUERIES: dict[str, Any] = {
    "verified_leaderboard": {
        "title": "Task benchmark: verified leaderboard",
        "description": "Runs made by the site, each with a published log. — marks a figure that was not measured. "
        "The page for readers: /-/leaderboard#verified.",
        "sql": _leaderboard_sql("verified"),
        "hide_sql": True,
        "headings": _LEADERBOARD_HEADINGS,
        "formats": _LEADERBOARD_FORMATS,
    },
    "community_leaderboard": {
        "title": "Task benchmark: community leaderboard",
        "description": "Submitted runs: scores re-checked, identity, time and cost self-reported. — marks a figure "
        "that was not measured. The page for readers: /-/leaderboard#community.",
        "sql": _leaderboard_sql("community"),
        "hide_sql": True,
        "headings": _LEADERBOARD_HEADINGS,
        "formats": _LEADERBOARD_FORMATS,
    },
    "agent_attempts": {
        "title": "Task benchmark: an agent's attempts",
        "description": "Every attempt of one agent (owner/repo or closed agent name), oldest first; a version change "
        "between two dated runs is marked.",
        "sql": _AGENT_ATTEMPTS_SQL,
        "hide_sql": True,
        "headings": {
            **_HEADINGS,
            **_ATTEMPT_HEADINGS,
            "cost_usd": "Cost",
            "cost_source": "Cost source",
            "log_url": "Log",
            "diff_url": "Diff",
        },
        "formats": {**_FORMATS, "cost_usd": "dollars", "cost_source": "cost_source"},
        "parameter_labels": {"agent": "Agent (owner/repo, or a closed agent's name)"},
    },
    "task_results": {
        "title": "Task benchmark: results on one task",
        "description": "Every entry's attempts at one task: mean and spread (min, median, max) of scores.",
        "sql": _TASK_RESULTS_SQL,
        "hide_sql": True,
        "headings": _HEADINGS,
        "formats": _FORMATS,
        "parameter_labels": {"task": "Task id"},
    },
}


def _dash(column: str, alias: str | None = None) -> str:
    return f"coalesce({column}, '{DASH}') as {alias or column}"


def _pair(passed: str, total: str, alias: str) -> str:
    return f"coalesce({passed} || ' / ' || {total}, '{DASH}') as {alias}"


# The AiFolder scorecard (seed 002): every attempt's measurements, nulls as "—", never a winner.
_SCORECARD_SQL = f"""
select
  suite,
  task_id,
  agent,
  agent_version as version,
  model,
  {_dash("repo_commit")},
  date,
  {_pair("tests_passed", "tests_total", "acceptance_tests")},
  {_pair("regression_passed", "regression_total", "regression_tests")},
  {_shown("wall_seconds", "%.0f")},
  {_dash("human_interventions")},
  {_dash("permission_mode")},
  {_dash("network_access")},
  {_dash("unrelated_changes")},
  flags,
  case when task_status is not null then 'not counted: ' || task_status
       when counted = 0 then 'not counted: infra error' else 'counted' end as counts
from benchmark_attempts
where (:suite = '' or suite = :suite)
order by suite, task_id, agent, agent_version, model, date, attempt
"""

_SPREAD_SQL = f"""
select
  suite,
  task_id,
  agent,
  agent_version as version,
  model,
  attempts,
  {_shown("median_score", "%.1f")},
  {_shown("min_score", "%.1f")},
  {_shown("max_score", "%.1f")},
  solved
from benchmark_tasks
where (:suite = '' or suite = :suite)
order by suite, task_id, agent, agent_version, model
"""

_NOT_COUNTED_SQL = """
select suite, task_id, agent, agent_version as version, model, run, attempt, task_status as why_not_counted
from benchmark_attempts
where task_status is not null
order by suite, task_id, agent, run, attempt
"""

_SUITE_LABEL = "Suite (empty: every suite)"
_METHOD_QUERIES: dict[str, Any] = {
    "aifolder_scorecard": {
        "title": "AiFolder scorecard: every attempt",
        "description": "Commit, acceptance tests, regression tests, wall time, interventions, permission mode, network "
        "access and scope per attempt; — marks a measurement that was not taken (never estimated). A scorecard is "
        "not a ranking: without controlled runs, no winner is shown. Leave suite empty for every suite. The page for "
        "readers: /-/benchmark/scorecard.",
        "sql": _SCORECARD_SQL,
        "hide_sql": True,
        "headings": {
            **_HEADINGS,
            **_ATTEMPT_HEADINGS,
            "repo_commit": "Starting commit",
            "acceptance_tests": "Acceptance tests passed",
            "regression_tests": "Regression tests passed",
            "unrelated_changes": "Unrelated changes",
            "counts": "Counted",
        },
        "formats": _FORMATS,
        "parameter_labels": {"suite": _SUITE_LABEL},
    },
    "aifolder_task_spread": {
        "title": "AiFolder scorecard: median and spread per task",
        "description": "Each entry's attempts at each task: median score and spread (min to max). Leave suite empty "
        "for every suite.",
        "sql": _SPREAD_SQL,
        "hide_sql": True,
        "headings": _HEADINGS,
        "parameter_labels": {"suite": _SUITE_LABEL},
    },
    "attempts_not_counted": {
        "title": "Task benchmark: attempts kept apart",
        "description": "Attempts at tasks that are not validated or failed validation: kept, and left out of every "
        "figure, with the reason.",
        "sql": _NOT_COUNTED_SQL,
        "hide_sql": True,
        "headings": {**_HEADINGS, "why_not_counted": "Why it is not counted"},
    },
}

DATASETTE_METADATA: dict[str, Any] = {"tables": _TABLES, "queries": {**_QUERIES, **_METHOD_QUERIES}}


def with_benchmark(metadata: dict[str, Any], database: str) -> dict[str, Any]:
    """A copy of Datasette ``metadata`` with the ledger's tables and queries added to ``database``."""
    merged = copy.deepcopy(metadata)
    entry = merged.setdefault("databases", {}).setdefault(database, {})
    for section, values in DATASETTE_METADATA.items():
        entry.setdefault(section, {}).update(copy.deepcopy(values))
    return merged
