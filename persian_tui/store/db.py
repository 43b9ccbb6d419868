"""Opening the SQLite file: pragmas, migrations, transactions (``Database``: the one connection
every repository shares)."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from itertools import count
from pathlib import Path
from typing import Self

from .errors import StoreBusy, StoreError, write_error
from .registry import register
from .schema import MIGRATIONS, SCHEMA_VERSION

APPLICATION_ID = 0x50545549  # "PTUI" in the file's header: a persian-tui database
# tables every persian-tui database has had since migration 1 (a file made before the application id)
OUR_TABLES = frozenset({"questions", "options", "annotations"})
BUSY_TIMEOUT_MS = 10_000  # the CLI waits; the TUI passes a short one (a missed row beats a frozen window)
LOCK_POLL = (0.001, 0.002, 0.005)  # seconds between tries for the write lock (then the last, repeated)


def _connect(path: Path, read_only: bool = False, busy_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    # autocommit mode: transactions are explicit (BEGIN IMMEDIATE ... COMMIT) and short
    if read_only:
        return _connect_read_only(path)
    conn = sqlite3.connect(path, timeout=busy_ms / 1000, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    try:
        check_ours(conn, path)  # before anything is changed in it, the journal mode included
    except BaseException:
        conn.close()
        raise
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def check_ours(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse another program's SQLite file: ours carries our application id, or (made before
    it) our tables; an empty file becomes ours. Nothing in the file is changed here."""
    app = int(conn.execute("PRAGMA application_id").fetchone()[0])
    if app == APPLICATION_ID:
        return
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if app == 0 and not tables and version == 0:
        return  # new or empty
    if app == 0 and version > 0 and OUR_TABLES <= tables:
        return  # ours, from before the application id
    shown = ", ".join(sorted(tables)[:5]) + (" ..." if len(tables) > 5 else "")
    why = f"application id {app}" if app else (f"its tables: {shown}" if tables else f"user_version {version}")
    raise StoreError(f"{path}: not a persian-tui database ({why}); it was not changed (check --db or $PERSIAN_TUI_DB)")


def _ro_connect(uri: str) -> sqlite3.Connection:
    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)


def _connect_read_only(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri()
    try:
        conn = _ro_connect(f"{uri}?mode=ro")
        conn.execute("PRAGMA user_version").fetchone()
    except sqlite3.OperationalError:
        # a WAL database in a read-only folder cannot make its -shm file: nobody can be
        # writing it there, so read it as an immutable file, unless its -wal file holds changes
        # (an immutable read ignores them: the data shown would be stale)
        wal = Path(f"{path}-wal")
        try:
            pending = wal.stat().st_size > 0
        except OSError:
            pending = False
        if pending:
            raise StoreError(f"{path}: its write-ahead log {wal.name} holds changes that cannot be read here "
                             "(a read-only folder, no -shm file); open it once where it can be written, or "
                             f"copy {path.name} and {wal.name} to a writable folder") from None
        conn = _ro_connect(f"{uri}?mode=ro&immutable=1")
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def _schema_version(path: Path) -> int | None:
    """The file's schema version read through a read-only connection (None: unreadable)."""
    try:
        conn = _connect_read_only(path)
    except sqlite3.DatabaseError:
        return None
    try:
        return _user_version(conn)
    except sqlite3.DatabaseError:
        return None
    finally:
        conn.close()


def _not_writable(path: Path) -> str | None:
    """Why ``path`` cannot be written (None when it can)."""
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is read-only"
    if not os.access(path.parent, os.W_OK):
        return f"the folder {path.parent} is read-only"
    return None


def _one(conn: sqlite3.Connection, sql: str) -> sqlite3.Row | None:
    """The first row of ``sql`` by column name, on any connection (tests migrate their own)."""
    cur = conn.cursor()
    cur.row_factory = sqlite3.Row
    row: sqlite3.Row | None = cur.execute(sql).fetchone()
    return row


def _user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Apply the migrations after the file's user_version, each in its own transaction."""
    version = _user_version(conn)
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
    if int(conn.execute("PRAGMA application_id").fetchone()[0]) != APPLICATION_ID:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # marks the file ours (a header field)
    return _user_version(conn)


def _apply(conn: sqlite3.Connection, number: int) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        # re-check inside the lock: another process may have migrated meanwhile
        if _user_version(conn) >= number:
            conn.execute("ROLLBACK")
            return
        for statement in MIGRATIONS[number - 1]:
            conn.execute(statement)
        broken = _one(conn, "PRAGMA foreign_key_check")
        if broken:
            raise StoreError(f"migration {number} would break a reference in {broken['table']}")
        conn.execute(f"PRAGMA user_version = {number}")
        conn.execute("COMMIT")
    except BaseException as e:
        if conn.in_transaction:  # a full disk has rolled back already
            conn.execute("ROLLBACK")
        if isinstance(e, sqlite3.DatabaseError) and (why := write_error(e)):
            raise StoreError(f"migration {number}: {why}; nothing was changed") from None
        raise


def _holds_data(conn: sqlite3.Connection) -> bool:
    """Whether any table has a row (a virtual table's own shadow tables, which FTS5 fills on
    creation, left out)."""
    tables = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' "
                          "AND name NOT LIKE 'sqlite!_%' ESCAPE '!'").fetchall()
    virtual = [name for name, sql in tables if (sql or "").upper().startswith("CREATE VIRTUAL TABLE")]
    return any(conn.execute(f'SELECT 1 FROM "{name}" LIMIT 1').fetchone()
               for name, _ in tables
               if not any(name == v or name.startswith(v + "_") for v in virtual))


def is_there(path: Path) -> bool:
    """Whether ``path`` exists; True when that cannot be told (a name too long, ...): such a
    file is never taken for one a failed command created (and so never discarded)."""
    try:
        return path.exists()
    except OSError:
        return True


def discard_if_unused(path: str | Path, *, folder: bool = False) -> bool:
    """Remove a database file, with its -wal, -shm and -journal files, that holds no data and
    that no other connection has open: what a failed command that created it leaves behind (the
    caller knows it did); with ``folder``, its folder too when that is left empty (the caller
    made it). True if removed; anything in doubt (data, another connection, not a database, an
    error) keeps the file."""
    path = Path(path)
    try:
        if not path.is_file():
            return False
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True, timeout=0, isolation_level=None)
    except (sqlite3.Error, OSError):
        return False
    try:
        if _holds_data(conn):
            return False
        # leaving WAL mode needs the only connection: another one (a reader, the app) keeps it
        if conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0] != "delete":
            return False
        conn.execute("BEGIN EXCLUSIVE")  # nobody else can start a write while we look and remove
        if _holds_data(conn):
            return False
        for suffix in ("-wal", "-shm", "-journal", ""):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    except (sqlite3.Error, OSError):
        return False
    finally:
        conn.close()
    if folder:
        with suppress(OSError):
            path.parent.rmdir()  # only when empty
    return True


class Database:
    """One SQLite file: its connection and its write transactions, shared by the repositories
    (see store.Store). Open one per thread (sqlite3 connections are per thread)."""

    def __init__(self, path: str | Path, *, create_dir: bool = True, read_only: bool | None = False,
                 busy_timeout_ms: int = BUSY_TIMEOUT_MS):
        """``create_dir``: make a missing parent folder (else that is an error).
        ``read_only``: True opens with a read-only connection; None is for reading commands:
        the file must exist (it is never created) and is opened read-only, unless its schema is
        older and it can be written (then it is upgraded); False needs write access.
        ``busy_timeout_ms``: how long a write waits for another connection's lock before
        StoreBusy (the TUI uses a short one and retries off the UI thread)."""
        self.path = Path(path)
        parent = self.path.parent
        if not parent.exists() and not create_dir:
            raise StoreError(f"{self.path}: the folder {parent} does not exist (create it first)")
        if parent.exists() and not parent.is_dir():
            raise StoreError(f"{self.path}: {parent} is not a folder")
        if self.path.is_dir():
            raise StoreError(f"{self.path}: is a folder, not a database file")
        if self.path.exists() and not self.path.is_file():  # a FIFO, socket or device (/dev/null)
            raise StoreError(f"{self.path}: is not a regular file, not a database file")
        register(self.path)  # before anything is created: exports never write over it
        if read_only is None and not self.path.exists():
            raise StoreError(f"{self.path}: no such database (a reading command never creates one; "
                             "check --db or $PERSIAN_TUI_DB)")
        self.created = not self.path.exists() or self.path.stat().st_size == 0
        why = _not_writable(self.path) if parent.exists() else None
        if read_only is None:  # reading: read-only, unless an older schema can be upgraded here
            version = _schema_version(self.path)
            read_only = bool(why) or not (version is not None and 0 < version < SCHEMA_VERSION)
        if why and self.created:
            raise StoreError(f"{self.path}: cannot create the database: {why}")
        if why and read_only is False:
            raise StoreError(f"{self.path}: cannot write: {why} (reading commands such as stats, "
                             "runs, report, export and agreement still work)")
        self.read_only = bool(read_only or why)
        try:
            if not self.read_only:
                parent.mkdir(parents=True, exist_ok=True)
            self.conn = _connect(self.path, self.read_only, busy_timeout_ms)
            self.version = self._check_read_only() if self.read_only else migrate(self.conn)
        except OSError as e:
            raise StoreError(f"{self.path}: cannot open: {e.strerror or e}") from None
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: cannot open as a persian-tui database ({e})") from None
        self.busy_ms = busy_timeout_ms
        self._at_once = False  # inside `at_once`: a write refused at once when another holds the lock
        self._writes = 0  # own commits: PRAGMA data_version only counts other connections'
        self._held: list[float] | None = None  # inside `timing`: each write transaction's hold

    def _check_read_only(self) -> int:
        check_ours(self.conn, self.path)
        version = int(self.conn.execute("PRAGMA user_version").fetchone()["user_version"])
        if version == 0:
            raise StoreError(f"{self.path}: not a persian-tui database (opened read-only)")
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path}: database schema version {version} is newer than this "
                             f"persian-tui understands ({SCHEMA_VERSION}); upgrade persian-tui")
        if version < SCHEMA_VERSION:
            raise StoreError(f"{self.path}: database schema v{version} needs an upgrade to "
                             f"v{SCHEMA_VERSION}, which needs write access (opened read-only)")
        return version

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _begin(self) -> None:
        """BEGIN IMMEDIATE, waiting up to the busy timeout for another writer's lock by trying
        every few milliseconds (LOCK_POLL). SQLite's own wait tries every 100 ms once it has
        waited 300 ms, so a save behind a series of short transactions (a corpus import) missed
        most of the gaps between them; polling here catches the next gap."""
        self.conn.execute("PRAGMA busy_timeout = 0")
        try:
            deadline = time.monotonic() + (0 if self._at_once else self.busy_ms / 1000)
            for attempt in count():
                try:
                    self.conn.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as e:
                    left = deadline - time.monotonic()
                    if not (write_error(e) or "").startswith("database busy") or left <= 0:
                        raise
                    time.sleep(min(left, LOCK_POLL[min(attempt, len(LOCK_POLL) - 1)]))
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {self.busy_ms}")

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction; the write lock is taken at the start."""
        if self.read_only:
            raise StoreError(f"{self.path}: opened read-only; nothing was written")
        try:
            self._begin()
        except sqlite3.OperationalError as e:  # locked past the busy timeout, or read-only, or full
            why = write_error(e) or str(e)
            kind = StoreBusy if why.startswith("database busy") else StoreError
            raise kind(f"{self.path}: {why}; nothing was written") from None
        t0 = time.monotonic()
        try:
            yield self.conn
            self.conn.execute("COMMIT")
        except sqlite3.DatabaseError as e:
            self._rollback()  # SQLite may have rolled back already (a full disk does)
            failed = write_error(e)
            if failed is None:
                raise
            kind = StoreBusy if failed.startswith("database busy") else StoreError
            raise kind(f"{self.path}: {failed}; nothing was written") from None
        except BaseException:
            self._rollback()
            raise
        self._writes += 1
        if self._held is not None:
            self._held.append(time.monotonic() - t0)

    @contextmanager
    def at_once(self) -> Iterator[None]:
        """Writes in the block do not wait for another connection's write lock: StoreBusy at once
        (for a caller that waits without blocking its thread: runs.lifecycle.save_when_free)."""
        outer, self._at_once = self._at_once, True
        try:
            yield
        finally:
            self._at_once = outer

    @contextmanager
    def timing(self) -> Iterator[list[float]]:
        """The seconds each write transaction committed in the block held the write lock (from
        BEGIN IMMEDIATE to the end of COMMIT), in order: what another writer may have waited."""
        outer, self._held = self._held, []
        try:
            yield self._held
        finally:
            inner, self._held = self._held, outer
            if outer is not None:
                outer.extend(inner)

    def _rollback(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def data_version(self) -> tuple[int, int]:
        """Changes whenever this or any other connection has committed a write."""
        return self.conn.execute("PRAGMA data_version").fetchone()["data_version"], self._writes
