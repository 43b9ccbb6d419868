"""Paired comparisons (reports/pairs.py): each pair on its own overlap, exact intervals that
agree with their tests, Holm and the groups."""

import json

import pytest
from factories import add_questions, add_run, planted_pair, synthetic_bank

from persian_tui import stats
from persian_tui.reports.figures import build_report
from persian_tui.reports.report_files import render_files, render_text

# 29 runs on 200 questions; the last 14 answered only the first 100 (as the seed's exp-6 runs: 97 shared)
LIMITS = [200] * 15 + [100] * 14


@pytest.fixture
def bank29(store):
    return store, synthetic_bank(store, limits=LIMITS)


def _significant(report, runs) -> set:
    return {(p.a, p.b) for p in report.pairs if p.a in runs and p.b in runs
            and p.p_holm is not None and p.p_holm < 0.05}


def test_pairs_are_tested_on_their_own_overlap(bank29):
    store, runs = bank29
    r = build_report(store, n_boot=50)
    answered = dict(zip(runs, LIMITS))
    for p in r.pairs:  # n, b and c counted on the questions both answered
        assert p.n == min(answered[p.a], answered[p.b])
        assert p.p_exact == pytest.approx(stats.mcnemar_exact(p.a_only, p.b_only), rel=1e-12)
    tested = [p.p_exact for p in r.pairs]
    assert [p.p_holm for p in r.pairs] == pytest.approx(stats.holm(tested).tolist())
    # two full runs: compared on all 200 questions, not on the 100 every run shares
    assert r.questions == 100 and next(p for p in r.pairs if {p.a, p.b} == {runs[0], runs[14]}).n == 200


def test_a_short_run_keeps_the_others_significant_pairs(bank29):
    store, runs = bank29
    before = _significant(build_report(store, n_boot=50), set(runs))
    assert len(before) > 100
    short = add_run(store, "short", [1] * 40, uids=[f"q{i}" for i in range(61, 101)])
    after = build_report(store, n_boot=50)
    assert after.questions == 40 and short in after.run_ids
    kept = _significant(after, set(runs)) & before
    assert len(kept) >= 0.8 * len(before)
    assert next(p for p in after.pairs if short in (p.a, p.b)).n == 40  # the short run: its own 40


def test_the_interval_is_tangos_and_says_where_it_and_the_exact_test_disagree(bank29):
    """The interval (Tango's score interval corrected by half a question) excludes 0 exactly when
    the asymptotic McNemar score test with that correction rejects, |b - c| - 1/2 against
    sqrt(b + c) (scipy's normal, an independent computation). Where that and the exact p fall on
    different sides of 0.05 the row says so (`disagree`)."""
    from scipy.stats import norm

    store, runs = bank29
    r = build_report(store, n_boot=200)
    m = len(r.pairs)
    flagged = 0
    for p in r.pairs:
        discordant = p.a_only + p.b_only
        gap = max(abs(p.a_only - p.b_only) - 0.5, 0.0)
        score_p = 2 * norm.sf(gap / discordant ** 0.5) if discordant else 1.0
        excludes = p.diff_low > 0 or p.diff_high < 0
        assert excludes == (score_p < 0.05), (p.a, p.b, p.a_only, p.b_only)
        assert p.disagree == (excludes != (p.p_exact < 0.05))
        flagged += p.disagree
        if p.disagree:  # only near the line
            assert 0.02 < p.p_exact < 0.1
        assert p.diff_low <= p.diff <= p.diff_high
        # the simultaneous (Bonferroni) interval holds for all pairs at once: wider
        assert p.diff_low_simultaneous <= p.diff_low and p.diff_high <= p.diff_high_simultaneous
        assert (p.diff_low_simultaneous > 0 or p.diff_high_simultaneous < 0) == (score_p * m < 0.05)
    assert flagged  # the bank has such pairs, and they are marked in the text
    assert " †" in render_text(r, max_pairs=10_000)
    data = json.loads(render_files(r, "json")["report.json"])
    assert {"diff_low_simultaneous", "diff_high_simultaneous", "mde_adjusted", "disagree", "in_family"} <= set(
        data["pairs"][0])
    assert "simultaneous" in render_text(r, intervals="simultaneous")


def test_where_the_exact_test_and_the_interval_meet_at_005(store):
    """19 against 8 discordant of 60: exact p 0.052, and Tango's interval just excludes 0 (score
    test p 0.034): the row is marked as a disagreement rather than hidden."""
    planted_pair(store, n=60, a_only=19, b_only=8, both=20)
    (pair,) = build_report(store, n_boot=200).pairs
    assert pair.p_exact == pytest.approx(0.0522, abs=1e-4)
    assert 0 < pair.diff_low < pair.diff_high and pair.disagree
    lo, hi = stats.paired_difference_interval(19, 8, 60)
    assert (pair.diff_low, pair.diff_high) == pytest.approx((float(lo), float(hi)))


def test_pairs_holm_and_letters(store):
    """Three runs on 40 questions: two close ones, one far below. The close pair (4 against 0)
    can never reach p < 0.05 (smallest exact p 2/16): left out of the Holm family (Tarone)."""
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

    family = [(good, bad), (near, bad)]
    raw = [mcnemar([[0, by[k].a_only], [by[k].b_only, 0]], exact=True).pvalue for k in family]
    assert [by[k].p_holm for k in family] == pytest.approx(list(multipletests(raw, method="holm")[1]))
    assert (by[(good, near)].a_only, by[(good, near)].b_only) == (4, 0)
    assert by[(good, near)].p_holm is None and not by[(good, near)].in_family
    assert by[(good, bad)].p_holm < 0.05
    assert r.family is not None and (r.family.runs, r.family.pairs, r.family.size) == (3, 3, 2)
    assert r.groups == [[good, near], [bad]]
    assert [x.letters for x in r.leaderboard] == ["a", "a", "b"]
    assert by[(good, bad)].diff_low > 0  # the interval excludes 0
    text = render_text(r)
    assert "not evidence that they are equal" in text and "Holm family: the 2 pair(s) of the 3 runs" in text
    lines = render_files(r, "csv")["leaderboard.csv"].decode().splitlines()
    assert lines[0].endswith(",letters") and lines[1].endswith(",a") and lines[3].endswith(",b")
    data = json.loads(render_files(r, "json")["report.json"])
    assert [row["letters"] for row in data["leaderboard"]] == ["a", "a", "b"]


def test_letters_follow_the_holm_decisions(bank29):
    """Every pair that shares a letter is not Holm-significant, and every pair that is not
    significant shares a letter (the defining property of a compact letter display)."""
    store, runs = bank29
    r = build_report(store, n_boot=50)
    letters = {x.run_id: set(x.letters) for x in r.leaderboard}
    for p in r.pairs:
        assert bool(letters[p.a] & letters[p.b]) == (not p.significant), (p.a, p.b)
    assert len(r.groups) > 2


def test_a_run_that_cannot_reach_significance_changes_no_other_conclusion(bank29):
    """A short run whose pairs (10 shared questions) can never reach 0.05/K once moved
    another pair from significant to not. Its pairs are left out of the family (Tarone 1990): every
    other pair keeps its Holm p exactly."""
    store, runs = bank29
    before = {(p.a, p.b): p.p_holm for p in build_report(store, n_boot=50).pairs}
    short = add_run(store, "short", [1, 2, 3, 4, 1, 2, 3, 4, 1, 2], uids=[f"q{i}" for i in range(91, 101)])
    after = build_report(store, n_boot=50)
    theirs = [p for p in after.pairs if short in (p.a, p.b)]
    assert theirs and all(p.n == 10 and not p.in_family and p.p_holm is None for p in theirs)
    assert {(p.a, p.b): p.p_holm for p in after.pairs if short not in (p.a, p.b)} == before
    assert after.family is not None and after.family.pairs - after.family.size >= len(theirs)


def _sampled_run(store, model, samples: dict[str, list[int]]) -> int:
    from persian_tui.models import Prediction

    preds = [Prediction(uid, a, "ok", sample=s) for uid, answers in samples.items() for s, a in enumerate(answers)]
    return store.runs.create_run("llm", model, {"samples": 5}, total=len(samples), status="done",
                                 predictions=preds).id


def test_tied_votes_stay_out_of_the_pair_tests(store):
    """Tied majorities: two 5-sample runs with tied majorities beside a single run. On the 12
    questions both voted runs answered with one answer, A alone is right on 6 and B alone on 1:
    6/1, exact p 0.125, +41.7 points. Two questions where A is right and B's vote is tied (its first
    sample the key) once leaked in as "both right" and printed 4/1, p 0.375, +25.0."""
    add_questions(store, [1] * 16)
    right, wrong = [1] * 5, [2] * 5
    tie_first_right = [1, 1, 2, 2, 3]  # 1 and 2 tie; the first sample is the key
    a = {f"q{i}": right for i in range(1, 7)} | {"q7": wrong} | {f"q{i}": wrong for i in range(8, 13)}
    b = {f"q{i}": wrong for i in range(1, 7)} | {"q7": right} | {f"q{i}": wrong for i in range(8, 13)}
    a |= {"q13": right, "q14": right, "q15": tie_first_right, "q16": wrong}
    b |= {"q13": tie_first_right, "q14": tie_first_right, "q15": tie_first_right, "q16": tie_first_right}
    ida, idb = _sampled_run(store, "voter-a", a), _sampled_run(store, "voter-b", b)
    add_run(store, "single", [1] * 16)
    r = build_report(store, n_boot=50)
    pair = next(p for p in r.pairs if {p.a, p.b} == {ida, idb})
    assert (pair.a, pair.n, pair.a_only, pair.b_only) == (ida, 12, 6, 1)
    assert pair.p_exact == pytest.approx(0.125)
    assert pair.diff == pytest.approx(5 / 12)
    # the interval and the power are on the same 12 questions
    lo, hi = stats.paired_difference_interval(6, 1, 12)
    assert (pair.diff_low, pair.diff_high) == pytest.approx((float(lo), float(hi)))
