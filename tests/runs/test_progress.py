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
