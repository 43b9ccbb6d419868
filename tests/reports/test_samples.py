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
