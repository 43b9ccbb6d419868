"""Repeated samples in the report (reports/samples.py)."""

import numpy as np
import pytest

from persian_tui import stats


def test_repeated_samples_chance_agreement():
    from itertools import product

    assert stats.chance_agreement(5) == pytest.approx(0.496, abs=1e-3)
    for k in (1, 2, 3, 4):  # by brute force over every sequence of answers
        seqs = list(product(range(4), repeat=k))
        expected = np.mean([max(s.count(o) for o in range(4)) for s in seqs]) / k
        assert stats.chance_agreement(k) == pytest.approx(expected, rel=1e-12)


def test_chance_agreement_with_unusable_replies_by_brute_force():
    """Observed agreement counts unusable replies in its denominator; its chance level
    must too. Brute force over every sequence of K replies from 4 options and 'unusable'."""
    from itertools import product

    for k, u in ((3, 0.1), (5, 0.05), (4, 0.3)):
        probs = [(1 - u) / 4] * 4 + [u]
        expected = sum(np.prod([probs[x] for x in seq]) * max(seq.count(o) for o in range(4))
                       for seq in product(range(5), repeat=k)) / k
        assert stats.chance_agreement(k, unusable=u) == pytest.approx(expected, rel=1e-12)
    assert stats.chance_agreement(5, unusable=0.05) == pytest.approx(0.478, abs=1e-3)
    assert stats.chance_agreement(5, unusable=0.06) == pytest.approx(0.474, abs=1e-3)


def test_a_runs_chance_agreement_is_at_its_own_unusable_share(store):
    from factories import add_questions

    from persian_tui.models import Prediction
    from persian_tui.reports.figures import build_report

    add_questions(store, [1, 2, 3, 4])
    samples = {"q1": [1, 1, None, 1, 2], "q2": [2, 2, 2, 2, 2], "q3": [3, 1, 3, None, 3], "q4": [4, 4, 1, 4, 4]}
    preds = [Prediction(uid, a, "ok" if a else "invalid", sample=s) for uid, answers in samples.items()
             for s, a in enumerate(answers)]
    store.runs.create_run("llm", "voter", {"samples": 5}, total=4, status="done", predictions=preds)
    (s,) = build_report(store, n_boot=20).samples
    assert s.unusable_share == pytest.approx(2 / 20)
    assert s.chance_agreement == pytest.approx(stats.chance_agreement(5, unusable=0.1), rel=1e-12)
    assert s.chance_agreement < stats.chance_agreement(5)
