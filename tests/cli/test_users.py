"""`persian-tui users passwd NAME`: an admin sets a password; only its salted hash is stored."""

import io
import sqlite3

import pytest

from persian_tui.cli import main


@pytest.fixture
def people(tmp_path, monkeypatch):
    monkeypatch.delenv("PERSIAN_TUI_DB", raising=False)
    db = str(tmp_path / "p.db")
    assert main(["--db", db, "users", "add", "boss", "--role", "admin"]) == 0
    assert main(["--db", db, "--user", "boss", "users", "add", "ali", "--role", "annotator"]) == 0
    return db


def passwd(monkeypatch, db, *args, text="a long password\n"):
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    return main(["--db", db, *args, "users", "passwd", "ali", "--stdin"])


def stored(db, name):
    return sqlite3.connect(db).execute("SELECT password_hash FROM users WHERE name = ?", (name,)).fetchone()[0]


def test_an_admin_sets_a_password_kept_as_a_hash(people, monkeypatch, capsys):
    assert passwd(monkeypatch, people, "--user", "boss") == 0
    assert "password set for ali (annotator)" in capsys.readouterr().out
    hashed = stored(people, "ali")
    assert hashed.startswith("scrypt$") and "a long password" not in hashed
    from persian_tui.passwords import verify_password

    assert verify_password("a long password", hashed)


def test_an_annotator_cannot_set_passwords(people, monkeypatch, capsys):
    assert passwd(monkeypatch, people, "--user", "ali") == 1
    assert "managing users is for admins" in capsys.readouterr().err
    assert stored(people, "ali") is None


def test_a_short_password_is_refused_in_one_line(people, monkeypatch, capsys):
    assert passwd(monkeypatch, people, "--user", "boss", text="short\n") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at least 10 characters" in err
    assert stored(people, "ali") is None


def test_clearing_a_password(people, monkeypatch, capsys):
    assert passwd(monkeypatch, people, "--user", "boss") == 0
    assert main(["--db", people, "--user", "boss", "users", "passwd", "ali", "--clear"]) == 0
    assert "cannot sign in" in capsys.readouterr().out
    assert stored(people, "ali") is None


def test_no_terminal_and_no_stdin_flag(people, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["--db", people, "--user", "boss", "users", "passwd", "ali"]) == 1
    assert "--stdin" in capsys.readouterr().err


@pytest.mark.parametrize("stdin, reason", [
    (b"\xff\xfe not utf-8\n", "standard input is not UTF-8 (byte 1"),
    (b"ok so far \xed\xa0\x80 a surrogate\n", "standard input is not UTF-8"),
    (b"x" * 20_000_000, "longer than 1024 characters"),
], ids=["not-utf8", "surrogate", "endless-line"])
def test_a_password_on_stdin_is_read_through_a_cap_and_decoded_strictly(people, stdin, reason):
    """`users passwd --stdin` with bytes that are not UTF-8, or `< /dev/zero` (an endless line):
    one line, nothing stored, memory bounded."""
    from processes import cli_process

    done = cli_process(people, "--user", "boss", "users", "passwd", "ali", "--stdin", input=stdin, text=False)
    err = done.stderr.decode()
    assert done.returncode != 0 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert reason in err
    assert stored(people, "ali") is None


def test_dev_zero_as_a_password_ends_at_the_cap(people):
    import resource
    import subprocess
    import sys

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (700 * 2**20,) * 2)

    with open("/dev/zero", "rb") as zero:
        done = subprocess.run([sys.executable, "-P", "-m", "persian_tui.cli", "--db", people, "--user", "boss",
                               "users", "passwd", "ali", "--stdin"], stdin=zero, capture_output=True, text=True,
                              preexec_fn=limited, timeout=120)
    assert done.returncode != 0 and "longer than 1024 characters" in done.stderr
