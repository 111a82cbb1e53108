"""Honest figures for the classifier: a labelled file as validation, and k-fold cross-validation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score, precision_recall_fscore_support
from sklearn.model_selection import StratifiedKFold

from classify.categories import CATEGORY_IDS
from classify.examples import Example, load_training_examples, read_labelled_csv
from classify.model import CategoryModel, Settings, train
from classify.text import RepoText

CV_SEED = 20261130


@dataclass
class Evaluation:
    """Labelled versus predicted categories for a set of repos, and the figures derived from them."""

    full_names: list[str]
    labels: list[str]
    predicted: list[str]
    probabilities: list[float]
    notes: list[str] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return float(accuracy_score(self.labels, self.predicted))

    @property
    def macro_f1(self) -> float:
        """Mean F1 over the categories that occur as labels or predictions."""
        return float(f1_score(self.labels, self.predicted, average="macro", zero_division=0))

    def categories(self) -> list[str]:
        present = set(self.labels) | set(self.predicted)
        return [c for c in CATEGORY_IDS if c in present]

    def subset(self, keep: Sequence[bool]) -> Evaluation:
        pick = lambda values: [v for v, k in zip(values, keep, strict=False) if k]  # noqa: E731
        return Evaluation(pick(self.full_names), pick(self.labels), pick(self.predicted), pick(self.probabilities))


def evaluate(model: CategoryModel, examples: Sequence[Example]) -> Evaluation:
    predictions = model.predict([e.repo for e in examples])
    return Evaluation(
        [e.full_name for e in examples],
        [e.category for e in examples],
        [p.category for p in predictions],
        [p.probability for p in predictions],
    )


def cross_validate(
    examples: Sequence[Example], folds: int = 5, settings: Settings | None = None, *, without_topics: bool = False
) -> Evaluation:
    """Stratified k-fold with a fixed seed: every example is predicted once by a model that never saw it.

    ``without_topics`` scores the held-out repos with their topics removed (as list blurbs come).
    """
    labels = [e.category for e in examples]
    smallest = min(labels.count(c) for c in set(labels))
    if folds > smallest:
        folds = max(2, smallest)
    predicted: list[str] = [""] * len(examples)
    probabilities = [0.0] * len(examples)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=CV_SEED)
    for train_index, test_index in splitter.split(np.zeros(len(labels)), labels):
        model = train([examples[i] for i in train_index], settings)
        held_out = [examples[i].repo for i in test_index]
        if without_topics:
            held_out = [RepoText(r.name, r.description, ()) for r in held_out]
        for i, p in zip(test_index, model.predict(held_out), strict=False):
            predicted[i], probabilities[i] = p.category, p.probability
    return Evaluation(
        [e.full_name for e in examples],
        labels,
        predicted,
        probabilities,
        notes=[f"{folds}-fold stratified cross-validation, seed {CV_SEED}"],
    )


def _short(category: str) -> str:
    return category[:5]


def format_evaluation(evaluation: Evaluation, title: str, *, uncertain_below: float) -> str:
    """Accuracy, macro-F1, per-category precision/recall/F1, the confusion matrix and the uncertain share."""
    ev = evaluation
    lines = [title, *ev.notes, f"accuracy  {ev.accuracy:.3f}", f"macro-F1  {ev.macro_f1:.3f}", ""]
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
    matrix = confusion_matrix(ev.labels, ev.predicted, labels=cats)
    lines += ["", "confusion matrix (rows: labelled, columns: predicted)"]
    lines.append(f"{'':<15}" + "".join(f"{_short(c):>6}" for c in cats))
    for c, row in zip(cats, matrix, strict=False):
        lines.append(f"{c:<15}" + "".join(f"{n:>6}" for n in row))
    probs = np.asarray(ev.probabilities)
    low = probs < uncertain_below
    correct = np.asarray(ev.labels) == np.asarray(ev.predicted)
    lines.append("")
    line = f"uncertain (probability < {uncertain_below:g}): {int(low.sum())} of {len(probs)}"
    if low.any():
        line += f", accuracy {correct[low].mean():.3f}"
    if (~low).any():
        line += f"; the others {correct[~low].mean():.3f}"
    lines.append(line)
    return "\n".join(lines)


def evaluation_report(path: str | Path, *, uncertain_below: float) -> str:
    """Train on the bundled set, predict the labelled file, and report; repos that are also in the
    training set (same full_name) are reported apart, since the model has seen them."""
    examples = read_labelled_csv(path)
    training = load_training_examples()
    model = train(training)
    ev = evaluate(model, examples)
    title = (
        f"evaluation on {path}: {len(examples)} labelled repos; "
        f"model {model.version} trained on {model.examples} examples"
    )
    report = format_evaluation(ev, title, uncertain_below=uncertain_below)
    known = {e.full_name.lower() for e in training}
    unseen = [name.lower() not in known for name in ev.full_names]
    if not all(unseen):
        rest = ev.subset(unseen)
        report += (
            f"\nalso in the training set: {len(unseen) - sum(unseen)} repos; "
            f"on the other {len(rest.labels)}: accuracy {rest.accuracy:.3f}, macro-F1 {rest.macro_f1:.3f}"
            if rest.labels
            else "\nall of these repos are also in the training set"
        )
    return report


def cross_validation_report(folds: int, *, uncertain_below: float) -> str:
    examples = load_training_examples()
    ev = cross_validate(examples, folds)
    bare = cross_validate(examples, folds, without_topics=True)
    title = f"cross-validation on the bundled training set: {len(examples)} labelled repos"
    report = format_evaluation(ev, title, uncertain_below=uncertain_below)
    return f"{report}\nheld-out repos without their topics: accuracy {bare.accuracy:.3f}, macro-F1 {bare.macro_f1:.3f}"
