"""``classify_listed`` and category corrections on a real database file."""

from __future__ import annotations

import json

import pytest

from agentrank import classifier, importer
from agentrank.config import Config
from classify.examples import ClassifyError
from db.categories import load_category_corrections

REPOS = [
    (9001, "acme/patchwright", "Terminal coding agent that edits your repo and opens pull requests", ["coding-agent"]),
    (9002, "acme/awesome-agent-links", "A curated list of agent frameworks and papers", ["awesome-list"]),
    (9003, "acme/talkline", "Real-time voice agent framework with speech-to-text and TTS", ["voice-agent"]),
    (9004, "acme/hivemind", "Crew of role-playing agents that collaborate on research tasks", ["multi-agent"]),
    (9005, "acme/zzz", None, []),
]


def load(db, item_factory, tmp_path, repos=REPOS, config=None):
    items = [
        item_factory(id=i, full_name=name, name=name.split("/")[1], description=d, topics=t, seed=i)
        for i, name, d, t in repos
    ]
    path = tmp_path / f"items-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    importer.import_files(db, [path], min_stars=(config or Config()).crawl.min_stars)


def categories(db) -> dict[int, dict]:
    return {r["repo_id"]: r for r in db.query("select * from repo_categories")}


def test_every_listed_repo_gets_category_probability_runner_up_version_and_source(db, item_factory, tmp_path):
    load(db, item_factory, tmp_path)
    run_id = classifier.classify_listed(db, uncertain_below=Config().classify.uncertain_below).run_id
    rows = categories(db)
    assert set(rows) == {r[0] for r in REPOS}
    assert rows[9001]["category"] == "coding"
    assert rows[9002]["category"] == "resources"
    assert rows[9003]["category"] == "voice"
    for row in rows.values():
        assert row["source"] == "model" and row["run_id"] == run_id
        assert row["model_version"].startswith("clf") and row["input_hash"]
        assert row["runner_up"] and row["runner_up"] != row["category"]
        assert 0 < row["runner_up_probability"] <= row["probability"] <= 1
    run = db["runs"].get(run_id)
    assert (run["kind"], run["status"], run["items"], run["saved"]) == ("classify", "ok", 5, 5)


def test_low_probability_is_marked_uncertain(db, item_factory, tmp_path):
    load(db, item_factory, tmp_path)
    config = Config()
    classifier.classify_listed(db, uncertain_below=config.classify.uncertain_below)
    rows = categories(db)
    assert rows[9005]["uncertain"] == 1  # no description, no topics: the model cannot know
    assert rows[9002]["uncertain"] == 0
    assert all(r["uncertain"] == int(r["probability"] < config.classify.uncertain_below) for r in rows.values())
    config.classify.uncertain_below = 1.0
    classifier.classify_listed(db, uncertain_below=config.classify.uncertain_below)
    assert {r["uncertain"] for r in categories(db).values()} == {1}


def test_a_correction_wins_over_the_model_and_survives_reclassification(db, item_factory, tmp_path):
    load(db, item_factory, tmp_path)
    classifier.classify_listed(db, uncertain_below=Config().classify.uncertain_below)
    assert categories(db)[9001]["category"] == "coding"

    result = classifier.apply_category_corrections(
        db, {"ACME/patchwright": "evaluation", 9003: "other"}, reason="maintainer request"
    )
    assert (result.saved, result.applied, result.pending) == (2, 2, [])
    row = categories(db)[9001]
    assert (row["category"], row["source"], row["uncertain"]) == ("evaluation", "correction", 0)
    assert row["runner_up"] == "coding"  # the model's view stays visible

    for only_changed in (False, True, False):
        classifier.classify_listed(db, uncertain_below=Config().classify.uncertain_below, only_changed=only_changed)
        rows = categories(db)
        assert (rows[9001]["category"], rows[9001]["source"]) == ("evaluation", "correction")
        assert (rows[9003]["category"], rows[9003]["source"]) == ("other", "correction")
        assert rows[9002]["source"] == "model"


def test_a_correction_for_a_repo_not_yet_crawled_applies_when_it_arrives(db, item_factory, tmp_path):
    result = classifier.apply_category_corrections(db, {"acme/talkline": "chat"})
    assert result.pending == ["acme/talkline"] and result.applied == 0
    load(db, item_factory, tmp_path)
    classifier.classify_listed(db, uncertain_below=Config().classify.uncertain_below)
    assert (categories(db)[9003]["category"], categories(db)[9003]["source"]) == ("chat", "correction")
    assert load_category_corrections(db)[0]["repo_id"] == 9003


def test_a_correction_follows_a_rename(db, item_factory, tmp_path):
    load(db, item_factory, tmp_path)
    classifier.apply_category_corrections(db, {"acme/talkline": "chat"})
    renamed = [(9003, "newowner/talkline-v2", REPOS[2][2], REPOS[2][3])]
    load(db, item_factory, tmp_path, renamed)
    classifier.classify_listed(db, uncertain_below=Config().classify.uncertain_below)
    assert (categories(db)[9003]["category"], categories(db)[9003]["source"]) == ("chat", "correction")


def test_corrections_are_training_examples(db, item_factory, tmp_path):
    load(db, item_factory, tmp_path)
    first = classifier.classify_listed(db, uncertain_below=Config().classify.uncertain_below).run_id
    classifier.apply_category_corrections(db, {"acme/hivemind": "research"})
    second = classifier.classify_listed(db, uncertain_below=Config().classify.uncertain_below).run_id
    details = [json.loads(db["runs"].get(i)["details"]) for i in (first, second)]
    assert details[0]["model_version"] != details[1]["model_version"]
    assert (details[0]["training_examples"] + 1, details[1]["corrections"]) == (details[1]["training_examples"], 1)


def test_replacing_the_corrections_returns_dropped_repos_to_the_model(db, item_factory, tmp_path):
    load(db, item_factory, tmp_path)
    classifier.apply_category_corrections(db, {"acme/patchwright": "evaluation", "acme/talkline": "chat"})
    classifier.classify_listed(db, uncertain_below=Config().classify.uncertain_below)
    result = classifier.apply_category_corrections(db, {"acme/talkline": "chat"}, replace=True)
    assert result.removed == ["acme/patchwright"]
    classifier.classify_listed(db, uncertain_below=Config().classify.uncertain_below, only_changed=True)
    rows = categories(db)
    assert (rows[9001]["category"], rows[9001]["source"]) == ("coding", "model")
    assert (rows[9003]["category"], rows[9003]["source"]) == ("chat", "correction")


@pytest.mark.parametrize(
    ("corrections", "message"),
    [
        ({"acme/patchwright": "robots"}, "unknown category 'robots'"),
        ({"not a name": "coding"}, "is not an owner/repo name"),
        ({123456789: "coding"}, "no such repo"),
    ],
)
def test_bad_corrections_are_refused_and_nothing_is_stored(db, item_factory, tmp_path, corrections, message):
    load(db, item_factory, tmp_path)
    with pytest.raises(ClassifyError, match=message):
        classifier.apply_category_corrections(db, {"acme/talkline": "chat", **corrections})
    assert load_category_corrections(db) == []


def test_only_changed_redoes_new_and_edited_repos(db, item_factory, tmp_path):
    load(db, item_factory, tmp_path)
    classifier.classify_listed(db, uncertain_below=Config().classify.uncertain_below)
    before = categories(db)
    edited = [
        (9005, "acme/zzz", "Benchmark harness that scores LLM agents on web tasks", ["benchmark"]),
        (9006, "acme/newcomer", "Chatbot UI for your self-hosted models", ["chatbot"]),
    ]
    load(db, item_factory, tmp_path, edited)
    run_id = classifier.classify_listed(db, uncertain_below=Config().classify.uncertain_below, only_changed=True).run_id
    after = categories(db)
    assert {i for i, r in after.items() if r["run_id"] == run_id} == {9005, 9006}
    assert after[9005]["category"] == "evaluation" and after[9006]["category"] == "chat"
    assert after[9001] == before[9001]


def test_one_repo_under_its_old_and_new_names_is_a_duplicate(db, item_factory, tmp_path):
    from agentrank.corrections import CorrectionsError, parse_corrections, resolve_corrections

    load(db, item_factory, tmp_path)
    load(db, item_factory, tmp_path, [(9003, "newowner/talkline-v2", REPOS[2][2], REPOS[2][3])])
    text = (
        '[[category]]\nrepo = "acme/talkline"\ncategory = "other"\n\n'
        '[[category]]\nrepo = "newowner/talkline-v2"\ncategory = "coding"\n'
    )
    with pytest.raises(
        CorrectionsError,
        match=r"corrections.toml:5: duplicate \[\[category\]\] entry for "
        r"newowner/talkline-v2: the same repo as acme/talkline \(line 1\)",
    ):
        resolve_corrections(db, parse_corrections(text), None, "corrections.toml")
    # Two kinds for one repo are fine.
    text = '[[category]]\nrepo = "acme/talkline"\ncategory = "other"\n\n[[claim]]\nrepo = "newowner/talkline-v2"\nlogin = "octo"\n'
    assert len(resolve_corrections(db, parse_corrections(text), None, "corrections.toml")) == 2


def test_the_validation_block_publishes_the_cross_validated_accuracy_when_asked(
    db, db_path, item_factory, tmp_path, run_cli
):
    """`classifier_cv_accuracy` was always null: nothing wrote the figure it reads, and its note sent
    users to a command that records nothing. With `cross_validate = true` every classify run measures
    it; without, the note says how to turn it on."""
    load(db, item_factory, tmp_path)
    out = tmp_path / "site.json"
    run_cli("classify")
    run_cli("score", "--force")
    run_cli("export", "--out", str(out))
    assert json.loads(out.read_text(encoding="utf-8"))["validation"]["classifier_cv_accuracy"] is None
    notes = db.execute("select details from validation order by run_id desc limit 1").fetchone()[0]
    assert "cross_validate = true" in json.loads(notes)["classifier_cv_accuracy"]
    config = tmp_path / "agentrank.toml"
    config.write_text("[classify]\ncross_validate = true\n", encoding="utf-8")
    run_cli("--config", str(config), "classify")
    details = json.loads(db.execute("select details from runs where kind = 'classify' order by id desc").fetchone()[0])
    assert 0.7 < details["cv_accuracy"] < 1 and details["cv_folds"] == 5
    run_cli("--config", str(config), "score", "--force")
    run_cli("export", "--out", str(out))
    assert json.loads(out.read_text(encoding="utf-8"))["validation"]["classifier_cv_accuracy"] == details["cv_accuracy"]
    # Turned off again: the next run's model was not measured, so the figure is null, not an old one.
    run_cli("classify")
    run_cli("score", "--force")
    run_cli("export", "--out", str(out))
    assert json.loads(out.read_text(encoding="utf-8"))["validation"]["classifier_cv_accuracy"] is None


def _queue(db_path) -> list[str]:
    import asyncio

    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette

    datasette = build_datasette(db_path, ServeConfig(heap_limit_mb=0))
    response = asyncio.run(datasette.client.get("/agentrank/category_review.json?_shape=array"))
    assert response.status_code == 200, response.text[:300]
    return sorted(r["full_name"] for r in response.json())


def test_the_review_queue_shows_what_the_pages_show_until_the_next_published_run(
    db, db_path, item_factory, tmp_path, run_cli
):
    """The queue read the live classification while every list, maker's page and the export read the
    published run: after a correction or a stand-alone `classify` it disagreed with all of them."""
    load(db, item_factory, tmp_path)
    run_cli("classify")
    run_cli("score", "--force")

    def marked() -> list[str]:
        return sorted(r["full_name"] for r in db.query("select full_name from agents where category_uncertain = 1"))

    assert _queue(db_path) == marked() == ["acme/zzz"]
    classifier.apply_category_corrections(db, {"acme/zzz": "other"})
    assert _queue(db_path) == marked() == ["acme/zzz"], "still shown as uncertain everywhere until published"
    run_cli("score", "--force")
    assert _queue(db_path) == marked() == []


def test_a_repo_published_before_it_was_classified_says_so_everywhere(db, db_path, item_factory, tmp_path, run_cli):
    """Published by `import` then `score` (the README's pair), a repo had no category: the export
    called it uncertain, while the lists showed an empty cell, the maker's page no category line and
    no correction link, and the review queue left it out."""
    import asyncio

    from agentrank.config import ServeConfig
    from agentrank.serve import build_datasette

    load(db, item_factory, tmp_path)
    run_cli("score", "--force")
    out = tmp_path / "site.json"
    run_cli("export", "--out", str(out))
    exported = {a["full_name"]: a for a in json.loads(out.read_text(encoding="utf-8"))["agents"]}
    assert exported["acme/patchwright"]["category"] is None and exported["acme/patchwright"]["category_uncertain"]
    assert "acme/patchwright" in _queue(db_path)
    datasette = build_datasette(db_path, ServeConfig(heap_limit_mb=0))
    home = asyncio.run(datasette.client.get("/")).text
    assert "not classified yet" in home
    page = asyncio.run(datasette.client.get("/-/agent/acme/patchwright")).text
    assert "Category: not classified yet" in page and "Ask for a category" in page
    # Classified but not yet published: the pages keep showing what was published.
    run_cli("classify")
    page = asyncio.run(datasette.client.get("/-/agent/acme/patchwright")).text
    assert "Category: not classified yet" in page


def test_a_corrected_category_has_no_classifier_probability_in_the_export(db, item_factory, tmp_path, run_cli):
    """The schema says category_probability is null when the category did not come from the
    classifier; a correction was exported with probability 1.0."""
    load(db, item_factory, tmp_path)
    run_cli("classify")
    classifier.apply_category_corrections(db, {"acme/talkline": "other"})
    run_cli("score", "--force")
    out = tmp_path / "site.json"
    run_cli("export", "--out", str(out))
    exported = {a["full_name"]: a for a in json.loads(out.read_text(encoding="utf-8"))["agents"]}
    corrected = exported["acme/talkline"]
    assert (corrected["category"], corrected["category_source"], corrected["category_probability"]) == (
        "other",
        "correction",
        None,
    )
    assert 0 < exported["acme/patchwright"]["category_probability"] <= 1
