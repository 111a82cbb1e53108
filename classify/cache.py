"""The trained category model kept on disk, so each process need not retrain it.

A model file is named by the model's version (:func:`classify.model.model_version`: a hash of the
training examples and corrections, the lexicon, the settings, the code version and the
scikit-learn version), so a changed input never reuses an old model. The folder is
``$AGENTRANK_MODEL_CACHE`` if set (``off`` turns the cache off), else ``agentrank/classify`` under
``$XDG_CACHE_HOME`` (default ``~/.cache``). Writers write a temporary file and rename it into
place, so concurrent processes never see half a file; a file that cannot be read, or holds
something else, is ignored (and replaced by the next write). Nothing here imports scikit-learn:
a cached model predicts with NumPy alone. A model's cross-validated figures
(:func:`classify.evaluate.cross_validate`) are kept the same way, under its version, the folds
and the seed.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

ENV = "AGENTRANK_MODEL_CACHE"
FORMAT = 1
KEEP = 8  # model files kept in the folder (the most recently used)
LOCK_WAIT_S = 600  # longest wait for another process's training (a training takes seconds)
_SUFFIX = ".model.pickle"
_LOCK_SUFFIX = ".lock"


def cache_dir() -> Path | None:
    """Where model files live, or None when the cache is turned off."""
    chosen = os.environ.get(ENV)
    if chosen is not None:
        chosen = chosen.strip()
        if chosen.lower() in ("off", "0", "no", "false", ""):
            return None
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base).expanduser() if base.strip() and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "agentrank" / "classify"


def _path(folder: Path, version: str, suffix: str = _SUFFIX) -> Path:
    safe = "".join(c for c in version if c.isalnum() or c in "-_")
    return folder / f"{safe}{suffix}"


@contextlib.contextmanager
def building(version: str) -> Iterator[None]:
    """Held while one process builds what it will save under ``version``, so that processes started
    together (a scheduler and a hand-run command; the test workers) wait for one training and read
    its file instead of each training the same model. The lock is the operating system's (released
    if the holder dies); without a cache, or when the folder cannot hold a lock file, nothing waits."""
    folder = cache_dir()
    lock = None
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(_path(folder, version, _LOCK_SUFFIX)), timeout=LOCK_WAIT_S)
            lock.acquire()
        except (OSError, Timeout):  # read-only or odd folder, or a holder stuck for minutes: build anyway
            lock = None
    try:
        yield
    finally:
        if lock is not None:
            lock.release()


def load(version: str, expected: type) -> Any | None:
    """The cached model of this version, or None (no cache, no file, or a file that is not one)."""
    folder = cache_dir()
    if folder is None:
        return None
    path = _path(folder, version)
    try:
        with path.open("rb") as f:
            found = pickle.load(f)
    except Exception:  # missing, unreadable, truncated or corrupt: rebuilt by the caller
        return None
    if not isinstance(found, dict) or found.get("format") != FORMAT or found.get("version") != version:
        return None
    model = found.get("model")
    if not isinstance(model, expected):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # most recently used: kept when the folder is pruned
    return model


def save(version: str, model: object) -> Path | None:
    """Write the model for this version (temporary file, then rename); None if it could not be."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=_SUFFIX, dir=folder)
    except OSError:
        return None
    path = _path(folder, version)
    try:
        with os.fdopen(handle, "wb") as f:
            pickle.dump({"format": FORMAT, "version": version, "model": model}, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
    except Exception:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        return None
    _prune(folder)
    return path


def _prune(folder: Path) -> None:
    """Keep the ``KEEP`` most recently used model files (a new model per corrections set adds up),
    and remove temporary files a killed writer left behind (an hour old or more)."""
    try:
        now = time.time()
        for stale in [*folder.glob(".tmp-*" + _SUFFIX), *folder.glob("*" + _LOCK_SUFFIX)]:
            with contextlib.suppress(OSError):
                if now - stale.stat().st_mtime > 3600:
                    stale.unlink()
        files = sorted(
            (p for p in folder.iterdir() if p.name.endswith(_SUFFIX) and not p.name.startswith(".tmp-")),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
    except OSError:
        return
    for old in files[KEEP:]:
        with contextlib.suppress(OSError):
            old.unlink()
