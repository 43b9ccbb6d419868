"""Every statistic (stats.py) against hand-worked cases and direct library calls (scipy,
statsmodels, krippendorff)."""

import numpy as np
import pytest

from persian_tui import stats

# ---------------------------------------------------------------- statistics


def test_wilson_many_matches_statsmodels_and_the_formula():
    from statsmodels.stats.proportion import proportion_confint

    correct, total = [0, 4, 17, 39, 250], [39, 5, 40, 39, 600]
    low, high = stats.wilson_many(correct, total)
    for c, n, lo, hi in zip(correct, total, low, high):
        ref = proportion_confint(c, n, alpha=0.05, method="wilson")
        assert (lo, hi) == (pytest.approx(ref[0], abs=1e-12), pytest.approx(ref[1], abs=1e-12))
    # by hand, 4/5: (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n) with z = 1.959964
    z, p, n = 1.959964, 0.8, 5
    centre, half = (p + z * z / (2 * n)), z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert low[1] == pytest.approx((centre - half) / (1 + z * z / n), abs=1e-6)  # 0.3755
    assert high[1] == pytest.approx((centre + half) / (1 + z * z / n), abs=1e-6)  # 0.9638
    assert (low[0], high[3]) == (0.0, 1.0)  # exact ends, not 7e-18 / 0.9999999999999998


def test_mcnemar_exact_matches_statsmodels_scipy_and_hand():
    from scipy.stats import binomtest
    from statsmodels.stats.contingency_tables import mcnemar

    b = [1, 0, 0, 1, 3, 12, 0, 40, 7]
    c = [2, 5, 6, 9, 3, 30, 0, 61, 0]
    many = stats.mcnemar_exact_many(b, c)
    for x, y, p in zip(b, c, many):
        table = [[11, x], [y, 13]]  # the concordant cells do not matter
        assert p == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
        assert stats.mcnemar_exact(x, y) == pytest.approx(p, rel=1e-12)
        if x + y:
            assert p == pytest.approx(binomtest(min(x, y), x + y, 0.5).pvalue, rel=1e-9)
    # by hand: 2·P(X <= k), X ~ Bin(n, 1/2)
    assert many[:4].tolist() == pytest.approx([1.0, 2 / 32, 2 / 64, 2 * 11 / 1024])
    assert many[6] == 1.0  # no discordant pair


def test_holm_matches_multipletests_and_hand():
    from statsmodels.stats.multitest import multipletests

    p = [0.01, 0.04, 0.03, 0.005]
    # by hand: sorted 0.005·4, 0.01·3, 0.03·2, 0.04·1 -> 0.02, 0.03, 0.06, 0.04 -> running max
    assert stats.holm(p).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    rng = np.random.default_rng(3)
    many = rng.uniform(0, 0.2, 50)
    assert stats.holm(many) == pytest.approx(multipletests(many, method="holm")[1])
    assert stats.holm([]).size == 0
    rng = np.random.default_rng(3)
    for m in (1, 2, 7, 50, 435):
        p = rng.random(m) ** 3
        p[: m // 5] = p[0]  # ties
        assert stats.holm(p) == pytest.approx(multipletests(p, method="holm")[1], abs=1e-15)


def test_holm_leaves_the_apps_frozen_objects_frozen():
    import gc

    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        stats.holm([0.01, 0.2, 0.03])
        # unfreezing empties the permanent generation; a few frozen objects may die meanwhile
        # (threads left by earlier tests), which is not an unfreeze
        assert gc.get_freeze_count() >= frozen - 1000 > 0
    finally:
        gc.unfreeze()


def test_chisquare_gof_matches_scipy_and_hand():
    from scipy.stats import chi2, chisquare

    # by hand: (1-2)²/2 + (2-1)²/1 = 1.5 on 3 degrees of freedom; expected counts under 5, so the
    # p-value is the exact multinomial test's, the statistic Pearson's
    stat, p = stats.chisquare_gof([1, 2, 1, 1], [2, 1, 1, 1])
    assert stat == pytest.approx(1.5) and p == pytest.approx(stats.multinomial_exact([1, 2, 1, 1], [2, 1, 1, 1]))
    assert p != pytest.approx(chi2.sf(1.5, 3), rel=1e-3)
    obs, exp = [30, 14, 34, 45], [25, 25, 36, 37]
    stat, p = stats.chisquare_gof(obs, exp)
    ref = chisquare(obs, np.array(exp) * sum(obs) / sum(exp))
    assert (stat, p) == (pytest.approx(ref.statistic), pytest.approx(ref.pvalue))
    # positions neither expected nor chosen are dropped (3 cells, 2 degrees of freedom)
    stat, p = stats.chisquare_gof([3, 0, 5, 2], [4, 0, 4, 2])
    ref = chisquare([3, 5, 2], [4, 4, 2])
    assert (stat, p) == (pytest.approx(ref.statistic), pytest.approx(stats.multinomial_exact([3, 5, 2], [4, 4, 2])))
    assert stats.chisquare_gof([0, 0, 1, 1], [1, 1, 0, 0]) == (None, None)  # chosen where no key is
    assert stats.chisquare_gof([0, 0, 0, 0], [1, 1, 1, 1]) == (None, None)
    assert stats.chisquare_gof([0, 3, 0, 0], [0, 3, 0, 0]) == (None, None)  # one cell: no test


def test_bootstrap_weights_are_the_draws_of_default_rng():
    w = stats.bootstrap_weights(7, 50, seed=11)
    draws = np.random.default_rng(11).integers(0, 7, size=(50, 7))
    assert w.shape == (50, 7) and (w.sum(axis=1) == 7).all()
    assert (w == np.stack([np.bincount(d, minlength=7) for d in draws])).all()


# ---------------------------------------------------------------- honest leaderboard, power


def test_connor_power_round_trips_and_matches_the_exact_power():
    psi, n = np.array([0.1, 0.25, 0.5, 0.0]), 200
    mde = stats.connor_mde(psi, n)
    for p_, m in zip(psi[:3], mde[:3]):
        # Connor (1987): n = (z_a sqrt(psi) + z_b sqrt(psi - d^2))^2 / d^2 at the MDE gives n back
        assert stats.connor_n(p_, m) == n
        assert stats.connor_n(p_, m * 1.01) < n <= stats.connor_n(p_, m * 0.99)
        # the exact power of the exact test at Connor's MDE is close to 80 % (a bit below: discrete)
        assert 0.72 < stats.mcnemar_power(p_, m, n) < 0.85
    assert np.isnan(mde[3]) and np.isnan(stats.connor_n(0.0, 0.05))  # runs that never disagree
    assert np.isnan(stats.connor_n(0.03, 0.05))  # a 5-point difference needs >= 5 % discordant
    # a stricter alpha (Holm's first step over 406 pairs) needs a larger difference
    assert stats.connor_mde(0.25, n, alpha=0.05 / 406) > mde[1]
    # 44/4 discordant of 194 -> the MDE's exact power is 80 %, not 59 %
    m = float(stats.connor_mde(48 / 194, 194))
    assert stats.mcnemar_power(48 / 194, m, 194) == pytest.approx(0.8, abs=0.05)


def test_clustered_se_matches_statsmodels_ols():
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    groups = rng.integers(0, 9, 200)
    y = (rng.random(200) < 0.3 + 0.05 * groups).astype(float)
    fit = sm.OLS(y, np.ones(200)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    assert stats.clustered_se(y, groups) == pytest.approx(float(fit.bse[0]), rel=1e-10)
    assert stats.clustered_se(y, np.zeros(200)) is None  # one cluster: undefined


def test_cohen_perfect_and_chance():
    assert stats.cohen_kappa([1, 2, 3, 4], [1, 2, 3, 4]) == pytest.approx(1.0)
    # one and the same answer throughout: chance agreement is 1, kappa 0/0 is undefined
    assert stats.cohen_kappa([2, 2, 2], [2, 2, 2]) is None
    assert stats.cohen_kappa(["sound", "sound"], ["sound", "sound"], labels=["sound", "flawed"]) is None
    # observed 0.5, expected 0.5 (each rater half 1s, half 2s, independent) -> kappa 0
    assert stats.cohen_kappa([1, 1, 2, 2], [1, 2, 1, 2]) == pytest.approx(0.0)
    # hand-computed: po = 5/6, pe = (3*2 + 3*4)/36 = 1/2 -> (5/6 - 1/2) / (1/2) = 2/3
    assert stats.cohen_kappa([1, 1, 1, 2, 2, 2], [1, 1, 2, 2, 2, 2]) == pytest.approx(2 / 3)


def test_fleiss_matches_the_wikipedia_example():
    # Fleiss (1971) worked example on Wikipedia: 10 items, 14 raters, 5 categories -> 0.210
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    from statsmodels.stats.inter_rater import fleiss_kappa

    assert fleiss_kappa(np.array(table)) == pytest.approx(0.210, abs=5e-4)
    # our wrapper builds the same kind of table from votes (4 categories here)
    votes = [{"a": 1, "b": 1, "c": 1}, {"a": 2, "b": 2, "c": 3}, {"a": 4, "b": 4, "c": 4},
             {"a": 3, "b": 1, "c": 3}]
    expected = fleiss_kappa(np.array([[3, 0, 0, 0], [0, 2, 1, 0], [0, 0, 0, 3], [1, 0, 2, 0]]))
    assert stats.fleiss_kappa(votes) == (pytest.approx(expected), 4)


def test_krippendorff_matches_library_and_handles_missing():
    import krippendorff

    votes = [{"a": 1, "b": 1}, {"a": 2, "b": 2, "c": 2}, {"a": 3, "c": 4}, {"b": 4, "c": 4}, {"a": 1}]
    data = np.array([[1, 2, 3, np.nan], [1, 2, np.nan, 4], [np.nan, 2, 4, 4]])
    alpha, n = stats.krippendorff_alpha(votes)
    assert n == 4 and alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def test_wilson_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    assert stats.wilson(7, 10) == pytest.approx(proportion_confint(7, 10, method="wilson"))
    assert stats.wilson(0, 0) is None


# ---------------------------------------------------------------- paired difference


def _tango_by_optimisation(b: int, c: int, n: int, alpha: float = 0.05, continuity: float = 0.0
                           ) -> tuple[float, float]:
    """Tango's score interval computed independently: the constrained MLE of p21 by numerical
    maximisation of the multinomial likelihood (scipy), each end by brentq; with `continuity` the
    count difference b - c - n d is moved that much towards 0 (Chang et al. 2024)."""
    from scipy.optimize import brentq, minimize_scalar
    from scipy.stats import norm

    def z(d: float) -> float:
        def nll(q: float) -> float:  # p12 = q + d, p21 = q, the rest 1 - 2q - d
            p12, rest = q + d, 1 - 2 * q - d
            tiny = 1e-300
            return -(b * np.log(max(p12, tiny)) + c * np.log(max(q, tiny)) + (n - b - c) * np.log(max(rest, tiny)))
        low, high = max(0.0, -d), (1 - d) / 2
        if high > low:
            q = minimize_scalar(nll, bounds=(low, high), method="bounded", options={"xatol": 1e-13}).x
        else:
            q = low
        gap = b - c - n * d
        return float(np.sign(gap) * max(abs(gap) - continuity, 0.0) / np.sqrt(n * (2 * q + d - d * d)))

    crit = norm.ppf(1 - alpha / 2)
    est = (b - c) / n
    inner = min(max(est, -1 + 1e-9), 1 - 1e-9)
    lo = brentq(lambda d: z(d) - crit, -1 + 1e-9, inner, xtol=1e-12)
    hi = brentq(lambda d: z(d) + crit, inner, 1 - 1e-9, xtol=1e-12) if est < 1 - 1e-9 else 1.0
    return lo, hi


def _tango_closed_form(b: int, c: int, n: int, alpha: float = 0.05, continuity: float = 0.5) -> tuple[float, float]:
    """Tango's interval, continuity-corrected, from its closed form: each end a root of the quartic
    of Yang, Sun & Hardin (2013) with the count difference b - c moved by the correction (Chang et
    al. 2024), solved by numpy.roots; the lowest real root the lower end, the highest the upper."""
    from scipy.stats import norm

    g = norm.ppf(1 - alpha / 2) ** 2
    ends = []
    for sign in (-1, 1):
        gap = b - c + sign * continuity
        G, H = n * n + g * n, 0.5 * g * (2 * n - b + c) - 2 * n * gap - g * n
        ii = gap * gap - 0.5 * g * (b + c)
        roots = np.roots([G * G, 2 * G * H, H * H + 2 * G * ii - 0.25 * g * g * ((2 * n - b + c) ** 2 - 8 * n * c),
                          2 * H * ii - 0.25 * g * g * (8 * n * c - 2 * (b + c) * (2 * n - b + c)),
                          ii * ii - 0.25 * g * g * (b + c) ** 2])
        real = roots.real[np.abs(roots.imag) < 1e-7]
        ends.append(max(-1.0, real.min()) if sign < 0 else min(1.0, real.max()))
    return ends[0], ends[1]


def test_tango_interval_matches_an_independent_computation_and_the_published_example():
    # Fagerland, Lydersen & Laake (2014), airway hyper-responsiveness data (n = 21; 1 and 7
    # discordant): Tango's asymptotic score interval -0.517 to -0.026 (no continuity correction)
    lo, hi = stats.paired_difference_interval(1, 7, 21, continuity=0.0)
    assert (round(float(lo), 3), round(float(hi), 3)) == (-0.517, -0.026)
    # corrected by half a question it reaches 0, as the exact McNemar test (p 0.070) does not reject
    lo, hi = stats.paired_difference_interval(1, 7, 21)
    assert (round(float(lo), 3), round(float(hi), 4)) == (-0.539, 0.0025)
    cases = [(1, 7, 21), (19, 8, 60), (33, 1, 97), (6, 1, 12), (0, 0, 50), (0, 9, 40), (48, 17, 194), (25, 0, 25)]
    b, c, n = (np.array(x) for x in zip(*cases))
    for cc in (0.0, 0.5):
        low, high = stats.paired_difference_interval(b, c, n, continuity=cc)
        for k, (bb, cc_, nn) in enumerate(cases):
            expected = _tango_by_optimisation(bb, cc_, nn, continuity=cc)
            assert (low[k], high[k]) == pytest.approx(expected, abs=2e-6), (cases[k], cc)
    # and the closed form (a quartic) on every outcome of small n, away from b or c = n (there +-1)
    for nn in (5, 12, 21, 40):
        for bb in range(nn + 1):
            for cc_ in range(nn + 1 - bb):
                if max(bb, cc_) < nn:
                    got = stats.paired_difference_interval(bb, cc_, nn)
                    assert got == pytest.approx(_tango_closed_form(bb, cc_, nn), abs=1e-7), (bb, cc_, nn)
    # at no difference the score statistic is McNemar's: uncorrected, statsmodels' chi-square;
    # corrected, (|b - c| - 1/2) / sqrt(b + c)
    from scipy.stats import norm
    from statsmodels.stats.contingency_tables import mcnemar

    for bb, cc_, nn in cases:
        if bb + cc_:
            p = mcnemar([[0, bb], [cc_, 0]], exact=False, correction=False).pvalue
            l1, h1 = stats.paired_difference_interval(bb, cc_, nn, continuity=0.0)
            assert (l1 > 0 or h1 < 0) == (p < 0.05)
            p = 2 * norm.sf(max(abs(bb - cc_) - 0.5, 0) / np.sqrt(bb + cc_))
            l1, h1 = stats.paired_difference_interval(bb, cc_, nn)
            assert (l1 > 0 or h1 < 0) == (p < 0.05)
    assert np.isnan(stats.paired_difference_interval(0, 0, 0)[0])


def _coverage(n: int, psi: float, delta: float, low, high, b, c) -> float:
    from scipy.stats import multinomial

    p12, p21 = (psi + delta) / 2, (psi - delta) / 2
    probs = multinomial.pmf(np.stack([b, c, n - b - c], axis=1), n, [p12, p21, 1 - psi])
    return float(probs[(low <= delta + 1e-12) & (delta - 1e-12 <= high)].sum())


def _expected(n: int, psi: float, delta: float, value, b, c) -> float:
    from scipy.stats import multinomial

    p12, p21 = (psi + delta) / 2, (psi - delta) / 2
    return float((multinomial.pmf(np.stack([b, c, n - b - c], axis=1), n, [p12, p21, 1 - psi]) * value).sum())


def test_tango_interval_covers_the_difference_by_exact_enumeration():
    """Coverage of the accuracy difference, enumerated exactly over every outcome (b, c) of n
    questions (scipy's multinomial) on a grid of n, discordance psi and difference delta. The
    interval depends on b, c and n only, so the concordant split does not matter. Tango's own
    interval dips to 0.931 (n = 40, psi = 0.2, delta = 0.18); corrected by half a question it
    stays >= 0.955 everywhere (mean 0.968) and is 8.5 % wider on average. The exact conditional
    interval of b / (b + c) it replaces covered 0.59 at the seed's lopsided pair (33 against 1 of 97)."""
    from statsmodels.stats.proportion import proportion_confint

    worst, total, cells, plain_worst, width, plain_width = 1.0, 0.0, 0, 1.0, 0.0, 0.0
    for n in (20, 40, 97, 200):
        b, c = (x.ravel() for x in np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij"))
        keep = b + c <= n
        b, c = b[keep], c[keep]
        low, high = stats.paired_difference_interval(b, c, n)
        plain_low, plain_high = stats.paired_difference_interval(b, c, n, continuity=0.0)
        for psi in (0.1, 0.2, 0.35, 0.5, 0.7):
            for share in (0.0, 0.25, 0.5, 0.75, 0.9):
                cover = _coverage(n, psi, share * psi, low, high, b, c)
                worst, total, cells = min(worst, cover), total + cover, cells + 1
                plain_worst = min(plain_worst, _coverage(n, psi, share * psi, plain_low, plain_high, b, c))
                width += _expected(n, psi, share * psi, high - low, b, c)
                plain_width += _expected(n, psi, share * psi, plain_high - plain_low, b, c)
    assert cells == 100 and worst >= 0.95 and 0.96 <= total / cells <= 0.975
    assert plain_worst == pytest.approx(0.931, abs=1e-3)  # why Tango's own is not enough
    assert 1.0 < width / plain_width < 1.1
    # at the seed's lopsided pair the interval covers; the exact conditional interval did not
    n = 97
    b, c = (x.ravel() for x in np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij"))
    keep = b + c <= n
    b, c = b[keep], c[keep]
    psi, delta = 34 / 97, 32 / 97
    low, high = stats.paired_difference_interval(b, c, n)
    assert _coverage(n, psi, delta, low, high, b, c) >= 0.95
    m = np.maximum(b + c, 1)
    lo, hi = proportion_confint(b, m, method="beta")
    old_low, old_high = (b + c) / n * (2 * np.nan_to_num(lo) - 1), (b + c) / n * (2 * np.nan_to_num(hi, nan=1) - 1)
    assert _coverage(n, psi, delta, old_low, old_high, b, c) == pytest.approx(0.594, abs=1e-3)  # the old one


def test_exact_power_and_the_exact_mde():
    """The vectorized exact power equals the loop (stats.mcnemar_power) and a brute force over
    statsmodels' exact McNemar p; the exact MDE reaches 80 % and a smaller effect does not."""
    from scipy.stats import binom
    from statsmodels.stats.contingency_tables import mcnemar

    def brute(psi, d, n, alpha=0.05):
        total = 0.0
        for m in range(1, n + 1):
            theta = (psi + d) / (2 * psi)
            for k in range(m + 1):
                if mcnemar([[0, k], [m - k, 0]], exact=True).pvalue < alpha:
                    total += binom.pmf(m, n, psi) * binom.pmf(k, m, theta)
        return total

    assert stats.exact_power(0.3, 0.15, 30) == pytest.approx(brute(0.3, 0.15, 30), abs=1e-12)
    assert stats.exact_power(0.5, 0.2, 25, alpha=0.01) == pytest.approx(brute(0.5, 0.2, 25, 0.01), abs=1e-12)
    for psi, d, n in ((0.48, 0.2, 100), (48 / 194, 0.1, 194), (0.1, 0.08, 60)):
        assert stats.exact_power(psi, d, n) == pytest.approx(stats.mcnemar_power(psi, d, n), abs=1e-10)
    psi, n = np.array([0.48, 48 / 194, 0.25, 0.05, 0.0]), np.array([100, 194, 194, 20, 50])
    mde = stats.exact_mde(psi, n)
    for p_, m, nn in zip(psi[:3], mde[:3], n[:3]):
        assert stats.exact_power(p_, m, int(nn)) == pytest.approx(0.8, abs=1e-6)
        assert stats.exact_power(p_, m * 0.99, int(nn)) < 0.8
    assert np.isnan(mde[3]) and np.isnan(mde[4])  # not reachable; no discordance
    # Connor's MDE has exact power below 80 % (0.768-0.772 on the seed); the exact MDE is larger
    assert stats.exact_power(0.25, float(stats.connor_mde(0.25, 194)), 194) < 0.8 < stats.exact_power(
        0.25, float(mde[2]), 194) + 1e-6
    assert mde[2] > stats.connor_mde(0.25, 194)


def test_tarone_family_follows_its_definition():
    rng = np.random.default_rng(3)
    for _ in range(50):
        m = rng.integers(0, 40, rng.integers(1, 60))
        fam = stats.tarone_family(m)
        smallest = np.minimum(1, 2 * 0.5 ** m.astype(float))
        k = next((k for k in range(1, len(m) + 1) if (smallest <= 0.05 / k).sum() <= k), None)
        expected = smallest <= 0.05 / k if k else np.zeros(len(m), bool)
        assert (fam == expected).all()


def test_compact_letters_are_a_valid_display():
    """Piepho (2004): two runs share a letter exactly when they were not found different; no
    letter is redundant (its runs all share another one)."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        r = int(rng.integers(1, 9))
        runs = list(range(10, 10 + r))
        pairs = [(a, b) for i, a in enumerate(runs) for b in runs[i + 1:] if rng.random() < 0.4]
        cols = stats.compact_letters(runs, pairs)
        differ = set(pairs)
        for i, a in enumerate(runs):
            for b in runs[i + 1:]:
                share = any(a in col and b in col for col in cols)
                assert share == ((a, b) not in differ)
        assert all(not set(x) < set(y) for x in cols for y in cols)
        assert all(any(a in col for col in cols) for a in runs)
    assert stats.compact_letters([1, 2, 3], []) == [[1, 2, 3]]
    assert stats.letter_names(54)[:3] == ["a", "b", "c"] and stats.letter_names(54)[52:] == ["a1", "b1"]


def test_multinomial_exact_by_brute_force_and_used_where_expected_counts_are_small():
    """The key-position chi-square ran with expected counts of 3 (n = 12). Under 5 the
    p-value is the exact multinomial test's, checked here by brute force over every table."""
    from itertools import product

    from scipy.stats import chisquare, multinomial

    def brute(obs, probs):
        n = sum(obs)
        seen = multinomial.pmf(obs, n, probs)
        tables = [t for t in product(range(n + 1), repeat=len(obs)) if sum(t) == n]
        return sum(multinomial.pmf(t, n, probs) for t in tables if multinomial.pmf(t, n, probs) <= seen * (1 + 1e-7))

    for obs, probs in (([6, 3, 2, 1], [0.25] * 4), ([0, 5, 2, 5], [0.1, 0.4, 0.2, 0.3]), ([3, 3, 3, 3], [0.25] * 4)):
        assert stats.multinomial_exact(obs, probs) == pytest.approx(brute(obs, probs), rel=1e-9)
    stat, p = stats.chisquare_gof([6, 3, 2, 1], [1, 1, 1, 1])  # expected 3: the exact p
    assert stat == pytest.approx(chisquare([6, 3, 2, 1]).statistic)
    assert p == pytest.approx(brute([6, 3, 2, 1], [0.25] * 4), rel=1e-9) and p != pytest.approx(
        chisquare([6, 3, 2, 1]).pvalue, rel=1e-3)
    big = [30, 20, 25, 25]  # expected 25: Pearson's chi-square as before
    assert stats.chisquare_gof(big, [1, 1, 1, 1])[1] == pytest.approx(chisquare(big).pvalue)
    assert stats.multinomial_exact([200, 0, 0, 0], [0.25] * 4) is None  # too many tables


def test_newcombe_difference_matches_the_published_example():
    """Newcombe (1998), Table II, example (a): 56/70 - 48/80, method 10: 0.0524 to 0.3339."""
    low, high = stats.newcombe_difference(56, 70, 48, 80)
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)
    assert stats.newcombe_difference(1, 0, 1, 2) is None


def test_fisher_exact_two_sided():
    from scipy.stats import fisher_exact

    assert stats.fisher_exact(8, 2, 1, 5) == pytest.approx(fisher_exact([[8, 2], [1, 5]]).pvalue)
    assert stats.fisher_exact(3, 0, 0, 0) is None  # one row empty: nothing to compare


def test_exact_n_is_the_smallest_n_whose_exact_power_reaches_the_target():
    """"n for E" from the exact power of the exact test (checked with the plain-loop
    mcnemar_power), not Connor's approximation, whose n falls short of 80 %."""
    psi = np.array([0.1, 0.25, 0.5, 0.04])
    n = stats.exact_n(psi, 0.05)
    assert np.isnan(n[3])  # a 5-point difference needs at least 5 % discordant questions
    for p_, m in zip(psi[:3], n[:3].astype(int)):
        assert stats.mcnemar_power(p_, 0.05, m) >= 0.8
        assert all(stats.mcnemar_power(p_, 0.05, k) < 0.8 for k in range(m - 8, m))
        assert stats.mcnemar_power(p_, 0.05, int(stats.connor_n(p_, 0.05))) < 0.8
    assert stats.exact_n(np.array([0.3]), 0.001)[0] == stats.connor_n(0.3, 0.001)  # beyond the limit
