"""What every command shares (cli/common.py): the database opener (a reading command never
creates a database, opens it read-only; a failed command leaves no new empty file behind), the
bounded-number arguments, one-line errors, capped lists of rejected rows."""

from __future__ import annotations

import json
import os

import pytest
from factories import left_behind, make_question, sample_file

from persian_tui.cli import main
from persian_tui.models import Prediction
from persian_tui.store import Store


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty working folder, no database named by the environment."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PERSIAN_TUI_DB", raising=False)
    return tmp_path


# ------------------------------------------------------------------ a failed command


def test_a_failed_import_leaves_no_new_database(fresh, capsys):
    bad = fresh / "bad.json"
    bad.write_text(json.dumps([{"not": "a question"}]), "utf-8")
    db = fresh / "new.db"
    assert main(["--db", str(db), "import", str(bad)]) == 1
    assert "cannot tell the format" in capsys.readouterr().err
    assert left_behind(db) == []
    assert main(["import", str(bad)]) == 1  # the default file, and the folder made for it
    assert not (fresh / "db").exists()


@pytest.mark.parametrize("args", [["runs", "history", "7"], ["runs", "archive", "7"],
                                  ["judge", "7", "--judge-model", "m", "--base-url", "http://127.0.0.1:9/v1"],
                                  ["curate", "q-none", "--annotator", "me"]])
def test_a_command_failing_after_it_opened_a_new_database_removes_it(fresh, args, capsys):
    db = fresh / "new.db"
    assert main(["--db", str(db), *args]) != 0
    assert "Traceback" not in capsys.readouterr().err
    assert left_behind(db) == []


def test_a_failed_command_never_removes_a_file_that_was_there(fresh, capsys):
    empty = fresh / "empty.db"
    Store(empty).close()  # a database already there, with nothing in it
    touched = fresh / "touched.db"
    touched.touch()  # a zero-byte file already there
    for db in (empty, touched):
        assert main(["--db", str(db), "runs", "history", "7"]) == 1
        assert db.exists()


def test_a_new_database_holding_data_is_kept(fresh, capsys):
    db = fresh / "new.db"
    assert main(["--db", str(db), "import", str(sample_file(fresh))]) == 0
    assert main(["--db", str(db), "runs", "history", "7"]) == 1  # fails, but the file was there
    assert db.exists()


def test_a_name_too_long_to_look_up_is_one_line_and_never_discarded(fresh, capsys):
    long = str(fresh / ("x" * 300))
    for args in (["stats"], ["sample"]):
        assert main(["--db", long, *args]) == 1
        err = capsys.readouterr().err
        assert "file name too long" in err and "Traceback" not in err, err


READING_COMMANDS = [["stats"], ["runs"], ["runs", "--all"], ["runs", "history", "1"], ["report"],
                    ["export", "-o", "out.jsonl"], ["agreement"], ["errors"], ["items"], ["samples", "1"],
                    ["setting"], ["corpus", "stats"], ["corpus", "search", "عشق"], ["corpus", "similar", "عشق"],
                    ["shortcuts"], ["release", "--list"], ["import", "q.jsonl", "--dry-run"], ["sample", "--dry-run"],
                    ["import-labels", "labels.csv", "--dry-run"], ["import-predictions", "answers.csv", "--dry-run"],
                    ["curate", "q-1", "--dry-run"]]


@pytest.mark.parametrize("args", READING_COMMANDS, ids=" ".join)
def test_a_reading_command_never_creates_a_database(fresh, args, capsys):
    (fresh / "q.jsonl").write_text("", "utf-8")
    (fresh / "labels.csv").write_text("annotator,uid,answer\nme,q-1,1\n", "utf-8")
    (fresh / "answers.csv").write_text("model_name,question_id,model_answer\nm,1,1\n", "utf-8")
    assert main(args) == 1  # the default file
    err = capsys.readouterr().err
    assert "no database yet" in err and "persian-tui sample" in err and "Traceback" not in err, err
    assert not (fresh / "db").exists()
    assert main(["--db", str(fresh / "typo.db"), *args]) == 1  # a named file
    assert "no such database" in capsys.readouterr().err
    assert sorted(p.name for p in fresh.iterdir()) == ["answers.csv", "labels.csv", "q.jsonl"]


@pytest.mark.parametrize("command", [["stats"], ["corpus", "stats"], ["corpus", "search", "عشق"], ["shortcuts"],
                                     ["runs"], ["report"], ["items"]])
def test_reading_commands_never_create_a_database(tmp_path, command, capsys):
    typo = tmp_path / "typo.db"
    assert main(["--db", str(typo), *command]) == 1
    assert "no such database" in capsys.readouterr().err
    assert not typo.exists() and not os.path.exists(f"{typo}-wal")


@pytest.mark.parametrize("command", [["stats"], ["corpus", "stats"], ["corpus", "search", "عشق"], ["shortcuts"],
                                     ["export", "-o", "OUT"], ["runs"], ["agreement"]])
def test_reading_commands_open_the_database_read_only(small_db, tmp_path, command, monkeypatch, capsys):
    import persian_tui.cli.common as cli_module

    opened = []

    class Spy(Store):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            opened.append(self.read_only)

    monkeypatch.setattr(cli_module, "Store", Spy)
    command = [str(tmp_path / "o.jsonl") if c == "OUT" else c for c in command]
    code = main(["--db", str(small_db), *command])
    assert code == 0, capsys.readouterr().err
    assert opened == [True]


# ---------------------------------------------------------------- rejected-row reports are capped


def _capped(out: str, kind: str, total: int) -> None:
    lines = [line for line in out.splitlines() if line.startswith(f"{kind}: ")]
    assert len(lines) == 21 and lines[-1] == f"{kind}: ... and {total - 20} more", lines[-3:]


def test_label_rejections_are_capped(small_db, tmp_path, capsys):
    csv = tmp_path / "labels.csv"
    csv.write_text("annotator,uid,answer\n" + "".join(f"a{i},nope-{i},1\n" for i in range(500)), encoding="utf-8")
    assert main(["--db", str(small_db), "import-labels", str(csv), "--dry-run"]) == 0
    _capped(capsys.readouterr().out, "rejected", 500)


def test_question_rejections_are_capped(small_db, tmp_path, capsys):
    src = tmp_path / "bad.jsonl"
    src.write_text("".join(json.dumps({"uid": f"x{i}"}) + "\n" for i in range(300)), encoding="utf-8")
    assert main(["--db", str(small_db), "import", str(src), "--dry-run"]) == 0
    _capped(capsys.readouterr().out, "rejected", 300)


def test_reasoning_misses_are_capped(tmp_path, capsys):
    s = Store(tmp_path / "r.db")
    s.questions.add_questions([make_question("q-1", source_name="src", source_id="7")])
    s.runs.create_run("imported", "m", {"source": "src"}, status="done", predictions=[Prediction("q-1", 1, "ok")])
    folder = tmp_path / "traces"
    folder.mkdir()
    for i in range(100):
        (folder / f"{i}.json").write_text(json.dumps({"model_id": "m", "question_id": f"n{i}",
                                                      "reasoning_text": "x"}), encoding="utf-8")
    assert main(["--db", str(s.path), "import-reasoning", str(folder)]) == 0
    _capped(capsys.readouterr().out, "unmatched", 100)
    s.close()


HUGE = "9" * 30


@pytest.mark.parametrize("args, expected", [
    (["report", "--runs", f"1,{HUGE}"], f"got '1,{HUGE}'"),
    (["report", "--runs", "-1"], "got '-1'"),
    (["run", "llm", "--resume", HUGE], "a number is too large"),
    (["run", "embed", "--paraphrases", HUGE], "a number is too large"),
])
def test_one_line_errors(small_db, tmp_path, capsys, args, expected):
    assert main(["--db", str(small_db), *args]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err, err


@pytest.mark.parametrize("args, expected", [
    (["report", "--seed", "-1"], "argument --seed: must be between 0"),
    (["report", "--bootstrap", "99999999999"], "argument --bootstrap: must be between 1 and 1000000"),
    (["report", "--bootstrap", "0"], "argument --bootstrap: must be between 1"),
    (["errors", "--run", HUGE], "argument --run: must be between 1"),
    (["errors", "--run", "x" * 5000], "argument --run: expected a whole number"),
    (["report", "--seed", "9" * 5000], "argument --seed: expected a whole number"),
])
def test_numbers_out_of_range_are_usage_errors(small_db, capsys, args, expected):
    with pytest.raises(SystemExit) as e:
        main(["--db", str(small_db), *args])
    err = capsys.readouterr().err
    assert e.value.code == 2 and expected in err and "Traceback" not in err
