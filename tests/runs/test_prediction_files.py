"""Published answer CSVs (the seed's exp-1 and exp-6 formats) imported as runs
(runs/prediction_files.py)."""

from __future__ import annotations

import csv

import pytest
from factories import make_question, random_couplets, run_import
from processes import together

from persian_tui.cli import main
from persian_tui.files.inputs import InputError
from persian_tui.runs.prediction_files import import_predictions
from persian_tui.store import Store


@pytest.fixture
def bank(store):
    store.questions.add_questions([make_question(f"q-{i}", couplets=[(f"الف {i} {j}", f"ب {i} {j}") for j in range(4)],
                                                 key=2, source_name="book", source_id=str(i)) for i in (6, 12, 14)])
    return store


def write(tmp_path, rows, header):
    path = tmp_path / "answers.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_exp6_format_one_run_per_model(bank, tmp_path):
    path = write(tmp_path, [["m/a", 6, 2, 2, "True", 1], ["m/a", 12, "", 2, "False", 0], ["m/a", 99, 1, 1, "True", 1],
                            ["m/b", 6, 3, 2, "False", 5], ["m/b", 14, 2, 2, "True", 1]],
                 ["model_name", "question_id", "model_answer", "correct_answer", "is_correct", "completion_tokens"])
    r = import_predictions(bank, path)
    assert r.runs_new == {"m/a": 2, "m/b": 2} and r.unmatched == {"99": 1} and r.invalid == 1
    by_model = {s.run.model: s for s in bank.runs.run_summaries()}
    assert (by_model["m/a"].correct, by_model["m/a"].invalid) == (1, 1)
    assert (by_model["m/b"].correct, by_model["m/b"].done) == (1, 2)
    empty = [p for p in bank.runs.predictions(by_model["m/a"].run.id) if p.uid == "q-12"][0]
    assert (empty.parse_status, empty.predicted) == ("empty", None)
    assert import_predictions(bank, path).runs_unchanged == ["m/a", "m/b"]  # idempotent
    assert len(bank.runs.runs()) == 2


def test_exp1_format_and_a_repeated_id(bank, tmp_path):
    path = write(tmp_path, [["g", 6, 2, 2], ["g", 6, 3, 2], ["g", 12, 2, 1]],
                 ["model_name", "question_number", "model_answer", "completion_tokens"])
    r = import_predictions(bank, path)  # which of the two answers to "6" is ours is unknown
    assert r.ambiguous == {"6": 2} and r.runs_new == {"g": 1}
    assert [p.uid for p in bank.runs.predictions(bank.runs.runs()[0].id)] == ["q-12"]
    bad = write(tmp_path, [["x"]], ["foo"])
    with pytest.raises(InputError, match="expected columns"):
        import_predictions(bank, bad)


def test_seed_exp6_counts_match_its_is_correct_column(store, seed):
    """Every row whose question is in the bank is imported; correct counts equal the CSV's."""
    run_import(store, seed / "gherabat-questions-sample.json", answers=seed / "gherabat-answer-keys.json")
    source = "gherabat-questions-sample"
    r = import_predictions(store, seed / "exp6-llm-answers.csv", source=source)
    in_bank = {q.source_id for q in store.questions.questions()}
    every = list(csv.DictReader(open(seed / "exp6-llm-answers.csv", encoding="utf-8")))
    twice = {sid for sid in r.ambiguous}  # the book repeats id 6: each model answered two "6"s
    assert twice == {"6"}
    rows = [row for row in every if row["question_id"] in in_bank and row["question_id"] not in twice]
    summaries = {s.run.model: s for s in store.runs.run_summaries()}
    assert len(summaries) == len({row["model_name"] for row in rows}) == 31
    for model, s in summaries.items():
        mine = [row for row in rows if row["model_name"] == model]
        assert s.done == len(mine)
        assert s.correct == sum(row["is_correct"] == "True" for row in mine)
        assert s.invalid == sum(not row["model_answer"].strip() for row in mine)
    assert sum(r.unmatched.values()) + sum(r.ambiguous.values()) == 5400 - len(rows)


def test_cli_import_predictions(bank, tmp_path, capsys):
    path = write(tmp_path, [["m", 6, 2, 1]], ["model_name", "question_number", "model_answer", "completion_tokens"])
    assert main(["--db", str(bank.path), "import-predictions", str(path)]) == 0
    assert "imported 1 run(s)" in capsys.readouterr().out
    assert main(["--db", str(bank.path), "runs"]) == 0
    assert "imported" in capsys.readouterr().out


def test_answer_cells_are_read_by_the_answer_parser(bank, tmp_path):
    cells = {"m/digit": "۳", "m/letter": "C", "m/marker": "Answer: 2", "m/word": "گزینه سوم",
             "m/junk": "lorem ipsum 42", "m/two": "Answer: 2\nAnswer: 3", "m/refuse": "I can't help with that.",
             "m/empty": "", "m/five": "5"}
    path = write(tmp_path, [[m, 6, cell] for m, cell in cells.items()],
                 ["model_name", "question_number", "model_answer"])
    r = import_predictions(bank, path)
    assert sorted(r.runs_new) == sorted(cells) and r.invalid == 5
    got = {}
    for run in bank.runs.runs():
        (p,) = bank.runs.predictions(run.id)
        got[run.model] = (p.predicted, p.parse_status, p.raw_output)
    assert got["m/digit"] == (3, "ok", "۳") and got["m/letter"] == (3, "ok", "C")
    assert got["m/marker"] == (2, "ok", "Answer: 2") and got["m/word"] == (3, "ok", "گزینه سوم")
    assert got["m/junk"] == (None, "invalid", "lorem ipsum 42")  # kept with its raw cell, not dropped
    assert got["m/two"][:2] == (None, "ambiguous") and got["m/refuse"][:2] == (None, "refusal")
    assert got["m/empty"] == (None, "empty", None) and got["m/five"][:2] == (None, "invalid")
    by_model = {s.run.model: s for s in bank.runs.run_summaries()}
    assert by_model["m/two"].invalid == 1 and by_model["m/marker"].correct == 1


def test_cli_reports_unreadable_cells(bank, tmp_path, capsys):
    path = write(tmp_path, [["m", 6, "Answer: 2"], ["m", 12, "hmm"], ["m", 14, "پاسخ: ۱\nپاسخ: ۴"]],
                 ["model_name", "question_number", "model_answer"])
    assert main(["--db", str(bank.path), "import-predictions", str(path)]) == 0
    assert "3 predictions, 2 without a usable answer" in capsys.readouterr().out


def test_three_processes_import_one_predictions_file(tmp_path):
    import csv

    db = tmp_path / "p.db"
    with Store(db) as store:
        store.questions.add_questions([make_question(f"q-{i}", random_couplets(i), key=2, source_name="book",
                                                     source_id=str(i)) for i in range(20)])
    path = tmp_path / "answers.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["model_name", "question_id", "model_answer", "correct_answer", "is_correct",
                    "completion_tokens"])
        w.writerows([[f"m/{m}", i, 2, 2, "True", 1] for m in range(5) for i in range(20)])
    done = together(db, [["import-predictions", str(path), "--source", "book"] for _ in range(3)])
    assert [d.returncode for d in done] == [0, 0, 0], [d.stderr for d in done]
    with Store(db) as store:
        assert len(store.runs.runs()) == 5  # one run per model, not 15
        assert store.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] == 100


@pytest.mark.parametrize("tokens", ["9" * 5000, "²", "-1", "1e9999", str(10**12)],
                         ids=["5000-digits", "superscript", "negative", "exponent", "too-large"])
def test_hostile_token_counts_are_one_line(small_db, tmp_path, tokens, capsys):
    csv = tmp_path / "p.csv"
    csv.write_text(f"model_name,question_id,model_answer,completion_tokens\nm,1,2,{tokens}\n", encoding="utf-8")
    assert main(["--db", str(small_db), "import-predictions", str(csv)]) == 1
    err = capsys.readouterr().err
    assert "line 2: completion_tokens" in err and "Traceback" not in err, err


def test_a_database_failing_mid_import_says_what_was_written(bank, tmp_path, capsys, monkeypatch):
    """Runs written before the disk filled are reported as written, never as
    "nothing was written"; importing the file again adds the rest."""
    from persian_tui.cli import main
    from persian_tui.store import StoreError
    from persian_tui.store.runs import RunsRepo

    rows = [[f"m{k}", sid, "1"] for k in range(5) for sid in (6, 12)]
    path = write(tmp_path, rows, ["model_name", "question_number", "model_answer"])
    real, calls = RunsRepo.create_run, []

    def filling(self, *a, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise StoreError(f"{bank.path}: disk full (free some space and try again); nothing was written")
        return real(self, *a, **kw)

    monkeypatch.setattr(RunsRepo, "create_run", filling)
    assert main(["--db", str(bank.path), "import-predictions", str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "2 of 5" in err and "nothing was written" not in err, err
    assert len([r for r in bank.runs.runs() if r.kind == "imported"]) == 2
    monkeypatch.setattr(RunsRepo, "create_run", real)
    assert main(["--db", str(bank.path), "import-predictions", str(path)]) == 0
    assert len([r for r in bank.runs.runs() if r.kind == "imported"]) == 5
def test_rows_left_out_on_import_are_recorded_and_the_report_says_so(bank, tmp_path):
    """A published table's accuracy was on more questions than were imported; the
    run records how many of its rows matched no single question, and the report says so."""
    from persian_tui.reports.figures import build_report
    from persian_tui.reports.report_files import render_text

    path = write(tmp_path, [["m/a", 6, 2, 2, "True", 1], ["m/a", 12, 2, 2, "True", 0], ["m/a", 99, 1, 1, "True", 1],
                            ["m/b", 6, 3, 2, "False", 5], ["m/b", 14, 2, 2, "True", 1]],
                 ["model_name", "question_id", "model_answer", "correct_answer", "is_correct", "completion_tokens"])
    import_predictions(bank, path)
    params = {r.model: r.params for r in bank.runs.runs()}
    assert (params["m/a"]["rows"], params["m/a"]["dropped"]) == (3, 1)
    assert (params["m/b"]["rows"], params["m/b"]["dropped"]) == (2, 0)
    report = build_report(bank, n_boot=20)
    run_a = next(r.id for r in bank.runs.runs() if r.model == "m/a")
    assert report.dropped == {run_a: (1, 3)}
    assert f"#{run_a}: 1 of 3" in render_text(report) and "published table" in render_text(report)
