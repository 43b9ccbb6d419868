"""The only package that speaks SQL.

Rows are read one way, by column name: every connection has ``sqlite3.Row`` as its row
factory, and the repositories build the model dataclasses from named columns (``Run(**row)``,
an ``AS`` alias where a column's name differs from the field's). Not sqlite-utils: its
``insert_all`` measured 1.3-2x slower than one ``executemany`` inside the write lock
(bench/bench_inserts.py), so writes were plain sqlite3 already; ``sqlite3.Row`` gives reads the
same names without a second library or a dict per row, and leaves each write's single
``BEGIN IMMEDIATE`` transaction exactly as it was.

Layout: ``errors`` (the exceptions, below everything), ``rows`` (a question's rows prepared
before the lock, and the bulk insert), one repository module per table group, and ``db``
(opening, migrating, transactions), whose ``Store`` combines the repositories."""

from .db import Store, discard_if_unused, is_there
from .errors import DatabaseError, EditConflict, LeaseHeld, ReleaseExists, StoreBusy, StoreError

__all__ = ["DatabaseError", "EditConflict", "LeaseHeld", "ReleaseExists", "Store", "StoreBusy", "StoreError",
           "discard_if_unused", "is_there"]
