"""Issue 14's trust fields: exact ties, history from dated saves, unusual growth, ranges, validation."""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import jsonschema
import numpy as np
import pytest

from agentrank import importer, scorer
from agentrank.config import load_config
from agentrank.exporter import build_export, export_schema
from crawler.emulator.population import generate_population, to_search_item
from db.runs import start_run
from db.scores import publish
from db.store import open_store
from scoring.score import WEIGHTS
from scoring.sql import RECOMPUTE_SQL
from tests.conftest import REFERENCE, write_json
from tests.test_scoring import _random_items

START = datetime(2026, 11, 2, 6, 0, tzinfo=UTC)  # four weekly saves: Nov 2, 9, 16, 23


def _exact_scores(rows: list[dict]) -> dict[int, Fraction]:
    """Each repo's score as a fraction, from its stored inputs, counted by hand."""
    n = len(rows)
    sorted_inputs = {c: sorted(r[c] for r in rows) for c in ("stars", "forks", "stars_per_day")}
    weights = {name: Fraction(str(w)) for name, w in WEIGHTS.items()}
    out = {}
    for r in rows:

        def pct(column: str, r=r) -> Fraction:
            return Fraction(100 * bisect_left(sorted_inputs[column], r[column]), n - 1)

        out[r["repo_id"]] = (
            weights["popularity"] * pct("stars")
            + weights["adoption"] * pct("forks")
            + weights["momentum"] * pct("stars_per_day")
            + weights["activity"] * Fraction(r["activity"])
            + weights["openness"] * Fraction(r["openness"])
        )
    return out


def test_equal_exact_scores_tie_in_python_and_sql_and_stars_then_name_decide(db):
    rng = np.random.default_rng(14)
    items = _random_items(rng, 3000)
    importer.save_items(
        db,
        ((str(i), item) for i, item in enumerate(items)),
        run_id=start_run(db, "import"),
        min_stars=load_config(None, environ={}).crawl.min_stars,
        source="import",
        seen_at="2026-11-30T06:00:00Z",
    )
    run_id = scorer.score(db, as_of="2026-11-30T06:00:00Z").run_id
    rows = [dict(r) for r in db.query("select * from scores where run_id = ?", [run_id])]
    exact = _exact_scores(rows)
    expected = sorted(rows, key=lambda r: (-exact[r["repo_id"]], -r["stars"], r["full_name"]))
    assert [r["rank"] for r in expected] == list(range(1, len(rows) + 1))  # Python follows exact → stars → name
    recomputed = {r["repo_id"]: r for r in db.query(RECOMPUTE_SQL, {"run_id": run_id})}
    assert all(recomputed[r["repo_id"]]["rank"] == r["rank"] for r in rows)  # SQL gives the same ranks
    assert all(r["difference"] == 0 for r in recomputed.values())
    # The population does have scores equal in exact arithmetic that floating point tells apart.
    by_exact: dict[Fraction, set[float]] = {}
    for r in rows:
        by_exact.setdefault(exact[r["repo_id"]], set()).add(r["score"])
    assert any(len(floats) > 1 for floats in by_exact.values())


def _weekly_population(n: int, seed: int, *, planted: tuple[int, ...] = (), plant: int = 0, weeks: int = 4):
    """Weekly saves of n repos growing 0–3 % a week, forks along with them; ``planted`` repos gain
    ``plant`` stars in the last week with no new forks and no push."""
    rng = np.random.default_rng(seed)
    repos = generate_population(n, seed=seed, reference=REFERENCE)
    base = []
    for i, repo in enumerate(repos):
        repo.archived, repo.fork = False, False
        item = to_search_item(repo)
        item.update(id=10_000 + i, full_name=f"grower{i % 13}/repo{i}", name=f"repo{i}")
        item["stargazers_count"] = int(rng.integers(300, 60_000))
        item["forks_count"] = int(item["stargazers_count"] * rng.uniform(0.05, 0.2))
        item["created_at"] = "2024-01-01T00:00:00Z"
        base.append(item)
    saves = []
    for week in range(weeks):
        at = START + timedelta(days=7 * week)
        save = []
        for i, item in enumerate(base):
            item = dict(item)
            if week:
                previous = saves[-1][i]
                rate = rng.uniform(0.0, 0.03)
                item["stargazers_count"] = previous["stargazers_count"] + round(rate * previous["stargazers_count"])
                item["forks_count"] = previous["forks_count"] + round(
                    rate * rng.uniform(0.5, 1.5) * previous["forks_count"]
                )
            pushed = at - timedelta(days=float(rng.uniform(0, 20)))
            item["pushed_at"] = pushed.strftime("%Y-%m-%dT%H:%M:%SZ")
            if i in planted:
                item["pushed_at"] = "2026-06-01T00:00:00Z"
                if week == weeks - 1:
                    item["stargazers_count"] = saves[-1][i]["stargazers_count"] + plant
                    item["forks_count"] = saves[-1][i]["forks_count"]
            save.append(item)
        saves.append(save)
    return saves


def _import_weeks(run_cli, tmp_path, saves) -> None:
    for week, save in enumerate(saves):
        path = write_json(
            tmp_path / f"week{week}.json", {"total_count": len(save), "incomplete_results": False, "items": save}
        )
        at = (START + timedelta(days=7 * week)).strftime("%Y-%m-%dT%H:%M:%SZ")
        run_cli("import", "--observed-at", at, str(path))


def test_four_weekly_saves_flag_planted_growth_only(tmp_path, run_cli, db_path):
    saves = _weekly_population(400, seed=5, planted=(3, 77), plant=4000)
    _import_weeks(run_cli, tmp_path, saves)
    run_cli("score")
    db = open_store(db_path)
    last = START + timedelta(days=21)
    snapshot_times = {r[0] for r in db.execute("select distinct observed_at from snapshots")}
    assert snapshot_times == {(START + timedelta(days=7 * w)).strftime("%Y-%m-%dT%H:%M:%SZ") for w in range(4)}
    document = build_export(db)
    jsonschema.validate(document, export_schema())
    assert document["as_of"] == last.strftime("%Y-%m-%dT%H:%M:%SZ")
    agents = {a["repo_id"]: a for a in document["agents"]}
    planted = {10_003, 10_077}
    flagged = {a["repo_id"] for a in document["agents"] if "unusual-star-growth" in a["flags"]}
    assert planted <= flagged
    assert len(flagged - planted) <= 0.01 * (len(agents) - 2)
    for repo_id in planted:
        agent = agents[repo_id]
        assert agent["stars_delta_7d"] == 4000
        check = agent["growth_check"]
        assert check["judged"] and check["stars_gained_last_week"] == 4000 and check["forks_gained_last_week"] == 0
        assert len(check["earlier_weekly_gains"]) == 2 and check["expected_from_peers"] < 4000
    # The flag is an observation only: the score is the one the inputs give.
    recomputed = {r["repo_id"]: r for r in db.query(RECOMPUTE_SQL, {"run_id": ""})}
    assert all(r["difference"] == 0 and r["rank"] == r["stored_rank"] for r in recomputed.values())
    assert document["validation"]["flagged"] == len(flagged)
    db.close()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ordinary_growth_flags_at_most_one_percent(tmp_path, db, seed):
    saves = _weekly_population(300, seed=seed)
    config = load_config(None, environ={})
    for week, save in enumerate(saves):
        path = write_json(tmp_path / f"w{week}.json", save)
        importer.import_files(
            db, [path], min_stars=config.crawl.min_stars, observed_at=START + timedelta(days=7 * week)
        )
    scorer.score(db)
    judged = db.execute("select count(*) from scores where json_extract(growth_check, '$.judged')").fetchone()[0]
    flagged = db.execute("select count(*) from scores where flags != '[]'").fetchone()[0]
    assert judged == 300 and flagged <= 3


def test_too_little_history_is_not_judged(tmp_path, db):
    saves = _weekly_population(50, seed=9, planted=(1,), plant=9000, weeks=3)
    for week, save in enumerate(saves):
        path = write_json(tmp_path / f"w{week}.json", save)
        importer.import_files(db, [path], min_stars=200, observed_at=START + timedelta(days=7 * week))
    scorer.score(db)
    checks = [json.loads(r[0]) for r in db.execute("select growth_check from scores")]
    assert not any(c["judged"] for c in checks) and all("history" in c["reason"] for c in checks)
    assert db.execute("select count(*) from scores where flags != '[]'").fetchone()[0] == 0


def test_an_observed_at_before_stored_history_is_refused_and_writes_nothing(tmp_path, run_cli, db_path):
    saves = _weekly_population(20, seed=4, weeks=2)
    _import_weeks(run_cli, tmp_path, saves)
    db = open_store(db_path)
    before = [db.execute(f"select count(*) from {t}").fetchone()[0] for t in ("runs", "snapshots", "repos")]
    db.close()
    path = write_json(tmp_path / "late.json", saves[0])
    result = run_cli("import", "--observed-at", "2026-11-05T00:00:00Z", str(path), expect=1)
    assert len(result.stderr.strip().splitlines()) == 1
    assert "--observed-at 2026-11-05T00:00:00Z is earlier than the stored snapshot" in result.stderr
    assert "never rewritten" in result.stderr
    # A value that is no instant, or one that cannot be when results were fetched, is bad usage (exit
    # 2, as `score --as-of garbage`); it exited 1.
    assert "not an ISO 8601 time" in run_cli("import", "--observed-at", "next week", str(path), expect=2).stderr
    # Results cannot have been fetched in the future or before 2000: such a date would skew the history.
    for instant, words in (("9999-12-31T23:59:59Z", "is in the future"), ("1900-01-01", "is before 2000")):
        refused = run_cli("import", "--observed-at", instant, str(path), expect=2).stderr
        assert words in refused and len(refused.strip().splitlines()) == 1, refused
    # A repo never seen before cannot start its history in the stored past either.
    newcomer = write_json(tmp_path / "new.json", [dict(saves[0][0], id=99_999, full_name="new/comer")])
    assert (
        "earlier than the stored snapshot"
        in run_cli("import", "--observed-at", "2026-11-05", str(newcomer), expect=1).stderr
    )
    db = open_store(db_path)
    assert [db.execute(f"select count(*) from {t}").fetchone()[0] for t in ("runs", "snapshots", "repos")] == before
    # The same instant as the newest snapshot, or later, is fine; a zone offset is converted to UTC.
    run_cli("import", "--observed-at", "2026-11-09T07:00:00+01:00", str(path))
    assert db.execute("select started_at, as_of from runs order by id desc limit 1").fetchone() == (
        "2026-11-09T06:00:00Z",
        "2026-11-09T06:00:00Z",
    )
    db.close()


def test_ranges_hold_the_rank_are_deterministic_and_validation_recomputes(tmp_path, db):
    import scipy.stats  # an independent calculation (imported here: a second to load)

    saves = _weekly_population(200, seed=11, weeks=2)
    weekly_runs = []
    for week, save in enumerate(saves):
        path = write_json(tmp_path / f"w{week}.json", save)
        importer.import_files(db, [path], min_stars=200, observed_at=START + timedelta(days=7 * week))
        weekly_runs.append(scorer.score(db).run_id)
    runs = [scorer.score(db).run_id for _ in range(2)]
    columns = "repo_id, rank, rank_best, rank_worst, score, score_low, score_high"
    a, b = (
        [tuple(r) for r in db.execute(f"select {columns} from scores where run_id = ? order by repo_id", [run])]
        for run in runs
    )
    assert a == b  # the same inputs give the same ranges
    for _, rank, best, worst, score, low, high in a:
        assert 1 <= best <= rank <= worst <= 200 and low <= score <= high
    assert any(worst - best > 0 for _, _, best, worst, *_ in a)
    document = build_export(db)
    for agent in document["agents"]:
        best, worst = agent["rank_range"]
        low, high = agent["score_range"]
        assert best <= agent["rank"] <= worst and low <= agent["score"] <= high and low <= agent["score_exact"] <= high
    validation = document["validation"]
    rows = {r[0]: r[1:] for r in db.execute("select repo_id, rank, stars from scores where run_id = ?", [runs[1]])}
    ranks, stars = zip(*rows.values(), strict=True)
    assert validation["n"] == 200 and validation["previous_run"] == runs[0]
    assert validation["spearman_vs_stars"] == pytest.approx(
        scipy.stats.spearmanr(ranks, stars).statistic * -1, abs=1e-12
    )
    assert validation["kendall_tau_vs_previous"] == pytest.approx(1.0)  # same inputs, same ranking
    # Week 1 against week 0: recomputed with scipy over the repos ranked in both.
    week0, week1 = (
        {r[0]: r[1] for r in db.execute("select repo_id, rank from scores where run_id = ?", [run])}
        for run in weekly_runs
    )
    common = sorted(set(week0) & set(week1))
    tau = scipy.stats.kendalltau([week0[i] for i in common], [week1[i] for i in common]).statistic
    sql = "select kendall_tau_vs_previous, previous_run, previous_common from validation where run_id = ?"
    stored_tau, previous, in_both = db.execute(sql, weekly_runs[1:]).fetchone()
    assert previous == weekly_runs[0] and in_both == len(common) and stored_tau == pytest.approx(tau, abs=1e-12)
    assert 0 < stored_tau < 1
    assert db.execute(sql, weekly_runs[:1]).fetchone() == (None, None, 0)
    widths = [worst - best for _, _, best, worst, *_ in a]
    assert validation["wide_rank_range_share"] == pytest.approx(sum(w > 10 for w in widths) / 200)
    assert (
        validation["flagged"] == 0
        and validation["crawl_coverage"] is None
        and "crawl" in validation["notes"]["crawl_coverage"]
    )


def test_explain_and_the_makers_page_show_the_range_and_the_flag(tmp_path, run_cli, db_path):
    saves = _weekly_population(120, seed=6, planted=(5,), plant=6000)
    _import_weeks(run_cli, tmp_path, saves)
    run_cli("score")
    name = saves[-1][5]["full_name"]
    text = run_cli("explain", name).output
    data = json.loads(run_cli("explain", name, "--json").output)
    best, worst = data["rank_range"]
    assert best <= data["rank"] <= worst and data["flags"] == ["unusual-star-growth"]
    assert f"rank {data['rank']:,}, likely {best:,}–{worst:,}" in text or f"likely exactly {best:,}" in text
    assert "flag: unusual star growth: 6,000 stars gained in the last week" in text
    assert "does not change the score" in text
    from datasette_plugins.agent_page import agent_context

    db = open_store(db_path)
    context = agent_context(db.conn, name, "https://example.org/agentrank")
    assert context["breakdown"]["rank_range"] == [best, worst]
    db.close()


@pytest.mark.asyncio
async def test_the_directory_shows_ranges_flags_and_validation(tmp_path):
    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette

    path = tmp_path / "agentrank.db"
    db = open_store(path)
    saves = _weekly_population(120, seed=8, planted=(9,), plant=5000)
    for week, save in enumerate(saves):
        save[9]["description"] = "<script>alert('x')</script>"
        file = write_json(tmp_path / f"w{week}.json", save)
        importer.import_files(db, [file], min_stars=200, observed_at=START + timedelta(days=7 * week))
        scorer.score(db)
    db.close()
    datasette = build_datasette(path, ServeConfig(heap_limit_mb=0))
    agents = (await datasette.client.get("/agentrank/agents.json?_shape=objects&_size=max")).json()["rows"]
    for agent in agents:
        assert agent["likely_rank"] == f"{agent['rank_best']}–{agent['rank_worst']}"
        assert agent["rank_best"] <= agent["rank"] <= agent["rank_worst"]
    flagged = [a["full_name"] for a in agents if "unusual-star-growth" in json.loads(a["flags"])]
    assert flagged == [saves[-1][9]["full_name"]]
    page = await datasette.client.get("/-/agent/" + flagged[0])
    text = page.text
    agent = next(a for a in agents if a["full_name"] == flagged[0])
    assert f"Rank {agent['rank']:,}, likely {agent['rank_best']:,}–{agent['rank_worst']:,}" in text
    assert "Flagged for unusual star growth: 5,000 stars gained in the last week" in text
    assert "<script>alert" not in text  # the description is escaped
    assert 'id="flags"' in text
    # The compact lists (home, the agents page) mark it too, linking to the flag on its page.
    for listing in ("/", "/agentrank/agents?_size=max"):
        lines = (await datasette.client.get(listing)).text
        marked = re.findall(r'<a class="ar-flag" href="/-/agent/([^"#]+)#flags"', lines)
        assert marked == [flagged[0]], listing
    figures = (await datasette.client.get("/agentrank/validation_figures.json?_shape=objects")).json()["rows"]
    assert figures[0]["n"] == 120 and figures[0]["flagged"] == 1 and figures[0]["kendall_tau_vs_previous"] is not None
    # Why a figure is missing is said in words, not as the stored JSON record.
    assert "details" not in figures[0] and figures[0]["notes"].startswith("Classifier accuracy: ")
    growth = (await datasette.client.get("/agentrank/flagged_growth.json?_shape=objects")).json()["rows"]
    assert [(g["full_name"], g["stars_delta_7d"], g["forks_gained_last_week"]) for g in growth] == [
        (flagged[0], 5000, 0)
    ]


@pytest.mark.parametrize("pattern", ["uniform", "on-off", "forks-flat"])
def test_the_growth_rule_never_flags_ordinary_weeks_of_up_to_3_percent(pattern):
    from scoring.growth import WEEKS, judge

    rng = np.random.default_rng(len(pattern))
    n = 2000
    stars = [rng.integers(200, 300_000, n).astype(float)]
    forks = [np.round(stars[0] * rng.uniform(0.02, 0.3, n))]
    for _ in range(3):
        rate = np.where(rng.random(n) < 0.5, 0.0, 0.03) if pattern == "on-off" else rng.uniform(0, 0.03, n)
        stars.append(np.round(stars[-1] * (1 + rate)))
        forks.append(forks[-1] if pattern == "forks-flat" else np.round(forks[-1] * (1 + rate * rng.uniform(0, 2, n))))
    weekly = np.column_stack([*stars[::-1], *[np.full(n, np.nan)] * (WEEKS + 1 - len(stars))])
    result = judge(weekly, forks[-1] - forks[-2], rng.random(n) < 0.5)
    assert result.judged.all() and not result.flagged.any()


@pytest.mark.parametrize("quiet", [1, 2, 4, 7])
def test_a_jump_is_flagged_however_few_peers_share_its_quiet_week(quiet):
    # 14 repos gaining 10 to 140 stars and one fork a week; repo 3 gained 40 a week, then 5,040 in a
    # week it was not pushed to. With few other unpushed repos, the pushed indicator let the repo be
    # its own peer group: it "expected" most of its own jump and was not flagged.
    from scoring.growth import WEEKS, judge

    n = 14
    weekly_gain = np.array([10 + 10 * i for i in range(n)], dtype=float)
    weekly_gain[3] = 40
    stars = np.full(n, 1_000.0)
    columns = [stars.copy()]
    for _ in range(WEEKS):
        stars = stars + weekly_gain
        columns.append(stars.copy())
    columns[-1][3] += 5_000  # the latest week
    weekly = np.column_stack(columns[::-1])
    pushed = np.ones(n, dtype=bool)
    pushed[[3, *range(7, 7 + quiet - 1)]] = False
    result = judge(weekly, np.ones(n), pushed)
    assert result.judged.all()
    assert np.flatnonzero(result.flagged).tolist() == [3]
    assert result.expected[3] < 200


@pytest.mark.parametrize(("peer_forks", "own_forks"), [(0, 5), (1, 0), (1, 5)])
def test_a_repo_alone_in_its_forks_gained_does_not_explain_its_own_jump(peer_forks, own_forks):
    # 14 peers gain 10 to 23 stars a week and the same number of forks (none, or exactly one); repo 14
    # gained 10 a week, then 270 in the last week, with another number of forks. Being the only repo at
    # its fork count, the fit through it "expected" its own 270 and it was not flagged.
    from scoring.growth import WEEKS, judge

    n = 15
    weekly_gain = np.array([10.0 + i for i in range(14)] + [10.0])
    stars = np.full(n, 1_000.0)
    columns = [stars.copy()]
    for _ in range(WEEKS):
        stars = stars + weekly_gain
        columns.append(stars.copy())
    columns[-1][14] += 260  # the latest week: 270
    forks = np.full(n, float(peer_forks))
    forks[14] = own_forks
    pushed = np.arange(n) % 2 == 0
    result = judge(np.column_stack(columns[::-1]), forks, pushed)
    assert result.judged.all()
    assert np.flatnonzero(result.flagged).tolist() == [14]
    assert result.expected[14] < 30  # what the peers gained, not the repo's own 270


def test_a_run_scored_before_the_trust_fields_still_exports(tmp_path):
    import sqlite_utils

    from db.migrations import migrations

    path = tmp_path / "old.db"
    old = sqlite_utils.Database(path)
    migrations.apply(old, stop_before="m014_trust_fields")
    old.close()
    db = open_store(path)  # m014 upgrades it in place
    # A run scored before m014: score, then clear what m014 added.
    saves = _weekly_population(30, seed=12, weeks=1)
    importer.import_files(db, [write_json(tmp_path / "w.json", saves[0])], min_stars=200, observed_at=START)
    run_id = scorer.score(db).run_id
    db.execute(
        "update scores set rank_best = null, rank_worst = null, score_low = null, score_high = null, flags = null, growth_check = null"
    )
    db.execute("delete from validation")
    publish(db, run_id)  # the agents table is rebuilt from the score rows at publish
    document = build_export(db)
    jsonschema.validate(document, export_schema())
    assert all(a["rank_range"] == [a["rank"], a["rank"]] and a["flags"] == [] for a in document["agents"])
    assert document["validation"]["n"] == 30 and "before" in document["validation"]["notes"]["all"]
    agents = list(db.query("select likely_rank, flags from agents"))
    assert all(a["likely_rank"] is None and a["flags"] == "[]" for a in agents) and run_id, agents[:3]
    db.close()


def _synthetic_inputs(n: int, seed: int):
    from scoring.score import ScoreInputs, compute_scores

    rng = np.random.default_rng(seed)
    as_of = 1_796_000_000
    stars = (200 / (1 - rng.random(n))).astype(np.int64)
    inputs = ScoreInputs(
        repo_id=rng.permutation(n) + 1,
        full_name=np.array([f"o{i % 7}/r{i}" for i in range(n)]),
        stars=stars,
        forks=(stars * rng.uniform(0.02, 0.3, n)).astype(np.int64),
        created_epoch=as_of - rng.integers(86400, 86400 * 4000, n),
        pushed_epoch=(as_of - rng.integers(0, 86400 * 800, n)).astype(float),
        osi=rng.random(n) < 0.7,
        as_of_epoch=as_of,
    )
    return inputs, compute_scores(inputs)


def test_ranges_do_not_depend_on_threads_or_load_order_and_fewer_draws_still_hold_the_rank():
    from scoring.score import ScoreInputs
    from scoring.uncertainty import MIN_DRAWS, draws_for, rank_ranges, weekly_noise

    inputs, result = _synthetic_inputs(3000, seed=5)
    noise = weekly_noise(inputs.stars, np.full(3000, np.nan)), weekly_noise(inputs.forks, np.full(3000, np.nan))
    one = rank_ranges(inputs, result, *noise, threads=1)
    two = rank_ranges(inputs, result, *noise, threads=2)
    for field in ("rank_best", "rank_worst", "score_low", "score_high"):
        assert np.array_equal(getattr(one, field), getattr(two, field))
    # The same repos loaded in another order get the same ranges.
    shuffle = np.random.default_rng(1).permutation(3000)
    shuffled = ScoreInputs(
        **{k: v[shuffle] for k, v in vars(inputs).items() if k != "as_of_epoch"}, as_of_epoch=inputs.as_of_epoch
    )
    again = rank_ranges(shuffled, {k: v[shuffle] for k, v in result.items()}, noise[0][shuffle], noise[1][shuffle])
    assert np.array_equal(again.rank_best, one.rank_best[shuffle])
    assert np.array_equal(again.score_high, one.score_high[shuffle])
    # A million repos get fewer draws; the range (then the lowest and highest draw) still holds the
    # rank and is about as wide as 100 draws' 5th-95th percentile.
    assert draws_for(3000) == 100 and draws_for(1_000_000) == MIN_DRAWS
    few = rank_ranges(inputs, result, *noise, draws=MIN_DRAWS)
    assert np.all(few.rank_best <= result["rank"]) and np.all(result["rank"] <= few.rank_worst)
    assert np.all(few.score_low <= result["score"]) and np.all(result["score"] <= few.score_high)
    assert np.mean(few.rank_worst - few.rank_best) >= 0.8 * np.mean(one.rank_worst - one.rank_best)


@pytest.mark.parametrize(
    ("stars", "reason"),
    [([500], "fewer than 2 listed repos"), ([700, 700, 700], "every listed repo has the same star count")],
)
def test_a_null_spearman_says_why(db, stars, reason):
    from tests.conftest import import_and_score, make_item

    items = [
        make_item(id=n, full_name=f"same/r{n}", name=f"r{n}", stargazers_count=s, seed=n)
        for n, s in enumerate(stars, start=1)
    ]
    import_and_score(db, items)
    validation = build_export(db)["validation"]
    assert validation["spearman_vs_stars"] is None
    assert validation["notes"]["spearman_vs_stars"] == reason


def test_a_score_range_is_shown_one_way_everywhere(tmp_path):
    """The export, the ranking table, the maker's page and explain: one decimal, rounded outwards,
    holding the unrounded score as well as the shown one."""
    from db.breakdown import load_breakdown
    from tests.publish_helpers import build_published_db

    published = build_published_db(tmp_path / "agentrank.db", n=150, weeks=2)
    db = open_store(published.path)
    exported = {a["full_name"]: a for a in build_export(db)["agents"]}
    table = {r[0]: [r[1], r[2]] for r in db.execute("select full_name, score_low, score_high from agents")}
    assert exported.keys() == table.keys()
    outward = 0
    for name, agent in exported.items():
        low, high = agent["score_range"]
        assert table[name] == [low, high], name
        assert low <= agent["score_exact"] <= high and low <= agent["score"] <= high
        raw = db.execute(
            "select score_low, score_high from scores where run_id = (select score_run_id from published) and full_name = ?",
            [name],
        ).fetchone()
        outward += (low, high) != (round(raw[0], 1), round(raw[1], 1))
    assert outward  # the data has ranges that plain rounding would show otherwise
    for name in list(exported)[:25]:
        assert load_breakdown(db.conn, name)["score_range"] == exported[name]["score_range"], name
    db.close()


def test_a_ranking_that_follows_stars_exactly_reports_a_correlation_of_exactly_1():
    # 50 repos, the best rank with the most stars: the published rho is 1 (scipy's arithmetic gives
    # 0.9999999999999999 here, which a reader takes for "not quite").
    from scoring.validation import spearman_vs_stars

    ranks = np.arange(1, 51)
    assert spearman_vs_stars(ranks, (51 - ranks) * 3.7) == 1.0
    assert spearman_vs_stars(ranks, (ranks - 51) * 3.7) == -1.0


@pytest.mark.parametrize("seed", range(5))
def test_spearman_and_its_average_ranks_agree_with_scipy(seed):
    # The product computes them with numpy (scipy.stats costs half a second to import in every
    # `agentrank score`); here scipy checks them, on ranks and star counts with many ties.
    import scipy.stats

    from scoring.validation import average_ranks, spearman_vs_stars

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    stars = rng.integers(200, 260, n).astype(float)  # ties in plenty
    ranks = rng.permutation(n) + 1.0
    ranks[: n // 4] = ranks[0]  # ties on the rank side too
    assert np.array_equal(average_ranks(stars), scipy.stats.rankdata(stars))
    expected = scipy.stats.spearmanr(-ranks, stars).statistic
    got = spearman_vs_stars(ranks, stars)
    if np.isnan(expected):
        assert got is None
    else:
        assert got == pytest.approx(expected, abs=1e-12)
