"""Reading the ledger's TOML input files (prices, assessments): one clear error line for any problem."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


def read_toml(path: str | Path, error: type[Exception]) -> dict[str, Any]:
    """The file's TOML as a dict; an unreadable, undecodable, invalid or absurdly nested file raises
    ``error`` with one line naming the file."""
    path = Path(path)
    try:
        # a BOM (some Windows editors write one) is no TOML error
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as e:
        raise error(f"{path}: cannot read: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise error(f"{path}: not valid TOML: {e}") from None
    except RecursionError:
        raise error(f"{path}: nested too deeply to be a valid file") from None
