"""The role check every command passes (cli/access.py) fails closed: a database whose users
cannot be read refuses the command in one line, before it runs."""

from __future__ import annotations

from persian_tui.cli import main


def test_a_database_whose_users_cannot_be_read_refuses_the_command(tmp_path, capsys):
    db = tmp_path / "x.db"
    db.write_bytes(b"not a database at all, " * 200)
    out = tmp_path / "out"
    assert main(["--db", str(db), "--user", "ali", "export", "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot check who may run this command" in err[0] and "nothing was done" in err[0]
    assert not out.exists()


def test_a_folder_as_the_database_refuses_the_command(tmp_path, capsys):
    assert main(["--db", str(tmp_path), "--user", "ali", "export", "-o", str(tmp_path / "o.jsonl")]) == 1
    assert "not a database file" in capsys.readouterr().err


def test_commands_anyone_may_run_are_not_checked(tmp_path, capsys):
    db = tmp_path / "x.db"
    db.write_bytes(b"not a database at all, " * 200)
    main(["--db", str(db), "stats"])
    assert "cannot check who may run" not in capsys.readouterr().err
