"""The statistics, from established libraries (scikit-learn, statsmodels, krippendorff).

Every function returns None where a figure is undefined (too few items, one category only)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Sequence
from functools import lru_cache
from itertools import combinations

import numpy as np
from numpy.typing import ArrayLike, NDArray

CATEGORIES = (1, 2, 3, 4)
Floats = NDArray[np.float64]


def _clean(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable], labels: Sequence[Hashable] | None = None
                ) -> float | None:
    """Cohen's kappa of two raters on the same items (answers 1..4 unless `labels` given).
    None (undefined) for fewer than two items, and when both raters gave one and the same
    answer throughout: chance agreement is then 1 and kappa is 0/0 (the agreement count, not
    a made-up 1.00, says they agree)."""
    from sklearn.metrics import cohen_kappa_score

    if len(a) < 2:
        return None
    if len(set(a) | set(b)) == 1:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _clean(cohen_kappa_score(a, b, labels=list(labels or CATEGORIES)))


def pairwise_cohen(votes: list[dict[str, int]]) -> dict[tuple[str, str], tuple[float | None, int]]:
    """(rater, rater) -> (kappa, items both rated), for every pair of raters."""
    raters = sorted({r for v in votes for r in v})
    out: dict[tuple[str, str], tuple[float | None, int]] = {}
    for r1, r2 in combinations(raters, 2):
        shared = [(v[r1], v[r2]) for v in votes if r1 in v and r2 in v]
        out[(r1, r2)] = (cohen_kappa([x for x, _ in shared], [y for _, y in shared]), len(shared))
    return out


def fleiss_kappa(votes: list[dict[str, int]]) -> tuple[float | None, int]:
    """Fleiss' kappa on the items rated by the most common number (>= 2) of raters,
    since the statistic assumes the same number of ratings per item; returns (kappa, items)."""
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    counts = [len(v) for v in votes if len(v) >= 2]
    if not counts:
        return None, 0
    m = max(set(counts), key=lambda c: (counts.count(c), c))
    table = np.array([[list(v.values()).count(c) for c in CATEGORIES] for v in votes if len(v) == m])
    if len(table) < 2:
        return None, len(table)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _clean(sm_fleiss(table, method="fleiss")), len(table)


def krippendorff_alpha(votes: list[dict[str, int]]) -> tuple[float | None, int]:
    """Krippendorff's alpha (nominal) over all items with >= 2 ratings; missing ratings allowed."""
    import krippendorff

    items = [v for v in votes if len(v) >= 2]
    raters = sorted({r for v in items for r in v})
    if len(items) < 2:
        return None, len(items)
    data = np.array([[v.get(r, np.nan) for v in items] for r in raters], dtype=float)
    if len(set(data[~np.isnan(data)])) == 1:
        return 1.0, len(items)
    return _clean(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")), len(items)


def wilson(correct: int, total: int, alpha: float = 0.05) -> tuple[float, float] | None:
    """Wilson score interval of a proportion."""
    from statsmodels.stats.proportion import proportion_confint

    if total == 0:
        return None
    low, high = proportion_confint(correct, total, alpha=alpha, method="wilson")
    return float(low), float(high)


# ---------------------------------------------------------------- comparing runs (reports)
#
# Vectorized over many runs or pairs at once; each figure is the library's own (statsmodels /
# scipy), checked against direct calls in tests/foundation/test_stats.py.


def wilson_many(correct: ArrayLike, total: ArrayLike, alpha: float = 0.05) -> tuple[Floats, Floats]:
    """Wilson score intervals of many proportions at once (statsmodels, method="wilson")."""
    from statsmodels.stats.proportion import proportion_confint

    right = np.asarray(correct, dtype=np.float64)
    n = np.asarray(total, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo, hi = proportion_confint(right, n, alpha=alpha, method="wilson")
    # exact ends where the formula leaves rounding noise (0/n gives 7e-18, n/n 0.9999999999999998)
    low = np.where(right == 0, 0.0, np.asarray(lo, dtype=np.float64))
    high = np.where(right == n, 1.0, np.asarray(hi, dtype=np.float64))
    return low, high


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Exact (binomial) McNemar p-value of paired outcomes, from the discordant counts:
    a_only = items only A got right, b_only = items only B got right."""
    from statsmodels.stats.contingency_tables import mcnemar

    return float(mcnemar([[0, a_only], [b_only, 0]], exact=True).pvalue)


def mcnemar_exact_many(a_only: ArrayLike, b_only: ArrayLike) -> Floats:
    """mcnemar_exact for arrays of pairs: the same formula statsmodels uses
    (min(1, 2 * Binomial(n, 1/2).cdf(min(b, c)))) evaluated by scipy in one call."""
    from scipy.stats import binom

    b = np.asarray(a_only, dtype=np.int64)
    c = np.asarray(b_only, dtype=np.int64)
    p: Floats = np.minimum(1.0, 2.0 * binom.cdf(np.minimum(b, c), b + c, 0.5))
    return p


def holm(pvalues: ArrayLike) -> Floats:
    """Holm-adjusted p-values: the k-th smallest of m is multiplied by m - k + 1, made
    monotone, capped at 1. Equal to statsmodels' multipletests(method="holm") (a test checks),
    written out because that function ends with a full gc.collect() (75 ms with a TUI alive)."""
    p = np.asarray(pvalues, dtype=np.float64)
    if p.size == 0:
        return p
    order = np.argsort(p, kind="stable")
    factors = np.arange(p.size, 0, -1)
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * factors))
    out = np.empty_like(adjusted)
    out[order] = adjusted
    return out


def benjamini_hochberg(pvalues: ArrayLike) -> Floats:
    """Benjamini-Hochberg (1995) adjusted p-values (q-values; scipy.stats.false_discovery_control):
    flag where q < alpha keeps the expected share of false flags among the flags at most alpha."""
    from scipy.stats import false_discovery_control

    p = np.asarray(pvalues, dtype=np.float64)
    if p.size == 0:
        return p
    out: Floats = np.asarray(false_discovery_control(p, method="bh"), dtype=np.float64)
    return out


EXACT_LIMIT = 120  # the exact multinomial test enumerates every table of n over 4 cells: n up to this


def multinomial_exact(observed: ArrayLike, probs: ArrayLike) -> float | None:
    """Exact multinomial goodness-of-fit p-value: the probability, under `probs`, of every table
    of the same total no more likely than the observed one (relative tolerance 1e-7, as scipy's
    binomtest). None when there are too many tables to enumerate (see EXACT_LIMIT)."""
    from scipy.stats import multinomial

    obs = np.asarray(observed, dtype=np.int64)
    pr = np.asarray(probs, dtype=np.float64)
    pr = pr / pr.sum()
    n, k = int(obs.sum()), len(obs)
    if n > EXACT_LIMIT or k > 4:
        return None
    grid = np.indices((n + 1,) * (k - 1)).reshape(k - 1, -1).T
    grid = grid[grid.sum(axis=1) <= n]
    tables = np.column_stack([grid, n - grid.sum(axis=1)])
    logp = multinomial.logpmf(tables, n, pr)
    seen = multinomial.logpmf(obs, n, pr)
    return float(min(1.0, np.exp(logp[logp <= seen + 1e-7 * abs(seen) + 1e-12]).sum()))


def chisquare_gof(observed: ArrayLike, expected: ArrayLike) -> tuple[float | None, float | None]:
    """Pearson chi-square goodness of fit (scipy.stats.chisquare) of observed counts against
    expected counts rescaled to the same total. Cells expected 0 and observed 0 are dropped;
    None (undefined) when nothing is observed, fewer than two cells remain, or a cell that is
    expected 0 was observed. Where an expected count is under 5 the chi-square approximation is
    poor: the p-value is then the exact multinomial test's (multinomial_exact) when the total
    allows enumeration, the statistic still Pearson's."""
    from scipy.stats import chisquare

    obs = np.asarray(observed, dtype=float)
    exp = np.asarray(expected, dtype=float)
    if obs.sum() <= 0 or exp.sum() <= 0 or np.any((exp == 0) & (obs > 0)):
        return None, None
    keep = exp > 0
    if keep.sum() < 2:
        return None, None
    obs, exp = obs[keep], exp[keep]
    exp = exp * obs.sum() / exp.sum()
    stat, p = chisquare(obs, exp)
    if exp.min() < 5 and (exact := multinomial_exact(obs.astype(np.int64), exp)) is not None:
        p = exact
    return _clean(stat), _clean(p)


def bootstrap_weights(n: int, n_boot: int, seed: int) -> NDArray[np.intp]:
    """(n_boot, n) matrix: how often each of n items is drawn in each resample (n draws with
    replacement, numpy default_rng(seed)). Multiplying it with per-item outcomes gives every
    resample's totals at once, and the same resamples serve every run (paired)."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(n_boot, n))
    draws += (np.arange(n_boot) * n)[:, None]
    return np.bincount(draws.ravel(), minlength=n_boot * n).reshape(n_boot, n)


def percentile_interval(samples: Floats, alpha: float = 0.05, axis: int = 0) -> tuple[Floats, Floats]:
    """Percentile bootstrap interval (numpy's linear interpolation) along `axis`."""
    low, high = np.percentile(samples, [100 * alpha / 2, 100 * (1 - alpha / 2)], axis=axis)
    return low, high


def binom_two_sided(successes: int, trials: int, p: float) -> float | None:
    """Two-sided exact binomial test p-value: do successes differ from p, either way? (scipy;
    the two-sided p sums the outcomes no more likely than the one seen)"""
    from scipy.stats import binomtest

    if trials == 0:
        return None
    return float(binomtest(successes, trials, p, alternative="two-sided").pvalue)


def binom_greater(successes: int, trials: int, p: float) -> float | None:
    """One-sided exact binomial test p-value: are successes more frequent than p? (scipy)"""
    from scipy.stats import binomtest

    if trials == 0:
        return None
    return float(binomtest(successes, trials, p, alternative="greater").pvalue)


def binom_less(successes: int, trials: int, p: float) -> float | None:
    """One-sided exact binomial test p-value: are successes less frequent than p? (scipy)"""
    from scipy.stats import binomtest

    if trials == 0:
        return None
    return float(binomtest(successes, trials, p, alternative="less").pvalue)


# ---------------------------------------------------------------- paired comparisons: interval and power
#
# Two runs on the same n questions; b = only A right, c = only B right (the discordant ones).
# Conditional on m = b + c, b ~ Binomial(m, theta) and the accuracy difference is
# (b - c)/n = m/n * (2 theta - 1). The exact McNemar test is the binomial test of theta = 1/2.


def _tango_z(b: Floats, c: Floats, n: Floats, d: Floats, continuity: float = 0.0) -> Floats:
    """Tango's score statistic for H0: accuracy difference = d, with the constrained maximum
    likelihood estimate of the share only B got right in closed form (Tango 1998). With
    `continuity` > 0 the count difference b - c - n d is moved that much towards 0 (and is 0
    within it), as in Chang et al. (2024)."""
    A = 2 * n
    B = -b - c + (2 * n - b + c) * d
    C = -c * d * (1 - d)
    with np.errstate(invalid="ignore", divide="ignore"):
        q21 = (np.sqrt(np.maximum(B * B - 4 * A * C, 0.0)) - B) / (2 * A)
        var = n * (2 * q21 + d * (1 - d))
        gap = b - c - n * d
        z = np.sign(gap) * np.maximum(np.abs(gap) - continuity, 0.0) / np.sqrt(np.maximum(var, 0.0))
    out: Floats = np.nan_to_num(z, nan=0.0, posinf=np.inf, neginf=-np.inf)  # 0/0 only at the estimate
    return out


CONTINUITY = 0.5  # half a question: b - c moves in steps of 1 (one question changes)


def paired_difference_interval(b: ArrayLike, c: ArrayLike, n: ArrayLike, alpha: float = 0.05,
                               continuity: float = CONTINUITY) -> tuple[Floats, Floats]:
    """Tango's (1998) asymptotic score interval of the paired accuracy difference A - B =
    (b - c)/n, continuity-corrected (Chang et al. 2024) by half a question: every difference d
    the corrected score test does not reject at `alpha`, |Z(d)| <= z. Z decreases in d, so each
    end is found by bisection (all pairs at once, 60 halvings of [-1, 1]). Its coverage of the
    difference itself, unlike the exact conditional interval of b/(b + c), holds: uncorrected
    Tango dips to 0.931 at n = 40, the corrected one stays >= 0.955 on the tests' grid
    (enumerated in tests/foundation/test_stats.py). continuity=0 gives Tango's own. NaN where n = 0."""
    from scipy.stats import norm

    only_a, only_b, size = np.broadcast_arrays(np.asarray(b, dtype=np.float64), np.asarray(c, dtype=np.float64),
                                               np.asarray(n, dtype=np.float64))
    z = float(norm.ppf(1 - alpha / 2))
    ends = []
    for target in (z, -z):  # the lower end solves Z = z, the upper Z = -z
        lo, hi = np.full(only_a.shape, -1.0), np.full(only_a.shape, 1.0)
        for _ in range(60):
            mid = (lo + hi) / 2
            above = _tango_z(only_a, only_b, size, mid, continuity) > target
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        ends.append(np.where(size > 0, (lo + hi) / 2, np.nan))
    return ends[0], ends[1]


def _rejection(top: int, alpha: float) -> NDArray[np.int64]:
    """k(m) for m = 0..top: the largest k with 2 F(k; m, 1/2) < alpha (-1: no outcome rejects);
    from a cached table whose length is the next power of two (searches ask for many tops)."""
    return _rejection_table(1 << max(int(top), 1).bit_length(), alpha)[:top + 1]


@lru_cache(maxsize=64)
def _rejection_table(top: int, alpha: float) -> NDArray[np.int64]:
    from scipy.stats import binom

    ms = np.arange(top + 1)
    k = binom.ppf(alpha / 2, ms, 0.5) - 1  # smallest k with F >= alpha/2, minus one
    k = np.where(binom.cdf(k + 1, ms, 0.5) < alpha / 2, k + 1, k)  # guard the ppf's rounding
    return np.asarray(k, dtype=np.int64)


def _power_function(psi: Floats, n: NDArray[np.int64], alpha: float) -> Callable[[ArrayLike], Floats]:
    """effect -> exact power of the two-sided exact McNemar test, for many (psi, n) at once: the
    discordant count m ~ Bin(n, psi), then b ~ Bin(m, theta), theta = (psi + effect)/(2 psi); the
    test rejects when b <= k(m) or b >= m - k(m). The sum over m is taken over a window of +-7.5
    standard deviations around n psi (the mass left out is below 1e-12); the weights of m do not
    depend on the effect and are computed once."""
    from scipy.special import bdtr, bdtrc
    from scipy.stats import binom

    share = np.asarray(psi, dtype=np.float64)
    size = np.broadcast_to(np.asarray(n, dtype=np.int64), share.shape)
    top = int(size.max(initial=0))
    sd = np.sqrt(size * share * (1 - share))
    width = int(min(top + 1, np.ceil(15 * sd.max(initial=0.0)) + 3))
    start = np.clip(np.floor(size * share - 7.5 * sd) - 1, 0, np.maximum(size + 1 - width, 0)).astype(np.int64)
    ms = np.minimum(start[:, None] + np.arange(width)[None, :], top)  # (P, width)
    weight = np.where(ms <= size[:, None], binom.pmf(ms, size[:, None], share[:, None]), 0.0)
    k = _rejection(top, alpha)[ms]
    rejects = k >= 0
    weight, low, high = weight * rejects, np.maximum(k, 0), np.where(rejects, ms - k - 1, ms)

    def power(effect: ArrayLike) -> Floats:
        theta = np.broadcast_to(((share + np.asarray(effect, dtype=np.float64)) / (2 * share))[:, None], ms.shape)
        with np.errstate(invalid="ignore"):
            reject = bdtr(low, ms, theta) + bdtrc(high, ms, theta)
        out: Floats = (weight * np.nan_to_num(reject)).sum(axis=1)
        return out

    return power


def _exact_power(psi: Floats, effect: Floats, n: NDArray[np.int64], alpha: float) -> Floats:
    """Exact power for many (psi, effect, n) (see _power_function)."""
    out: Floats = _power_function(psi, n, alpha)(effect)
    return out


def exact_power(psi: float, effect: float, n: int, alpha: float = 0.05) -> float:
    """The exact power of the exact McNemar test at discordance psi and difference effect."""
    return float(_exact_power(np.array([psi]), np.array([effect]), np.array([n]), alpha)[0])


def _mde_at(psis: Floats, n: NDArray[np.int64], alpha: float, power: float) -> Floats:
    """exact_mde for many (psi, n): regula falsi (Illinois) on exact power - power, bracketed
    near Connor's MDE (else on [0, psi]); returns the upper end, whose power reaches `power`."""
    exact = _power_function(psis, n, alpha)

    def f(effect: Floats) -> Floats:
        out: Floats = exact(effect) - power
        return out

    f_top = f(psis)
    ok = f_top >= 0
    guess = np.nan_to_num(connor_mde(psis, n, alpha, power), nan=0.0)
    lo, hi = np.minimum(0.85 * guess, psis), np.minimum(1.2 * guess, psis)
    f_lo, f_hi = f(lo), f(hi)
    wide = ~((f_lo < 0) & (f_hi >= 0))
    if wide.any():
        lo, hi = np.where(wide, 0.0, lo), np.where(wide, psis, hi)
        f_lo, f_hi = np.where(wide, f(lo), f_lo), np.where(wide, f_top, f_hi)
    side = np.zeros(len(psis))
    for _ in range(60):
        if np.all(~ok | (f_hi < 1e-7) | (hi - lo < 1e-12)):
            break
        with np.errstate(invalid="ignore", divide="ignore"):
            mid = np.where(f_hi > f_lo, (lo * f_hi - hi * f_lo) / (f_hi - f_lo), (lo + hi) / 2)
        mid = np.clip(np.nan_to_num(mid, nan=0.0), lo, hi)
        f_mid = f(mid)
        up = f_mid >= 0
        # Illinois: halve the kept end's value when the same end is kept twice running
        f_lo = np.where(up & (side == 1), f_lo / 2, np.where(up, f_lo, f_mid))
        f_hi = np.where(~up & (side == -1), f_hi / 2, np.where(up, f_mid, f_hi))
        lo, hi = np.where(up, lo, mid), np.where(up, mid, hi)
        side = np.where(up, 1, -1)
    return np.where(ok, hi, np.nan)


def exact_mde(psi: ArrayLike, n: ArrayLike, alpha: float = 0.05, power: float = 0.8) -> Floats:
    """Minimum detectable difference from the EXACT power of the exact McNemar test: the
    smallest effect (0 < effect <= psi) whose exact power reaches `power` at the observed
    discordance psi and n questions (power rises with the effect). NaN where even effect = psi
    (every discordant question one way) falls short, or psi = 0."""
    share = np.asarray(psi, dtype=np.float64).ravel()
    size = np.broadcast_to(np.asarray(n, dtype=np.int64), np.shape(psi)).ravel()
    out = np.full(share.shape, np.nan)
    rows = np.flatnonzero((share > 0) & (size > 0))
    if len(rows):
        pairs, inverse = np.unique(np.column_stack([share[rows], size[rows]]), axis=0, return_inverse=True)
        out[rows] = _mde_at(pairs[:, 0], pairs[:, 1].astype(np.int64), alpha, power)[np.ravel(inverse)]
    return out.reshape(np.shape(psi))


EXACT_N_LIMIT = 20_000  # exact_n: beyond this many questions, Connor's n


def exact_n(psi: ArrayLike, effect: float, alpha: float = 0.05, power: float = 0.8, scan: int = 8) -> Floats:
    """Questions needed to detect an accuracy difference `effect` by the exact McNemar test with
    `power`, from its EXACT power at discordance psi (_power_function), not Connor's normal
    approximation: the smallest n whose exact power reaches `power`, found by bisection between
    0.9 and 1.2 x Connor's n + 8 (widened to 0 and 4 x where that does not bracket it), then by
    scanning the `scan` n below (exact power is not monotone in n: a sawtooth). NaN where the
    difference is impossible at that discordance (effect > psi). Beyond EXACT_N_LIMIT questions
    (a tiny effect) Connor's n is returned: there the normal approximation is close and the
    exact sum too costly."""
    share = np.asarray(psi, dtype=np.float64)
    out = np.full(share.shape, np.nan)
    flat = share.ravel()
    ok = np.flatnonzero((flat > 0) & (effect <= flat))
    if not len(ok):
        return out
    values, inverse = np.unique(flat[ok], return_inverse=True)
    guess = np.nan_to_num(connor_n(values, effect, alpha, power), nan=1.0)
    best = guess.copy()
    small = np.flatnonzero(guess <= EXACT_N_LIMIT)
    order = small[np.argsort((guess * values * (1 - values))[small])]  # chunks of similar spread
    for chunk in np.array_split(order, max(1, len(order) // 24)) if len(order) else ():
        best[chunk] = _exact_n_chunk(values[chunk], guess[chunk], effect, alpha, power, scan)
    res = np.full(len(flat), np.nan)
    res[ok] = best[np.ravel(inverse)]
    return res.reshape(share.shape)


def _exact_n_chunk(values: Floats, guess: Floats, effect: float, alpha: float, power: float,
                   scan: int, low: float = 0.9, high: float = 1.2) -> Floats:
    """exact_n for a few discordances at once (see there). The chance that the test rejects
    given m discordant questions does not depend on n: it is tabulated once per discordance over
    the m the search can reach, and each n's power is then that table weighted by Binomial(n, psi)."""
    from scipy.special import bdtr, bdtrc
    from scipy.stats import binom

    lo, hi = np.floor(low * guess).astype(np.int64), np.ceil(high * guess + 8).astype(np.int64)
    top = hi  # the table covers the m of n up to the bracket's top
    sd = np.sqrt(top * values * (1 - values))
    m_lo = np.maximum(np.floor(np.maximum(lo, 1) * values - 8 * np.sqrt(np.maximum(lo, 1) * values * (1 - values)))
                      - 1, 0).astype(np.int64)
    m_hi = np.minimum(np.ceil(top * values + 8 * sd) + 1, top).astype(np.int64)
    width = int((m_hi - m_lo).max()) + 1
    ms = np.minimum(m_lo[:, None] + np.arange(width)[None, :], m_hi[:, None])  # (P, width)
    k = _rejection(int(m_hi.max()), alpha)[ms]
    theta = ((values + effect) / (2 * values))[:, None]
    with np.errstate(invalid="ignore"):
        reject = np.where(k >= 0, bdtr(np.maximum(k, 0), ms, theta) + bdtrc(ms - k - 1, ms, theta), 0.0)
    valid = np.arange(width)[None, :] <= (m_hi - m_lo)[:, None]
    reject = np.where(valid, np.nan_to_num(reject), 0.0)

    def reaches(n: NDArray[np.int64]) -> NDArray[np.bool_]:
        weight = np.where(valid & (ms <= n[:, None]), binom.pmf(ms, n[:, None], values[:, None]), 0.0)
        out: NDArray[np.bool_] = (weight * reject).sum(axis=1) >= power
        return out

    short = ~reaches(hi)
    if short.any() and high < 4:  # not bracketed: those again with a wide bracket
        wide = _exact_n_chunk(values[short], guess[short], effect, alpha, power, scan, 0.0, 4.0)
        rest = _exact_n_chunk(values[~short], guess[~short], effect, alpha, power, scan, low, high) \
            if (~short).any() else np.empty(0)
        both: Floats = np.empty(len(values))
        both[short], both[~short] = wide, rest
        return both
    lo = np.where((lo > 0) & reaches(np.maximum(lo, 1)), 0, lo)
    while np.any(hi - lo > 1):  # reaches(hi) assumed; lo never reached (0: no question)
        mid = (lo + hi) // 2
        up = reaches(mid)
        lo, hi = np.where(up | (hi - lo <= 1), lo, mid), np.where(up & (hi - lo > 1), mid, hi)
    best = hi.copy()
    for step in range(1, scan + 1):  # a smaller n may reach it too (the sawtooth)
        n = np.maximum(hi - step, 1)
        best = np.where(reaches(n), np.minimum(best, n), best)
    found: Floats = best.astype(np.float64)
    return found


def tarone_family(discordant: ArrayLike, alpha: float = 0.05) -> NDArray[np.bool_]:
    """Tarone's (1990) family for discrete tests: a pair with m discordant questions can never
    have an exact McNemar p below min(1, 2 / 2^m). K is the smallest k with at most k pairs able
    to reach alpha / k; the family is those pairs. Tarone (1990) holds the margins fixed (here every
    pair's discordant count): given them, a pair outside the family cannot reject at alpha / K, and
    Bonferroni over the K that can keeps the familywise error at alpha (Holm steps down from it;
    Hommel & Krummenauer 1998). The statement is conditional on ALL pairs' discordant counts, which
    come from the same answers; each exact test is valid given its own count only, so the family's
    guarantee is exact where a pair's test stays valid given the others' counts."""
    m = np.asarray(discordant, dtype=np.float64)
    smallest = np.minimum(1.0, 2.0 * 0.5 ** m)
    for k in range(1, len(m) + 1):
        able = smallest <= alpha / k
        if able.sum() <= k:
            return able
    return np.zeros(len(m), dtype=bool)


def compact_letters(ordered: Sequence[int], different: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Compact letter display by insert-and-absorb (Piepho 2004): start with one letter shared
    by all; for each significantly different pair, split every letter holding both into one
    without each; drop letters whose runs all share another letter. Runs sharing a letter were
    not found different. Returns the letters' members, ordered by their best-placed run."""
    position = {r: i for i, r in enumerate(ordered)}
    columns: list[frozenset[int]] = [frozenset(ordered)] if ordered else []
    for i, j in sorted(different, key=lambda p: (position[p[0]], position[p[1]])):
        split: list[frozenset[int]] = []
        for col in columns:
            split += [col - {i}, col - {j}] if i in col and j in col else [col]
        unique = list(dict.fromkeys(split))
        columns = [c for c in unique if c and not any(c < other for other in unique)]
    return [sorted(c, key=position.__getitem__)
            for c in sorted(columns, key=lambda c: sorted(position[r] for r in c))]


def letter_names(count: int) -> list[str]:
    """a, b, ..., z, A, ..., Z, a1, b1, ... for `count` letters."""
    base = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return [base[i % 52] + (str(i // 52) if i >= 52 else "") for i in range(count)]


def _z(alpha: float, power: float) -> tuple[float, float]:
    from scipy.stats import norm

    return float(norm.ppf(1 - alpha / 2)), float(norm.ppf(power))


def connor_n(psi: ArrayLike, effect: float, alpha: float = 0.05, power: float = 0.8) -> Floats:
    """Questions needed to detect an accuracy difference `effect` with a two-sided McNemar test
    at `alpha` with `power`, when a share `psi` of the questions is discordant (Connor 1987):
    n = (z_{1-alpha/2} sqrt(psi) + z_power sqrt(psi - effect^2))^2 / effect^2, rounded up.
    NaN where the difference is impossible at that discordance (effect > psi)."""
    share = np.asarray(psi, dtype=np.float64)
    za, zb = _z(alpha, power)
    with np.errstate(invalid="ignore"):
        n = np.ceil((za * np.sqrt(share) + zb * np.sqrt(share - effect ** 2)) ** 2 / effect ** 2 - 1e-9)
    return np.where((share > 0) & (effect <= share), n, np.nan)


def connor_mde(psi: ArrayLike, n: ArrayLike, alpha: float = 0.05, power: float = 0.8) -> Floats:
    """Minimum detectable difference: the `effect` for which connor_n(psi, effect) = n, solved
    in closed form, delta = sqrt(psi) (z_a sqrt(n) + z_b sqrt(n - z_a^2 + z_b^2)) / (n + z_b^2).
    NaN with no discordance or when even delta = psi (every discordant question one way) is
    not detectable."""
    share = np.asarray(psi, dtype=np.float64)
    size = np.asarray(n, dtype=np.float64)
    za, zb = _z(alpha, power)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.sqrt(share) * (za * np.sqrt(size) + zb * np.sqrt(size - za ** 2 + zb ** 2)) / (size + zb ** 2)
    return np.where((share > 0) & (size > za ** 2) & (d <= share), d, np.nan)


def mcnemar_power(psi: float, effect: float, n: int, alpha: float = 0.05) -> float:
    """The exact power of the exact McNemar test (scipy binomials): the number of discordant
    questions m ~ Bin(n, psi), then b ~ Bin(m, (psi + effect) / (2 psi)); summed over m of the
    chance that the exact two-sided p < alpha. Used by the tests to check Connor's formula."""
    from scipy.stats import binom

    ms = np.arange(n + 1)
    pm = binom.pmf(ms, n, psi)
    theta = (psi + effect) / (2 * psi)
    total = 0.0
    for m, w in zip(ms, pm):
        if m == 0 or w < 1e-14:
            continue
        ks = np.arange(m + 1)
        p = np.minimum(1.0, 2 * binom.cdf(np.minimum(ks, m - ks), m, 0.5))
        total += w * binom.pmf(ks, m, theta)[p < alpha].sum()
    return float(total)


def chance_agreement(samples: int, options: int = 4, unusable: float = 0.0) -> float:
    """Expected agreement of a uniform random answerer asked `samples` times: E[max count] / K,
    the largest count of one option among K independent replies (scipy multinomial, enumerated).
    With `unusable` > 0 each reply is unusable with that chance (else uniform over the options):
    the observed agreement counts unusable replies in its denominator, so its chance level must
    too. K = 5, 4 options: 0.496; with 5 % unusable 0.478."""
    from itertools import combinations_with_replacement

    from scipy.stats import multinomial

    if samples < 1:
        return float("nan")
    cells = options + (1 if unusable > 0 else 0)
    probs = [(1 - unusable) / options] * options + ([unusable] if unusable > 0 else [])
    total = 0.0
    for combo in combinations_with_replacement(range(cells), samples):
        counts = np.bincount(combo, minlength=cells)
        # each multiset once, weighted by its multinomial probability; unusable replies never agree
        total += multinomial.pmf(counts, samples, probs) * counts[:options].max()
    return float(total / samples)


def clustered_se(y: ArrayLike, groups: ArrayLike) -> float | None:
    """Standard error of the mean of y with errors clustered by `groups` (cluster-robust
    sandwich with statsmodels' small-sample correction G/(G-1) * (N-1)/(N-K), K = 1); the
    same figure as OLS(y, ones).fit(cov_type="cluster") (checked in tests). None with fewer
    than 2 clusters."""
    values = np.asarray(y, dtype=np.float64)
    codes, inverse = np.unique(np.asarray(groups, dtype=object).astype(str), return_inverse=True)
    G, N = len(codes), len(values)
    if G < 2 or N < 2:
        return None
    e = values - values.mean()
    sums = np.bincount(inverse, weights=e, minlength=G)
    var = (sums ** 2).sum() / N ** 2 * G / (G - 1)  # (N-1)/(N-K) = 1 for K = 1
    return float(math.sqrt(var))


# ---------------------------------------------------------------- two independent groups (memory)


def fisher_exact(a: int, b: int, c: int, d: int) -> float | None:
    """Two-sided p of Fisher's exact test of the 2 x 2 table [[a, b], [c, d]] (scipy); None when
    a row or column is empty (nothing to compare)."""
    from scipy.stats import fisher_exact as fisher

    if min(a + b, c + d, a + c, b + d) == 0:
        return None
    return float(fisher([[a, b], [c, d]], alternative="two-sided").pvalue)


def newcombe_difference(x1: int, n1: int, x2: int, n2: int, alpha: float = 0.05) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval (his method 10, from two Wilson intervals) of the difference
    of two independent proportions x1/n1 - x2/n2 (statsmodels); None when a group is empty."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    if n1 == 0 or n2 == 0:
        return None
    low, high = confint_proportions_2indep(x1, n1, x2, n2, method="newcomb", compare="diff", alpha=alpha)
    return float(low), float(high)
