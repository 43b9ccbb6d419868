"""Paired comparisons of the report's runs, each pair on its OWN overlap (docs/methods.md).

- Every pair (a ranked above b) is compared on the keyed questions BOTH answered (`n`): a_only
  / b_only count the questions only a / only b got right there. A run that answered few
  questions limits only its own pairs.
- Exact McNemar p (the binomial test of b/(b+c) = 1/2), Holm-adjusted over all pairs that share
  a question (a pair sharing none has no test, p None, and is never "significant").
- The difference (accuracy of a minus b on the overlap) with the interval of the same exact
  conditional test (stats.mcnemar_interval): it excludes 0 exactly when p_exact < ALPHA; and the
  Bonferroni-adjusted simultaneous interval (level 1 - ALPHA/m for m tested pairs), which holds
  for all pairs at once (it can include 0 where Holm, a stepwise test, finds a difference).
- Power by Connor's (1987) formula for the McNemar test at the pair's observed discordance
  (share of the overlap only one run got right): the minimum detectable difference and the
  questions needed for a difference of `effect`, at the per-pair ALPHA and at ALPHA/m (Holm's
  first step, the threshold the smallest p must pass).
- Groups: from the top of the ranking down, the best run not yet grouped leads a group that takes
  every ungrouped run below it whose Holm p against the leader is >= ALPHA (or untested)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .. import stats

ALPHA = 0.05


@dataclass
class PairRow:
    a: int  # run ids; a is ranked above b
    b: int
    n: int  # keyed questions both runs answered: everything below is on these
    a_only: int  # questions only a got right
    b_only: int
    p_exact: float | None  # exact McNemar; None when the runs share no question
    p_holm: float | None  # Holm-adjusted over all tested pairs
    diff: float | None  # accuracy(a) - accuracy(b) on the n questions
    diff_low: float | None  # exact (McNemar-consistent) 95 % interval, per pair
    diff_high: float | None
    diff_low_simultaneous: float | None = None  # Bonferroni-adjusted: all pairs at once
    diff_high_simultaneous: float | None = None
    mde: float | None = None  # minimum detectable difference at ALPHA (Connor), `power`
    mde_adjusted: float | None = None  # the same at ALPHA / m (Holm's first step)
    n_needed: int | None = None  # questions needed to detect Report.effect at ALPHA
    n_needed_adjusted: int | None = None  # the same at ALPHA / m

    @property
    def significant(self) -> bool:
        return self.p_holm is not None and self.p_holm < ALPHA


def _opt(x, cast=float):
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else cast(x)


def pair_rows(run_ids: list[int], order: list[int], right: npt.NDArray[np.bool_], asked: npt.NDArray[np.bool_],
              effect: float, power: float) -> list[PairRow]:
    """Every pair in ranking order. right, asked: (R, Q) bool over the keyed questions;
    order: run indices in ranking order; run_ids: the ids of the R runs."""
    R = len(run_ids)
    ia, ib = np.triu_indices(R, k=1)
    idx = np.array(order, dtype=np.int64)
    ia, ib = idx[ia], idx[ib]
    r = right.astype(np.int64)
    s = asked.astype(np.int64)
    n = (s @ s.T)[ia, ib]
    both = (r @ r.T)[ia, ib]
    a_only = (r @ s.T)[ia, ib] - both  # a right, b answered, minus both right
    b_only = (s @ r.T)[ia, ib] - both
    tested = n > 0
    p = stats.mcnemar_exact_many(a_only, b_only)
    holm = np.full(len(p), np.nan)
    holm[tested] = stats.holm(p[tested])
    m = max(int(tested.sum()), 1)
    lo, hi = stats.mcnemar_interval(a_only, b_only, n, ALPHA)
    slo, shi = stats.mcnemar_interval(a_only, b_only, n, ALPHA / m)
    with np.errstate(invalid="ignore", divide="ignore"):
        psi = np.where(tested, (a_only + b_only) / np.maximum(n, 1), 0.0)
        diff = (a_only - b_only) / np.maximum(n, 1)
    mde = stats.connor_mde(psi, n, ALPHA, power)
    mde_adj = stats.connor_mde(psi, n, ALPHA / m, power)
    need = stats.connor_n(psi, effect, ALPHA, power)
    need_adj = stats.connor_n(psi, effect, ALPHA / m, power)
    rows = []
    for k in range(len(ia)):
        t = bool(tested[k])
        rows.append(PairRow(
            a=run_ids[ia[k]], b=run_ids[ib[k]], n=int(n[k]), a_only=int(a_only[k]), b_only=int(b_only[k]),
            p_exact=float(p[k]) if t else None, p_holm=float(holm[k]) if t else None,
            diff=float(diff[k]) if t else None, diff_low=float(lo[k]) if t else None,
            diff_high=float(hi[k]) if t else None,
            diff_low_simultaneous=float(slo[k]) if t else None,
            diff_high_simultaneous=float(shi[k]) if t else None,
            mde=_opt(float(mde[k])), mde_adjusted=_opt(float(mde_adj[k])),
            n_needed=_opt(float(need[k]), int), n_needed_adjusted=_opt(float(need_adj[k]), int)))
    return rows


def groups(ranked: list[int], pairs: list[PairRow]) -> list[list[int]]:
    """From the top down, a leader and the ungrouped runs below it it does not beat (Holm)."""
    beats = {(p.a, p.b) for p in pairs if p.significant}
    out, grouped = [], set()
    for pos, leader in enumerate(ranked):
        if leader in grouped:
            continue
        group = [leader] + [o for o in ranked[pos + 1:] if o not in grouped and (leader, o) not in beats]
        grouped.update(group)
        out.append(group)
    return out
