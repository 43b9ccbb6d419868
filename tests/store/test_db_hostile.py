"""Hostile database files: another program's SQLite file is never
adopted (no table added, its journal mode never switched), by writing or reading commands; a WAL
database that cannot be read with its log is refused, never shown stale."""

from __future__ import annotations

import sqlite3

import pytest

from persian_tui.cli import main
from persian_tui.store import Store, StoreError
from persian_tui.store import db as dbmod


def foreign(path, tables=("notes",), user_version=0) -> list:
    conn = sqlite3.connect(path)
    for t in tables:
        conn.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, body TEXT)")
        conn.execute(f"INSERT INTO {t} (body) VALUES ('theirs')")
    conn.execute(f"PRAGMA user_version = {user_version}")
    conn.commit()
    schema = conn.execute("SELECT name FROM sqlite_master ORDER BY name").fetchall()
    conn.close()
    return schema


def state(path):
    conn = sqlite3.connect(path)
    try:
        return (conn.execute("SELECT name FROM sqlite_master ORDER BY name").fetchall(),
                conn.execute("PRAGMA journal_mode").fetchone()[0])
    finally:
        conn.close()


@pytest.mark.parametrize("tables,version", [(("notes",), 0), (("questions",), 0), (("questions", "options"), 3),
                                            (("notes",), 7)])
@pytest.mark.parametrize("command", [["sample"], ["stats"], ["runs"]])
def test_another_programs_sqlite_file_is_never_adopted(tmp_path, capsys, monkeypatch, tables, version, command):
    monkeypatch.delenv("PERSIAN_TUI_DB", raising=False)
    path = tmp_path / "other.db"
    schema = foreign(path, tables, version)
    assert main(["--db", str(path), *command]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not a persian-tui database" in err, err
    assert state(path) == (schema, "delete")


def test_our_files_old_and_new_still_open(tmp_path, small_db):
    with Store(small_db) as s:  # made before application_id: recognised by its tables
        s.conn.execute("PRAGMA application_id = 0")
    with Store(small_db) as s:
        assert len(s.questions.questions()) == 3
        assert s.conn.execute("PRAGMA application_id").fetchone()[0] == dbmod.APPLICATION_ID
    with Store(tmp_path / "new.db") as s:
        assert s.conn.execute("PRAGMA application_id").fetchone()[0] == dbmod.APPLICATION_ID
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()  # a zero-byte file: becomes ours
    with Store(empty) as s:
        assert s.version > 0


def test_a_wal_that_cannot_be_read_is_refused_not_shown_stale(tmp_path, monkeypatch, small_db):
    from factories import make_question

    writer = Store(small_db)
    writer.conn.execute("PRAGMA wal_autocheckpoint = 0")
    writer.questions.add_questions([make_question("q-late")])  # only in the -wal file
    real = dbmod._ro_connect

    def read_only_filesystem(uri: str):  # mode=ro cannot make the -shm file there
        if "immutable" not in uri:
            raise sqlite3.OperationalError("unable to open database file")
        return real(uri)

    monkeypatch.setattr(dbmod, "_ro_connect", read_only_filesystem)
    with pytest.raises(StoreError) as e:
        Store(small_db, read_only=True)
    assert "-wal" in str(e.value) and "\n" not in str(e.value)
    writer.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.close()
    with Store(small_db, read_only=True) as s:  # nothing left in the log: read as it is
        assert len(s.questions.questions()) == 4
