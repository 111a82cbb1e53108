"""``agentrank classify``: classifying a database, and the evaluation reports."""

from __future__ import annotations

import csv
import json
import re
import warnings

import pytest

from agentrank import importer
from agentrank.config import Config

LABELLED = [
    ("someone/awesome-llm-agents", "A curated list of papers and projects on LLM agents", "awesome-list", "resources"),
    ("someone/pr-fixer", "Coding agent that fixes failing tests and opens pull requests", "coding-agent", "coding"),
    ("someone/callbot", "Phone-calling voice agent with speech-to-text and text-to-speech", "", "voice"),
    ("someone/sqlmate", "Ask your database questions in plain English; it writes the SQL", "", "data"),
    ("someone/recallstack", "Long-term memory layer for AI agents", "memory", "memory"),
    ("someone/agent-arena", "Benchmark that scores LLM agents on web tasks", "benchmark", "evaluation"),
]


def write_csv(path, rows, header=("full_name", "description", "topics", "category")):
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_evaluate_prints_accuracy_macro_f1_per_category_and_confusion_matrix(run_cli, tmp_path, db_path):
    path = write_csv(tmp_path / "labelled.csv", LABELLED)
    out = run_cli("classify", "--evaluate", str(path)).output
    assert "6 labelled repos" in out
    assert "accuracy  1.000" in out and "macro-F1  1.000" in out
    assert "category        precision  recall     f1 labelled predicted" in out
    resources_row = next(line for line in out.splitlines() if line.startswith("resources "))
    assert resources_row.split() == ["resources", "1.000", "1.000", "1.000", "1", "1"]
    assert "confusion matrix (rows: labelled, columns: predicted)" in out
    matrix_header = out.split("confusion matrix (rows: labelled, columns: predicted)\n")[1].splitlines()[0]
    assert matrix_header.split() == ["codin", "data", "voice", "memor", "evalu", "resou"]
    assert "lenient   1.000" in out
    # The calibration table: every prediction falls in one probability bucket, and the uncertain and
    # certain predictions are counted apart with their share right.
    table = out.split("calibration (predicted probability → share right)\n")[1].splitlines()
    buckets = [line.split() for line in table[1:7]]
    assert [b[0] for b in buckets] == ["0.00–0.30", "0.30–0.45", "0.45–0.60", "0.60–0.80", "0.80–0.95", "0.95–1.00"]
    assert sum(int(b[1]) for b in buckets) == 6
    assert all(b[2] in ("-", "1.000") for b in buckets)
    uncertain, certain = table[7], table[8]
    assert uncertain.startswith("uncertain (< 0.55)") and certain.startswith("certain (≥ 0.55)")
    assert int(uncertain.split()[3]) + int(certain.split()[3]) == 6
    assert not db_path.exists()  # evaluating needs no database


def test_evaluating_a_file_where_one_category_occurs_is_quiet(run_cli, tmp_path):
    # One labelled repo (or a "seen in training" part of one category): the report, and no library
    # warning about the confusion matrix's shape on the terminal.
    path = write_csv(tmp_path / "one.csv", [LABELLED[4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = run_cli("classify", "--evaluate", str(path)).output
    assert "1 labelled repos" in out and "macro-F1  1.000" in out
    matrix = out.split("confusion matrix (rows: labelled, columns: predicted)\n")[1].splitlines()
    assert matrix[0].split() == ["memor"] and matrix[1].split() == ["memory", "1"]


def test_evaluate_counts_the_runner_up_as_lenient_and_reports_repos_seen_in_training_apart(run_cli, tmp_path):
    # A repo labelled with a category the model ranks second is wrong but leniently right; a repo
    # of the bundled training set is reported apart from the unseen ones.
    rows = [
        ("someone/recallstack", "Long-term memory layer for AI agents", "memory", "infrastructure"),
        ("someone/pr-fixer", "Coding agent that fixes failing tests and opens pull requests", "", "coding"),
        ("OSU-NLP-Group/HippoRAG", "Memory for language models", "", "memory"),
    ]
    out = run_cli("classify", "--evaluate", str(write_csv(tmp_path / "l.csv", rows))).output
    accuracy, lenient = (float(line.split()[1]) for line in out.splitlines()[1:3])
    assert accuracy == pytest.approx(2 / 3, abs=0.001)
    assert lenient >= accuracy
    assert "also in the training set (same name or near-duplicate wording): 1 repos; on the other 2:" in out


def test_held_out_examples_are_scored_and_never_trained_on(run_cli):
    from classify.examples import load_held_out_examples, load_training_examples

    training = {e.full_name.lower() for e in load_training_examples()}
    held_out = load_held_out_examples()
    assert held_out and not any(e.full_name.lower() in training for e in held_out)
    out = run_cli("classify", "--held-out").output
    assert f"held-out examples (holdout.csv): {len(held_out)} labelled repos" in out
    accuracy = float(next(line for line in out.splitlines() if line.startswith("accuracy")).split()[1])
    assert accuracy >= 0.7
    assert "calibration (predicted probability → share right)" in out


def test_evaluate_counts_mistakes_and_works_without_a_topics_column(run_cli, tmp_path):
    rows = [(n, d, "other" if n.endswith("sqlmate") else c) for n, d, _, c in LABELLED]
    path = write_csv(tmp_path / "no-topics.csv", rows, header=("full_name", "description", "category"))
    out = run_cli("classify", "--evaluate", str(path)).output
    assert "accuracy  0.833" in out
    other_row = next(line for line in out.splitlines() if line.startswith("other "))
    assert other_row.split() == ["other", "0.000", "0.000", "0.000", "1", "0"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("full_name,description\na/b,x\n", "missing column(s) category"),
        ("full_name,description,category\na/b,x,robots\n", "line 2: unknown category 'robots'"),
        ("full_name,description,category\n", "no labelled rows"),
        # a short row was "unknown category ''"
        (
            "full_name,description,category\na/b,x\n",
            "line 2: no category for a/b (the row has fewer fields than the header's 3)",
        ),
        ("full_name,description,category\na/b,x,\n", "line 2: no category for a/b"),
        # one repo, two labels: which is right is unknowable
        ("full_name,description,category\na/b,x,coding\nA/b,x,data\n", "line 3: A/b is labelled again, differently"),
    ],
)
def test_a_bad_evaluation_file_is_one_clear_line(run_cli, tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    result = run_cli("classify", "--evaluate", str(path), expect=1)
    assert message in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        # A CLI audit's finds: each ended in a traceback (or, for the key twice, was read in part).
        ("deep.json", "[" * 100_000 + "]" * 100_000, "not valid JSON: nested too deeply"),
        ("twice.json", '[{"full_name": "a/b", "description": "x", "description": "y"}]', "the key 'description' twice"),
        ("header.csv", "full_name,description," + "x" * 200_000 + "\na/b,c,d\n", "line 1: not valid CSV"),
    ],
)
def test_a_bad_survey_or_texts_file_is_one_clear_line(run_cli, tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    for args in (["--survey", str(path)], ["--evaluate", str(path)]):
        if name.endswith(".json") and args[0] == "--evaluate":
            labels = tmp_path / "labels.csv"
            labels.write_text("full_name,category\na/b,coding\n", encoding="utf-8")
            args = ["--evaluate", str(labels), "--repos", str(path)]
        result = run_cli("classify", *args, expect=1)
        assert message in result.output, (args, result.output[:300])
        assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_topics_nested_past_what_json_can_walk_are_read_as_text(run_cli, tmp_path):
    path = tmp_path / "nested.csv"
    path.write_text(
        'full_name,description,topics\na/agent,"An AI coding agent","' + "[" * 50_000 + '"\n', encoding="utf-8"
    )
    out = run_cli("classify", "--survey", str(path)).output
    assert "1 repos (unlabelled)" in out


def test_a_repo_labelled_twice_alike_is_counted_once(run_cli, tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text(
        "full_name,description,category\na/tutor,An AI tutor for maths students,other\n"
        "a/tutor,An AI tutor for maths students,other\n",
        encoding="utf-8",
    )
    assert "1 labelled repos" in run_cli("classify", "--evaluate", str(path)).output


def test_labels_written_as_people_write_them_are_the_categories_they_name(run_cli, tmp_path):
    """A labels file that wrote "Framework", "Coding agent" or "multi agent" was refused whole: one
    line listing the ids. A label in any case, with spaces for hyphens, or the category's display
    name is that category; a repo labelled twice in two spellings of one category is one repo."""
    path = tmp_path / "spelled.csv"
    path.write_text(
        "full_name,description,category,second_category\n"
        "a/pr-fixer,Coding agent that fixes failing tests and opens pull requests,Coding agent,\n"
        "a/recall,Long-term memory layer for AI agents,MEMORY,Infrastructure\n"
        "a/crew,A team of role-playing AI agents that plan and debate together,multi agent,\n"
        "a/crew,A team of role-playing AI agents that plan and debate together,Multi-Agent,\n",
        encoding="utf-8",
    )
    out = run_cli("classify", "--evaluate", str(path)).output
    assert "3 labelled repos" in out, out
    matrix = out.split("confusion matrix (rows: labelled, columns: predicted)\n")[1].splitlines()
    labelled_rows = {line.split()[0] for line in matrix[1:] if line.strip()}
    assert {"coding", "memory", "multi-agent"} <= labelled_rows, out


def test_a_missing_evaluation_file_is_one_clear_line(run_cli, tmp_path):
    result = run_cli("classify", "--evaluate", str(tmp_path / "nope.csv"), expect=1)
    assert "file not found" in result.output


def test_cross_validation_reports_its_figures_and_measures_a_model_once(run_cli, tmp_path, monkeypatch):
    """Cross-validation trains a model per fold; `cross_validate = true` did it again on every classify
    run although the same model gives the same figures. They are kept in the model cache."""
    from classify.cache import ENV
    from classify.evaluate import READ_BACK

    monkeypatch.setenv(ENV, str(tmp_path / "model-cache"))
    out = run_cli("classify", "--cross-validate", "--folds", "2").output
    assert "cross-validation on the bundled training set" in out
    assert "2-fold stratified cross-validation" in out
    accuracy = float(next(line for line in out.splitlines() if line.startswith("accuracy")).split()[1])
    assert accuracy > 0.6
    assert "held-out repos without their topics: accuracy" in out
    assert READ_BACK not in out
    again = run_cli("classify", "--cross-validate", "--folds", "2").output
    assert READ_BACK in again and again.replace(READ_BACK + "\n", "") == out


def test_classify_command_summarises_the_run(run_cli, db, item_factory, tmp_path):
    items = [
        item_factory(
            id=77,
            full_name="acme/awesome-agents",
            name="awesome-agents",
            description="A curated list of agents",
            topics=["awesome"],
            seed=3,
        )
    ]
    path = tmp_path / "items.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    importer.import_files(db, [path], min_stars=Config().crawl.min_stars)
    out = run_cli("classify").output
    assert "1 of 1 listed repos classified" in out
    assert "categories: resources 1" in out
    out = run_cli("classify", "--only-changed").output
    assert "0 of 1 listed repos classified" in out


def test_evaluate_counts_a_recorded_second_choice_and_takes_descriptions_from_a_repos_file(run_cli, tmp_path):
    # Labels without descriptions (as a hand-labelled sample is kept), descriptions and topics from
    # a saved crawl; a prediction that is the labeller's recorded second choice is leniently right.
    labels = tmp_path / "labels.csv"
    write_csv(
        labels,
        [
            ("someone/pr-fixer", "coding", ""),
            ("someone/awesome-llm-agents", "resources", ""),
            ("someone/callbot", "other", "voice"),
        ],
        header=("full_name", "category", "second_category"),
    )
    items = tmp_path / "items.json"
    items.write_text(
        json.dumps(
            [
                {"full_name": n, "description": d, "topics": t.split()}
                for n, d, t, _ in LABELLED
                if n.endswith(("pr-fixer", "awesome-llm-agents", "callbot"))
            ]
        ),
        encoding="utf-8",
    )
    out = run_cli("classify", "--evaluate", str(labels), "--repos", str(items)).output
    assert "3 labelled repos" in out
    assert "accuracy  0.667" in out
    assert "lenient   1.000  (the label or its recorded second choice)" in out
    assert "share uncertain" in out and "leniently" in out


def test_evaluate_names_the_labelled_repos_a_repos_file_lacks(run_cli, tmp_path):
    """A labelled repo renamed or deleted on GitHub since it was labelled is missing from the texts:
    the whole file was refused for it. The others are evaluated, and the report names it first; a
    file none of whose repos has a text is still refused in one line."""
    repos = write_csv(
        tmp_path / "repos.csv",
        [("someone/pr-fixer", "Coding agent that fixes failing tests and opens pull requests")],
        header=("full_name", "description"),
    )
    labels = write_csv(
        tmp_path / "labels.csv",
        [("someone/pr-fixer", "coding"), ("someone/unknown", "coding")],
        header=("full_name", "category"),
    )
    out = run_cli("classify", "--evaluate", str(labels), "--repos", str(repos)).output
    first, second = out.splitlines()[:2]
    assert first == f"left out: 1 labelled repo(s) without a description in {repos}: someone/unknown", out
    assert "1 labelled repos" in second, out
    labels = write_csv(tmp_path / "labels.csv", [("someone/unknown", "coding")], header=("full_name", "category"))
    result = run_cli("classify", "--evaluate", str(labels), "--repos", str(repos), expect=1)
    assert "1 repo(s) without a description in the --repos file, e.g. someone/unknown" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_survey_reports_the_category_mix_and_share_uncertain_of_an_unlabelled_crawl(run_cli, tmp_path, db_path):
    items = tmp_path / "crawl.json"
    items.write_text(
        json.dumps([{"full_name": n, "description": d, "topics": t.split()} for n, d, t, _ in LABELLED]),
        encoding="utf-8",
    )
    out = run_cli("classify", "--survey", str(items)).output
    assert f"survey of {items}: 6 repos (unlabelled)" in out
    assert "share uncertain (< 0.55)" in out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split() == ["category", "repos", "share", "uncertain"])
    mix = lines[header + 1 : lines.index("", header)]
    assert sum(int(line.split()[1]) for line in mix) == 6
    assert any(line.split()[0] == "resources" for line in mix)
    assert not db_path.exists()


def test_survey_of_one_source_of_a_csv_counts_each_of_its_repos_once(run_cli, tmp_path, db_path):
    rows = write_csv(
        tmp_path / "real.csv",
        [
            ("a/one", "An autonomous coding agent for your terminal", "lists:2026-08-15"),
            ("a/one", "An autonomous coding agent for your terminal", "lists:2026-08-22"),
            ("b/two", "A curated list of agent frameworks", "lists:2026-08-22"),
            ("c/three", "A gradient boosting library", "ml:2025-06-26"),
        ],
        header=("full_name", "description", "source"),
    )
    out = run_cli("classify", "--survey", str(rows), "--source", "lists:").output
    assert f"survey of {rows} (source lists:…): 2 repos (unlabelled)" in out
    everything = run_cli("classify", "--survey", str(rows)).output
    assert f"survey of {rows}: 3 repos (unlabelled)" in everything
    # A source no row has, or --source without --survey: one clear line, nothing written.
    refused = run_cli("classify", "--survey", str(rows), "--source", "nope:", expect=1)
    assert refused.output.strip().splitlines()[-1] == f"Error: {rows}: no rows whose source starts with 'nope:'"
    assert "Error: --source goes with --survey" in run_cli("classify", "--source", "lists:", expect=2).output
    assert "Error: --folds goes with --cross-validate" in run_cli("classify", "--folds", "3", expect=2).output
    # --only-changed was silently ignored beside a mode that reads no database.
    ignored = run_cli("classify", "--only-changed", "--survey", str(rows), expect=2).output
    assert "Error: --only-changed is for classifying the database" in ignored
    assert not db_path.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real.csv"]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--evaluate", "labels.csv", "--survey", "items.json"), "--evaluate and --survey"),
        (("--held-out", "--evaluate", "labels.csv"), "--evaluate and --held-out"),
        (("--held-out", "--cross-validate"), "--held-out and --cross-validate"),
    ],
)
def test_two_reports_at_once_are_refused_in_one_line(run_cli, tmp_path, db_path, args, named):
    # `--evaluate F --survey G` ran the evaluation alone, and said nothing of the survey.
    (tmp_path / "labels.csv").write_text("full_name,description,category\na/b,an agent,coding\n", encoding="utf-8")
    (tmp_path / "items.json").write_text("[]", encoding="utf-8")
    result = run_cli("classify", *[str(tmp_path / a) if a.endswith((".csv", ".json")) else a for a in args], expect=2)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"Error: {named} are two reports" in lines[0], lines
    assert not db_path.exists()


def test_an_empty_file_name_is_refused_not_read_as_no_option(run_cli, tmp_path, db_path):
    """`classify --evaluate "$FILE"` with FILE unset classified the database (a write) where a
    read-only report was asked for."""
    for args in (["--evaluate", ""], ["--survey", ""]):
        result = run_cli("classify", *args, expect=2)
        assert "needs a file name (it was empty)" in result.output, result.output
    assert not db_path.exists()


def test_survey_by_source_reads_the_text_that_source_saw(run_cli, tmp_path):
    path = tmp_path / "two.csv"
    path.write_text(
        "full_name,description,topics,source\n"
        "acme/x,A curated awesome list of links,awesome-list,list-a\n"
        "acme/x,An AI coding agent that fixes bugs in your terminal,coding-agent,list-b\n",
        encoding="utf-8",
    )
    out = run_cli("classify", "--survey", str(path), "--source", "list-b").output
    assert re.search(r"^coding\s+1\s", out, re.M), out


def test_repos_fill_blank_descriptions_and_a_column_named_twice_is_refused(run_cli, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("full_name,description,category\nacme/x,,coding\n", encoding="utf-8")
    texts = tmp_path / "texts.csv"
    texts.write_text("full_name,description,topics\nacme/x,An AI coding agent for the terminal,coding-agent\n")
    out = run_cli("classify", "--evaluate", str(labels), "--repos", str(texts)).output
    assert "accuracy  1.000" in out, out  # the blank description was not classified as empty text
    twice = tmp_path / "twice.csv"
    twice.write_text("full_name,description,category,category\nacme/x,An agent,coding,data\n", encoding="utf-8")
    result = run_cli("classify", "--evaluate", str(twice), expect=1)
    assert "line 1: the column 'category' is named twice" in result.output
