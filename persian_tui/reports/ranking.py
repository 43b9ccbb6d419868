"""The one ranking rule of the report and the release leaderboard (docs/methods.md, "Ranking").

Runs are ranked by their accuracy on EVERY keyed question they answered ("all answered": a
run is never judged on a subset because another run answered less). Runs with the same
accuracy (equal fractions, compared exactly) share a rank ("1, 2, 2, 4": competition ranking)
and are listed by run id; a run that answered nothing is ranked last. When the runs answered
DIFFERENT questions, accuracies on different questions are not comparable: the report then ranks
by each run's whole-set accuracy on one common scale (reports/scale.py, `score`), and `respect`
moves a run below any run a Holm-significant paired test put above it.

Rank confidence sets (Mogstad, Romano, Shaikh & Wilhelm 2024): a run's rank is at least 1 + the
runs significantly above it and at most R - the runs significantly below it, "significantly" by
the report's exact McNemar tests of each pair on the questions both answered, Holm-corrected over
Tarone's family: over all pairs (simultaneous: all ranks at once, 95 %) or over the run's own
R - 1 pairs (marginal: this run's rank, 95 %). Holm controls the familywise error under any
dependence and the exact tests hold their level at every n, so the sets hold with exact ties
and near ties (bench/bench_rank_sets.py measures it; docs/methods.md quotes it). They involve no
resampling: another seed never moves them. The order the report shows respects every significant
pair (`respect`), so each run's place lies inside its simultaneous set."""

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


def rank_runs(run_ids: list[int], correct: list[int | Fraction], answered: list[int], *,
              score: list[float] | None = None) -> list[Ranked]:
    """The runs in rank order. `correct[i]` of `answered[i]` keyed questions right for run
    `run_ids[i]` (a Fraction when tied majorities got fractional credit: compared exactly). With
    `score` (the common-scale whole-set accuracy, reports/scale.py) the runs are ordered by it
    instead. The rank sets are added from the pair tests (rank_sets, `with_sets`)."""
    acc = [Fraction(c, n) if n else None for c, n in zip(correct, answered)]
    value: list[Fraction | float | None] = list(acc) if score is None else [
        None if a is None else s for a, s in zip(acc, score)]
    key = [(v is None, -(v or 0), rid) for v, rid in zip(value, run_ids)]
    order = sorted(range(len(run_ids)), key=key.__getitem__)
    ranks: dict[int, int] = {}
    for pos, i in enumerate(order):
        prev = order[pos - 1] if pos else None
        ranks[i] = ranks[prev] if prev is not None and value[prev] == value[i] else pos + 1
    return [Ranked(run_ids[i], ranks[i], float(correct[i]), int(answered[i]), None if a is None else float(a))
            for i in order for a in [acc[i]]]


def with_sets(ranked: list[Ranked], sets: dict[int, tuple[int, int, int, int]]) -> list[Ranked]:
    """`ranked` with each run's rank sets (rank_sets)."""
    return [replace(x, rank_low=sets[x.run_id][0], rank_high=sets[x.run_id][1],
                    rank_low_simultaneous=sets[x.run_id][2], rank_high_simultaneous=sets[x.run_id][3])
            if x.run_id in sets else x for x in ranked]


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


def rank_sets(run_ids: list[int], a: npt.ArrayLike, b: npt.ArrayLike, a_only: npt.ArrayLike,
              b_only: npt.ArrayLike, alpha: float = 0.05) -> dict[int, tuple[int, int, int, int]]:
    """run -> (marginal low, marginal high, simultaneous low, simultaneous high): the ranks each
    run can hold given the exact McNemar tests of every pair (a[k] vs b[k], a_only / b_only the
    discordant counts; pairs sharing no question: 0, 0). A run's rank is at least 1 + the runs
    significantly above it and at most R - the runs significantly below it (Mogstad et al. 2024:
    any procedure controlling the familywise error of the pairwise hypotheses gives valid rank
    sets). Simultaneous: Holm over Tarone's family of all pairs, the report's own decisions.
    Marginal (this run's rank): Holm over Tarone's family of the run's own R - 1 pairs."""
    ids = list(run_ids)
    R = len(ids)
    first, second = np.asarray(a), np.asarray(b)
    up, down = np.asarray(a_only, dtype=np.int64), np.asarray(b_only, dtype=np.int64)
    p = stats.mcnemar_exact_many(up, down)

    def decide(rows: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """Significant among `rows`: Holm over their Tarone family."""
        family = rows & stats.tarone_family(np.where(rows, up + down, 0), alpha)
        out = np.zeros(len(p), dtype=bool)
        if family.any():
            out[family] = stats.holm(p[family]) < alpha
        return out

    def bounds(sig: npt.NDArray[np.bool_], run: int) -> tuple[int, int]:
        above = int((sig & (((second == run) & (down < up)) | ((first == run) & (up < down)))).sum())
        below = int((sig & (((first == run) & (up > down)) | ((second == run) & (down > up)))).sum())
        return 1 + above, R - below

    together = decide(np.ones(len(p), dtype=bool))
    out = {}
    for run in ids:
        own = decide((first == run) | (second == run))
        out[run] = (*bounds(own, run), *bounds(together, run))
    return out
