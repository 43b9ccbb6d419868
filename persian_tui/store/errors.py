"""The store's exceptions, one level below every repository (so none imports db.py for them)."""

from __future__ import annotations

import sqlite3


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

    def __init__(self, conflicts: list, theirs, merged) -> None:
        super().__init__(f"{theirs.uid}: changed elsewhere since you opened it: "
                         + ", ".join(c.field for c in conflicts))
        self.conflicts, self.theirs, self.merged = conflicts, theirs, merged


class LeaseHeld(Exception):
    """Another process works on this run; the message names it."""


class ReleaseExists(Exception):
    """A release of this name holds other content; the message says how it differs."""


# what a damaged or unreadable database file raises on any query (for one-line errors)
DatabaseError = sqlite3.DatabaseError
