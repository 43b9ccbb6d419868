"""Bad command-line input: one line naming the input, never a traceback."""

import pytest
from factories import make_question

from persian_tui.cli import main
from persian_tui.store import Store

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


def test_folder_given_as_a_file(small_db, tmp_path, capsys):
    (tmp_path / "d").mkdir()
    for command in ("import", "import-labels", "import-predictions"):
        assert main(["--db", str(small_db), command, str(tmp_path / "d")]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(tmp_path / "d") in err and "directory" in err, err


def test_non_utf8_files(small_db, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\xff\xfe,x\n")
    for command in ("import", "import-labels", "import-predictions"):
        assert main(["--db", str(small_db), command, str(bad)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "bad.csv" in err and "Traceback" not in err, err


def test_report_into_a_file_is_one_line(tmp_path, capsys):
    from persian_tui.models import Prediction

    small_db = tmp_path / "r.db"
    with Store(small_db) as s:
        s.questions.add_questions([make_question("q1")])
        s.runs.create_run("llm", "m", {}, total=1, status="done",
                          predictions=[Prediction(uid="q1", predicted=1, parse_status="ok")])
    (tmp_path / "file").write_text("x")
    assert main(["--db", str(small_db), "report", "--format", "csv", "-o", str(tmp_path / "file")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "file/leaderboard.csv" in err and "not a directory" in err, err
