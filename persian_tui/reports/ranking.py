"""The one ranking rule of the report and the release leaderboard (docs/methods.md, "Ranking").

Runs are ranked by their accuracy on EVERY keyed question they answered ("all answered": a
run is never judged on a subset because another run answered less). Runs with the same
accuracy (equal fractions, compared exactly) share a rank ("1, 2, 2, 4": competition ranking)
and are listed by run id; a run that answered nothing is ranked last. When the runs answered
DIFFERENT questions, accuracies on different questions are not comparable: the report then ranks
by each run's whole-set accuracy on one common scale (reports/scale.py, `score`), and `respect`
moves a run below any run a Holm-significant paired test put above it.

Rank confidence sets (Mogstad, Romano, Shaikh & Wilhelm 2024): the keyed questions are resampled
(numpy default_rng(seed), the same resamples for every run), each run's accuracy recomputed on
the resampled questions it answered, and every pairwise difference studentized by its bootstrap
SD. A run's rank is at least 1 + the runs significantly above it and at most R - the runs
significantly below it, "significantly" by simultaneous intervals for the differences from the
bootstrap distribution of the largest |t|: over the run's own R - 1 differences (marginal: this
run's rank, 95 %) or over all pairs (simultaneous: all ranks at once, 95 %). Unlike percentiles of
bootstrapped ranks, which fail near ties (Hall & Miller 2009), these are meant to hold with ties;
bench/bench_rank_sets.py measures their coverage (docs/methods.md quotes it).
`rank_unstable` marks a run whose ends change when the critical value moves within its Monte Carlo
error (the order statistics B q +- 2 sqrt(B q (1 - q))): more resamples would settle it."""

from __future__ import annotations

from dataclasses import dataclass, replace
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
    rank_low: int | None = None  # marginal 95 % rank confidence set (None without the answer matrix)
    rank_high: int | None = None
    rank_low_simultaneous: int | None = None  # all runs' ranks at once, 95 %
    rank_high_simultaneous: int | None = None
    rank_unstable: bool = False  # an end moves within the critical value's Monte Carlo error


def _competition(values: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Competition ranks of each row's values (higher is better; NaN last), ties sharing the best."""
    from scipy.stats import rankdata

    filled = np.where(np.isnan(values), -np.inf, values)
    return rankdata(-filled, method="min", axis=-1).astype(np.int64)


def rank_runs(run_ids: list[int], correct: list[int | Fraction], answered: list[int], *,
              right: npt.NDArray[np.float64] | None = None, asked: npt.NDArray[np.bool_] | None = None,
              n_boot: int = 0, seed: int = 0, score: list[float] | None = None,
              boot: npt.NDArray[np.float64] | None = None) -> list[Ranked]:
    """The runs in rank order. `correct[i]` of `answered[i]` keyed questions right for run
    `run_ids[i]` (a Fraction when tied majorities got fractional credit: compared exactly). With
    `right` ((R, Q) credit, 0..1) and `asked` ((R, Q) bool) on one list of Q questions, consistent
    with the counts, and `n_boot` > 0, also the bootstrap rank intervals. With `score` (the
    common-scale whole-set accuracy, reports/scale.py) the runs are ordered by it instead, and
    `boot` ((n_boot, R) its bootstrap replicates) gives the rank sets."""
    acc = [Fraction(c, n) if n else None for c, n in zip(correct, answered)]
    value: list[Fraction | float | None] = list(acc) if score is None else [
        None if a is None else s for a, s in zip(acc, score)]
    key = [(v is None, -(v or 0), rid) for v, rid in zip(value, run_ids)]
    order = sorted(range(len(run_ids)), key=key.__getitem__)
    ranks: dict[int, int] = {}
    for pos, i in enumerate(order):
        prev = order[pos - 1] if pos else None
        ranks[i] = ranks[prev] if prev is not None and value[prev] == value[i] else pos + 1
    R = len(run_ids)
    sets: list[list[int | None]] = [[None] * R for _ in range(4)]
    unstable = [False] * R
    if score is not None and boot is not None and R:
        sets, unstable = sets_from(np.asarray(score, dtype=np.float64), boot)
    elif right is not None and asked is not None and n_boot > 0 and R and right.shape[1]:
        sets, unstable = rank_sets(right, asked, n_boot, seed)
    return [Ranked(run_ids[i], ranks[i], float(correct[i]), int(answered[i]), None if a is None else float(a),
                   sets[0][i], sets[1][i], sets[2][i], sets[3][i], unstable[i])
            for i in order for a in [acc[i]]]


def respect(ranked: list[Ranked], beats: set[tuple[int, int]]) -> list[Ranked]:
    """`ranked` reordered so that no run stands above a run that significantly beat it (`beats`:
    (winner, loser) run ids, the Holm-significant pairs): repeatedly the first run in the given
    order that no unplaced run beat (Kahn's topological sort, stable; a cycle, which the pair
    tests could in principle give, is broken by the given order). Unchanged when nothing
    contradicts; otherwise ranks are positions, a tie kept only between neighbours that tied."""
    left = list(ranked)
    out: list[Ranked] = []
    while left:
        ids = {x.run_id for x in left}
        free = [x for x in left if not any((w, x.run_id) in beats for w in ids)]
        pick = free[0] if free else left[0]
        out.append(pick)
        left.remove(pick)
    if [x.run_id for x in out] == [x.run_id for x in ranked]:
        return ranked
    fixed: list[Ranked] = []
    for pos, x in enumerate(out):
        prev = fixed[-1] if fixed else None
        tie = prev is not None and x.rank == out[pos - 1].rank
        fixed.append(replace(x, rank=prev.rank if tie and prev is not None else pos + 1))
    return fixed


def rank_sets(right: npt.NDArray[np.float64], asked: npt.NDArray[np.bool_], n_boot: int, seed: int,
              alpha: float = 0.05) -> tuple[list[list[int | None]], list[bool]]:
    """[marginal low, marginal high, simultaneous low, simultaneous high] per run, and whether a
    run's ends are unstable (Mogstad et al. 2024, with the paired bootstrap of the questions)."""
    w = stats.bootstrap_weights(right.shape[1], n_boot, seed).astype(np.float64)
    got, seen = right.astype(np.float64), asked.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = got.sum(axis=1) / seen.sum(axis=1)
        boot = (w @ got.T) / (w @ seen.T)  # (n_boot, R)
    return sets_from(acc, boot, alpha)


def sets_from(acc: npt.NDArray[np.float64], boot: npt.NDArray[np.float64], alpha: float = 0.05
              ) -> tuple[list[list[int | None]], list[bool]]:
    """rank_sets from the estimates `acc` (R,) and their paired bootstrap replicates (n_boot, R)."""
    n_boot = boot.shape[0]
    diff = acc[:, None] - acc[None, :]
    R = len(acc)
    step = max(1, 2_000_000 // max(R * R, 1))  # resamples per chunk: (chunk, R, R) stays small

    def chunks():
        for start in range(0, n_boot, step):
            part = boot[start:start + step]
            yield part[:, :, None] - part[:, None, :]  # (chunk, R, R) differences

    count, total = np.zeros((R, R)), np.zeros((R, R))
    for d in chunks():
        count += (~np.isnan(d)).sum(axis=0)
        total += np.nansum(d, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
    squares = np.zeros((R, R))
    for d in chunks():
        squares += np.nansum((d - mean[None]) ** 2, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(squares / (count - 1))
    scale = np.where(se > 0, se, np.nan)[None]
    row_max, all_max = [], []
    for d in chunks():
        with np.errstate(invalid="ignore"):
            t = np.nan_to_num(np.abs(d - diff[None]) / scale, nan=0.0)  # no variation: never the largest
        row_max.append(t.max(axis=2))
        all_max.append(t.max(axis=(1, 2)))
    q = 1 - alpha
    spread = 2 * np.sqrt(n_boot * q * (1 - q))
    ranks = [int(np.clip(np.ceil(n_boot * q + d) - 1, 0, n_boot - 1)) for d in (0.0, -spread, spread)]
    marginal = np.sort(np.concatenate(row_max), axis=0)  # (n_boot, R): each run's largest |t|
    overall = np.sort(np.concatenate(all_max))
    results = []
    for k in ranks:  # the critical value, then its Monte Carlo low and high ends
        m_crit = marginal[k]
        s_crit = np.full(R, overall[k])
        m_low, m_high = _bounds(diff, se, m_crit)
        s_low, s_high = _bounds(diff, se, s_crit)
        results.append((m_low, m_high, s_low, s_high))
    first = results[0]
    unstable = [any(r[x][i] != first[x][i] for r in results[1:] for x in range(4)) for i in range(R)]
    return [list(x) for x in first], unstable


def _bounds(diff: npt.NDArray[np.float64], se: npt.NDArray[np.float64], crit: npt.NDArray[np.float64]
                     ) -> tuple[list[int], list[int]]:
    """Rank bounds of each run j from its differences diff[j, k] = acc_j - acc_k, significant
    where |diff| > crit[j] * se (crit[j]: j's own critical value, or one for all runs)."""
    R = diff.shape[0]
    with np.errstate(invalid="ignore"):
        sig = np.abs(diff) - crit[:, None] * se > 0  # row j: j differs from k
    sig = np.nan_to_num(sig, nan=0).astype(bool)
    np.fill_diagonal(sig, False)
    above = (sig & (diff < 0)).sum(axis=1)  # runs significantly above j
    below = (sig & (diff > 0)).sum(axis=1)
    return (1 + above).astype(int).tolist(), (R - below).astype(int).tolist()
