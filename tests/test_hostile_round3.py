"""Hostile input, round 3: the database is never the victim of an export, the judge is never
fooled by an unterminated <think>, importers never hang on FIFOs or devices."""

import os
import sqlite3

import pytest
from conftest import make_question

from persian_tui.cli import main
from persian_tui.io.files import WriteError, write_atomic
from persian_tui.store import Store


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "x.db"
    with Store(path) as s:
        s.add_questions([make_question(f"q-{i}") for i in range(3)])
    return path


def _intact(db):
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM questions").fetchone()[0] == 3


@pytest.mark.parametrize("target", ["same", "symlink", "wal", "shm", "wal-symlink", "hardlink", "dotted"])
def test_export_never_writes_over_the_database(db, tmp_path, target, capsys):
    # keep a second connection open so the -wal and -shm files exist
    keep = sqlite3.connect(db)
    keep.execute("PRAGMA journal_mode=WAL")
    keep.execute("BEGIN")
    keep.execute("SELECT count(*) FROM questions").fetchone()
    paths = {"same": db, "wal": f"{db}-wal", "shm": f"{db}-shm", "dotted": tmp_path / "." / "x.db"}
    if target in ("symlink", "wal-symlink"):
        paths[target] = tmp_path / "link.jsonl"
        paths[target].symlink_to(db if target == "symlink" else f"{db}-wal")
    if target == "hardlink":
        paths[target] = tmp_path / "hard.jsonl"
        os.link(db, paths[target])
    before = db.read_bytes()
    assert main(["--db", str(db), "export", "-o", str(paths[target])]) == 1
    err = capsys.readouterr().err
    assert "database" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert db.read_bytes() == before
    keep.close()
    _intact(db)


def test_report_and_corpus_outputs_never_write_over_the_database(db, tmp_path, capsys):
    from persian_tui.store.registry import register

    register(db)
    with pytest.raises(WriteError, match="the database"):
        write_atomic(db, b"x")
    _intact(db)


def test_a_dangling_symlink_target_is_refused(tmp_path, db, capsys):
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "nowhere" / "deeper" / "x.jsonl")
    assert main(["--db", str(db), "export", "-o", str(link)]) == 1
    err = capsys.readouterr().err
    assert "dangling symlink" in err and "Traceback" not in err, err
    assert not (tmp_path / "nowhere").exists()
    # a dangling symlink as a folder on the way is refused too
    (tmp_path / "dir").symlink_to(tmp_path / "gone")
    with pytest.raises(WriteError, match="dangling symlink"):
        write_atomic(tmp_path / "dir" / "sub" / "x.jsonl", b"x")
    assert not (tmp_path / "gone").exists()
