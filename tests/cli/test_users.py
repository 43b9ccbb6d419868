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


def users(db, capsys, *argv, user="boss"):
    code = main(["--db", db, "--user", user, "users", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_users_role_changes_a_role_in_place_and_keeps_it_in_the_history(people, capsys):
    """One command, one transaction: the role changes, the person keeps their name, password and
    added date, and the change is a line of `users history`."""
    added = sqlite3.connect(people).execute("SELECT created_at FROM users WHERE name = 'ali'").fetchone()[0]
    code, out, err = users(people, capsys, "role", "ali", "reviewer")
    assert code == 0, err
    assert out.startswith("ali is a reviewer now (was an annotator): ")
    row = sqlite3.connect(people).execute("SELECT role, created_at FROM users WHERE name = 'ali'").fetchone()
    assert row == ("reviewer", added)
    code, out, _ = users(people, capsys, "history", "ali")
    assert [line.split()[2:] for line in out.splitlines()] == [["added", "annotator"], ["role", "reviewer"]]


@pytest.mark.parametrize(("argv", "user", "said"), [
    (("role", "boss", "reviewer"), "boss", "boss is the last admin: add another admin first"),
    (("role", "ali", "annotator"), "boss", "ali is already an annotator"),
    (("role", "nobody", "admin"), "boss", "nobody is not a user"),
    (("role", "ali", "boss"), "boss", "invalid choice: 'boss'"),
    (("role", "ali", "admin"), "ali", "ali is an annotator: managing users is for admins"),
])
def test_users_role_refuses_in_one_line_and_changes_nothing(people, capsys, argv, user, said):
    before = sqlite3.connect(people).execute("SELECT name, role FROM users ORDER BY name").fetchall()
    with pytest.raises(SystemExit) if said.startswith("invalid") else _nothing():
        code, _, err = users(people, capsys, *argv, user=user)
        assert code == 1 and said in err and len(err.strip().splitlines()) == 1, err
    assert sqlite3.connect(people).execute("SELECT name, role FROM users ORDER BY name").fetchall() == before
    assert sqlite3.connect(people).execute("SELECT count(*) FROM user_events WHERE event = 'role'").fetchone() == (0,)


def _nothing():
    import contextlib

    return contextlib.nullcontext()


def test_the_last_admin_is_checked_inside_the_transaction(people, capsys):
    """Two admins demoting each other at once: the second change re-reads the users under the
    write lock and finds itself the last admin (the store's check, not the command's)."""
    from persian_tui.store import Store, StoreError

    assert users(people, capsys, "add", "sara", "--role", "admin")[0] == 0
    with Store(people) as first, Store(people) as second:
        first.users.set_role("sara", "reviewer")
        with pytest.raises(StoreError, match="boss is the last admin"):
            second.users.set_role("boss", "annotator")
