"""The folder an output file (the export, a snapshot) is written into."""

from __future__ import annotations

from pathlib import Path


def make_folder_for(path: Path) -> Path:
    """Create the folder ``path`` goes in, as ``mkdir -p``, and return it.

    Raises ``OSError`` whose ``strerror`` says what is wrong, including the case ``mkdir`` reports as
    "File exists": a part of the path that is a file, not a folder.
    """
    directory = path.parent if str(path.parent) else Path(".")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocking = next((p for p in (directory, *directory.parents) if p.exists() and not p.is_dir()), directory)
        raise NotADirectoryError(20, f"{blocking} is a file, not a folder") from None
    return directory
