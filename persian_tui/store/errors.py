"""The store's exceptions, one level below every repository (so none imports db.py for them)."""

from __future__ import annotations

import sqlite3


class StoreError(Exception):
    """A database problem worth a one-line message to the user."""


class StoreBusy(StoreError):
    """Another connection held the write lock past the busy timeout; nothing was written
    (try again later)."""


class LeaseHeld(Exception):
    """Another process works on this run; the message names it."""


class ReleaseExists(Exception):
    """A release of this name holds other content; the message says how it differs."""


# what a damaged or unreadable database file raises on any query (for one-line errors)
DatabaseError = sqlite3.DatabaseError
