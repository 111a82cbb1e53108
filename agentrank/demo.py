"""``agentrank demo``: the weekly pipeline on the bundled synthetic population, several weeks running.

The population is served by the local GitHub emulator (``crawler/emulator/``) on 127.0.0.1 and
crawled exactly as GitHub would be, with the emulator's rate limit out of the way so the demo
stays fast. Each simulated week the population moves on (stars and forks grow, a few repos rise
fast, some join, some leave or are archived, some are renamed) and the weekly job's own pipeline
(``refresh_database``, with ``at`` set to that week) runs against it, so history, deltas, rank
changes and "what changed" all have something to show. A synthetic task-benchmark ledger
(invented agents on invented tasks: attempts, task records, list prices, FitScore assessments and a
demo index) is imported so both leaderboards and every benchmark method have something to show.

The database is the one every command uses by default, marked as a demo database
(``db.demo``): a later ``agentrank demo`` rebuilds it, and ``agentrank refresh`` on it replays one
more week against the emulator; a database the demo did not build is never touched.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from agentrank.config import Config
from agentrank.errors import PipelineError
from agentrank.exporter import SCHEMA_VERSION
from agentrank.locks import run_lock
from agentrank.pipeline import PipelineResult, refresh_database
from agentrank.progress import Report, stage_ticker
from crawler.emulator import GitHubEmulator, SyntheticRepo, generate_population
from crawler.items import format_timestamp, parse_timestamp
from crawler.settings import DEFAULT_TOPICS
from db.demo import biggest_riser, file_demo_marker, file_refresh_instants, mark_demo, top_in_category
from db.store import open_store
from leaderboard.attempt import DEFAULT_SUITE
from leaderboard.imports import import_assessments, import_prices, import_tasks, sync_indexes
from leaderboard.ingest import import_attempts
from leaderboard.settings import IndexConfig

DEMO_SIZE = 4000
DEMO_SEED = 2026
DEMO_WEEKS = 5
JOINER_SHARE = 0.06  # of the population, held back and added over the weeks
RISERS = 12  # repos whose stars jump each week
_SEARCHED = frozenset(DEFAULT_TOPICS)


class DemoRefused(PipelineError):
    """The database path holds a database the demo did not build."""


@dataclass
class DemoResult:
    db_path: Path
    export_path: Path
    document: dict[str, Any]
    refreshes: list[PipelineResult]
    attempts: int
    weeks: int
    riser: str | None  # the top-100 repo that climbed most in the last week
    schema_version: int = SCHEMA_VERSION

    @property
    def refresh(self) -> PipelineResult:
        return self.refreshes[-1]


# -- the population over the weeks ------------------------------------------------------------------


def week_instants(weeks: int, now: datetime) -> list[datetime]:
    """One instant a week, the last one ``now``."""
    now = now.astimezone(UTC).replace(microsecond=0)
    return [now - timedelta(days=7 * (weeks - 1 - w)) for w in range(weeks)]


@dataclass
class Population:
    """The repos GitHub holds in a given week, plus the ones that have not appeared yet."""

    live: list[SyntheticRepo]
    joiners: list[SyntheticRepo]
    risers: set[int]
    names: set[str]
    joiners_per_week: int

    @classmethod
    def start(cls, size: int, seed: int, at: datetime) -> Population:
        everyone = generate_population(size, seed=seed, reference=at)
        rng = np.random.default_rng(seed + 1)
        held = max(1, int(size * JOINER_SHARE))
        joiner_index = set(rng.choice(size, size=held, replace=False).tolist())
        live = [r for i, r in enumerate(everyone) if i not in joiner_index]
        joiners = [r for i, r in enumerate(everyone) if i in joiner_index]
        modest = [r.id for r in live if 150 <= r.stars <= 2000 and not r.archived and not r.fork]
        risers = set(rng.choice(modest, size=min(RISERS, len(modest)), replace=False).tolist()) if modest else set()
        names = {r.full_name.lower() for r in everyone}
        return cls(live, joiners, risers, names, -(-held // (DEMO_WEEKS - 1)))

    def advance(self, week: int, at: datetime, seed: int) -> dict[str, int]:
        """Move the population on by one week ending at ``at``; returns what happened."""
        rng = np.random.default_rng(seed * 1000 + week)
        events = {"joined": 0, "left": 0, "archived": 0, "renamed": 0, "rising": len(self.risers)}
        # Who leaves, is archived or renamed: drawn among repos the crawl sees, so each week shows some.
        visible = [
            i
            for i, r in enumerate(self.live)
            if r.stars >= 200
            and not r.archived
            and not r.fork
            and set(r.topics) & _SEARCHED
            and r.id not in self.risers
        ]
        counts = [max(2, round(len(self.live) * share)) for share in (0.004, 0.003, 0.003)]
        picked = rng.choice(visible, size=min(sum(counts), len(visible)), replace=False).tolist() if visible else []
        leaving = set(picked[: counts[0]])
        archiving = set(picked[counts[0] : counts[0] + counts[1]])
        renaming = set(picked[counts[0] + counts[1] :])
        moved: list[SyntheticRepo] = []
        for index, repo in enumerate(self.live):
            if index in leaving:  # deleted or made private: gone from search
                events["left"] += 1
                continue
            if index in archiving:
                repo = replace(repo, archived=True)
                events["archived"] += 1
            growth = 0.45 + 0.4 * rng.random() if repo.id in self.risers else float(rng.lognormal(np.log(0.008), 0.9))
            stars = repo.stars + round(repo.stars * min(growth, 3.0))
            forks = repo.forks + round(repo.forks * min(growth, 3.0) * 0.6)
            pushed = repo.pushed_at
            if not repo.archived and (at - pushed).days < 60 and rng.random() < 0.7:
                pushed = at - timedelta(seconds=int(rng.uniform(0, 6.5) * 86400))
            repo = replace(repo, stars=stars, forks=forks, pushed_at=pushed, updated_at=max(pushed, repo.updated_at))
            if index in renaming:
                repo = self._rename(repo, rng)
                events["renamed"] += 1
            moved.append(repo)
        per_week = self.joiners_per_week if week else 0
        arriving, self.joiners = self.joiners[:per_week], self.joiners[per_week:]
        for repo in arriving:
            created = at - timedelta(seconds=int(rng.uniform(2, 20) * 86400))
            topics = repo.topics if repo.topics else ["ai-agents", "llm"]
            moved.append(
                replace(
                    repo,
                    created_at=created,
                    pushed_at=at - timedelta(seconds=int(rng.uniform(0, 2) * 86400)),
                    updated_at=at - timedelta(seconds=int(rng.uniform(0, 1) * 86400)),
                    stars=int(rng.integers(250, 4000)),
                    forks=int(rng.integers(10, 300)),
                    topics=topics,
                    archived=False,
                    fork=False,
                )
            )
        events["joined"] = len(arriving)
        self.live = moved
        return events

    def _rename(self, repo: SyntheticRepo, rng: np.random.Generator) -> SyntheticRepo:
        owner, name = repo.full_name.split("/", 1)
        for suffix in ("-next", "-ng", "2", "-pro", "-labs"):
            new = f"{owner}/{name}{suffix}"
            if new.lower() not in self.names and rng.random() < 0.8:
                break
        else:
            new = f"{owner}/{name}-{repo.id % 1000}"
        self.names.add(new.lower())
        return replace(repo, full_name=new)


def population_at(size: int, seed: int, instants: list[datetime]) -> Iterator[tuple[Population, dict[str, int]]]:
    """The population in each of the weeks ``instants`` names, with that week's events."""
    population = Population.start(size, seed, instants[0])
    for week, at in enumerate(instants):
        events = population.advance(week, at, seed) if week else {"joined": len(population.live)}
        yield population, events


# -- the benchmark ledger ----------------------------------------------------------------------------

TASKS = [f"demo-task-{n:02d}" for n in range(1, 9)]
MODELS = ("demo-model-large", "demo-model-small")
# A second suite, marked FitScore-style (a quality mark per attempt), so the index has two suites
# to average and the FitScore a suite to derive quality and reliability from.
PACK = "demo-pack"
PACK_TASKS = [f"demo-pack-{n:02d}" for n in range(1, 7)]
UNPRICED_MODEL = "demo-model-local"  # no list price: its cost stays unknown
DEMO_INDEX = IndexConfig(name="Demo Index", version="1", suites=[DEFAULT_SUITE, PACK])
# Tasks the harness's validation rejects, so the pages show attempts at them kept apart.
REJECTED = {TASKS[-1]: "reference", PACK_TASKS[-1]: "baseline"}


def _hidden_tests(rng: np.random.Generator, tasks: list[str]) -> dict[str, int]:
    return {task: int(rng.integers(4, 12)) for task in tasks}


def _tokens(rng: np.random.Generator) -> dict[str, int]:
    """Token counts as the attempt model counts them: input includes cached reads and cache writes."""
    cached, written = int(rng.integers(20_000, 400_000)), int(rng.integers(0, 30_000))
    return {
        "input": cached + written + int(rng.integers(5_000, 120_000)),
        "cached": cached,
        "cache_write": written,
        "output": int(rng.integers(2_000, 40_000)),
    }


def demo_attempts(agents: list[str], *, end: datetime, seed: int = DEMO_SEED) -> list[dict[str, Any]]:
    """Invented task-benchmark attempts for ``agents`` (repos of the demo population) and two
    invented closed agents: clearly demo data (``demo-`` models and tasks, example.invalid logs).

    The ``agentrank`` suite has both tiers; verified attempts report tokens and are priced from
    the demo price list, community ones report their own cost. The ``demo-pack`` suite adds two
    dated runs with the FitScore scorecard (quality, scope, regressions), one agent in two
    reasoning settings, and a model with no list price.
    """
    rng = np.random.default_rng(seed + 7)
    hidden = _hidden_tests(rng, TASKS + PACK_TASKS)
    records: list[dict[str, Any]] = []
    closed = ["Demo Closed Agent A", "Demo Closed Agent B"]
    verified = agents[:5] + closed[:1]
    community = agents[3:9] + closed[1:]

    def one(agent: str, version: str, model: str, task: str, number: int, tier: str, skill: float, day: int) -> None:
        total = hidden[task]
        infra = rng.random() < 0.04
        # A good agent often passes every hidden test (a solved task); otherwise some of them.
        solved = rng.random() < skill * 0.8
        passed = None if infra else total if solved else int(rng.binomial(total - 1, skill))
        flags = ["infra-error"] if infra else []
        if not infra and rng.random() < 0.03:
            flags.append("timed-out")
        cost = round(float(rng.uniform(0.05, 2.5)), 2)
        date = end - timedelta(days=day, hours=int(rng.integers(0, 23)))
        slug = agent.replace("/", "--").replace(" ", "-").lower()
        record: dict[str, Any] = {
            "agent": agent,
            "agent_version": version,
            "model": model,
            "settings": {"demo_data": True},
            "task_id": task,
            "attempt": number,
            "date": format_timestamp(date),
            "tier": tier,
            "tests_passed": passed,
            "tests_total": None if infra else total,
            "wall_seconds": round(float(rng.uniform(40, 1500)), 1),
            "flags": flags,
            "log_url": f"https://example.invalid/agentrank-demo/{slug}/{version}/{task}/{number}",
        }
        if tier == "verified":
            # Tokens and no cost: the list price in force on the attempt's date prices it.
            record.update(
                tokens=_tokens(rng), human_interventions=0, permission_mode="full-auto", network_access="none"
            )
        else:
            record.update(cost_usd=cost, cost_source="self-reported")
        records.append(record)

    for tier, names in (("verified", verified), ("community", community)):
        for i, agent in enumerate(names):
            skill = float(rng.uniform(0.35, 0.95))
            model = UNPRICED_MODEL if agent == closed[0] else MODELS[i % 2]
            versions = [("1.0", 27), ("1.1", 6)] if i % 3 == 0 else [("1.0", 13)]
            for version, day in versions:
                skill = min(0.98, skill + (0.05 if version == "1.1" else 0))
                for task in TASKS[: 5 + i % 4]:
                    for number in range(1, 3 if tier == "verified" else 2):
                        one(agent, version, model, task, number, tier, skill, day)
    # The pack is run by verified entries (same agent, version and model), so the index can average them.
    pack = [
        (agent, UNPRICED_MODEL if agent == closed[0] else MODELS[i % 2], i % 3 == 0) for i, agent in enumerate(verified)
    ]
    records += _pack_attempts(rng, pack[:3] + pack[-1:] if len(pack) > 3 else pack, hidden, end)
    return records


def _pack_attempts(
    rng: np.random.Generator, entries: list[tuple[str, str, bool]], hidden: dict[str, int], end: datetime
) -> list[dict[str, Any]]:
    """Two dated runs of the ``demo-pack`` suite by ``entries`` (agent, model, whether it moved to
    version 1.1 for the second run), two attempts per task, with the scorecard fields; the first
    entry also runs with high reasoning effort, a variant of its own."""
    records: list[dict[str, Any]] = []
    for run_day, second in ((20, False), (6, True)):
        run = format_timestamp(end - timedelta(days=run_day))[:10]
        for i, (agent, model, upgraded) in enumerate(entries):
            version = "1.1" if second and upgraded else "1.0"
            for variant in ({}, {"reasoning": "high"}) if i == 0 else ({},):
                skill = float(rng.uniform(0.4, 0.9)) + (0.08 if variant else 0)
                for task in PACK_TASKS:
                    total = hidden[task]
                    for number in (1, 2):
                        passed = total if rng.random() < skill else int(rng.binomial(total - 1, skill * 0.7))
                        unrelated = int(rng.random() < 0.2)
                        quality = (5 - unrelated) if passed == total else 2 if passed * 2 >= total else 1
                        regression_total = 20
                        stopped = rng.random() < 0.03
                        records.append(
                            {
                                "suite": PACK,
                                "run": run,
                                "agent": agent,
                                "agent_version": version,
                                "model": model,
                                "settings": {"demo_data": True, **variant},
                                "task_id": task,
                                "attempt": number,
                                "date": format_timestamp(end - timedelta(days=run_day, hours=int(rng.integers(0, 6)))),
                                "tier": "verified",
                                "tests_passed": passed,
                                "tests_total": total,
                                "quality": quality,
                                "unrelated_changes": unrelated,
                                "regression_passed": regression_total - int(rng.random() < 0.1),
                                "regression_total": regression_total,
                                "repo_commit": f"{int(rng.integers(0, 16**12)):012x}",
                                "limit_seconds": 1800.0,
                                "wall_seconds": round(float(rng.uniform(60, 1700)), 1),
                                "tokens": _tokens(rng),
                                "cost_lower_bound": True if stopped else None,
                                "flags": ["timed-out"] if stopped else [],
                                "human_interventions": 0,
                                "permission_mode": "full-auto",
                                "network_access": "none",
                                "log_url": f"https://example.invalid/agentrank-demo/{PACK}/{run}/{task}/{i}-{len(variant)}-{number}",
                            }
                        )
    return records


def demo_tasks(*, end: datetime, seed: int = DEMO_SEED) -> list[dict[str, Any]]:
    """The harness's validation of every demo task (the same hidden-test counts as the attempts);
    one task per suite fails it, so its attempts are shown apart."""
    hidden = _hidden_tests(np.random.default_rng(seed + 7), TASKS + PACK_TASKS)
    validated = format_timestamp(end - timedelta(days=30))
    records = []
    for suite, tasks in ((DEFAULT_SUITE, TASKS), (PACK, PACK_TASKS)):
        for n, task in enumerate(tasks, start=1):
            total = hidden[task]
            rejected = REJECTED.get(task)
            records.append(
                {
                    "suite": suite,
                    "task_id": task,
                    "title": f"Demo task {n} of the {suite} suite (invented)",
                    "brief_url": f"https://example.invalid/agentrank-demo/{suite}/{task}",
                    "visible_tests": 2,
                    "hidden_tests": total,
                    "baseline_passed": total if rejected == "baseline" else n % 3,
                    "reference_passed": total - 1 if rejected == "reference" else total,
                    "validated_at": validated,
                }
            )
    return records


def demo_prices(*, end: datetime) -> str:
    """The demo models' invented list prices (USD per million tokens); the small model's price falls
    two weeks before the demo's last week, so attempts on either side are priced differently."""
    cut = (end - timedelta(days=14)).date().isoformat()
    rows = [
        ("demo-model-large", "2026-01-01", 3.0, 0.3, 3.75, 15.0),
        ("demo-model-small", "2026-01-01", 1.0, 0.1, 1.25, 5.0),
        ("demo-model-small", cut, 0.8, 0.08, 1.0, 4.0),
    ]
    return "# Invented list prices for the demo's invented models.\n" + "".join(
        f'[[price]]\nmodel = "{model}"\nfrom = {start}\ninput = {i}\ncached_input = {c}\ncache_write = {w}\n'
        f"output = {o}\n\n"
        for model, start, i, c, w, o in rows
    )


def demo_assessments(agents: list[str]) -> str:
    """FitScore assessments over the ``demo-pack`` suite: one with a judgement call and a published
    figure that does not recompute (the page marks it), one without a published figure."""
    first, second = json.dumps(agents[0]), json.dumps("Demo Closed Agent A")
    return f"""# Invented FitScore assessments of demo agents.
[[assessment]]
agent = {first}
suite = "{PACK}"
scores = {{ cost = 4, speed = 3, setup = 5, agent = 4, privacy = 5 }}
notes = {{ cost = "demo: priced from the demo price list", privacy = "demo: runs with no network access" }}
published = 99
[[assessment.judgement]]
call = "demo: a browser sign-in step scores setup 3"
scores = {{ setup = 3 }}

[[assessment]]
agent = {second}
suite = "{PACK}"
scores = {{ cost = 2, speed = 4, setup = 4, agent = 3, privacy = 2 }}
notes = {{ privacy = "demo: a hosted model" }}
"""


# -- building ---------------------------------------------------------------------------------------


def check_replaceable(db_path: Path) -> None:
    """Refuse (one line) when ``db_path`` holds a database the demo did not build."""
    if db_path.exists() and file_demo_marker(db_path) is None:
        raise DemoRefused(
            f"{db_path} exists and was not built by `agentrank demo`: it is left as it is; "
            f"give the demo another file (agentrank --db demo.db demo) or move {db_path} away"
        )


def _remove_database(db_path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)


def _crawl_week(
    db_path: Path,
    config: Config,
    repos: list[SyntheticRepo],
    at: datetime,
    export_path: Path,
    on_stage: Callable[[str], None] | None,
) -> PipelineResult:
    demo_config = config.model_copy(deep=True)
    demo_config.github.min_interval_s = 0  # the emulator's rate limit is off: no need to space calls
    unlimited = 10**9
    with GitHubEmulator(
        repos, search_limit=unlimited, unauthenticated_search_limit=unlimited, core_limit=unlimited
    ) as emulator:
        return refresh_database(
            db_path,
            demo_config,
            what="demo",
            export_path=export_path,
            api_url=emulator.url,
            token=None,
            progress=False,
            fresh_crawl=True,
            after_stage=on_stage,
            at=at,
        )


def _week_line(week: int, weeks: int, at: datetime, events: dict[str, int], result: PipelineResult) -> str:
    """What a week did, in two kinds of count: what the synthetic population did (repos that
    joined GitHub's search, left it, were archived or renamed) and what the crawl made of it
    ("seen for the first time" counts every repo the database had not stored yet: in week 1 all
    of them, later the joiners that reach the star threshold)."""
    crawl = next((s for s in result.stages if s["stage"] == "crawl"), {})
    moves = ", ".join(f"{n} {what}" for what, n in events.items() if n and what != "rising")
    if week == 1:
        moves = f"{events.get('joined', 0)} repos to start with"
    return (
        f"week {week}/{weeks} ({at:%Y-%m-%d}): the synthetic population: {moves or 'no arrivals or departures'}; "
        f"the crawl found {crawl.get('found', 0)} repos ({crawl.get('new', 0)} seen for the first time, "
        f"{crawl.get('delisted', 0)} delisted); published {result.count} agents "
        f"in {sum(s['duration_s'] for s in result.stages):.1f} s"
    )


def _stage_ticker(report: Report, week: int, weeks: int) -> Callable[[str], None]:
    return stage_ticker(report, f"week {week}/{weeks}: ")


def build_demo(
    db_path: Path,
    export_path: Path,
    config: Config,
    *,
    size: int = DEMO_SIZE,
    weeks: int = DEMO_WEEKS,
    seed: int = DEMO_SEED,
    now: datetime | None = None,
    report: Report | None = None,
) -> DemoResult:
    """Build the demo database at ``db_path`` (replacing an earlier demo database, never another
    one) through ``weeks`` weekly refreshes, import the demo attempts and write the export."""
    report = report or Report()
    check_replaceable(db_path)
    instants = week_instants(weeks, now or datetime.now(UTC))
    with run_lock(db_path, "demo"):
        check_replaceable(db_path)  # again, holding the lock
        _remove_database(db_path)
        db = open_store(db_path)
        first_week = format_timestamp(instants[0])
        mark_demo(db, built_at=format_timestamp(instants[-1]), first_week=first_week, seed=seed, size=size, weeks=0)
        db.close()
    report(f"building the demo database {db_path}: {size} synthetic repos over {weeks} weekly refreshes")
    refreshes: list[PipelineResult] = []
    for week, (population, events) in enumerate(population_at(size, seed, instants), start=1):
        at = instants[week - 1]
        ticker = _stage_ticker(report, week, weeks)
        result = _crawl_week(db_path, config, population.live, at, export_path, ticker)
        refreshes.append(result)
        report(_week_line(week, weeks, at, events, result))
    attempts, riser = _import_demo_attempts(db_path, export_path, instants[-1], seed, config)
    report(f"imported {attempts} synthetic task-benchmark attempts; wrote {export_path}")
    with run_lock(db_path, "demo"):
        db = open_store(db_path)
        mark_demo(db, built_at=format_timestamp(instants[-1]), first_week=first_week, seed=seed, size=size, weeks=weeks)
        db.close()
    document = json.loads(export_path.read_text(encoding="utf-8"))
    return DemoResult(db_path, export_path, document, refreshes, attempts, weeks, riser)


def _import_demo_attempts(
    db_path: Path, export_path: Path, end: datetime, seed: int, config: Config
) -> tuple[int, str | None]:
    """Import the demo's benchmark ledger (task records, list prices, attempts for last week's
    biggest riser and the top coding agents, FitScore assessments, and the demo index unless the
    configuration names its own), then write the export again with it; returns the attempts saved
    and the riser."""
    from agentrank.exporter import export

    with run_lock(db_path, "demo"):
        db = open_store(db_path)
        try:
            riser = biggest_riser(db.conn)
            agents = list(dict.fromkeys([*([riser] if riser else []), *top_in_category(db.conn, "coding", 9)]))
            sync_indexes(db, config.benchmark.index or [DEMO_INDEX])
            with tempfile.TemporaryDirectory(prefix="agentrank-demo-ledger.") as folder:
                files = {
                    "tasks.jsonl": "".join(json.dumps(r) + "\n" for r in demo_tasks(end=end, seed=seed)),
                    "prices.toml": demo_prices(end=end),
                    "attempts.jsonl": "".join(json.dumps(r) + "\n" for r in demo_attempts(agents, end=end, seed=seed)),
                    "assessments.toml": demo_assessments(agents),
                }
                for name, text in files.items():
                    (Path(folder) / name).write_text(text, encoding="utf-8")
                import_tasks(db, Path(folder) / "tasks.jsonl")
                import_prices(db, Path(folder) / "prices.toml")
                result = import_attempts(db, Path(folder) / "attempts.jsonl", verified=True)
                if result.errors:
                    raise PipelineError(f"the demo attempts did not import: {result.errors[0]}")
                import_assessments(db, Path(folder) / "assessments.toml")
            export(db, export_path)
        finally:
            db.close()
    return result.counts.saved, riser


def _past_instants(db_path: Path, marker: dict[str, Any], weeks: int) -> list[datetime]:
    """The instants the demo's weeks so far were crawled at: the build's weeks are a week apart,
    but a refresh runs whenever it is asked (minutes after the build, or a month later), so the
    replay takes each week's instant from its refresh run. Replaying a later refresh as a week
    after the one before put that week in the future, and its pushes after the next week's as-of."""
    first = parse_timestamp(marker["first_week"])
    spaced = [first + timedelta(days=7 * w) for w in range(weeks)]
    recorded = [parse_timestamp(t) for t in file_refresh_instants(db_path, since=marker["first_week"])]
    return recorded[-weeks:] if len(recorded) >= weeks and recorded[-weeks] == first else spaced


def refresh_demo(db_path: Path, export_path: Path, config: Config, *, report: Report | None = None) -> PipelineResult:
    """``agentrank refresh`` on a demo database: one more week of the demo population, crawled from
    the emulator at the present instant through the same pipeline."""
    report = report or Report()
    marker = file_demo_marker(db_path)
    if marker is None:
        raise DemoRefused(f"{db_path} is not a demo database")
    weeks = int(marker["weeks"]) + 1
    now = datetime.now(UTC).replace(microsecond=0)
    # The earlier weeks are replayed in memory (the population is deterministic), the new one crawled.
    instants = [*_past_instants(db_path, marker, weeks - 1), now]
    population = list(population_at(int(marker["size"]), int(marker["seed"]), instants))[-1][0]
    result = _crawl_week(db_path, config, population.live, now, export_path, _stage_ticker(report, weeks, weeks))
    with run_lock(db_path, "demo"):
        db = open_store(db_path)
        mark_demo(
            db,
            built_at=format_timestamp(now),
            first_week=marker["first_week"],
            seed=int(marker["seed"]),
            size=int(marker["size"]),
            weeks=weeks,
        )
        db.close()
    return result
