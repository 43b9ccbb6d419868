"""The one writer of exports and reports (files/outputs.py): atomic, never over a database or
what is not a regular file, modes kept, no temps left."""

import os
import socket
import sqlite3
import stat
import subprocess
import sys

import pytest
from factories import make_question

from persian_tui.cli import main
from persian_tui.files.outputs import TAG, WriteError, remove_stale_temps, write_atomic
from persian_tui.models import Prediction
from persian_tui.store import Store

AS_ROOT = os.geteuid() == 0


def no_temps(folder):
    return [n for n in os.listdir(folder) if TAG in n]


def test_new_file_is_0644_and_replaced_atomically(tmp_path):
    out = tmp_path / "sub" / "x.jsonl"
    write_atomic(out, b"one\n")
    assert out.read_bytes() == b"one\n" and stat.S_IMODE(out.stat().st_mode) == 0o644
    write_atomic(out, b"two\n")
    assert out.read_bytes() == b"two\n" and no_temps(out.parent) == []


def test_existing_mode_is_kept(tmp_path):
    out = tmp_path / "private.jsonl"
    out.write_bytes(b"old")
    out.chmod(0o600)
    write_atomic(out, b"new")
    assert out.read_bytes() == b"new" and stat.S_IMODE(out.stat().st_mode) == 0o600


def test_fifo_is_refused_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(WriteError, match="pipe: is a FIFO"):
        write_atomic(fifo, b"x")  # would block forever if it opened the FIFO
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and no_temps(tmp_path) == []


def test_socket_and_directory_are_refused(tmp_path):
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "s"))
    try:
        with pytest.raises(WriteError, match="is a socket"):
            write_atomic(tmp_path / "s", b"x")
    finally:
        sock.close()
    (tmp_path / "d").mkdir()
    with pytest.raises(WriteError, match="is a directory"):
        write_atomic(tmp_path / "d", b"x")
    assert (tmp_path / "d").is_dir() and no_temps(tmp_path) == []


def test_device_is_refused_without_writing():
    before = os.stat(os.devnull)
    with pytest.raises(WriteError, match="is a character device"):
        write_atomic(os.devnull, b"x")
    after = os.stat(os.devnull)
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_symlink_is_written_through(tmp_path):
    real = tmp_path / "real" / "x.jsonl"
    real.parent.mkdir()
    real.write_bytes(b"old")
    real.chmod(0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    write_atomic(link, b"new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == b"new" and stat.S_IMODE(real.stat().st_mode) == 0o640
    # a symlink to a FIFO is refused like the FIFO itself
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "to-pipe").symlink_to(tmp_path / "pipe")
    with pytest.raises(WriteError, match="is a FIFO"):
        write_atomic(tmp_path / "to-pipe", b"x")


def test_dangling_symlink_is_refused(tmp_path):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "target.jsonl")
    with pytest.raises(WriteError, match="link: is a dangling symlink"):
        write_atomic(link, b"x")
    assert link.is_symlink() and not (tmp_path / "target.jsonl").exists()


def test_temp_removed_on_error(tmp_path, monkeypatch):
    out = tmp_path / "x.jsonl"

    def boom(*a):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(WriteError, match="x.jsonl: cannot write: no space left on device"):
        write_atomic(out, b"data")
    assert no_temps(tmp_path) == [] and not out.exists()


def test_stale_temps_of_a_killed_run_are_removed(tmp_path):
    out = tmp_path / "x.jsonl"
    # a writer killed mid-write: its temp file stays, its process is gone
    code = ("import os, sys\nfrom persian_tui.files import outputs\n"
            "outputs.os.replace = lambda *a: os.kill(os.getpid(), 9)\n"
            "outputs.write_atomic(outputs.Path(sys.argv[1]), b'half')\n")
    subprocess.run([sys.executable, "-c", code, str(out)], check=False)
    stale = no_temps(tmp_path)
    assert len(stale) == 1 and stale[0].startswith(".x.jsonl.persian-tui-") and stale[0].endswith(".tmp")
    # a live writer's temp (this process) is left alone
    live = tmp_path / f".x.jsonl{TAG}{os.getpid()}-abc.tmp"
    live.write_bytes(b"")
    write_atomic(out, b"whole")
    assert out.read_bytes() == b"whole" and no_temps(tmp_path) == [live.name]
    assert remove_stale_temps(out) == []


@pytest.mark.skipif(AS_ROOT, reason="root writes into read-only folders")
def test_read_only_folder_is_one_line_error(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(WriteError, match="read-only"):
            write_atomic(ro / "x.jsonl", b"x")
    finally:
        ro.chmod(0o755)


def test_read_only_folder_error_message(tmp_path, monkeypatch):
    # works as root too: the folder refuses the temp file as a read-only one would
    import tempfile

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(WriteError, match=r"x.jsonl: cannot write in .*permission denied \(the folder is read-only"):
        write_atomic(tmp_path / "x.jsonl", b"x")


def test_cli_export_refusals_are_one_line(tmp_path, capsys):
    db = str(tmp_path / "t.db")
    from persian_tui.store import Store

    with Store(db) as s:
        s.questions.add_questions([make_question("q1")])
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "dir").mkdir()
    for target, reason in (("pipe", "is a FIFO"), ("dir", "is a directory")):
        assert main(["--db", db, "export", "-o", str(tmp_path / target)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and reason in err and "Traceback" not in err
    assert main(["--db", db, "export", "-o", os.devnull]) == 1
    assert "character device" in capsys.readouterr().err
    assert no_temps(tmp_path) == []


def _intact(db):
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM questions").fetchone()[0] == 3


@pytest.mark.parametrize("target", ["same", "symlink", "wal", "shm", "wal-symlink", "hardlink", "dotted"])
def test_export_never_writes_over_the_database(small_db, tmp_path, target, capsys):
    # keep a second connection open so the -wal and -shm files exist
    keep = sqlite3.connect(small_db)
    keep.execute("PRAGMA journal_mode=WAL")
    keep.execute("BEGIN")
    keep.execute("SELECT count(*) FROM questions").fetchone()
    paths = {"same": small_db, "wal": f"{small_db}-wal", "shm": f"{small_db}-shm", "dotted": tmp_path / "." / "x.db"}
    if target in ("symlink", "wal-symlink"):
        paths[target] = tmp_path / "link.jsonl"
        paths[target].symlink_to(small_db if target == "symlink" else f"{small_db}-wal")
    if target == "hardlink":
        paths[target] = tmp_path / "hard.jsonl"
        os.link(small_db, paths[target])
    before = small_db.read_bytes()
    assert main(["--db", str(small_db), "export", "-o", str(paths[target])]) == 1
    err = capsys.readouterr().err
    assert "database" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert small_db.read_bytes() == before
    keep.close()
    _intact(small_db)


def test_report_and_corpus_outputs_never_write_over_the_database(small_db, tmp_path, capsys):
    from persian_tui.store.registry import register

    register(small_db)
    with pytest.raises(WriteError, match="the database"):
        write_atomic(small_db, b"x")
    _intact(small_db)


def test_a_dangling_symlink_target_is_refused(tmp_path, small_db, capsys):
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "nowhere" / "deeper" / "x.jsonl")
    assert main(["--db", str(small_db), "export", "-o", str(link)]) == 1
    err = capsys.readouterr().err
    assert "dangling symlink" in err and "Traceback" not in err, err
    assert not (tmp_path / "nowhere").exists()
    # a dangling symlink as a folder on the way is refused too
    (tmp_path / "dir").symlink_to(tmp_path / "gone")
    with pytest.raises(WriteError, match="dangling symlink"):
        write_atomic(tmp_path / "dir" / "sub" / "x.jsonl", b"x")
    assert not (tmp_path / "gone").exists()


def test_report_into_a_file_is_one_line(tmp_path, capsys):

    small_db = tmp_path / "r.db"
    with Store(small_db) as s:
        s.questions.add_questions([make_question("q1")])
        s.runs.create_run("llm", "m", {}, total=1, status="done",
                          predictions=[Prediction(uid="q1", predicted=1, parse_status="ok")])
    (tmp_path / "file").write_text("x")
    assert main(["--db", str(small_db), "report", "--format", "csv", "-o", str(tmp_path / "file")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "file/leaderboard.csv" in err and "not a directory" in err, err


def another_database(path):
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE precious (x)")
        conn.execute("INSERT INTO precious VALUES ('kept')")
    conn.close()
    return path.read_bytes()


def test_any_sqlite_database_is_never_replaced(tmp_path):
    other = tmp_path / "other.db"
    before = another_database(other)
    with pytest.raises(WriteError, match="is an SQLite database; an export never replaces one"):
        write_atomic(other, b"{}\n")
    assert other.read_bytes() == before
    side = tmp_path / "other.db-wal"
    side.write_bytes(b"wal frames")
    with pytest.raises(WriteError, match="is the -wal file of the database"):
        write_atomic(side, b"{}\n")
    assert side.read_bytes() == b"wal frames"


@pytest.mark.parametrize("command", [["export"], ["shortcuts", "--format", "json"]],
                         ids=["export", "shortcuts"])
def test_export_and_shortcuts_never_replace_another_database(tmp_path, capsys, command):
    from persian_tui.cli import main

    db, other = tmp_path / "mine.db", tmp_path / "other.db"
    assert main(["--db", str(db), "sample"]) == 0
    before = another_database(other)
    capsys.readouterr()
    assert main(["--db", str(db), *command, "-o", str(other)]) == 1
    assert "is an SQLite database" in capsys.readouterr().err
    assert other.read_bytes() == before


def test_standard_output_on_a_pipe_is_named_as_one(tmp_path):
    from processes import cli_process

    db = tmp_path / "s.db"
    assert cli_process(db, "sample").returncode == 0
    done = cli_process(db, "export", "-o", "/dev/stdout")  # its standard output is a pipe here
    assert done.returncode == 1 and "is a FIFO (named pipe); exports only write regular files" in done.stderr
