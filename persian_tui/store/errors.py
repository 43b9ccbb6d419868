"""The store's exceptions, one level below every repository (so none imports db.py for them)."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models.bank import Question
    from ..models.merge import Conflict


class StoreError(Exception):
    """A database problem worth a one-line message to the user."""


class StoreBusy(StoreError):
    """Another connection held the write lock past the busy timeout; nothing was written
    (try again later)."""


class EditConflict(StoreError):
    """A save whose fields someone else changed differently since the editor loaded the question;
    nothing was written. ``conflicts``: merge.Conflict per field; ``theirs``: the stored version
    (the base of the next try, once the person saving has chosen); ``merged``: the edit with
    the fields only they changed taken from theirs (conflicting fields as typed)."""

    def __init__(self, conflicts: list[Conflict], theirs: Question, merged: Question) -> None:
        super().__init__(f"{theirs.uid}: changed elsewhere since you opened it: "
                         + ", ".join(c.field for c in conflicts))
        self.conflicts, self.theirs, self.merged = conflicts, theirs, merged


class Changed(ValueError):
    """What a write was planned on changed meanwhile (checked inside its transaction); the
    message says what, and nothing was written."""


class LeaseHeld(Exception):
    """Another process works on this run; the message names it."""


class ReleaseExists(Exception):
    """A release of this name holds other content; the message says how it differs."""


# what a damaged or unreadable database file raises on any query (for one-line errors)
DatabaseError = sqlite3.DatabaseError


def write_error(e: sqlite3.DatabaseError) -> str | None:
    """What a failed write means, named for the user (None: not a write problem)."""
    code = getattr(e, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(e)
    if primary == sqlite3.SQLITE_FULL or "disk is full" in text:
        return "disk full (free some space and try again)"
    if primary == sqlite3.SQLITE_READONLY or "readonly" in text or "read-only" in text:
        return "the database is read-only (its file or folder cannot be written)"
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in text or "busy" in text:
        return f"database busy ({text})"
    if primary == sqlite3.SQLITE_IOERR:
        return f"disk I/O error ({text})"
    if isinstance(e, sqlite3.OperationalError):
        return text
    return None
