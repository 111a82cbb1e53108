"""Honest figures for the classifier: a labelled file as validation, and k-fold cross-validation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support
from sklearn.model_selection import StratifiedKFold

from classify import cache
from classify.categories import CATEGORY_IDS
from classify.examples import (
    HELD_OUT_FILE,
    ClassifyError,
    Example,
    RepoTexts,
    load_held_out_examples,
    load_training_examples,
    read_labelled_csv,
    read_repo_texts,
)
from classify.model import CategoryModel, Settings, model_version, train, trained
from classify.text import RepoText, tokens

CV_SEED = 20261130
CV_FOLDS = 5  # the folds of every published cross-validated figure (and `--folds`'s default)
READ_BACK = "read back from the model cache: measured earlier for this very model version"


@dataclass
class Evaluation:
    """Labelled versus predicted categories for a set of repos, and the figures derived from them."""

    full_names: list[str]
    labels: list[str]
    predicted: list[str]
    probabilities: list[float]
    runner_ups: list[str | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # The labeller's recorded second choices (None where there is none); empty when the file has none.
    seconds: list[str | None] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return float(accuracy_score(self.labels, self.predicted))

    @property
    def recorded_seconds(self) -> bool:
        return any(s is not None for s in self.seconds)

    def lenient_hits(self) -> list[bool]:
        """Per repo: right, or leniently right. With recorded second choices: the prediction is the
        label or the labeller's second choice. Without: the label is the model's runner-up."""
        if self.recorded_seconds:
            return [p in (lab, s) for lab, p, s in zip(self.labels, self.predicted, self.seconds, strict=True)]
        runner_ups = self.runner_ups or [None] * len(self.labels)
        return [lab in (p, r) for lab, p, r in zip(self.labels, self.predicted, runner_ups, strict=True)]

    @property
    def lenient_accuracy(self) -> float:
        """Right, or a defensible second choice (see :meth:`lenient_hits`)."""
        hits = self.lenient_hits()
        return sum(hits) / len(hits) if hits else 0.0

    @property
    def macro_f1(self) -> float:
        """Mean F1 over the categories that occur as labels or predictions."""
        return float(f1_score(self.labels, self.predicted, average="macro", zero_division=0))

    def categories(self) -> list[str]:
        present = set(self.labels) | set(self.predicted)
        return [c for c in CATEGORY_IDS if c in present]

    def subset(self, keep: Sequence[bool]) -> Evaluation:
        pick = lambda values: [v for v, k in zip(values, keep, strict=False) if k]  # noqa: E731
        return Evaluation(
            pick(self.full_names),
            pick(self.labels),
            pick(self.predicted),
            pick(self.probabilities),
            pick(self.runner_ups),
            seconds=pick(self.seconds),
        )


def evaluate(model: CategoryModel, examples: Sequence[Example]) -> Evaluation:
    predictions = model.predict([e.repo for e in examples], reasons=False)
    return Evaluation(
        [e.full_name for e in examples],
        [e.category for e in examples],
        [p.category for p in predictions],
        [p.probability for p in predictions],
        [p.runner_up for p in predictions],
        seconds=[e.second for e in examples] if any(e.second for e in examples) else [],
    )


def cross_validate(
    examples: Sequence[Example],
    folds: int = CV_FOLDS,
    settings: Settings | None = None,
    *,
    without_topics: bool = False,
) -> Evaluation:
    """Stratified k-fold with a fixed seed: every example is predicted once by a model that never saw it.

    ``without_topics`` scores the held-out repos with their topics removed (as list blurbs come).
    The result is kept in the model cache under the model's version (which covers the examples,
    the settings and the code), the folds, the seed and the variant: the same inputs give the same
    figures, so a weekly run with ``cross_validate = true`` and an unchanged model reads them back
    instead of training ``folds`` more models.
    """
    labels = [e.category for e in examples]
    smallest = min(labels.count(c) for c in set(labels))
    if folds > smallest:
        folds = max(2, smallest)
    key = f"{model_version(examples, settings or Settings())}-cv{folds}-seed{CV_SEED}" + (
        "-without-topics" if without_topics else ""
    )
    if (kept := cache.load(key, Evaluation)) is not None:
        return replace(kept, notes=[*kept.notes, READ_BACK])
    evaluation = _k_fold(examples, labels, folds, settings, without_topics)
    cache.save(key, evaluation)
    return evaluation


def _k_fold(
    examples: Sequence[Example], labels: list[str], folds: int, settings: Settings | None, without_topics: bool
) -> Evaluation:
    predicted: list[str] = [""] * len(examples)
    probabilities = [0.0] * len(examples)
    runner_ups: list[str | None] = [None] * len(examples)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=CV_SEED)
    for train_index, test_index in splitter.split(np.zeros(len(labels)), labels):
        model = train([examples[i] for i in train_index], settings)
        held_out = [examples[i].repo for i in test_index]
        if without_topics:
            held_out = [RepoText(r.name, r.description, ()) for r in held_out]
        for i, p in zip(test_index, model.predict(held_out, reasons=False), strict=False):
            predicted[i], probabilities[i], runner_ups[i] = p.category, p.probability, p.runner_up
    return Evaluation(
        [e.full_name for e in examples],
        labels,
        predicted,
        probabilities,
        runner_ups,
        notes=[f"{folds}-fold stratified cross-validation, seed {CV_SEED}"],
    )


def _short(category: str) -> str:
    return category[:5]


def format_evaluation(evaluation: Evaluation, title: str, *, uncertain_below: float) -> str:
    """Accuracy, macro-F1, per-category precision/recall/F1, the confusion matrix and the uncertain share."""
    ev = evaluation
    how = "the label or its recorded second choice" if ev.recorded_seconds else "right, or the label is the runner-up"
    lines = [
        title,
        *ev.notes,
        f"accuracy  {ev.accuracy:.3f}",
        f"lenient   {ev.lenient_accuracy:.3f}  ({how})",
        f"macro-F1  {ev.macro_f1:.3f}",
        "",
    ]
    cats = ev.categories()
    precision, recall, f1, support = precision_recall_fscore_support(
        ev.labels, ev.predicted, labels=cats, zero_division=0
    )
    lines.append(f"{'category':<15} {'precision':>9} {'recall':>7} {'f1':>6} {'labelled':>8} {'predicted':>9}")
    for i, c in enumerate(cats):
        lines.append(
            f"{c:<15} {precision[i]:>9.3f} {recall[i]:>7.3f} {f1[i]:>6.3f} {int(support[i]):>8} "
            f"{ev.predicted.count(c):>9}"
        )
    # (counted here: scikit-learn's confusion_matrix warns when a single category occurs)
    index = {c: i for i, c in enumerate(cats)}
    matrix = [[0] * len(cats) for _ in cats]
    for label, predicted in zip(ev.labels, ev.predicted, strict=True):
        matrix[index[label]][index[predicted]] += 1
    lines += ["", "confusion matrix (rows: labelled, columns: predicted)"]
    lines.append(f"{'':<15}" + "".join(f"{_short(c):>6}" for c in cats))
    for c, row in zip(cats, matrix, strict=False):
        lines.append(f"{c:<15}" + "".join(f"{n:>6}" for n in row))
    lines += ["", *calibration_lines(ev, uncertain_below=uncertain_below)]
    return "\n".join(lines)


CALIBRATION_EDGES = (0.0, 0.3, 0.45, 0.6, 0.8, 0.95, 1.0)


def calibration_lines(evaluation: Evaluation, *, uncertain_below: float) -> list[str]:
    """The calibration table: per probability bucket, how many predictions and the share right;
    then the uncertain (below the threshold) and certain predictions."""
    probs = np.asarray(evaluation.probabilities, dtype=float)
    correct = np.asarray(evaluation.labels) == np.asarray(evaluation.predicted)
    lenient = np.asarray(evaluation.lenient_hits(), dtype=bool)
    lines = ["calibration (predicted probability → share right)", f"{'probability':<13} {'repos':>6} {'right':>6}"]
    edges = CALIBRATION_EDGES
    for low, high in zip(edges, edges[1:], strict=False):
        inside = (probs >= low) & ((probs < high) if high < 1 else (probs <= high))
        share = f"{correct[inside].mean():.3f}" if inside.any() else "-"
        lines.append(f"{f'{low:.2f}–{high:.2f}':<13} {int(inside.sum()):>6} {share:>6}")
    unsure = probs < uncertain_below
    for label, keep in ((f"uncertain (< {uncertain_below:g})", unsure), (f"certain (≥ {uncertain_below:g})", ~unsure)):
        share = f"{correct[keep].mean():.3f}" if keep.any() else "-"
        loose = f"{lenient[keep].mean():.3f}" if keep.any() else "-"
        lines.append(f"{label:<22} {int(keep.sum()):>5} of {len(probs)}, right {share}, leniently {loose}")
    share = f"{unsure.mean():.3f}" if len(probs) else "-"
    lines.append(f"share uncertain        {share}")
    return lines


NEAR_DUPLICATE = 0.5  # word-set overlap (Jaccard) from which two descriptions count as the same wording


def _wording(text: str) -> frozenset[str]:
    return frozenset(tokens(text))


def seen_in_training(examples: Sequence[Example], training: Sequence[Example]) -> list[bool]:
    """Per example: is its repo in the training set (same full_name), or its description worded
    nearly like a training description (at least half the words in common)?"""
    names = {e.full_name.lower() for e in training}
    worded = [w for w in (_wording(e.repo.description) for e in training) if w]
    by_word: dict[str, list[int]] = {}
    for i, w in enumerate(worded):
        for word in w:
            by_word.setdefault(word, []).append(i)
    seen = []
    for e in examples:
        mine = _wording(e.repo.description)
        shared: dict[int, int] = {}
        for word in mine:
            for i in by_word.get(word, ()):
                shared[i] = shared.get(i, 0) + 1
        near = any(n / len(mine | worded[i]) >= NEAR_DUPLICATE for i, n in shared.items())
        seen.append(e.full_name.lower() in names or near)
    return seen


def evaluation_report(
    path: str | Path, *, uncertain_below: float, title: str | None = None, repos: str | Path | None = None
) -> str:
    """Train on the bundled set, predict the labelled file, and report; repos that are also in the
    training set (same full_name, or a description worded nearly the same) are reported apart, since
    the model has seen them. ``repos`` (:func:`read_repo_texts`) supplies the descriptions and topics
    of a labelled file that has none."""
    texts: RepoTexts | None = read_repo_texts(repos) if repos is not None else None
    # A labelled repo the texts file lacks (renamed or deleted on GitHub since it was labelled) is
    # left out and named, rather than refusing the rest of the file.
    missing: list[str] = []
    examples = read_labelled_csv(path, texts, missing=missing)
    report = _report(examples, title or f"evaluation on {path}", uncertain_below=uncertain_below)
    if not missing:
        return report
    shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5:,} more" if len(missing) > 5 else "")
    return f"left out: {len(missing):,} labelled repo(s) without a description in {repos}: {shown}\n" + report


def survey_report(path: str | Path, *, uncertain_below: float, source: str | None = None) -> str:
    """Classify an unlabelled set of repos (a saved crawl: search items, or a CSV with full_name and
    description): the predicted category mix, the share marked uncertain, and the probabilities.
    ``source``: only the CSV rows whose ``source`` column starts with it (each repo once)."""
    texts = read_repo_texts(path)
    surveyed = str(path)
    if source is None:
        repos = [t for key, t in texts.items() if isinstance(key, str)]
    else:
        # Each repo once, with the text of its first row from a matching source (its first row of
        # all may be another source's, whose description differs).
        chosen: dict[str, RepoText] = {}
        for key, text in texts.items():
            if isinstance(key, tuple) and key[1].startswith(source):
                chosen.setdefault(key[0], text)
        if not chosen:
            raise ClassifyError(f"{path}: no rows whose source starts with {source!r}")
        repos = [chosen[name] for name in sorted(chosen)]
        surveyed = f"{path} (source {source}…)"
    model = trained(load_training_examples())
    predictions = model.predict(repos, reasons=False)
    n = len(predictions)
    counts: dict[str, int] = {}
    for p in predictions:
        counts[p.category] = counts.get(p.category, 0) + 1
    unsure = sum(p.probability < uncertain_below for p in predictions)
    lines = [
        f"survey of {surveyed}: {n} repos (unlabelled); model {model.version} trained on {model.examples} examples",
        f"share uncertain (< {uncertain_below:g})  {unsure / n:.3f}  ({unsure} repos)",
        "",
        f"{'category':<15} {'repos':>6} {'share':>6} {'uncertain':>9}",
    ]
    for category, count in sorted(counts.items(), key=lambda kv: (-kv[1], CATEGORY_IDS.index(kv[0]))):
        doubtful = sum(p.category == category and p.probability < uncertain_below for p in predictions)
        lines.append(f"{category:<15} {count:>6} {count / n:>6.3f} {doubtful:>9}")
    probs = np.asarray([p.probability for p in predictions])
    lines += ["", f"{'probability':<13} {'repos':>6}"]
    for low, high in zip(CALIBRATION_EDGES, CALIBRATION_EDGES[1:], strict=False):
        inside = (probs >= low) & ((probs < high) if high < 1 else (probs <= high))
        lines.append(f"{f'{low:.2f}–{high:.2f}':<13} {int(inside.sum()):>6}")
    return "\n".join(lines)


def held_out_report(*, uncertain_below: float) -> str:
    """The same report on the bundled held-out examples: written by the project like the training
    set, never trained on."""
    return _report(load_held_out_examples(), f"held-out examples ({HELD_OUT_FILE})", uncertain_below=uncertain_below)


def _report(examples: Sequence[Example], where: str, *, uncertain_below: float) -> str:
    training = load_training_examples()
    model = trained(training)
    ev = evaluate(model, examples)
    seen = seen_in_training(examples, training)
    title = f"{where}: {len(examples)} labelled repos; model {model.version} trained on {model.examples} examples"
    if not any(seen):
        return format_evaluation(ev, title + "; none of them in the training set", uncertain_below=uncertain_below)
    report = format_evaluation(ev, title, uncertain_below=uncertain_below)
    rest = ev.subset([not s for s in seen])
    if not rest.labels:
        return report + "\nall of these repos are also in the training set"
    return report + (
        f"\n\nalso in the training set (same name or near-duplicate wording): {sum(seen)} repos; "
        f"on the other {len(rest.labels)}:\n"
        + format_evaluation(rest, "unseen repos only", uncertain_below=uncertain_below)
    )


def cross_validation_report(folds: int, *, uncertain_below: float) -> str:
    examples = load_training_examples()
    ev = cross_validate(examples, folds)
    bare = cross_validate(examples, folds, without_topics=True)
    title = f"cross-validation on the bundled training set: {len(examples)} labelled repos"
    report = format_evaluation(ev, title, uncertain_below=uncertain_below)
    return f"{report}\nheld-out repos without their topics: accuracy {bare.accuracy:.3f}, macro-F1 {bare.macro_f1:.3f}"
