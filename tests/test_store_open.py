"""Opening the database: missing folders, read-only files and folders, damaged pages."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from factories import ROOT, make_question

from persian_tui.cli import main
from persian_tui.store import Store, StoreError

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
    assert main(["stats"]) == 1  # a reading command never creates it (tests/test_first_contact.py)
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
    import sqlite3

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
