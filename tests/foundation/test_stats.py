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

    # by hand: (1-2)²/2 + (2-1)²/1 = 1.5 on 3 degrees of freedom
    stat, p = stats.chisquare_gof([1, 2, 1, 1], [2, 1, 1, 1])
    assert stat == pytest.approx(1.5) and p == pytest.approx(chi2.sf(1.5, 3))
    obs, exp = [30, 14, 34, 45], [25, 25, 36, 37]
    stat, p = stats.chisquare_gof(obs, exp)
    ref = chisquare(obs, np.array(exp) * sum(obs) / sum(exp))
    assert (stat, p) == (pytest.approx(ref.statistic), pytest.approx(ref.pvalue))
    # positions neither expected nor chosen are dropped (3 cells, 2 degrees of freedom)
    stat, p = stats.chisquare_gof([3, 0, 5, 2], [4, 0, 4, 2])
    ref = chisquare([3, 5, 2], [4, 4, 2])
    assert (stat, p) == (pytest.approx(ref.statistic), pytest.approx(ref.pvalue))
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
