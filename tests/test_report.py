"""The evaluation report: statistics against scipy/statsmodels and hand-worked cases, the
report on small hand-made databases, determinism, the CLI, and the seed's exp-6 answers."""

import csv
import json

import numpy as np
import pytest
from factories import add_questions, add_run, make_question, run_import

from persian_tui import stats
from persian_tui.cli import main
from persian_tui.reports.figures import ReportError, build_report
from persian_tui.reports.report_files import render_files, render_text
from persian_tui.runs.prediction_files import import_predictions
from persian_tui.store import Store

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


# ---------------------------------------------------------------- hand-made databases


def test_two_runs_five_questions_by_hand(two_runs):
    store, a, b = two_runs
    r = build_report(store, seed=0, n_boot=500)
    assert r.run_ids == [a, b] and r.questions == 5 and r.keyed == 5
    la, lb = r.leaderboard
    assert (la.run_id, la.correct, la.total, la.invalid, la.accuracy) == (a, 4, 5, 0, 0.8)
    assert (lb.run_id, lb.correct, lb.invalid, lb.accuracy) == (b, 3, 1, 0.6)
    assert (la.wilson_low, la.wilson_high) == (pytest.approx(0.3755, abs=1e-4), pytest.approx(0.9638, abs=1e-4))
    assert (la.tokens_in, la.tokens_out, la.latency_mean, la.cost) == (50, 10, 0.5, pytest.approx(0.005))
    assert (lb.tokens_in, lb.latency_mean, lb.cost) == (None, None, None)
    # bootstrap: the same resamples of the 5 questions for both runs
    draws = np.random.default_rng(0).integers(0, 5, size=(500, 5))
    right_a = np.array([1, 1, 1, 1, 0])
    ref = np.percentile(right_a[draws].mean(axis=1), [2.5, 97.5])
    assert (la.boot_low, la.boot_high) == (pytest.approx(ref[0]), pytest.approx(ref[1]))
    (pair,) = r.pairs
    # only A right on q2, q3; only B right on q5: exact McNemar 2·P(X <= 1 | 3) = 1
    assert (pair.a, pair.b, pair.n, pair.a_only, pair.b_only) == (a, b, 5, 2, 1)
    assert (pair.p_exact, pair.p_holm, pair.diff) == (1.0, 1.0, pytest.approx(0.2))
    # the exact interval: Clopper-Pearson of 2/3, mapped to 3/5 · (2θ − 1)
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(2, 3, alpha=0.05, method="beta")
    assert (pair.diff_low, pair.diff_high) == (pytest.approx(0.6 * (2 * lo - 1)), pytest.approx(0.6 * (2 * hi - 1)))
    assert r.groups == [[a, b]]
    # position bias: A chose 1 2 3 4 2 against keys 1 2 3 4 1 -> chi2 1.5; B chose position 3
    # where none of its answered questions has its key -> undefined
    pa, pb = r.position
    assert (pa.chosen, pa.keys, pa.chi2) == ([1, 2, 1, 1], [2, 1, 1, 1], pytest.approx(1.5))
    assert (pb.chosen, pb.keys, pb.chi2, pb.p) == ([2, 0, 1, 1], [2, 1, 0, 1], None, None)
    assert r.confusion[a] == [[1, 1, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]]
    assert r.confusion[b] == [[2, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 1, 0]]
    assert r.agreement == ([a, b], [[1.0, 0.4], [0.4, 0.8]])  # same option on q1 and q4
    hard = [(h.uid, h.solved, h.runs, h.common_wrong, h.common_wrong_count) for h in r.hardest]
    assert hard == [("q2", 1, 2, 3, 1), ("q3", 1, 2, None, 0), ("q5", 1, 2, 2, 1),
                    ("q1", 2, 2, None, 0), ("q4", 2, 2, None, 0)]
    rows = {(x.dimension, x.value, x.run_id): (x.correct, x.total) for x in r.breakdowns}
    assert rows[("category", "a", a)] == (3, 3) and rows[("category", "a", b)] == (1, 3)
    assert rows[("category", "(none)", b)] == (1, 1)
    assert rows[("poet", "حافظ", a)] == (1, 1)
    assert rows[("poet", "حافظ + سعدی", b)] == (0, 1)  # q2: its options' poets
    # 2 runs: solved by both = easy (100 %), by one = medium (50 %)
    assert rows[("difficulty", "easy", a)] == (2, 2) and rows[("difficulty", "medium", b)] == (1, 3)
    assert ("difficulty", "hard", a) not in rows
    assert [x.dimension for x in r.breakdowns][0] == "category"


def test_pairs_holm_and_groups(store):
    """Three runs on 40 questions: two close ones, one far below -> two groups."""
    keys = [1 + i % 4 for i in range(40)]
    add_questions(store, keys)
    wrong = [1 + (k % 4) for k in keys]
    good = add_run(store, "good", keys)
    near = add_run(store, "near", keys[:36] + wrong[36:])
    bad = add_run(store, "bad", keys[:6] + wrong[6:])
    r = build_report(store, n_boot=200)
    assert [x.run_id for x in r.leaderboard] == [good, near, bad]
    by = {(p.a, p.b): p for p in r.pairs}
    assert set(by) == {(good, near), (good, bad), (near, bad)}
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.multitest import multipletests

    raw = [mcnemar([[0, by[k].a_only], [by[k].b_only, 0]], exact=True).pvalue for k in by]
    assert [by[k].p_holm for k in by] == pytest.approx(list(multipletests(raw, method="holm")[1]))
    assert (by[(good, near)].a_only, by[(good, near)].b_only) == (4, 0)
    assert by[(good, near)].p_holm >= 0.05 and by[(good, bad)].p_holm < 0.05
    assert r.groups == [[good, near], [bad]]
    assert by[(good, bad)].diff_low > 0  # the interval excludes 0


def test_only_shared_questions_are_compared(store):
    add_questions(store, [1, 2, 3, 4, 1, None], status=["ready"] * 5 + ["draft"])
    store.questions.add_questions([make_question("q7", couplets=[(f"م {j}", f"ن {j}") for j in range(4)],
                                                 key=2, status="retired")])
    full = add_run(store, "full", [1, 2, 3, 4, 1, 1, 2], uids=[f"q{i}" for i in range(1, 8)])
    part = add_run(store, "part", [1, 1, 3], uids=["q1", "q2", "q3"])
    add_run(store, "running", [1], uids=["q1"], status="running")
    r = build_report(store)
    # q6 has no key, q7 is retired; "running" is not finished so not included by default
    assert r.run_ids == [full, part] and (r.questions, r.keyed) == (3, 5)
    assert r.answered == {full: 5, part: 3} and r.limiting == [part]
    assert [(x.run_id, x.correct, x.total) for x in r.leaderboard] == [(full, 3, 3), (part, 2, 3)]
    assert "3 question(s) answered by all" in render_text(r)
    alone = build_report(store, run_ids=[full])
    assert (alone.questions, alone.leaderboard[0].correct) == (5, 5)
    assert build_report(store, run_ids=[full], questions="curated").questions == 0
    empty = store.runs.create_run("llm", "nothing yet", {}, status="running").id
    with pytest.raises(ReportError, match=f"run {empty} has no predictions"):
        build_report(store, run_ids=[full, empty])
    with pytest.raises(ReportError, match="no run 99"):
        build_report(store, run_ids=[full, 99])
    with pytest.raises(ReportError, match="question set"):
        build_report(store, questions="some")


def test_invalid_and_api_errors_count_as_wrong(store):
    add_questions(store, [1, 2, 3, 4])
    rid = add_run(store, "m", [1, "x", None, 4])
    row = build_report(store).leaderboard[0]
    assert (row.correct, row.total, row.invalid) == (2, 4, 2)
    assert build_report(store).confusion[rid][1] == [0, 0, 0, 0, 1]


def test_human_baseline_on_the_same_questions(two_runs):
    store, a, b = two_runs
    add_run(store, "few", [1, 2], uids=["q1", "q2"])
    store.labels.add_label("q1", "mina", 1)
    store.labels.add_label("q2", "mina", 3)
    store.labels.add_label("q3", "mina", 3)  # not shared with run "few": left out
    store.labels.add_label("q1", "ali", 1)
    r = build_report(store)
    assert r.questions == 2
    human = [(h.annotator, h.correct, h.total) for h in r.human]
    assert human == [("ali", 1, 1), ("mina", 1, 2)]
    assert r.human[1].low == pytest.approx(stats.wilson(1, 2)[0])


def test_empty_database_gives_an_empty_report(store):
    r = build_report(store)
    assert (r.run_ids, r.questions, r.leaderboard) == ([], 0, [])
    assert "nothing to compare" in render_text(r)


# ---------------------------------------------------------------- outputs


def test_reports_are_deterministic_to_the_byte(two_runs, tmp_path):
    store, a, b = two_runs
    first = {f: render_files(build_report(store, seed=3, n_boot=300), f) for f in ("md", "csv", "json")}
    second = {f: render_files(build_report(store, seed=3, n_boot=300), f) for f in ("md", "csv", "json")}
    assert first == second
    assert set(first["md"]) == {"report.md", "leaderboard.png", "position.png"}
    assert first["md"]["leaderboard.png"][:8] == b"\x89PNG\r\n\x1a\n"
    assert b"Matplotlib" not in first["md"]["leaderboard.png"]  # no Software metadata
    assert b"![Leaderboard" in first["md"]["report.md"] and b"](position.png)" in first["md"]["report.md"]
    data = json.loads(first["json"]["report.json"])
    assert data["questions"] == 5 and data["leaderboard"][0]["wilson_low"] == pytest.approx(0.375535, abs=1e-6)
    other = render_files(build_report(store, seed=4, n_boot=300), "json")
    assert other != first["json"]  # the seed matters (bootstrap intervals)


def test_cli_report_formats(two_runs, tmp_path, capsys):
    store, a, b = two_runs
    db = str(store.path)
    assert main(["--db", db, "report"]) == 0
    out = capsys.readouterr().out
    assert "5 question(s) answered by all" in out and "Wilson 95 %" in out
    assert "model-a" in out and "How to read it" in out
    expected = {"md": {"report.md", "leaderboard.png", "position.png"}, "json": {"report.json"},
                "csv": {"leaderboard.csv", "pairs.csv", "breakdowns.csv", "position.csv", "confusion.csv",
                        "agreement.csv", "hardest.csv", "human.csv", "items.csv", "clusters.csv",
                        "baseline.csv"}}
    for fmt, names in expected.items():
        folder = tmp_path / fmt
        assert main(["--db", db, "report", "--format", fmt, "-o", str(folder), "--bootstrap", "200"]) == 0
        assert {p.name for p in folder.iterdir()} == names
        assert "file(s) in" in capsys.readouterr().out
    rows = list(csv.DictReader(open(tmp_path / "csv" / "leaderboard.csv", encoding="utf-8")))
    assert [(r["run_id"], r["correct"], r["total"], r["group"]) for r in rows] == [(str(a), "4", "5", "1"),
                                                                                     (str(b), "3", "5", "1")]
    assert main(["--db", db, "report", "--runs", f"{b}", "--format", "json", "-o", str(tmp_path / "one")]) == 0
    assert json.loads((tmp_path / "one" / "report.json").read_text())["run_ids"] == [b]
    capsys.readouterr()
    assert main(["--db", db, "report", "--runs", "1,x"]) == 1
    assert main(["--db", db, "report", "--runs", "42"]) == 1
    assert main(["--db", db, "report", "--questions", "curated"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["persian-tui: error: --runs takes run ids (1 to 9223372036854775807) separated by commas, "
                   "e.g. 1,2,5 (got '1,x')",
                   "persian-tui: error: no run 42",
                   f"persian-tui: error: runs {a}, {b} share no question with a key in the question set 'curated'"]


def test_cli_report_without_runs(tmp_path, capsys):
    Store(tmp_path / "empty.db").close()
    assert main(["--db", str(tmp_path / "empty.db"), "report"]) == 1
    assert "no runs to report" in capsys.readouterr().err


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
    # the case: 44/4 discordant of 194 -> the MDE's exact power is 80 %, not 59 %
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


def test_leaderboard_ranks_by_all_answered_and_names_the_limit(store):
    add_questions(store, [1] * 10)
    full = add_run(store, "full", [1] * 6 + [2] * 4)  # 6/10 overall, 2/2 on the shared q1, q2
    short = add_run(store, "short", [1, 2], uids=["q1", "q2"])  # 1/2 overall and shared
    r = build_report(store, n_boot=50)
    assert r.questions == 2 and r.limiting == [short]
    top, second = r.leaderboard
    assert (top.run_id, top.answered_correct, top.answered) == (full, 6, 10)
    assert (second.answered_correct, second.answered) == (1, 2)
    from statsmodels.stats.proportion import proportion_confint

    assert (top.answered_low, top.answered_high) == pytest.approx(
        proportion_confint(6, 10, method="wilson"), abs=1e-12)
    assert (top.correct, top.total) == (2, 2)  # the paired figures stay on the shared questions
    text = render_text(r)
    assert "EVERY keyed question" in text and "exact" in text and f"#{short} (2)" in text


def test_broken_runs_are_left_out_by_default_and_listed(store):
    add_questions(store, [1, 2, 3, 4])
    good = add_run(store, "good", [1, 2, 3, 1])
    bad = add_run(store, "bad", ["x", "x", None, 1])  # 3 of 4 unusable
    r = build_report(store, n_boot=50)
    assert r.run_ids == [good] and r.left_out[bad] == "broken: 3 of 4 answers unusable"
    assert "broken" in render_text(r)
    assert build_report(store, run_ids=[good, bad], n_boot=50).run_ids == [good, bad]


def test_position_bias_against_uniform_and_keys(store):
    from scipy.stats import chisquare

    add_questions(store, [1, 1, 1, 1, 2, 2, 3, 4])
    add_run(store, "first", [1, 1, 1, 1, 1, 1, 1, 2])
    (pos,) = build_report(store, n_boot=50).position
    assert pos.chosen == [7, 1, 0, 0] and pos.keys == [4, 2, 1, 1]
    ref_u = chisquare([7, 1, 0, 0], [2, 2, 2, 2])
    ref_k = chisquare([7, 1, 0, 0], [4, 2, 1, 1])
    assert (pos.chi2_uniform, pos.p_uniform) == pytest.approx((ref_u.statistic, ref_u.pvalue))
    assert (pos.chi2, pos.p) == pytest.approx((ref_k.statistic, ref_k.pvalue))


def test_json_pairs_carry_mde(two_runs):
    store, a, b = two_runs
    data = json.loads(render_files(build_report(store, n_boot=50), "json")["report.json"])
    (pair,) = data["pairs"]
    psi = (pair["a_only"] + pair["b_only"]) / pair["n"]
    assert pair["mde"] is None  # 5 questions, 3 discordant: no difference is detectable
    assert pair["n_needed"] == int(stats.connor_n(psi, 0.05)) > pair["n"]
    assert pair["n_needed_adjusted"] == pair["n_needed"]  # one pair: Holm's first step is alpha
    assert pair["diff_low_simultaneous"] == pair["diff_low"]


# ---------------------------------------------------------------- the seed's published answers


def test_seed_exp6_runs_match_the_csv_is_correct_column(store, seed):
    run_import(store, seed / "gherabat-questions-sample.json", answers=seed / "gherabat-answer-keys.json")
    imported = import_predictions(store, seed / "exp6-llm-answers.csv", source="gherabat-questions-sample")
    # each model answered two different "question 6"s: the importer skips them as ambiguous
    assert set(imported.ambiguous) == {"6"}
    rows = list(csv.DictReader(open(seed / "exp6-llm-answers.csv", encoding="utf-8")))
    keyed = {q.source_id for q in store.questions.questions() if q.key is not None} - set(imported.ambiguous)
    runs = {r.model: r.id for r in store.runs.runs()}
    assert len(runs) == 31
    mine = {m: [row for row in rows if row["model_name"] == m and row["question_id"] in keyed] for m in runs}
    for model, rid in runs.items():  # each run alone: every question it answered
        r = build_report(store, run_ids=[rid], n_boot=50)
        row = r.leaderboard[0]
        assert (row.correct, row.total) == (sum(x["is_correct"] == "True" for x in mine[model]), len(mine[model]))
        assert row.invalid == sum(not x["model_answer"].strip() for x in mine[model])
    full = build_report(store, n_boot=200)
    # one run's answers are almost all unusable: the default leaves it out and says so
    broken = {rid: why for rid, why in full.left_out.items() if why.startswith("broken")}
    assert len(broken) == 1 and len(full.leaderboard) == 30
    full = build_report(store, run_ids=list(runs.values()), n_boot=200)
    shared = set.intersection(*({x["question_id"] for x in m} for m in mine.values()))
    assert full.questions == len(shared) and len(full.leaderboard) == 31
    for row in full.leaderboard:  # accuracy on everything the run answered, from the CSV
        assert (row.answered_correct, row.answered) == (
            sum(x["is_correct"] == "True" for x in mine[row.model]), len(mine[row.model]))
    for row in full.leaderboard:
        csv_rows = [x for x in mine[row.model] if x["question_id"] in shared]
        assert row.correct == sum(x["is_correct"] == "True" for x in csv_rows)
    assert full.leaderboard[0].model == "google/gemini-2.5-pro"
    assert len(full.pairs) == 31 * 30 // 2
