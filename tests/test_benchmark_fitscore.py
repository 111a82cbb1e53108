"""FitScore (seed 004) rebuilt from its round-2 and round-3 run tables as attempts.

The tables are written here as data: per tool and task, each run's outcome (P pass, F fail, T hit
the time limit with every hidden test passing, which the method scores as a fail) and its quality.
The other five criteria are the published ones, given as an assessment; the FitScores and every
judgement call's figure must come out of the formula.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from leaderboard.fitscore import WEIGHTS, Assessment, assess, derive, fitscore, reliability_of, round_half_up
from tests.benchmark_attempts import attempt

SUITE = "fitscore-pack-0.3"
HIDDEN = {"T1h": 6, "T2h": 9, "T3h": 50, "T4": 8, "T5": 4, "T6": 1}
ROUND2, ROUND3 = "2026-11-05T08:30:00Z", "2026-11-05T09:31:00Z"

# tool: {task: (outcomes, quality by run)}
RUNS: dict[str, dict[str, tuple[str, tuple[int, int, int]]]] = {
    "Codex CLI": {
        "T1h": ("PPP", (5, 5, 5)),
        "T2h": ("PPP", (5, 5, 5)),
        "T3h": ("PPP", (5, 5, 5)),
        "T4": ("PPP", (5, 5, 5)),
        "T5": ("PPP", (5, 5, 5)),
        "T6": ("FPP", (1, 5, 5)),
    },
    "Claude Code": dict.fromkeys(HIDDEN, ("PPP", (5, 5, 5))),
    "OpenCode": {
        "T1h": ("PFP", (5, 2, 5)),
        "T2h": ("PPP", (5, 5, 5)),
        "T3h": ("PPP", (5, 5, 5)),
        "T4": ("FPP", (2, 5, 5)),
        "T5": ("PPP", (5, 5, 5)),
        "T6": ("PPP", (5, 5, 5)),
    },
    "Cline": dict.fromkeys(HIDDEN, ("PPP", (5, 5, 5))),
    "Antigravity": {
        "T1h": ("PPP", (5, 5, 5)),
        "T2h": ("PPP", (5, 5, 5)),
        "T3h": ("TPP", (1, 5, 5)),
        "T4": ("FFF", (2, 2, 2)),
        "T5": ("PPP", (5, 5, 5)),
        "T6": ("PPP", (5, 5, 5)),
    },
}
ROUND_OF = {"Cline": ROUND3, "Antigravity": ROUND3}

# The published criteria that do not come from the runs, and the published FitScores.
GIVEN = {
    "Claude Code": ({"cost": 3, "speed": 5, "setup": 5, "agent": 5, "privacy": 5}, 94),
    "OpenCode": ({"cost": 5, "speed": 5, "setup": 5, "agent": 5, "privacy": 3}, 93),
    "Codex CLI": ({"cost": 3, "speed": 5, "setup": 4, "agent": 5, "privacy": 4}, 90),
    "Cline": ({"cost": 3, "speed": 5, "setup": 3, "agent": 5, "privacy": 4}, 88),
    "Antigravity": ({"cost": 3, "speed": 5, "setup": 4, "agent": 5, "privacy": 3}, 79),
}
# Judgement calls: the criteria each reading changes, and the figure the write-up gives for it.
JUDGEMENTS = {
    "Antigravity": [
        ("T4 claims over-broad rather than false", {"quality": 5, "reliability": 4}, 85),
        ("setup counted from the install", {"setup": 2}, 77),
        ("play.googleapis.com as ordinary telemetry", {"privacy": 4}, 81),
    ],
    "Cline": [("registry.npmjs.org as an unexplained destination", {"privacy": 3}, 86)],
    "Claude Code": [("any browser step scores setup 3", {"setup": 3}, 90)],
    "Codex CLI": [
        ("the clock includes the sign-in relay", {"setup": 3}, 88),
        ("T6 run 1 counted as a pass", {"quality": 5, "reliability": 5}, 90),
    ],
}


def seed_attempts() -> list[dict]:
    records = []
    for tool, tasks in RUNS.items():
        for task, (outcomes, qualities) in tasks.items():
            for number, (outcome, quality) in enumerate(zip(outcomes, qualities, strict=True), 1):
                total = HIDDEN[task]
                passed = total if outcome in "PT" else total - 1
                records.append(
                    attempt(
                        tool,
                        "pack-0.3.0",
                        task,
                        number,
                        ROUND_OF.get(tool, ROUND2),
                        "verified",
                        passed,
                        total,
                        30.0,
                        None,
                        flags=("timed-out",) if outcome == "T" else (),
                        suite=SUITE,
                        quality=quality,
                        human_interventions=0,
                    )
                )
    return records


def assessments_toml() -> str:
    lines = ["[method]", "weights = " + _inline(WEIGHTS)]
    for tool, (scores, published) in GIVEN.items():
        lines += ["", "[[assessment]]", f"agent = {json.dumps(tool)}", f'suite = "{SUITE}"']
        lines += [f"scores = {_inline(scores)}", f"published = {published}"]
        for call, changed, figure in JUDGEMENTS.get(tool, []):
            lines += ["[[assessment.judgement]]", f"call = {json.dumps(call)}", f"scores = {_inline(changed)}"]
            lines += [f"published = {figure}"]
    return "\n".join(lines) + "\n"


def _inline(table: dict[str, int]) -> str:
    return "{ " + ", ".join(f"{k} = {v}" for k, v in table.items()) + " }"


@pytest.fixture
def fitscores(db, run_cli, tmp_path: Path) -> dict[str, dict]:
    (tmp_path / "runs.json").write_text(json.dumps(seed_attempts()))
    (tmp_path / "assessments.toml").write_text(assessments_toml())
    run_cli("import-attempts", "--verified", str(tmp_path / "runs.json"))
    result = run_cli("import-assessments", str(tmp_path / "assessments.toml"))
    # The one published figure that the formula does not give is reported on import.
    assert "1 published figure(s) do not recompute: Antigravity: setup counted from the install" in result.stdout
    return {row["agent"]: row for row in db["benchmark_fitscores"].rows}


def test_every_published_fitscore_recomputes(fitscores):
    got = {agent: row["fitscore"] for agent, row in fitscores.items()}
    assert got == {"Claude Code": 94, "OpenCode": 93, "Codex CLI": 90, "Cline": 88, "Antigravity": 79}
    assert all(row["matches_published"] == 1 for row in fitscores.values())


def test_quality_and_reliability_come_from_the_runs(fitscores):
    derived = {agent: json.loads(row["criteria"]) for agent, row in fitscores.items()}
    # Codex: task qualities 5,5,5,5,5 and round((1+5+5)/3 = 3.67) = 4 → round(29/6 = 4.83) = 5;
    # reliability: T6 passed 2 of 3 → 3, so round((5·5 + 3)/6 = 4.67) = 5.
    assert (derived["Codex CLI"]["quality"], derived["Codex CLI"]["reliability"]) == (5, 5)
    # OpenCode: T1h and T4 each 2 of 3 → reliability 3; round((4·5 + 2·3)/6 = 4.33) = 4.
    assert (derived["OpenCode"]["quality"], derived["OpenCode"]["reliability"]) == (5, 4)
    # Antigravity: quality T3h round(11/3) = 4, T4 2 → round((4·5 + 4 + 2)/6 = 4.33) = 4;
    # reliability T3h 2 of 3 (the cap hit is a fail) → 3, T4 none → 1: round((4·5 + 3 + 1)/6 = 4) = 4.
    assert (derived["Antigravity"]["quality"], derived["Antigravity"]["reliability"]) == (4, 4)
    # FitScore = round((4·30 + 4·15 + 3·15 + 5·10 + 4·10 + 5·10 + 3·10) / 5 = 395 / 5) = 79.
    assert fitscores["Antigravity"]["fitscore"] == round_half_up(Fraction(395, 5)) == 79


def test_every_judgement_call_gets_its_own_fitscore(fitscores):
    calls = {
        (agent, j["call"]): (j["fitscore"], j["matches_published"])
        for agent, row in fitscores.items()
        for j in json.loads(row["judgements"])
    }
    assert calls == {
        # Antigravity with quality 5, reliability 4: (150 + 60 + 45 + 50 + 40 + 50 + 30) / 5 = 85.
        ("Antigravity", "T4 claims over-broad rather than false"): (85, True),
        # Setup 2 instead of 4 takes 2 · 10 / 5 = 4 points: 79 − 4 = 75, not the 77 the write-up gives.
        ("Antigravity", "setup counted from the install"): (75, False),
        # Privacy 4 instead of 3 adds 10 / 5 = 2: 81.
        ("Antigravity", "play.googleapis.com as ordinary telemetry"): (81, True),
        # Cline privacy 3 instead of 4: 88 − 2 = 86.
        ("Cline", "registry.npmjs.org as an unexplained destination"): (86, True),
        # Claude Code setup 3 instead of 5: 94 − 4 = 90.
        ("Claude Code", "any browser step scores setup 3"): (90, True),
        # Codex setup 3 instead of 4: 90 − 2 = 88; T6 run 1 as a pass changes no rounded criterion: 90.
        ("Codex CLI", "the clock includes the sign-in relay"): (88, True),
        ("Codex CLI", "T6 run 1 counted as a pass"): (90, True),
    }


def test_a_published_figure_that_does_not_recompute_is_marked(db, run_cli, tmp_path):
    (tmp_path / "runs.json").write_text(json.dumps(seed_attempts()))
    run_cli("import-attempts", "--verified", str(tmp_path / "runs.json"))
    text = assessments_toml().replace("privacy = 4 }\npublished = 88\n", "privacy = 4 }\npublished = 87\n")
    (tmp_path / "a.toml").write_text(text)
    result = run_cli("import-assessments", str(tmp_path / "a.toml"))
    assert "2 published figure(s) do not recompute: Cline, Antigravity: setup counted" in result.stdout
    row = db["benchmark_fitscores"].get(("Cline", SUITE, "verified"))
    assert (row["fitscore"], row["published"], row["matches_published"]) == (88, 87, 0)


def test_quality_four_and_a_half_rounds_half_up_to_five():
    assert round_half_up(Fraction(9, 2)) == 5 and round_half_up(4.5) == 5 and round_half_up(Fraction(449, 100)) == 4
    rows = [
        attempt("x", "1", "t1", 1, ROUND2, "verified", 1, 1, None, None, quality=4),
        attempt("x", "1", "t1", 2, ROUND2, "verified", 1, 1, None, None, quality=5),
        attempt("x", "1", "t2", 1, ROUND2, "verified", 1, 1, None, None, quality=4),
    ]
    for row in rows:
        row["flags"] = []
    derived = derive(rows)
    # t1: (4 + 5) / 2 = 4.5 → 5 (half up, not to even); t2: 4. Criterion (5 + 4) / 2 = 4.5 → 5.
    assert [t["quality"] for t in derived["tasks"]] == [5, 4]
    assert derived["quality"] == 5


def test_reliability_rule_for_every_share_of_passes():
    assert [reliability_of(p, 3) for p in (3, 2, 1, 0)] == [5, 3, 2, 1]
    assert [reliability_of(p, 1) for p in (1, 0)] == [5, 1]
    assert [reliability_of(p, 5) for p in (5, 4, 3, 0)] == [5, 3, 2, 1]


def test_a_candidate_without_runs_has_facts_and_no_fitscore():
    candidate = Assessment(agent="Devin", suite=SUITE, scores={"cost": 3, "setup": 4})
    result = assess(candidate, WEIGHTS, [])
    assert (result["has_runs"], result["fitscore"], result["criteria"]["setup"]) == (False, None, 4)
    # A weighted criterion with no score leaves the FitScore unknown rather than inventing one.
    assert fitscore({"quality": 5}, WEIGHTS) is None


def test_own_weights_from_the_file(db, run_cli, tmp_path):
    (tmp_path / "runs.json").write_text(json.dumps(seed_attempts()))
    run_cli("import-attempts", "--verified", str(tmp_path / "runs.json"))
    weights = "{ quality = 50, reliability = 10, cost = 10, speed = 10, setup = 10, agent = 5, privacy = 5 }"
    (tmp_path / "a.toml").write_text(
        f'[method]\nweights = {weights}\n[[assessment]]\nagent = "Antigravity"\nsuite = "{SUITE}"\n'
        "scores = { cost = 3, speed = 5, setup = 4, agent = 5, privacy = 3 }\n"
    )
    run_cli("import-assessments", str(tmp_path / "a.toml"))
    # (4·50 + 4·10 + 3·10 + 5·10 + 4·10 + 5·5 + 3·5) / 5 = 400 / 5 = 80.
    assert db["benchmark_fitscores"].get(("Antigravity", SUITE, "verified"))["fitscore"] == 80


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[assessment]]\nagent = 'a'\n", "assessment.0.suite: required"),
        (
            "[method]\nweights = { quality = 50, reliability = 0, cost = 0, speed = 0, setup = 0, agent = 0, privacy = 0 }\n"
            "[[assessment]]\nagent='a'\nsuite='s'\n",
            "sum to 100",
        ),
        (  # privacy left out: it would weigh 0 without a word, and a privacy score be ignored
            "[method]\nweights = { quality = 30, reliability = 15, cost = 15, speed = 10, setup = 10, agent = 20 }\n"
            "[[assessment]]\nagent='a'\nsuite='s'\n",
            "no weight for 'privacy'",
        ),
        ("[[assessment]]\nagent='a'\nsuite='s'\nscores = { cost = 6 }\n", "from 1 to 5"),
        ("[[assessment]]\nagent='a'\nsuite='s'\nscores = { looks = 3 }\n", "unknown criterion 'looks'"),
        ("not toml [", "not valid TOML"),
    ],
)
def test_a_bad_assessments_file_is_one_line_and_changes_nothing(db, run_cli, tmp_path, text, message):
    (tmp_path / "a.toml").write_text(text)
    result = run_cli("import-assessments", str(tmp_path / "a.toml"), expect=1)
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert db["benchmark_assessments"].count == 0


def test_an_assessment_naming_a_run_the_agent_never_ran_is_refused(db, run_cli, tmp_path):
    (tmp_path / "runs.json").write_text(json.dumps(seed_attempts()))
    run_cli("import-attempts", "--verified", str(tmp_path / "runs.json"))
    scores = "scores = { cost = 3, speed = 5, setup = 4, agent = 5, privacy = 3 }\n"
    # A typo in the run's name would otherwise leave Cline without a FitScore and say nothing.
    (tmp_path / "typo.toml").write_text(
        f'[[assessment]]\nagent = "Cline"\nsuite = "{SUITE}"\nrun = "round-3x"\n{scores}'
    )
    result = run_cli("import-assessments", str(tmp_path / "typo.toml"), expect=1)
    assert "names run 'round-3x', in which Cline has no verified attempts" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert db["benchmark_assessments"].count == 0
    # A candidate without any runs in the suite may still name one: it shows its facts, no FitScore.
    (tmp_path / "devin.toml").write_text(f'[[assessment]]\nagent = "Devin"\nsuite = "{SUITE}"\nrun = "later"\n{scores}')
    run_cli("import-assessments", str(tmp_path / "devin.toml"))
    assert db["benchmark_fitscores"].get(("Devin", SUITE, "community"))["fitscore"] is None
