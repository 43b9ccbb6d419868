"""The headless commands, run in-process through main(argv)."""

import json
import re

import pytest
from factories import benchmark_item

from persian_tui.cli import main
from persian_tui.store import Store


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("PERSIAN_TUI_DB", raising=False)
    return str(tmp_path / "cli.db")


@pytest.mark.parametrize("command", ["import", "export", "stats", "tui", "sample"])
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    assert e.value.code == 0 and "usage: persian-tui" in capsys.readouterr().out


def test_import_export_stats(db, tmp_path, capsys):
    src = tmp_path / "bench.json"
    src.write_text(json.dumps([benchmark_item(6)], ensure_ascii=False), "utf-8")
    assert main(["--db", db, "import", str(src), "--dry-run"]) == 1  # a dry run creates no database
    assert "no such database" in capsys.readouterr().err
    Store(db).close()
    assert main(["--db", db, "import", str(src), "--dry-run"]) == 0
    assert "dry run" in capsys.readouterr().out
    assert main(["--db", db, "import", str(src)]) == 0
    assert "1 new, 0 linked, 0 unchanged, 0 duplicate, 0 conflict, 0 rejected" in capsys.readouterr().out
    out = tmp_path / "x.jsonl"
    assert main(["--db", db, "export", "-o", str(out)]) == 0
    assert len(out.read_text("utf-8").splitlines()) == 1
    assert main(["--db", db, "stats"]) == 0
    assert "questions: 1" in capsys.readouterr().out


def test_db_from_environment(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PERSIAN_TUI_DB", str(tmp_path / "env.db"))
    Store(tmp_path / "env.db").close()
    assert main(["stats"]) == 0
    assert str(tmp_path / "env.db") in capsys.readouterr().out


def test_user_errors_are_one_line_without_traceback(db, tmp_path, capsys):
    assert main(["--db", db, "import", str(tmp_path / "missing.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("persian-tui: error:") and "no such file" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_sample_command_is_idempotent(db, capsys):
    assert main(["--db", db, "sample"]) == 0
    first = re.search(r"(\d+) new, 0 linked, 0 unchanged", capsys.readouterr().out)
    assert first and int(first[1]) >= 12
    assert main(["--db", db, "sample"]) == 0
    assert f"0 new, 0 linked, {first[1]} unchanged" in capsys.readouterr().out


def test_setting_shows_and_sets_the_fast_minimum(db, capsys):
    from persian_tui.settings import label_min_seconds
    from persian_tui.store import Store

    assert main(["--db", db, "setting"]) == 1  # reading a database that does not exist creates none
    assert "no such database" in capsys.readouterr().err
    Store(db).close()
    assert main(["--db", db, "setting"]) == 0
    assert "label_min_seconds = (default)" in capsys.readouterr().out
    assert main(["--db", db, "setting", "label_min_seconds", "1.5"]) == 0
    assert "label_min_seconds = 1.5" in capsys.readouterr().out
    assert main(["--db", db, "setting", "label_min_seconds", "soon"]) == 2
    assert "'soon' is not valid" in capsys.readouterr().err
    assert main(["--db", db, "setting", "colour", "red"]) == 2
    with Store(db) as s:
        assert label_min_seconds(s.labels) == 1.5
