"""The database files this process has opened, so no export or report ever writes over one
(or over its -wal, -shm or -journal file). Kept for the life of the process: a closed
database is still the user's data."""

from __future__ import annotations

import os
from pathlib import Path

SIDE_FILES = ("", "-wal", "-shm", "-journal")
_OPENED: set[str] = set()


def register(path: str | Path) -> None:
    _OPENED.add(os.path.abspath(path))


def database_files() -> list[tuple[str, str]]:
    """(database, one of its files) for every database opened so far, the files named as
    SQLite names them (they need not exist)."""
    return [(db, db + side) for db in sorted(_OPENED) for side in SIDE_FILES]
