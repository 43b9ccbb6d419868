"""The one ranking rule of the report and the release leaderboard (docs/methods.md, "Ranking").

Runs are ranked by their accuracy on EVERY keyed question they answered ("all answered": a
run is never judged on a subset because another run answered less). Runs with the same
accuracy (equal fractions, compared exactly) share a rank ("1, 2, 2, 4": competition ranking)
and are listed by run id; a run that answered nothing is ranked last. Different runs may have
answered different questions, so the rank comes with a bootstrap 95 % rank interval: the keyed
questions are resampled (numpy default_rng(seed), the same resamples for every run), each
run's accuracy recomputed on the resampled questions it answered, the runs ranked again the
same way, and the 2.5th and 97.5th percentiles of each run's rank taken (Hall & Miller 2009,
"Using the bootstrap to quantify the authority of an empirical ranking")."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from .. import stats


@dataclass(frozen=True)
class Ranked:
    run_id: int
    rank: int  # 1 = best; ties share a rank
    correct: float  # right answers; a tied majority counts 1/t (reports/selection.py)
    answered: int
    accuracy: float | None  # correct / answered; None when nothing was answered
    rank_low: int | None = None  # bootstrap 95 % rank interval (None without the answer matrix)
    rank_high: int | None = None


def _competition(values: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Competition ranks of each row's values (higher is better; NaN last), ties sharing the best."""
    from scipy.stats import rankdata

    filled = np.where(np.isnan(values), -np.inf, values)
    return rankdata(-filled, method="min", axis=-1).astype(np.int64)


def rank_runs(run_ids: list[int], correct: list[int | Fraction], answered: list[int], *,
              right: npt.NDArray[np.float64] | None = None, asked: npt.NDArray[np.bool_] | None = None,
              n_boot: int = 0, seed: int = 0) -> list[Ranked]:
    """The runs in rank order. `correct[i]` of `answered[i]` keyed questions right for run
    `run_ids[i]` (a Fraction when tied majorities got fractional credit: compared exactly). With
    `right` ((R, Q) credit, 0..1) and `asked` ((R, Q) bool) on one list of Q questions, consistent
    with the counts, and `n_boot` > 0, also the bootstrap rank intervals."""
    acc = [Fraction(c, n) if n else None for c, n in zip(correct, answered)]
    key = [(a is None, -(a or 0), rid) for a, rid in zip(acc, run_ids)]
    order = sorted(range(len(run_ids)), key=key.__getitem__)
    ranks: dict[int, int] = {}
    for pos, i in enumerate(order):
        prev = order[pos - 1] if pos else None
        ranks[i] = ranks[prev] if prev is not None and acc[prev] == acc[i] else pos + 1
    low: list[int | None] = [None] * len(run_ids)
    high = low
    if right is not None and asked is not None and n_boot > 0 and len(run_ids) and right.shape[1]:
        w = stats.bootstrap_weights(right.shape[1], n_boot, seed).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            boot = (w @ right.T.astype(np.float64)) / (w @ asked.T.astype(np.float64))  # (n_boot, R)
        boot_ranks = _competition(boot)
        low = np.quantile(boot_ranks, 0.025, axis=0, method="inverted_cdf").astype(int).tolist()
        high = np.quantile(boot_ranks, 0.975, axis=0, method="inverted_cdf").astype(int).tolist()
    return [Ranked(run_ids[i], ranks[i], float(correct[i]), int(answered[i]),
                   None if a is None else float(a), low[i], high[i]) for i in order for a in [acc[i]]]
