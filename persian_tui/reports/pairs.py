"""Paired comparisons of the report's runs, each pair on its OWN overlap (docs/methods.md).

- Every pair (a ranked above b) is compared on the keyed questions BOTH answered with a single
  answer (`n`; a tied majority vote has none and is left out of its pairs): a_only / b_only count
  the questions only a / only b got right there, on the same questions as n.
- Exact McNemar p (the binomial test of b/(b+c) = 1/2). The multiplicity family is the pairs of
  the runs in THIS report that can reach significance (Tarone 1990, stats.tarone_family): a pair
  whose few discordant questions cannot give p < alpha/K is left out, so adding a short run does
  not move the others' conclusions. Holm (1979) over that family; outside it p_holm is None and
  the pair is never "significant".
- The difference (accuracy of a minus b on the overlap) with Tango's (1998) score interval,
  continuity-corrected by half a question (Chang et al. 2024; stats.paired_difference_interval),
  which covers the difference itself (>= 0.955 by exact enumeration); where it and the exact test
  disagree about 0 the row says so (`disagree`). The Bonferroni-adjusted simultaneous interval
  (level 1 - alpha/m over all m tested pairs) holds for all pairs at once.
- Power: the minimum detectable difference from the exact power of the exact test at the pair's
  observed discordance (stats.exact_mde), at alpha and at the Bonferroni level alpha/K (Holm's
  first step); the questions needed for a difference of `effect` from the same exact power
  (stats.exact_n; Connor's (1987) normal approximation only as its starting guess).
- Letters: a compact letter display of the Holm decisions (Piepho 2004): runs sharing a letter
  were not found different, which is not evidence that they are equal."""

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
    n: int  # keyed questions both runs answered with one answer: everything below is on these
    a_only: int  # questions only a got right
    b_only: int
    p_exact: float | None  # exact McNemar; None when the runs share no question
    p_holm: float | None  # Holm-adjusted within the family; None outside it
    diff: float | None  # accuracy(a) - accuracy(b) on the n questions
    diff_low: float | None  # Tango score 95 % interval (continuity-corrected), per pair
    diff_high: float | None
    diff_low_simultaneous: float | None = None  # Bonferroni-adjusted: all tested pairs at once
    diff_high_simultaneous: float | None = None
    mde: float | None = None  # minimum detectable difference at ALPHA (exact power), `power`
    mde_adjusted: float | None = None  # the same at the Bonferroni level ALPHA / K
    n_needed: int | None = None  # questions needed to detect Report.effect at ALPHA (exact power)
    n_needed_adjusted: int | None = None  # the same at ALPHA / K
    in_family: bool = False  # can reach significance: in the Holm family (Tarone 1990)
    disagree: bool = False  # the interval and the exact test differ about 0

    @property
    def significant(self) -> bool:
        return self.p_holm is not None and self.p_holm < ALPHA


@dataclass
class Family:
    """What the multiplicity correction was over."""
    runs: int  # runs in the report
    pairs: int  # pairs sharing a question (tested)
    size: int  # pairs in the Holm family (Tarone's K restriction)
    level: float  # Bonferroni level ALPHA / K: Holm's first step

    @property
    def sentence(self) -> str:
        left = self.pairs - self.size
        text = (f"Holm family: the {self.size} pair(s) of the {self.runs} runs in this report that can reach "
                f"significance")
        if left:
            text += (f"; {left} pair(s) with too few discordant questions to reach p < {self.level:.2g} are "
                     "left out of the correction and are not significant (Tarone 1990)")
        return text + "."


def _opt(x, cast=float):
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else cast(x)


def pair_rows(run_ids: list[int], order: list[int], right: npt.NDArray[np.bool_], asked: npt.NDArray[np.bool_],
              effect: float, power: float) -> tuple[list[PairRow], Family]:
    """Every pair in ranking order, and the family. right, asked: (R, Q) bool over the keyed
    questions (asked: answered with a single answer); order: run indices in ranking order;
    run_ids: the ids of the R runs."""
    R = len(run_ids)
    ia, ib = np.triu_indices(R, k=1)
    idx = np.array(order, dtype=np.int64)
    ia, ib = idx[ia], idx[ib]
    s = asked.astype(np.int64)
    r = (right & asked).astype(np.int64)  # one right-answer matrix for one n: a tie is neither
    n = (s @ s.T)[ia, ib]
    both = (r @ r.T)[ia, ib]
    a_only = (r @ s.T)[ia, ib] - both  # a right, b answered, minus both right
    b_only = (s @ r.T)[ia, ib] - both
    tested = n > 0
    p = stats.mcnemar_exact_many(a_only, b_only)
    family = tested & stats.tarone_family(np.where(tested, a_only + b_only, 0), ALPHA)
    holm = np.full(len(p), np.nan)
    holm[family] = stats.holm(p[family])
    k = max(int(family.sum()), 1)
    m = max(int(tested.sum()), 1)
    lo, hi = stats.paired_difference_interval(a_only, b_only, n, ALPHA)
    slo, shi = stats.paired_difference_interval(a_only, b_only, n, ALPHA / m)
    with np.errstate(invalid="ignore", divide="ignore"):
        psi = np.where(tested, (a_only + b_only) / np.maximum(n, 1), 0.0)
        diff = (a_only - b_only) / np.maximum(n, 1)
    mde = stats.exact_mde(psi, n, ALPHA, power)
    mde_adj = stats.exact_mde(psi, n, ALPHA / k, power)
    need = stats.exact_n(np.where(tested, psi, 0.0), effect, ALPHA, power)
    need_adj = stats.exact_n(np.where(tested, psi, 0.0), effect, ALPHA / k, power)
    rows = []
    for j in range(len(ia)):
        t = bool(tested[j])
        excludes = bool(lo[j] > 0 or hi[j] < 0)
        rows.append(PairRow(
            a=run_ids[ia[j]], b=run_ids[ib[j]], n=int(n[j]), a_only=int(a_only[j]), b_only=int(b_only[j]),
            p_exact=float(p[j]) if t else None, p_holm=_opt(float(holm[j])),
            diff=float(diff[j]) if t else None, diff_low=float(lo[j]) if t else None,
            diff_high=float(hi[j]) if t else None,
            diff_low_simultaneous=float(slo[j]) if t else None,
            diff_high_simultaneous=float(shi[j]) if t else None,
            mde=_opt(float(mde[j])), mde_adjusted=_opt(float(mde_adj[j])),
            n_needed=_opt(float(need[j]), int), n_needed_adjusted=_opt(float(need_adj[j]), int),
            in_family=bool(family[j]), disagree=t and excludes != bool(p[j] < ALPHA)))
    return rows, Family(R, int(tested.sum()), int(family.sum()), ALPHA / k)


def letters(ranked: list[int], pairs: list[PairRow]) -> list[list[int]]:
    """The compact letter display of the Holm decisions (stats.compact_letters): each entry the
    runs sharing one letter (a, b, ... in order), a run may hold several."""
    return stats.compact_letters(ranked, [(p.a, p.b) for p in pairs if p.significant])


def run_letters(ranked: list[int], columns: list[list[int]]) -> dict[int, str]:
    """run -> its letters, e.g. "ab"."""
    names = stats.letter_names(len(columns))
    return {r: "".join(name for name, col in zip(names, columns) if r in col) for r in ranked}
