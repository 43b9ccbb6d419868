"""`persian-tui web` refuses, in one line, what it cannot serve: no users, no password, half a
TLS pair, a bad --pass-env name; admins only."""

import io

import pytest

from persian_tui.cli import main

pytest.importorskip("textual_serve", reason="textual-serve is not installed (the web extra)")


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("PERSIAN_TUI_DB", raising=False)
    path = str(tmp_path / "w.db")
    assert main(["--db", path, "sample"]) == 0
    return path


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def test_no_users_no_web(db, capsys):
    assert main(["--db", db, "web", "--port", "0"]) == 1
    assert "has no users" in one_line(capsys)


def test_no_password_no_web(db, capsys):
    assert main(["--db", db, "users", "add", "boss", "--role", "admin"]) == 0
    assert main(["--db", db, "--user", "boss", "web", "--port", "0"]) == 1
    assert "users passwd" in one_line(capsys)


def test_web_is_for_admins(db, capsys, monkeypatch):
    assert main(["--db", db, "users", "add", "boss", "--role", "admin"]) == 0
    assert main(["--db", db, "--user", "boss", "users", "add", "ali", "--role", "annotator"]) == 0
    assert main(["--db", db, "--user", "ali", "web"]) == 1
    assert "is for admins" in one_line(capsys)


@pytest.mark.parametrize("args, words", [
    (["--certfile", "cert.pem"], "--certfile and --keyfile go together"),
    (["--pass-env", "NOT-A-NAME"], "not an environment variable name"),
    (["--trust-user-header", "X-Remote-User", "--host", "0.0.0.0"], "anyone who reaches the port could claim"),
])
def test_bad_options_in_one_line(db, capsys, monkeypatch, args, words):
    assert main(["--db", db, "users", "add", "boss", "--role", "admin"]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("boss password 1\n"))
    assert main(["--db", db, "--user", "boss", "users", "passwd", "boss", "--stdin"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "--user", "boss", "web", *args]) == 1
    assert words in one_line(capsys)


def test_a_missing_certificate_in_one_line(db, capsys, monkeypatch, tmp_path):
    assert main(["--db", db, "users", "add", "boss", "--role", "admin"]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("boss password 1\n"))
    assert main(["--db", db, "--user", "boss", "users", "passwd", "boss", "--stdin"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "--user", "boss", "web", "--certfile", str(tmp_path / "no.pem"),
                 "--keyfile", str(tmp_path / "no.key")]) == 1
    assert "cannot load the TLS certificate" in one_line(capsys)


@pytest.mark.parametrize("minutes", ["inf", "nan", "-1", "0", "100000"])
def test_idle_minutes_must_be_a_sensible_time(db, capsys, minutes):
    with pytest.raises(SystemExit):
        main(["--db", db, "web", "--idle-minutes", minutes])
    assert "--idle-minutes" in capsys.readouterr().err
