"""The trained category model is kept on disk by its version, and scikit-learn is imported only to
train: the CLI and a cached model never load it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import classify.model
from classify import cache
from classify.examples import load_training_examples
from classify.model import CategoryModel, model_version, trained
from classify.text import RepoText
from tests.classify_helpers import a_few_of_each

REPOS = [
    RepoText("awesome-agents", "A curated list of agent projects", ("awesome-list",)),
    RepoText("patchwright", "Terminal coding agent that fixes failing tests", ("coding-agent",)),
    RepoText("callbot", "Phone agent that answers calls", ()),
]


@pytest.fixture
def examples():
    return a_few_of_each(load_training_examples())  # the cache does not care how many


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "model-cache"
    monkeypatch.setenv(cache.ENV, str(folder))
    monkeypatch.setattr(classify.model, "_last", [])
    return folder


def _forget() -> None:
    classify.model._last.clear()  # as a new process would start


def test_a_trained_model_is_reused_by_the_next_process_with_the_same_predictions(examples, cache_dir):
    first = trained(examples)
    assert not first.loaded
    files = list(cache_dir.glob("*.model.pickle"))
    assert [f.name for f in files] == [f"{first.version}.model.pickle"]
    _forget()
    second = trained(examples)
    assert second.loaded and second.version == first.version
    assert second.predict(REPOS) == first.predict(REPOS)
    assert [p.because for p in second.predict(REPOS)] == [p.because for p in first.predict(REPOS)]


def test_other_training_data_is_another_model(examples, cache_dir):
    trained(examples)
    _forget()
    changed = trained(examples[1:])
    assert not changed.loaded
    assert len(list(cache_dir.glob("*.model.pickle"))) == 2


@pytest.mark.parametrize("content", [b"", b"not a pickle at all", b"\x80\x04K\x01."])
def test_a_corrupt_cache_file_is_ignored_and_rebuilt(examples, cache_dir, content):
    version = model_version(examples, classify.model.Settings())
    cache_dir.mkdir()
    path = cache_dir / f"{version}.model.pickle"
    path.write_bytes(content)
    model = trained(examples)
    assert not model.loaded and model.predict(REPOS)
    _forget()
    assert trained(examples).loaded  # the file was replaced by a good one


def test_a_file_holding_another_version_is_not_used(examples, cache_dir):
    model = trained(examples)
    path = cache_dir / f"{model.version}.model.pickle"
    other = cache_dir / "clf6-000000000000.model.pickle"
    other.write_bytes(path.read_bytes())  # the right kind of object, under the wrong name
    assert cache.load("clf6-000000000000", CategoryModel) is None


def test_the_cache_can_be_turned_off(examples, tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV, "off")
    monkeypatch.setattr(classify.model, "_last", [])
    assert cache.cache_dir() is None
    assert not trained(examples).loaded
    _forget()
    assert not trained(examples).loaded


def test_the_default_folder_follows_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv(cache.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "agentrank" / "classify"


def test_writes_leave_no_temporary_files_and_old_models_are_pruned(examples, cache_dir, monkeypatch):
    monkeypatch.setattr(cache, "KEEP", 2)
    for n in range(3):
        _forget()
        trained(examples[n:])
    names = [p.name for p in cache_dir.iterdir()]
    assert not any(n.startswith(".tmp-") for n in names)
    assert len([n for n in names if n.endswith(".model.pickle")]) == 2


def test_processes_started_together_train_the_model_once(examples, cache_dir):
    """A scheduler and a hand-run command (or the test workers) that needed the same new model each
    trained it; the second now waits for the first and reads its file."""
    code = (
        "from classify.examples import load_training_examples\n"
        "from classify.model import trained\n"
        "from tests.classify_helpers import a_few_of_each\n"
        "print(trained(a_few_of_each(load_training_examples(), 30)).loaded)\n"
    )
    env = {**os.environ, cache.ENV: str(cache_dir)}
    root = Path(__file__).resolve().parents[1]
    both = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env, cwd=root)
        for _ in range(2)
    ]
    loaded = sorted(p.communicate(timeout=120)[0].strip() for p in both)
    assert loaded == ["False", "True"]  # one trained, the other read what it trained
    assert len(list(cache_dir.glob("*.model.pickle"))) == 1


def _python(code: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=Path(__file__).resolve().parents[1],
        check=True,
    )
    return result.stdout.strip()


def test_the_cli_help_and_the_classify_modules_never_import_scikit_learn():
    code = (
        "import sys\n"
        "import agentrank.cli, agentrank.classifier, classify.model, classify.cache, classify.features\n"
        "from click.testing import CliRunner\n"
        "assert CliRunner().invoke(agentrank.cli.cli, ['--help']).exit_code == 0\n"
        "print(sorted(m for m in sys.modules if m == 'sklearn' or m.startswith('sklearn.')))\n"
    )
    assert _python(code, {}) == "[]"


def test_a_cached_model_predicts_without_importing_scikit_learn(examples, cache_dir):
    # Trained (and cached) here with the full bundled set, then used by a fresh process.
    model = trained(load_training_examples())
    code = (
        "import sys\n"
        "from classify.examples import load_training_examples\n"
        "from classify.model import trained\n"
        "from classify.text import RepoText\n"
        "m = trained(load_training_examples())\n"
        "p = m.predict([RepoText('patchwright', 'Terminal coding agent that fixes failing tests')])[0]\n"
        "print(m.loaded, m.version, p.category, 'sklearn' in sys.modules)\n"
    )
    out = _python(code, {cache.ENV: str(cache_dir)})
    assert out == f"True {model.version} {model.predict([REPOS[1]])[0].category} False"
