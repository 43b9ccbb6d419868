"""Opening the SQLite file: pragmas, migrations, transactions."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import sqlite_utils

from .curation import CurationRepo
from .judging import JudgingRepo
from .labels import LabelsRepo
from .questions import QuestionsRepo
from .runs import RunsRepo
from .schema import MIGRATIONS, SCHEMA_VERSION

BUSY_TIMEOUT_MS = 10_000


class StoreError(Exception):
    """A database problem worth a one-line message to the user."""


def _connect(path: Path) -> sqlite3.Connection:
    # autocommit mode: transactions are explicit (BEGIN IMMEDIATE ... COMMIT) and short
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Apply the migrations after the file's user_version, each in its own transaction."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"database schema version {version} is newer than this persian-tui "
            f"understands ({SCHEMA_VERSION}); upgrade persian-tui"
        )
    # foreign keys off while migrating, so rebuilding a table (SQLite's 12-step ALTER)
    # neither cascades deletes nor fails; checked before each commit instead
    conn.execute("PRAGMA foreign_keys = OFF")
    try:
        for number in range(version + 1, target + 1):
            _apply(conn, number)
    finally:
        conn.execute("PRAGMA foreign_keys = ON")
    return conn.execute("PRAGMA user_version").fetchone()[0]


def _apply(conn: sqlite3.Connection, number: int) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        # re-check inside the lock: another process may have migrated meanwhile
        if conn.execute("PRAGMA user_version").fetchone()[0] >= number:
            conn.execute("ROLLBACK")
            return
        for statement in MIGRATIONS[number - 1]:
            conn.execute(statement)
        broken = conn.execute("PRAGMA foreign_key_check").fetchone()
        if broken:
            raise StoreError(f"migration {number} would break a reference in {broken[0]}")
        conn.execute(f"PRAGMA user_version = {number}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


class Store(QuestionsRepo, LabelsRepo, CurationRepo, RunsRepo, JudgingRepo):
    """One SQLite file. Open one Store per thread (sqlite3 connections are per thread)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.created = not self.path.exists() or self.path.stat().st_size == 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = _connect(self.path)
            self.version = migrate(self.conn)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: cannot open as a persian-tui database ({e})") from None
        self.db = sqlite_utils.Database(self.conn)
        self._writes = 0  # own commits: PRAGMA data_version only counts other connections'

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction; the write lock is taken at the start."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:  # locked past the busy timeout
            raise StoreError(f"{self.path}: database busy ({e}); nothing was written") from None
        try:
            yield self.conn
        except sqlite3.OperationalError as e:
            self.conn.execute("ROLLBACK")
            raise StoreError(f"{self.path}: {e}; nothing was written") from None
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")
        self._writes += 1

    def data_version(self) -> tuple[int, int]:
        """Changes whenever this or any other connection has committed a write."""
        return self.conn.execute("PRAGMA data_version").fetchone()[0], self._writes
