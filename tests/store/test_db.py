"""Opening the SQLite file (store/db.py): pragmas, missing folders, read-only and damaged files,
a full disk, discarding a new empty database."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from factories import COUPLETS, ROOT, left_behind, make_question

from persian_tui.cli import main
from persian_tui.store import Store, StoreError
from persian_tui.store.schema import SCHEMA_VERSION

READING = (["stats"], ["runs"], ["agreement"], ["export", "-o", "{tmp}/out.jsonl"], ["report"],
           ["import", "{tmp}/out.jsonl", "--dry-run"])


def one_line_error(capsys, code, expected: str):
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and expected in err and "Traceback" not in err, err
    return err


def fill(db):
    with Store(db) as s:
        s.questions.add_questions([make_question(f"q-{i}", couplets=[(f"مصراع {i} {j}", f"دوم {i} {j}")
                                                          for j in range(4)]) for i in range(300)])


def test_missing_folder_is_an_error_naming_it(tmp_path, capsys):
    db = tmp_path / "no" / "such" / "x.db"
    code = main(["--db", str(db), "stats"])
    one_line_error(capsys, code, f"the folder {tmp_path / 'no' / 'such'} does not exist")
    assert not (tmp_path / "no").exists()


def test_default_folder_is_created(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PERSIAN_TUI_DB", raising=False)
    assert main(["stats"]) == 1  # a reading command never creates it (tests/cli/test_common.py)
    assert not (tmp_path / "db").exists()
    assert main(["sample"]) == 0  # a writing command does
    assert (tmp_path / "db" / "persian_tui.db").is_file()
    assert main(["stats"]) == 0


def test_db_that_is_a_folder_fifo_or_device(tmp_path, capsys):
    one_line_error(capsys, main(["--db", str(tmp_path), "stats"]), "is a folder")
    os.mkfifo(tmp_path / "pipe")
    one_line_error(capsys, main(["--db", str(tmp_path / "pipe"), "stats"]), "is not a regular file")
    one_line_error(capsys, main(["--db", os.devnull, "stats"]), "is not a regular file")


@pytest.fixture
def read_only(monkeypatch):
    """Pretend files and folders under a path are not writable (works when tests run as root,
    for whom permission bits do not apply); the connection really is read-only."""
    paths: list[Path] = []
    real_access = os.access

    def access(path, mode, *a, **k):
        if mode & os.W_OK and any(Path(path).resolve().is_relative_to(p) for p in paths):
            return False
        return real_access(path, mode, *a, **k)

    monkeypatch.setattr(os, "access", access)
    return paths


def test_read_only_database_opens_for_reading_commands(tmp_path, read_only, capsys):
    db = tmp_path / "ro" / "x.db"
    db.parent.mkdir()
    fill(db)
    (tmp_path / "exp").mkdir()
    read_only.append(db.parent.resolve())
    for args in READING:
        args = [a.format(tmp=tmp_path / "exp") for a in args]
        code = main(["--db", str(db), *args])
        out = capsys.readouterr()
        assert "Traceback" not in out.err
        assert code == 0 or "no runs to report" in out.err, (args, out)
    assert (tmp_path / "exp" / "out.jsonl").read_text("utf-8").count("\n") == 300
    with Store(db, read_only=None) as s:
        assert s.read_only and s.questions.counts().total == 300
        with pytest.raises(StoreError, match="opened read-only; nothing was written"):
            s.questions.add_questions([make_question("q-new")])
    # writing commands: one line naming the reason
    code = main(["--db", str(db), "sample"])
    one_line_error(capsys, code, "is read-only (reading commands such as stats")
    code = main(["--db", str(tmp_path / "ro" / "new.db"), "stats"])
    one_line_error(capsys, code, "no such database (a reading command never creates one")
    code = main(["--db", str(tmp_path / "ro" / "new.db"), "sample"])
    one_line_error(capsys, code, "cannot create the database: the folder")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files and folders")
def test_real_read_only_file_and_folder(tmp_path, capsys):
    db = tmp_path / "ro" / "x.db"
    db.parent.mkdir()
    fill(db)
    db.chmod(0o444)
    assert main(["--db", str(db), "stats"]) == 0
    one_line_error(capsys, main(["--db", str(db), "sample"]), "the file is read-only")
    db.chmod(0o644)
    db.parent.chmod(0o555)
    try:
        assert main(["--db", str(db), "stats"]) == 0  # WAL file in a read-only folder
        assert "questions: 300" in capsys.readouterr().out
        one_line_error(capsys, main(["--db", str(db), "sample"]), "is read-only")
    finally:
        db.parent.chmod(0o755)


def damage(db: Path, table: str) -> None:
    """Write garbage over the first data page of ``table`` (a real on-disk corruption)."""

    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(db, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\xde\xad\xbe\xef" * (page // 4))


def test_damaged_page_is_a_one_line_error(tmp_path, capsys):
    db = tmp_path / "x.db"
    fill(db)
    damage(db, "questions")
    for args in (["stats"], ["export", "-o", str(tmp_path / "o.jsonl")], ["sample"]):
        code = main(["--db", str(db), *args])
        one_line_error(capsys, code, "database disk image is malformed")
    r = subprocess.run([sys.executable, str(ROOT / "app.py"), "--db", str(db)], capture_output=True,
                       text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120,
                       stdin=subprocess.DEVNULL, check=False)
    assert r.returncode == 1 and "Traceback" not in r.stderr + r.stdout
    assert r.stderr.count("\n") == 1 and "malformed" in r.stderr


# ---------------------------------------------------------------- disk full, read-only, reading commands


def test_a_full_disk_is_named_as_such_and_nothing_is_written(tmp_path):
    from persian_tui.store import StoreError

    s = Store(tmp_path / "full.db")
    pages = s.conn.execute("PRAGMA page_count").fetchone()[0]
    s.conn.execute(f"PRAGMA max_page_count = {pages + 2}")  # SQLite's own SQLITE_FULL
    big = [make_question(f"q-{i}", couplets=[(f"{a} {i}" * 5, b * 5) for a, b in COUPLETS]) for i in range(300)]
    with pytest.raises(StoreError, match="disk full") as e:
        s.questions.add_questions(big)
    assert "cannot rollback" not in str(e.value)
    assert s.questions.counts().total == 0
    s.close()


def test_a_database_that_became_read_only_is_named_as_such(tmp_path):
    from persian_tui.store import StoreError

    s = Store(tmp_path / "ro.db")
    s.conn.execute("PRAGMA query_only = ON")  # SQLite's own SQLITE_READONLY on the next write
    with pytest.raises(StoreError, match="the database is read-only.*nothing was written"):
        s.questions.add_questions([make_question("q-1")])
    s.close()


def test_discard_keeps_a_database_in_use_or_holding_data(tmp_path):
    from persian_tui.store import discard_if_unused

    db = tmp_path / "x.db"
    Store(db).close()
    with Store(db):  # another connection has it open: it may be about to write
        assert discard_if_unused(db) is False and db.exists()
    with Store(db) as s:
        s.labels.set_setting("label_target", "2")
    assert discard_if_unused(db) is False and db.exists()
    other = tmp_path / "y.db"
    Store(other).close()
    assert discard_if_unused(other) is True and left_behind(other) == []
    assert discard_if_unused(other) is False  # nothing there
    not_ours = tmp_path / "notes.txt"
    not_ours.write_text("not a database\n" * 50)
    assert discard_if_unused(not_ours) is False and not_ours.exists()


def test_pragmas(store):
    conn = store.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_not_a_database(tmp_path):
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open"):
        Store(path)


def test_two_connections_share_the_file(tmp_path):
    a, b = Store(tmp_path / "x.db"), Store(tmp_path / "x.db")
    a.questions.add_questions([make_question("q-1")])
    assert b.questions.get_question("q-1") is not None
    a.close(), b.close()


def test_a_waiting_write_tries_for_the_lock_every_few_milliseconds(tmp_path, monkeypatch):
    """Behind another connection's write lock, tx() tries again every few ms (SQLite's own wait
    tries every 100 ms after 300 ms, and missed the gaps between an import's transactions) until
    the busy timeout, then says busy; the connection's busy timeout is as it was afterwards."""
    import types

    from persian_tui.store import db as db_module
    from persian_tui.store.db import Database
    from persian_tui.store.errors import StoreBusy

    path = tmp_path / "lock.db"
    db = Database(path, busy_timeout_ms=300)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    # a virtual clock: the wait is counted in the time tx() asked to sleep, never in wall time
    clock = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        clock[0] += s

    monkeypatch.setattr(db_module, "time", types.SimpleNamespace(monotonic=lambda: clock[0], sleep=sleep))
    with pytest.raises(StoreBusy, match="database busy"):
        with db.tx():
            pass
    assert slept and max(slept) <= 0.005 and sum(slept) == pytest.approx(0.3)
    assert db.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 300
    other.execute("ROLLBACK")
    with db.tx() as conn:  # free again: taken at once
        conn.execute("PRAGMA user_version").fetchone()
    assert db.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 300
    other.close()
    db.close()
