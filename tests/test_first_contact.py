"""What a new user meets first: a failed command leaves no new empty database behind, a reading
command never creates one, the app seeds the sample bank into a database that never held a
question, and a closed pipe ends quietly."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from factories import ROOT, left_behind, make_question, sample_file
from tui_helpers import bank_loaded, make_app, notices

from persian_tui import settings
from persian_tui.bank.importer import apply_import, plan_import
from persian_tui.cli import main
from persian_tui.store import Store
from persian_tui.tui import app as tui_app


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


def test_discard_keeps_a_database_in_use_or_holding_data(tmp_path):
    from persian_tui.store import discard_if_unused

    db = tmp_path / "x.db"
    Store(db).close()
    with Store(db):  # another connection has it open: it may be about to write
        assert discard_if_unused(db) is False and db.exists()
    with Store(db) as s:
        s.labels.set_setting("label_target", "2")
    assert discard_if_unused(db) is False and db.exists()
    other = tmp_path / "y.db"
    Store(other).close()
    assert discard_if_unused(other) is True and left_behind(other) == []
    assert discard_if_unused(other) is False  # nothing there
    not_ours = tmp_path / "notes.txt"
    not_ours.write_text("not a database\n" * 50)
    assert discard_if_unused(not_ours) is False and not_ours.exists()


# ------------------------------------------------------------------ a reading command

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


# ------------------------------------------------------------------ the app's sample bank


def test_the_app_is_told_to_seed_a_database_that_exists_but_never_held_a_question(tmp_path, monkeypatch):
    """`persian-tui stats` once made an empty file; the app then opened on "0 questions"."""
    db = tmp_path / "empty.db"
    Store(db).close()
    started = []
    monkeypatch.setattr(tui_app.PersianTUI, "run", lambda self: started.append(self.sample))
    assert tui_app.run_app(db=str(db), bidi="app") == 0
    assert started == [True]
    assert tui_app.run_app(db=str(db), bidi="app", sample=False) == 0  # --no-sample
    assert started == [True, False]


async def test_the_app_seeds_an_empty_existing_database(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "sample_bank_path", lambda: sample_file(tmp_path))
    db = tmp_path / "empty.db"
    Store(db).close()
    app = make_app(db, sample=True)
    async with app.run_test() as pilot:
        await bank_loaded(pilot)
        assert app.store.questions.counts().total == 2 and app.store.questions.get_question("q-s1") is not None


async def test_the_app_never_seeds_a_bank_that_has_questions(tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "sample_bank_path", lambda: sample_file(tmp_path))
    db = tmp_path / "bank.db"
    with Store(db) as s:
        s.questions.add_questions([make_question("q-mine")])
    app = make_app(db, sample=True)
    async with app.run_test() as pilot:
        await bank_loaded(pilot)
        assert app.store.questions.counts().total == 1 and app.store.questions.get_question("q-s1") is None
        assert not any("sample" in n for n in notices(app))


def test_seeding_rechecks_inside_the_write_transaction(tmp_path):
    """Another process stores a question between the app's look and its write: no sample then."""
    db = tmp_path / "race.db"
    with Store(db) as app_store, Store(db) as other:
        assert app_store.questions.never_held_a_question()
        plan = plan_import(app_store, sample_file(tmp_path), fmt="jsonl")
        other.questions.add_questions([make_question("q-theirs")])
        assert apply_import(app_store, plan, skip_invalid=True, only_into_empty=True) == 0
        assert app_store.questions.uids() == {"q-theirs"}
        assert not app_store.questions.never_held_a_question()


# ------------------------------------------------------------------ a closed pipe


@pytest.fixture(scope="module")
def pipe_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("pipe") / "pipe.db"
    assert main(["--db", str(db), "sample"]) == 0
    return db


@pytest.mark.parametrize("args", [["stats"], ["runs"], ["agreement"], ["items"], ["--help"], ["corpus", "stats"]],
                         ids=" ".join)
def test_a_closed_pipe_ends_quietly(pipe_db, args):
    """`persian-tui stats | head -1`: the reader has gone before the output is written. Like
    ripgrep, the command ends with status 0 and says nothing (git dies of SIGPIPE, 141)."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "persian_tui.cli", "--db", str(pipe_db), *args],
                              stdout=write, stderr=subprocess.PIPE, cwd=ROOT, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(write)
    assert (done.returncode, done.stderr.decode()) == (0, "")
