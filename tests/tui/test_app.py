"""Starting the app (tui/app.py): run_app's checks, and the sample bank seeded into a database
that never held a question."""

from __future__ import annotations

from factories import make_question, sample_file
from tui_helpers import bank_loaded, make_app, notices

from persian_tui import settings
from persian_tui.store import Store
from persian_tui.tui import app as tui_app
from persian_tui.tui.app import run_app

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


def test_run_app_rejects_a_bad_bidi_mode(capsys):
    assert run_app(db=None, bidi="sideways") == 2
    assert "invalid bidi mode" in capsys.readouterr().err


def test_run_app_reports_a_bad_database(tmp_path, capsys):
    bad = tmp_path / "bad.db"
    bad.write_text("not a database\n" * 100)
    assert run_app(db=str(bad), bidi="app") == 1
    assert "cannot open" in capsys.readouterr().err


async def test_each_app_keeps_its_own_notices_even_when_workers_raise_them(tmp_path):
    """Notices raised from worker threads are all logged, in this app only (the log is per app,
    appended under a lock; it was a class attribute rebuilt without one)."""
    import threading

    app = make_app(tmp_path / "a.db")
    async with app.run_test() as pilot:
        await bank_loaded(pilot)
        workers = [threading.Thread(target=app.notify, args=(f"from a worker {i}",)) for i in range(8)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert sorted(n for n in notices(app) if n.startswith("from a worker")) == [
            f"from a worker {i}" for i in range(8)]
    other = make_app(tmp_path / "b.db")
    assert notices(other) == []
