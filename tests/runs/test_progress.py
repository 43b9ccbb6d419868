"""A run's progress figures (runs/progress.py)."""

from __future__ import annotations


def test_the_eta_waits_for_real_progress():
    from persian_tui.runs.progress import RunProgress

    p = RunProgress(1, 10)
    from persian_tui.models import Prediction

    p.count(Prediction("q-1", None, "api_error"), 1)
    assert p.eta is None  # an error is no progress
    p.count(Prediction("q-2", 1, "ok"), 1)
    assert p.eta is not None and p.eta > 0


def test_stored_progress_scores_by_the_keys_with_or_without_the_questions(store):
    """Read with the run's questions or, without them, with the bank's keys alone: the same figures."""
    from factories import add_run, keyed_bank

    from persian_tui.runs.progress import stored_progress

    db = keyed_bank(store, 4)  # q-000 … q-003 keyed 1, 2, 3, 4
    uids = [f"q-{i:03d}" for i in range(4)]
    run = db.runs.get_run(add_run(db, "m", [1, 2, 1, "x"], uids=uids))
    read = stored_progress(db, run, uids, questions=db.questions.questions_for_uids(uids))
    keys_only = stored_progress(db, run, uids)
    for p in (read, keys_only):
        assert (p.done, p.correct, p.errors) == (4, 2, 1)
