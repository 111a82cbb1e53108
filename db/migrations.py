"""The schema, created and upgraded only through these migrations.

Add a new ``@migrations()`` function for every change; never edit one that has shipped, since
``_sqlite_migrations`` records which ones a database already has.
"""

from __future__ import annotations

import sqlite_utils
from sqlite_utils import Migrations

migrations = Migrations("agentrank")


@migrations()
def m001_core(db: sqlite_utils.Database) -> None:
    db["runs"].create(
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
    db["repos"].create(
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
    db["repos"].create_index(["full_name"])
    db["repos"].create_index(["listed"])
    db["repos"].create_index(["owner_login"])
    db["repo_names"].create(
        {"repo_id": int, "full_name": str, "first_seen_at": str, "last_seen_at": str},
        pk=("repo_id", "full_name"),
        foreign_keys=[("repo_id", "repos", "id")],
    )
    db["rejects"].create(
        {"id": int, "run_id": int, "item_ref": str, "repo_id": int, "full_name": str, "reason": str},
        pk="id",
        foreign_keys=[("run_id", "runs", "id")],
        not_null=["run_id", "reason"],
    )
    db["rejects"].create_index(["run_id"])
    db["snapshots"].create(
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
    db["snapshots"].create_index(["repo_id", "run_id"])
    db["scores"].create(
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
        },
        pk=("run_id", "repo_id"),
        foreign_keys=[("run_id", "runs", "id"), ("repo_id", "repos", "id")],
        not_null=["as_of", "method_version", "stars", "forks", "created_at", "score", "rank"],
    )
    db["scores"].create_index(["run_id", "rank"], unique=True)
    db["scores"].create_index(["repo_id", "run_id"])
    db["categories"].create(
        {"id": str, "name": str, "description": str, "position": int},
        pk="id",
        not_null=["name"],
    )
    db["repo_categories"].create(
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
    db["repo_categories"].create_index(["category"])
    # What Datasette's ranking and the export show: one row, switched in one transaction.
    db["published"].create(
        {"id": int, "score_run_id": int, "refresh_run_id": int, "published_at": str},
        pk="id",
        foreign_keys=[("score_run_id", "runs", "id"), ("refresh_run_id", "runs", "id")],
    )


def migrate(db: sqlite_utils.Database) -> None:
    """Apply pending migrations, holding the write lock so two processes cannot race."""
    from db.connection import write_transaction

    if migrations.pending(db):
        with write_transaction(db):
            migrations.apply(db)


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
          c.category,
          round(s.score, 1) as score,
          round(s.popularity, 1) as popularity,
          round(s.adoption, 1) as adoption,
          round(s.activity, 1) as activity,
          round(s.momentum, 1) as momentum,
          round(s.openness, 1) as openness,
          s.stars,
          s.forks,
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
        left join repo_categories c on c.repo_id = s.repo_id
        where p.id = 1
        """,
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
    db["category_corrections"].create_index(["repo_id"])
    # A hash of the name, description and topics a category was computed from: with the model
    # version it tells `classify --only-changed` which repos need a new prediction.
    db["repo_categories"].add_column("input_hash", str)
