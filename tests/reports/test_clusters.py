"""Clustered standard errors by poem, poet and source (reports/clusters.py)."""

import numpy as np
import pytest
from factories import HAFEZ_1, HAFEZ_2, MINI, SAADI, add_questions, add_run, make_question

from persian_tui.reports.figures import build_report
from persian_tui.reports.report_files import render_files, render_text


def test_clustered_standard_errors_by_poem_poet_and_source(store):
    import statsmodels.api as sm

    from persian_tui.corpus.ganjoor import import_corpus

    import_corpus(store, MINI)
    key_couplets = [HAFEZ_1, HAFEZ_2, HAFEZ_1, HAFEZ_2, SAADI, SAADI, None, None]
    qs = []
    for i, kc in enumerate(key_couplets, 1):
        others = [(f"مصراع ساخته {i} {j}", f"مصراع دیگر {i} {j}") for j in range(3)]
        qs.append(make_question(f"q{i}", couplets=[kc or (f"بیت بی‌نشان {i}", f"مصراع دوم {i}")] + others,
                                key=1, source_name="book", source_id=str(i), source_page=(i + 1) // 2))
    store.questions.add_questions(qs)
    store.links.link_questions()
    rid = add_run(store, "m", [1, 1, 1, 1, 2, 2, 1, 2], uids=[q.uid for q in qs])
    r = build_report(store, n_boot=50)
    rows = {c.unit: c for c in r.clusters if c.run_id == rid}
    assert set(rows) == {"poem", "poet", "source"}
    y = np.array([1, 1, 1, 1, 0, 0, 1, 0], dtype=float)
    poems = ["sh1", "sh1", "sh1", "sh1", "sh10", "sh10", "q7", "q8"]
    fit = sm.OLS(y, np.ones(8)).fit(cov_type="cluster", cov_kwds={"groups": np.unique(poems, return_inverse=True)[1]})
    assert rows["poem"].se == pytest.approx(float(fit.bse[0]), rel=1e-10) and rows["poem"].clusters == 4
    assert rows["poet"].clusters == 4 and rows["source"].clusters == 4  # pages p1..p4
    assert rows["poem"].design_effect == pytest.approx((rows["poem"].se / rows["poem"].se_unclustered) ** 2)
    assert rows["poem"].design_effect > 1
    for fmt, name in (("md", "report.md"), ("json", "report.json"), ("csv", "clusters.csv")):
        assert b"design" in render_files(r, fmt)[name] or fmt != "md"
    assert "clustered by poem, poet, source" in render_text(r)


def test_without_corpus_links_the_clusters_are_by_source_only(two_questions_store):
    r = build_report(two_questions_store, n_boot=50)
    assert {c.unit for c in r.clusters} == {"source"}
    assert "No corpus links" in render_text(r)


@pytest.fixture
def two_questions_store(store):
    add_questions(store, [1, 2, 3, 4])
    add_run(store, "m", [1, 2, 1, 1])
    return store


def test_design_effects_come_with_their_shuffled_label_range():
    """A design effect is noisy. Its range with the labels shuffled (no clustering) is
    computed independently here with statsmodels' cluster-robust OLS on the same permutations;
    planted clustering lands above the range, random labels inside it."""
    import statsmodels.api as sm

    from persian_tui.reports.clusters import ClusterRow, null_range

    rng = np.random.default_rng(11)
    labels = np.repeat(np.arange(40), 5).astype(str)
    y_random = (rng.random(200) < 0.6).astype(float)
    low, high = null_range(y_random, labels, 200, seed=3)
    # the same permutations, each design effect from statsmodels
    perm = np.random.default_rng(3).permuted(np.tile(np.unique(labels, return_inverse=True)[1], (200, 1)), axis=1)
    se0 = sm.OLS(y_random, np.ones(200)).fit(cov_type="cluster", cov_kwds={"groups": np.arange(200)}).bse[0]
    deffs = [(sm.OLS(y_random, np.ones(200)).fit(cov_type="cluster", cov_kwds={"groups": g}).bse[0] / se0) ** 2
             for g in perm]
    assert (low, high) == pytest.approx(tuple(np.percentile(deffs, [2.5, 97.5])), rel=1e-9)
    observed = (sm.OLS(y_random, np.ones(200)).fit(
        cov_type="cluster", cov_kwds={"groups": np.unique(labels, return_inverse=True)[1]}).bse[0] / se0) ** 2
    assert low <= observed <= high  # no clustering: inside the range
    assert ClusterRow(1, "poem", 200, 40, 0.1, 0.1, observed, low, high).reading == "within noise"
    y_clustered = np.repeat((rng.random(40) < 0.6).astype(float), 5)  # whole poems right or wrong
    low_c, high_c = null_range(y_clustered, labels, 200, seed=3)
    assert ClusterRow(1, "poem", 200, 40, 0.1, 0.1, 4.5, low_c, high_c).reading == "above noise"
    assert high_c < 2


def test_above_noise_is_corrected_for_the_runs_read():
    """30 runs without clustering: about one of 30 lands above its shuffled range by chance; with
    the permutation p Holm-corrected over the runs none reads "above noise". A run with planted
    clustering still does. The p-values are checked against a direct count."""
    from statsmodels.stats.multitest import multipletests

    from persian_tui.reports.clusters import cluster_rows

    rng = np.random.default_rng(7)
    labels = [str(x) for x in np.repeat(np.arange(40), 5)]
    right = (rng.random((30, 200)) < 0.55).astype(float)
    right[0] = np.repeat((rng.random(40) < 0.5).astype(float), 5)  # run 0: whole poems right or wrong
    asked = np.ones((30, 200), dtype=bool)
    rows = cluster_rows(list(range(1, 31)), list(range(30)), right, asked, {"poem": labels})
    beyond = [r for r in rows[1:] if r.design_effect > r.null_high]
    assert beyond  # chance alone puts some run above its range...
    assert all(r.reading != "above noise" for r in rows[1:])  # ...which is not read as clustering
    assert rows[0].reading == "above noise" and rows[0].p_holm < 0.05
    expected = multipletests([r.p for r in rows], method="holm")[1]
    assert [r.p_holm for r in rows] == pytest.approx(list(expected))


def test_the_report_prints_the_range_and_its_reading(two_questions_store):
    r = build_report(two_questions_store, n_boot=50)
    text = render_text(r)
    assert "shuffled 95 %" in text and "no evidence of clustering" in text
    assert b"null_low" in render_files(r, "csv")["clusters.csv"]
