"""The schema, created and upgraded only through these migrations.

They are frozen: each holds the SQL it ran, with no import of the product's live code (a view is
replaced whole, with its text written here), so a database built today and one upgraded from any
older state end up with the same schema, whatever the rest of the code has become since.

They apply in the order they are written here. Their names carry the issue or area they came
from (m1xx crawl, m2xx classify, m3xx publish, m4xx ledger), not their order, and cannot change:
``_sqlite_migrations`` records which ones a database already has. Add a new ``@migrations()``
function at the end for every change; never edit one that has shipped.
``tests/test_migrations.py`` holds them to this.
"""

from __future__ import annotations

import sqlite_utils
from sqlite_utils import Migrations

migrations = Migrations("agentrank")


@migrations()
def m001_core(db: sqlite_utils.Database) -> None:
    db.table("runs").create(
        {
            "id": int,
            "kind": str,  # crawl, import, classify, score, export, refresh
            "parent_id": int,  # the refresh run a stage belongs to
            "started_at": str,
            "finished_at": str,
            "status": str,  # running, ok, failed, interrupted
            "as_of": str,
            "items": int,
            "saved": int,
            "new": int,
            "updated": int,
            "rejected": int,
            "listed": int,
            "error": str,
            "details": str,  # JSON object of stage-specific counts
        },
        pk="id",
        foreign_keys=[("parent_id", "runs", "id")],
        not_null=["kind", "started_at", "status"],
    )
    db.table("repos").create(
        {
            "id": int,
            "node_id": str,
            "full_name": str,
            "name": str,
            "owner_login": str,
            "owner_id": int,
            "owner_type": str,
            "owner_avatar_url": str,
            "html_url": str,
            "description": str,
            "homepage": str,
            "language": str,
            "topics": str,  # JSON array of strings
            "license_key": str,
            "license_name": str,
            "license_spdx": str,
            "stars": int,
            "forks": int,
            "open_issues": int,
            "size_kb": int,
            "default_branch": str,
            "created_at": str,
            "pushed_at": str,
            "updated_at": str,
            "archived": int,
            "fork": int,
            "matched": int,  # matched a configured query (imported items count as matched)
            "listed": int,
            "unlisted_reason": str,
            "source": str,  # crawl, import or correction
            "first_seen_at": str,
            "last_seen_at": str,
            "first_seen_run": int,
            "last_seen_run": int,
            "missing_since_run": int,  # first complete crawl that did not return it
        },
        pk="id",
        foreign_keys=[
            ("first_seen_run", "runs", "id"),
            ("last_seen_run", "runs", "id"),
            ("missing_since_run", "runs", "id"),
        ],
        not_null=["full_name", "stars", "forks", "created_at", "archived", "fork", "listed", "matched", "topics"],
        defaults={"listed": 0, "matched": 0, "topics": "[]"},
    )
    db.table("repos").create_index(["full_name"])
    db.table("repos").create_index(["listed"])
    db.table("repos").create_index(["owner_login"])
    db.table("repo_names").create(
        {"repo_id": int, "full_name": str, "first_seen_at": str, "last_seen_at": str},
        pk=("repo_id", "full_name"),
        foreign_keys=[("repo_id", "repos", "id")],
    )
    db.table("rejects").create(
        {"id": int, "run_id": int, "item_ref": str, "repo_id": int, "full_name": str, "reason": str},
        pk="id",
        foreign_keys=[("run_id", "runs", "id")],
        not_null=["run_id", "reason"],
    )
    db.table("rejects").create_index(["run_id"])
    db.table("snapshots").create(
        {
            "run_id": int,
            "repo_id": int,
            "full_name": str,
            "stars": int,
            "forks": int,
            "pushed_at": str,
            "observed_at": str,
        },
        pk=("run_id", "repo_id"),
        foreign_keys=[("run_id", "runs", "id"), ("repo_id", "repos", "id")],
        not_null=["stars", "forks"],
    )
    db.table("snapshots").create_index(["repo_id", "run_id"])
    db.table("scores").create(
        {
            "run_id": int,
            "repo_id": int,
            "full_name": str,
            "as_of": str,
            "method_version": str,
            "stars": int,
            "forks": int,
            "created_at": str,
            "pushed_at": str,
            "license_spdx": str,
            "license_osi": int,
            "spdx_list_version": str,
            "age_days": float,
            "days_since_push": float,
            "stars_per_day": float,
            "popularity": float,
            "adoption": float,
            "activity": float,
            "momentum": float,
            "openness": float,
            "score": float,
            "rank": int,
            # The category the repo was published with and its recent growth: a published run is
            # complete on its own, and a later classify cannot change what was published.
            "category": str,
            "category_source": str,
            "category_probability": float,
            "category_uncertain": int,
            "stars_delta_7d": int,
            "stars_delta_28d": int,
            "forks_delta_7d": int,
        },
        pk=("run_id", "repo_id"),
        foreign_keys=[("run_id", "runs", "id"), ("repo_id", "repos", "id")],
        not_null=["as_of", "method_version", "stars", "forks", "created_at", "score", "rank"],
    )
    db.table("scores").create_index(["run_id", "rank"], unique=True)
    db.table("scores").create_index(["repo_id", "run_id"])
    db.table("categories").create(
        {"id": str, "name": str, "description": str, "position": int},
        pk="id",
        not_null=["name"],
    )
    db.table("repo_categories").create(
        {
            "repo_id": int,
            "category": str,
            "probability": float,
            "runner_up": str,
            "runner_up_probability": float,
            "uncertain": int,
            "source": str,  # model or correction
            "model_version": str,
            "run_id": int,
            "classified_at": str,
        },
        pk="repo_id",
        foreign_keys=[
            ("repo_id", "repos", "id"),
            ("category", "categories", "id"),
            ("run_id", "runs", "id"),
        ],
        not_null=["category", "source"],
    )
    db.table("repo_categories").create_index(["category"])
    # What Datasette's ranking and the export show: one row, switched in one transaction.
    db.table("published").create(
        {"id": int, "score_run_id": int, "refresh_run_id": int, "published_at": str},
        pk="id",
        foreign_keys=[("score_run_id", "runs", "id"), ("refresh_run_id", "runs", "id")],
    )


@migrations()
def m002_agents_view(db: sqlite_utils.Database) -> None:
    # The current ranking: the published score run joined to each repo's details and category.
    db.create_view(
        "agents",
        """
        select
          s.rank,
          s.full_name,
          r.html_url,
          s.category,
          s.category_uncertain,
          round(s.score, 1) as score,
          round(s.popularity, 1) as popularity,
          round(s.adoption, 1) as adoption,
          round(s.activity, 1) as activity,
          round(s.momentum, 1) as momentum,
          round(s.openness, 1) as openness,
          s.stars,
          s.forks,
          s.stars_delta_7d,
          s.license_spdx as license,
          r.language,
          s.pushed_at as last_push,
          case
            when s.days_since_push is null then 'no push'
            when s.days_since_push <= 7 then '≤ 7 days'
            when s.days_since_push <= 30 then '≤ 30 days'
            when s.days_since_push <= 90 then '≤ 90 days'
            when s.days_since_push <= 180 then '≤ 180 days'
            when s.days_since_push <= 365 then '≤ 365 days'
            else '> 365 days'
          end as activity_bucket,
          r.description,
          r.topics,
          r.owner_login as owner,
          s.repo_id,
          s.run_id as score_run_id,
          s.as_of
        from published p
        join scores s on s.run_id = p.score_run_id
        join repos r on r.id = s.repo_id
        where p.id = 1
        order by s.rank
        """,
    )


@migrations()
def m003_corrections(db: sqlite_utils.Database) -> None:
    # The corrections file as of the latest refresh; its history lives in the operator's git.
    db.table("corrections").create(
        {
            "id": int,
            "kind": str,  # exclude, include, category, claim
            "repo": str,  # as written in the file
            "repo_id": int,
            "value": str,  # the category or the claiming login
            "reason": str,
            "date": str,
            "by": str,
            "line": int,
            "status": str,  # applied, or why not
            "run_id": int,
            "updated_at": str,
        },
        pk="id",
        foreign_keys=[("repo_id", "repos", "id"), ("run_id", "runs", "id")],
        not_null=["kind", "repo", "line", "status"],
    )
    db.table("corrections").create_index(["repo_id"])


@migrations()
def m101_crawl_checkpoints(db: sqlite_utils.Database) -> None:
    # The crawl's private bookkeeping (checkpoints, sightings, misses): never published.
    db.table("crawl_state").create(
        {
            "run_id": int,
            "fingerprint": str,  # the queries and min_stars the parts were planned for
            "api_url": str,
            "requests": int,
            "search_requests": int,
            "waits": int,
            "wait_s": float,
            "retries": int,
            "elapsed_s": float,
            "items": int,
            "new": int,
            "updated": int,
            "rejected": int,
            "sessions": int,  # 1 + the number of times the crawl was resumed
        },
        pk="run_id",
        foreign_keys=[("run_id", "runs", "id")],
        not_null=["fingerprint"],
        defaults={
            "requests": 0,
            "search_requests": 0,
            "waits": 0,
            "wait_s": 0.0,
            "retries": 0,
            "elapsed_s": 0.0,
            "items": 0,
            "new": 0,
            "updated": 0,
            "rejected": 0,
            "sessions": 1,
        },
    )
    db.table("crawl_parts").create(
        {
            "id": int,
            "run_id": int,
            "query_index": int,  # position of the configured topic/keyword
            "base": str,  # topic:X or the quoted keyword
            "q": str,  # the full search string
            "stars_lo": int,
            "stars_hi": int,
            "created_lo": str,
            "created_hi": str,
            "parent_id": int,
            "split_reason": str,  # why the parent was split: cap, incomplete, verify
            "state": str,  # pending, paging, done, split
            "next_page": int,
            "pages": int,  # pages fetched, verification included
            "items": int,  # items received
            "total_count": int,  # the latest total_count GitHub reported
            "incomplete": int,  # results may be missing: incomplete_results, a short sweep, > 1,000 unsplittable
            "flags": str,  # JSON list of what made it incomplete (a split part: what its first page said)
            "verified": int,
            "sweeps": int,  # verification re-sweeps done
        },
        pk="id",
        foreign_keys=[("run_id", "runs", "id"), ("parent_id", "crawl_parts", "id")],
        not_null=["run_id", "q", "state"],
        defaults={"next_page": 1, "pages": 0, "items": 0, "incomplete": 0, "verified": 0, "sweeps": 0, "flags": "[]"},
    )
    db.table("crawl_parts").create_index(["run_id", "q"], unique=True)
    db.table("crawl_parts").create_index(["run_id", "state"])
    db.table("crawl_sightings").create(
        {"run_id": int, "part_id": int, "repo_id": int},
        pk=("run_id", "part_id", "repo_id"),
        foreign_keys=[("run_id", "runs", "id"), ("part_id", "crawl_parts", "id")],
    )
    db.table("crawl_sightings").create_index(["run_id", "repo_id"])
    db.table("crawl_misses").create(
        {"run_id": int, "repo_id": int, "complete": int},
        pk=("run_id", "repo_id"),
        foreign_keys=[("run_id", "runs", "id"), ("repo_id", "repos", "id")],
    )


@migrations()
def m201_classify_category_corrections(db: sqlite_utils.Database) -> None:
    # Category corrections, keyed by the name a human wrote (GitHub names are case-insensitive);
    # repo_id is filled in once the repo is known, so a correction follows it through renames.
    db.execute(
        """
        create table category_corrections (
          full_name text primary key collate nocase,
          repo_id integer references repos(id),
          category text not null references categories(id),
          reason text,
          updated_at text not null
        )
        """
    )
    db.table("category_corrections").create_index(["repo_id"])
    # A hash of the name, description and topics a category was computed from: with the model
    # version it tells `classify --only-changed` which repos need a new prediction.
    db.table("repo_categories").add_column("input_hash", str)


@migrations()
def m301_publish_fts(db: sqlite_utils.Database) -> None:
    # Full-text search for Datasette (the agents view searches it through fts_pk = repo_id).
    # The triggers keep the index in step with every insert, upsert and delete on repos.
    db.table("repos").enable_fts(["full_name", "description", "topics"], create_triggers=True, tokenize="porter")


@migrations()
def m401_leaderboard_attempts(db: sqlite_utils.Database) -> None:
    # One row per task-benchmark attempt; the key is leaderboard.attempt.Attempt.key, hashed.
    db.table("benchmark_attempts").create(
        {
            "attempt_id": str,
            "tier": str,  # verified or community
            "agent": str,  # a directory repo 'owner/repo' or a closed agent's name
            "agent_kind": str,  # repo or closed
            "agent_version": str,
            "model": str,
            "settings": str,  # JSON object
            "task_id": str,
            "attempt": int,
            "date": str,
            "tests_passed": int,
            "tests_total": int,
            "wall_seconds": float,
            "cost_usd": float,
            "cost_source": str,
            "tokens_input": int,
            "tokens_cached": int,
            "tokens_output": int,
            "tokens_reasoning": int,
            "human_interventions": int,
            "permission_mode": str,
            "network_access": str,
            "flags": str,  # JSON array
            "log_url": str,
            "diff_url": str,
            "score": float,  # null when the attempt does not count (infra error)
            "solved": int,
            "counted": int,
            "disqualified": int,
            "first_run_id": int,  # the import-attempts run that first stored it
            "changed_run_id": int,  # the last import-attempts run that changed it
        },
        pk="attempt_id",
        foreign_keys=[("first_run_id", "runs", "id"), ("changed_run_id", "runs", "id")],
        not_null=[
            "tier",
            "agent",
            "agent_kind",
            "agent_version",
            "model",
            "settings",
            "task_id",
            "attempt",
            "date",
            "flags",
            "counted",
            "disqualified",
        ],
    )
    db.table("benchmark_attempts").create_index(
        ["tier", "agent", "agent_version", "model", "task_id", "attempt"], unique=True
    )
    db.table("benchmark_attempts").create_index(["agent"])
    db.table("benchmark_attempts").create_index(["task_id"])


@migrations()
def m402_leaderboard_figures(db: sqlite_utils.Database) -> None:
    # Computed by leaderboard.figures from benchmark_attempts and replaced whole after each import.
    figures = {
        "attempts": int,
        "infra_errors": int,
        "disqualified": int,
        "timed_out": int,
        "tasks": int,
        "solved": int,
        "mean_score": float,
        "solve_rate": float,
        "mean_wall_seconds": float,
        "median_wall_seconds": float,
        "wall_unknown": int,
        "total_cost_usd": float,
        "cost_unknown": int,
        "cost_per_solved_task": float,
        "cost_per_solved_task_null_reason": str,
        "human_interventions": int,
    }
    db.table("benchmark_entries").create(
        {
            "tier": str,
            "rank": int,
            "agent": str,
            "agent_kind": str,
            "agent_version": str,
            "model": str,
            "first_date": str,
            "last_date": str,
            "version_changed": int,
            "previous_version": str,
            "latest": int,
            **figures,
        },
        pk=("tier", "agent", "agent_version", "model"),
    )
    db.table("benchmark_entries").create_index(["tier", "rank"])
    db.table("benchmark_agents").create(
        {
            "tier": str,
            "agent": str,
            "agent_kind": str,
            "versions": str,  # JSON array, oldest run first
            "latest_version": str,
            "first_date": str,
            "last_date": str,
            **figures,
        },
        pk=("tier", "agent"),
    )
    db.table("benchmark_tasks").create(
        {
            "tier": str,
            "agent": str,
            "agent_version": str,
            "model": str,
            "task_id": str,
            "attempts": int,
            "infra_errors": int,
            "disqualified": int,
            "solved": int,
            "mean_score": float,
            "solve_rate": float,
            "min_score": float,
            "median_score": float,
            "max_score": float,
            "mean_wall_seconds": float,
        },
        pk=("tier", "agent", "agent_version", "model", "task_id"),
    )
    db.table("benchmark_tasks").create_index(["task_id"])


@migrations()
def m014_trust_fields(db: sqlite_utils.Database) -> None:
    # Issue 14: how far each rank and score could move, neutral flags with their figures, and the
    # published validation of every score run.
    scores = db.table("scores")
    scores.add_column("rank_best", int)
    scores.add_column("rank_worst", int)
    scores.add_column("score_low", float)
    scores.add_column("score_high", float)
    scores.add_column("flags", str)  # JSON array of flag names, e.g. ["unusual-star-growth"]
    scores.add_column("growth_check", str)  # JSON object: the figures the growth rule looked at
    db.table("validation").create(
        {
            "run_id": int,  # the score run
            "n": int,
            "spearman_vs_stars": float,
            "kendall_tau_vs_previous": float,
            "previous_run": int,
            "previous_common": int,  # repos ranked in both runs
            "wide_rank_range_share": float,
            "crawl_run": int,
            "crawl_coverage": float,
            "classifier_cv_accuracy": float,
            "flagged": int,
            "judged": int,
            "details": str,  # JSON: the null reasons and the parameters behind each figure
        },
        pk="run_id",
        foreign_keys=[("run_id", "runs", "id"), ("previous_run", "runs", "id"), ("crawl_run", "runs", "id")],
    )
    # The agents view gains the likely rank, the ranges and the flags.
    _replace_view(db, "agents", AGENTS_VIEW_M014)


@migrations()
def m012_demo_marker(db: sqlite_utils.Database) -> None:
    """``demo_marker``: one row in a database ``agentrank demo`` built (so a rebuild may replace it
    and the pages say it is synthetic); empty everywhere else."""
    db.table("demo_marker").create(
        {"id": int, "built_at": str, "first_week": str, "seed": int, "size": int, "weeks": int, "note": str}, pk="id"
    )


@migrations()
def m015_category_reason(db: sqlite_utils.Database) -> None:
    # Why the classifier chose a category: JSON {"text", "because": [[kind, text], ...], "runner_up"}
    # (null for rows classified before this migration and for corrections).
    db.table("repo_categories").add_column("reason", str)


@migrations()
def m017_agents_table(db: sqlite_utils.Database) -> None:
    # The published ranking becomes a table refreshed at publish (db/agents.py), with an index per
    # facet and sort; its definition stays as the view published_ranking.
    db.execute("drop view agents")
    _replace_view(db, "published_ranking", AGENTS_VIEW_M014)
    db.executescript(AGENTS_TABLE_M017)
    _refill_agents(db)


@migrations()
def m017b_name_lookup_indexes(db: sqlite_utils.Database) -> None:
    # The maker's page finds a repo by name case-insensitively (db.breakdown.resolve_repo), three
    # times per page: without these each lookup read every row of repos.
    db.execute("create index idx_repos_full_name_nocase on repos(full_name collate nocase)")
    db.execute("create index idx_repo_names_full_name_nocase on repo_names(full_name collate nocase)")


@migrations()
def m016_benchmark_methods(db: sqlite_utils.Database) -> None:
    # Issue 16: the seeds' methods over one ledger. New attempt fields (all nullable, "not measured"),
    # the attempt's suite, run and settings in its identity, and what refresh_methods computes.
    attempts = db.table("benchmark_attempts")
    for name, kind in (
        ("suite", str),
        ("run", str),
        ("quality", int),
        ("unrelated_changes", int),
        ("regression_passed", int),
        ("regression_total", int),
        ("repo_commit", str),
        ("limit_seconds", float),
        ("tokens_cache_write", int),
        ("cost_lower_bound", int),
        ("list_cost_usd", float),  # the list-price cost when the attempt gave none (computed)
        ("task_status", str),  # null: counts; else why the task does not count (computed)
    ):
        attempts.add_column(name, kind)
    db.execute("update benchmark_attempts set suite = 'agentrank', run = substr(date, 1, 10)")
    db.execute("drop index if exists idx_benchmark_attempts_tier_agent_agent_version_model_task_id_attempt")
    attempts.create_index(
        ["tier", "agent", "agent_version", "model", "settings", "suite", "run", "task_id", "attempt"], unique=True
    )
    attempts.create_index(["suite", "run"])
    # Entries and per-task results now keep suites and settings variants apart.
    coverage: dict[str, type] = {
        "suite": str,
        "settings": str,
        "tasks_total": int,
        "coverage": str,
        "solve_rate_low": float,
        "solve_rate_high": float,
        "overlaps_next": int,
        "pareto": int,
    }
    for column, column_type in coverage.items():
        db.table("benchmark_entries").add_column(column, column_type)
    db.table("benchmark_entries").transform(pk=("tier", "suite", "agent", "agent_version", "model", "settings"))
    db.table("benchmark_entries").add_column("cost_lower_bound", int)  # an attempt's cost is a lower bound
    db.table("benchmark_agents").add_column("cost_lower_bound", int)
    db.table("benchmark_entries").create_index(["tier", "suite", "rank"], if_not_exists=True)
    for column in ("suite", "settings"):
        db.table("benchmark_tasks").add_column(column, str)
    db.table("benchmark_tasks").transform(
        pk=("tier", "suite", "agent", "agent_version", "model", "settings", "task_id")
    )
    db.table("benchmark_tasks").create_index(["task_id"], if_not_exists=True)
    db.table("benchmark_task_records").create(
        {
            "suite": str,
            "task_id": str,
            "title": str,
            "brief_url": str,
            "visible_tests": int,
            "hidden_tests": int,
            "baseline_passed": int,
            "reference_passed": int,
            "validated_at": str,
            "per_test": str,  # JSON list of per-test results
            "counts": int,  # 1 when the validation proves the task discriminates
            "reason": str,  # why it does not count
            "run_id": int,
        },
        pk=("suite", "task_id"),
    )
    db.table("benchmark_prices").create(
        {
            "model": str,
            "from_date": str,
            "input": float,
            "cached_input": float,
            "cache_write": float,
            "output": float,
            "run_id": int,
        },
        pk=("model", "from_date"),
    )
    db.table("benchmark_assessments").create(
        {
            "agent": str,
            "suite": str,
            "scores": str,
            "notes": str,
            "published": int,
            "judgements": str,
            "weights": str,
            "run_id": int,
        },
        pk=("agent", "suite"),
    )
    db.table("benchmark_index_defs").create({"name": str, "version": str, "suites": str}, pk="name")
    db.table("benchmark_rs9_runs").create(
        {
            "suite": str,
            "run": str,
            "agent": str,
            "agent_kind": str,
            "agent_version": str,
            "model": str,
            "settings": str,
            "rank": int,
            "tasks": int,
            "infra_errors": int,
            "passed": int,
            "headline": float,
            "partial_credit": float,
            "total_cost_usd": float,
            "cost_lower_bound": int,
            "cost_unknown": int,
            "cost_per_pass": float,
            "version_changed": int,
            "previous_version": str,
            "previous_model": str,
            "attempted": int,
            "tasks_total": int,
            "coverage": str,
            "solve_rate_low": float,
            "solve_rate_high": float,
            "overlaps_next": int,
            "pareto": int,
            "results": str,
        },
        pk=("suite", "run", "agent", "agent_version", "model", "settings"),
    )
    db.table("benchmark_index_entries").create(
        {
            "name": str,
            "version": str,
            "suites": str,
            "agent": str,
            "agent_kind": str,
            "agent_version": str,
            "model": str,
            "settings": str,
            "rank": int,
            "value": float,
            "null_reason": str,
            "per_suite": str,
            "mean_cost_usd": float,
            "mean_tokens": float,
            "mean_wall_seconds": float,
        },
        pk=("name", "agent", "agent_version", "model", "settings"),
    )
    db.table("benchmark_fitscores").create(
        {
            "agent": str,
            "agent_kind": str,
            "suite": str,
            "criteria": str,
            "derived": str,
            "weights": str,
            "fitscore": int,
            "published": int,
            "matches_published": int,
            "judgements": str,
            "has_runs": int,
            "notes": str,
        },
        pk=("agent", "suite"),
    )


@migrations()
def m018_score_shown_halves_up(db: sqlite_utils.Database) -> None:
    # The ranking showed SQLite's round(score, 1) while the maker's page, badge, explain and export
    # rounded in Python (halves to even on the stored double): a score of 96.25 showed as 96.3 in the
    # ranking and 96.2 on its own page. One rule now, the same arithmetic in SQL and Python
    # (scoring.score.SHOWN_SQL and shown).
    _replace_view(db, "published_ranking", PUBLISHED_RANKING_M018)
    _refill_agents(db)


@migrations()
def m019_score_range_shown_outwards(db: sqlite_utils.Database) -> None:
    # The ranking showed SQLite's round() of the score range, the export rounded it outwards (so it
    # holds score_exact too), the maker's page neither: 45.6 in one place, 45.7 in another. One
    # rule now: scoring.score.shown_range, and its SQL.
    _replace_view(db, "published_ranking", PUBLISHED_RANKING_M019)
    _refill_agents(db)


# What the migrations above share. Frozen like them: change one and every migration using it changes.


def _replace_view(db: sqlite_utils.Database, name: str, select: str) -> None:
    """Replace view ``name`` whole (a view cannot be altered in SQLite)."""
    db.execute(f"drop view if exists {name}")
    db.execute(f"create view {name} as {select}")


def _refill_agents(db: sqlite_utils.Database) -> None:
    """Refill the ``agents`` table from the view it copies, for a migration that changes the view's
    values but not its columns (db.agents.refresh_agents does this at every publish)."""
    db.execute("delete from agents")
    db.execute("insert into agents select * from published_ranking order by rank")


_AGENTS_SELECT_HEAD = """
        select
          s.rank,
          case when s.rank_best is null then null else s.rank_best || '–' || s.rank_worst end as likely_rank,
          s.full_name,
          r.html_url,
          s.category,
          s.category_uncertain,
          {score} as score,
          round(s.popularity, 1) as popularity,
          round(s.adoption, 1) as adoption,
          round(s.activity, 1) as activity,
          round(s.momentum, 1) as momentum,
          round(s.openness, 1) as openness,
          s.stars,
          s.forks,
          s.stars_delta_7d,
          s.license_spdx as license,
          r.language,
          s.pushed_at as last_push,
          case
            when s.days_since_push is null then 'no push'
            when s.days_since_push <= 7 then '≤ 7 days'
            when s.days_since_push <= 30 then '≤ 30 days'
            when s.days_since_push <= 90 then '≤ 90 days'
            when s.days_since_push <= 180 then '≤ 180 days'
            when s.days_since_push <= 365 then '≤ 365 days'
            else '> 365 days'
          end as activity_bucket,
          r.description,
          r.topics,
          r.owner_login as owner,
          s.repo_id,
          s.run_id as score_run_id,
          s.as_of,
          s.rank_best,
          s.rank_worst,
          {score_low} as score_low,
          {score_high} as score_high,
          coalesce(s.flags, '[]') as flags
        from published p
        join scores s on s.run_id = p.score_run_id
        join repos r on r.id = s.repo_id
        where p.id = 1
        order by s.rank
"""
AGENTS_VIEW_M014 = _AGENTS_SELECT_HEAD.format(
    score="round(s.score, 1)", score_low="round(s.score_low, 1)", score_high="round(s.score_high, 1)"
)
PUBLISHED_RANKING_M018 = _AGENTS_SELECT_HEAD.format(
    score="(cast((s.score) * 10 + 0.5 + 1e-09 as integer) / 10.0)",
    score_low="round(s.score_low, 1)",
    score_high="round(s.score_high, 1)",
)
PUBLISHED_RANKING_M019 = _AGENTS_SELECT_HEAD.format(
    score="(cast((s.score) * 10 + 0.5 + 1e-09 as integer) / 10.0)",
    score_low="max(0.0, min(100.0, case when cast((s.score_low) * 10 as integer) / 10.0 > (s.score_low) "
    "then round(cast((s.score_low) * 10 as integer) / 10.0 - 0.1, 1) else cast((s.score_low) * 10 as integer) / 10.0 end))",
    score_high="max(0.0, min(100.0, case when (cast((s.score_high) * 10 as integer) + ((s.score_high) * 10 > "
    "cast((s.score_high) * 10 as integer))) / 10.0 < (s.score_high) then round((cast((s.score_high) * 10 as integer) "
    "+ ((s.score_high) * 10 > cast((s.score_high) * 10 as integer))) / 10.0 + 0.1, 1) else (cast((s.score_high) * 10 "
    "as integer) + ((s.score_high) * 10 > cast((s.score_high) * 10 as integer))) / 10.0 end))",
)
AGENTS_TABLE_M017 = """
create table agents ("rank" INTEGER PRIMARY KEY, "likely_rank", "full_name" TEXT, "html_url" TEXT,
  "category" TEXT, "category_uncertain" INTEGER, "score", "popularity", "adoption", "activity", "momentum",
  "openness", "stars" INTEGER, "forks" INTEGER, "stars_delta_7d" INTEGER, "license" TEXT, "language" TEXT,
  "last_push" TEXT, "activity_bucket", "description" TEXT, "topics" TEXT, "owner" TEXT, "repo_id" INTEGER,
  "score_run_id" INTEGER, "as_of" TEXT, "rank_best" INTEGER, "rank_worst" INTEGER, "score_low", "score_high",
  "flags");
create index idx_agents_category on agents("category");
create index idx_agents_license on agents("license");
create index idx_agents_language on agents("language");
create index idx_agents_activity_bucket on agents("activity_bucket");
create index idx_agents_owner on agents("owner");
create index idx_agents_score on agents("score");
create index idx_agents_stars on agents("stars");
create index idx_agents_full_name on agents("full_name");
create index idx_agents_repo_id on agents("repo_id");
create index idx_agents_category_license on agents("category", "license");
create index idx_agents_category_language on agents("category", "language");
create index idx_agents_category_activity_bucket on agents("category", "activity_bucket");
"""


@migrations()
def m020_benchmark_methods_per_tier(db: sqlite_utils.Database) -> None:
    # Issue 26: every method keeps the tiers apart (tier in each computed table's key), runs carry
    # their date, FitScores record their tier and runs, the index keeps its version history, new
    # attempt fields (agent time, an error's detail), and registered methods without a table of
    # their own store their items in benchmark_method_items. The computed tables are rebuilt by the
    # next ledger command (they hold nothing that is not recomputed from the attempts).
    statements = [
        "alter table benchmark_attempts add column agent_seconds float",
        "alter table benchmark_attempts add column error_detail text",
        "alter table benchmark_assessments add column tier text",
        "alter table benchmark_assessments add column runs text",
        "create table if not exists benchmark_index_versions (name text, version text, suites text, "
        "first_seen text, primary key (name, version))",
        "insert or ignore into benchmark_index_versions select name, version, suites, null from benchmark_index_defs",
        "create table if not exists benchmark_method_items (method text, position integer, tier text, item text, "
        "primary key (method, position))",
    ]
    for table in ("benchmark_entries", "benchmark_agents"):
        for column, kind in (
            ("cost_source", "text"),
            ("cost_per_attempt", "float"),
            ("agent_errors", "integer"),
            ("error_reasons", "text"),
        ):
            statements.append(f"alter table {table} add column {column} {kind}")
    statements.append("alter table benchmark_entries add column incomplete text")
    statements += [
        "drop table if exists benchmark_rs9_runs",
        """create table benchmark_rs9_runs (suite text, run text, tier text, agent text, agent_kind text,
        agent_version text, model text, settings text, rank integer, run_date text, first_date text,
        tasks integer, attempts integer, solved integer, infra_errors integer, agent_errors integer,
        error_reasons text, passed integer, headline float, partial_credit float, total_cost_usd float,
        total_list_cost_usd float, cost_source text, cost_lower_bound integer, cost_unknown integer,
        cost_per_pass float, version_changed integer, previous_version text, previous_model text,
        attempted integer, tasks_total integer, coverage text, incomplete text, solve_rate_low float,
        solve_rate_high float, overlaps_next integer, pareto integer, results text,
        primary key (suite, run, tier, agent, agent_version, model, settings))""",
        "create index idx_benchmark_rs9_runs_agent on benchmark_rs9_runs (agent)",
        "drop table if exists benchmark_index_entries",
        """create table benchmark_index_entries (name text, version text, suites text, tier text, agent text,
        agent_kind text, agent_version text, model text, settings text, rank integer, value float,
        null_reason text, per_suite text, coverage text, incomplete text, attempts integer,
        infra_errors integer, mean_cost_usd float, cost_source text, mean_tokens float,
        mean_tokens_input float, mean_tokens_cached float, mean_tokens_cache_write float,
        mean_tokens_reasoning float, mean_tokens_output float, mean_wall_seconds float,
        mean_agent_seconds float, primary key (name, tier, agent, agent_version, model, settings))""",
        "drop table if exists benchmark_fitscores",
        """create table benchmark_fitscores (agent text, agent_kind text, suite text, tier text, runs text,
        runs_named integer, versions text, median_wall_seconds float, rank integer, criteria text,
        derived text, weights text, weighted_sum float, fitscore integer, published integer,
        matches_published integer, judgements text, has_runs integer, notes text,
        primary key (agent, suite, tier))""",
    ]
    for statement in statements:
        db.execute(statement)


PUBLISHED_RANKING_M021 = (
    PUBLISHED_RANKING_M019.replace("s.license_spdx as license,", "s.license_spdx,")
    .replace("s.pushed_at as last_push,", "s.pushed_at,")
    .replace(
        "          s.category,\n",
        "          s.category,\n          (select c.name from categories c where c.id = s.category) as category_name,\n",
    )
)
AGENTS_TABLE_M021 = (
    AGENTS_TABLE_M017.replace(
        '"category" TEXT, "category_uncertain"', '"category" TEXT, "category_name" TEXT, "category_uncertain"'
    )
    .replace('"license" TEXT', '"license_spdx" TEXT')
    .replace('"last_push" TEXT', '"pushed_at" TEXT')
    .replace(
        'idx_agents_category_license on agents("category", "license")',
        'idx_agents_category_license_spdx on agents("category", "license_spdx")',
    )
    .replace('idx_agents_license on agents("license")', 'idx_agents_license_spdx on agents("license_spdx")')
)


@migrations()
def m021_agents_columns_named_as_the_export(db: sqlite_utils.Database) -> None:
    # Issue 27: the agents table's columns take the export's names, so an API client uses one name
    # for one thing (`_facet=license_spdx`, `_sort=pushed_at`): license -> license_spdx, last_push
    # -> pushed_at, and category_name next to category. The view and the table are replaced whole
    # and the table refilled from the view (what db.agents.refresh_agents leaves at a publish).
    _replace_view(db, "published_ranking", PUBLISHED_RANKING_M021)
    db.execute("drop table if exists agents")
    db.executescript(AGENTS_TABLE_M021)
    _refill_agents(db)


@migrations()
def m022_search_facet_and_owner_indexes(db: sqlite_utils.Database) -> None:
    # Self-contained SQL (no live code). A search on the agents page (Datasette's
    # `repo_id in (select rowid from repos_fts ...)`) counted its four facets by fetching every
    # matching row: at 31,000 listed a common word took 180 ms per facet. One index on repo_id and
    # the four facet columns answers the lookups and the facets from the index alone; it replaces
    # the index on repo_id alone (db/agents.py builds the same at every publish). And an owner's
    # page (and my_agents) read every row of repos to match the login case-insensitively.
    is_table = db.execute("select 1 from sqlite_master where type = 'table' and name = 'agents'").fetchone()
    columns = {row[1] for row in db.execute("pragma table_info(agents)").fetchall()} if is_table else set()
    if {"repo_id", "category", "license_spdx", "language", "activity_bucket"} <= columns:
        db.execute("drop index if exists idx_agents_repo_id")
        db.execute(
            "create index if not exists idx_agents_repo_id_category_license_spdx_language_activity_bucket "
            'on agents("repo_id", "category", "license_spdx", "language", "activity_bucket")'
        )
    db.execute("create index if not exists idx_repos_owner_login_nocase on repos(owner_login collate nocase)")


@migrations()
def m023_index_list_price_cost(db: sqlite_utils.Database) -> None:
    # Self-contained SQL. Seed 003 reports an index's cost at the provider's token prices, not the
    # cost an attempt reported: each index entry also keeps the mean list-price cost per attempt.
    # Rows stored before stay null until the next ledger command recomputes every figure.
    is_table = db.execute(
        "select 1 from sqlite_master where type = 'table' and name = 'benchmark_index_entries'"
    ).fetchone()
    columns = {row[1] for row in db.execute("pragma table_info(benchmark_index_entries)").fetchall()}
    if is_table and "mean_list_cost_usd" not in columns:
        db.execute("alter table benchmark_index_entries add column mean_list_cost_usd float")


@migrations()
def m024_previous_score_run_by_as_of(db: sqlite_utils.Database) -> None:
    # Self-contained SQL. "The previous run" meant the previous run id, so after a what-if scored as
    # of a later date (score --as-of … --force), the next ordinary run was compared with a run as of
    # a later instant than itself: history ran backwards. The order of score runs is their as-of
    # (the run id breaks ties); one view says which run comes before each, and every reader uses it.
    # Only runs that were published count: a refresh that failed after its score stage published
    # nothing, and nobody saw its ranking (a score run outside a refresh publishes at once).
    db.execute("drop view if exists score_run_previous")
    db.execute(
        """
        create view score_run_previous as
        with published_runs as (
          select s.id, coalesce(s.as_of, s.started_at) as as_of from runs s
          where s.kind = 'score' and s.status = 'ok'
            and (s.parent_id is null
                 or exists (select 1 from runs f where f.id = s.parent_id and f.status = 'ok')
                 or s.id = (select score_run_id from published where id = 1))
        )
        select r.id as run_id, r.as_of,
               (select p.id from published_runs p
                 where p.as_of < r.as_of or (p.as_of = r.as_of and p.id < r.id)
                 order by p.as_of desc, p.id desc limit 1) as previous_id
        from published_runs r
        """
    )


@migrations()
def m025_index_cost_lower_bound(db: sqlite_utils.Database) -> None:
    # Self-contained SQL. A cost that is a lower bound (an attempt stopped at its time limit before
    # reporting its final usage, seed 001) is marked wherever it shows: the index's mean cost too.
    # Rows stored before stay null until the next ledger command recomputes every figure.
    is_table = db.execute(
        "select 1 from sqlite_master where type = 'table' and name = 'benchmark_index_entries'"
    ).fetchone()
    columns = {row[1] for row in db.execute("pragma table_info(benchmark_index_entries)").fetchall()}
    if is_table and "cost_lower_bound" not in columns:
        db.execute("alter table benchmark_index_entries add column cost_lower_bound integer")


@migrations()
def m026_fitscore_settings_variants(db: sqlite_utils.Database) -> None:
    # Self-contained SQL. An assessment names an agent; when the runs it is computed from hold more
    # than one settings variant (a different entry everywhere else), its FitScore pools them and says
    # so: the variants it pooled. Rows stored before stay null until the next ledger command.
    is_table = db.execute(
        "select 1 from sqlite_master where type = 'table' and name = 'benchmark_fitscores'"
    ).fetchone()
    columns = {row[1] for row in db.execute("pragma table_info(benchmark_fitscores)").fetchall()}
    if is_table and "settings_variants" not in columns:
        db.execute("alter table benchmark_fitscores add column settings_variants text")


@migrations()
def m027_attempt_ids_carry_suite_run_settings(db: sqlite_utils.Database) -> None:
    # Self-contained (the formula is written here, not imported). An attempt's id hashed only tier,
    # agent, version, model, task and attempt number when its suite was the default, its settings
    # empty and its run its own date: the same task attempted again on another day (another run)
    # then took the earlier run's id and replaced it on import. The id now always hashes suite, run
    # and settings too; every stored id is rewritten to that formula (the unique index on those
    # columns guarantees no two rows meet). Rows merged before this cannot be recovered here: a
    # re-import of the ledger restores them.
    import hashlib
    import json

    columns = {row[1] for row in db.execute("pragma table_info(benchmark_attempts)").fetchall()}
    if "attempt_id" not in columns or "run" not in columns:
        return
    rows = db.execute(
        "select attempt_id, tier, agent, agent_version, model, task_id, attempt, suite, run, settings "
        "from benchmark_attempts"
    ).fetchall()
    for old, tier, agent, version, model, task_id, attempt, suite, run, settings in rows:
        agent_key = agent.lower() if "/" in agent else agent
        settings_text = json.dumps(json.loads(settings or "{}"), sort_keys=True, ensure_ascii=False)
        identity = [tier, agent_key, version, model, task_id, attempt, suite, run, settings_text]
        new = hashlib.sha256(json.dumps(identity, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]
        if new != old:
            db.execute("update benchmark_attempts set attempt_id = ? where attempt_id = ?", [new, old])
