"""The common scale (reports/scale.py): an item-response model fitted on every run's answers,
checked against an independent fit and known parameters, and the leaderboard it orders."""

import numpy as np
import pytest
from factories import add_questions, add_run, seed_answer_bank

from persian_tui.reports import scale
from persian_tui.reports.figures import build_report
from persian_tui.reports.ranking import Ranked, respect
from persian_tui.reports.report_files import render_text


def simulated(R=150, J=40, missing=0.3, seed=11):
    """Rasch answers with known abilities and difficulties, a share of them missing at random."""
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(0, 1, R), rng.normal(0, 1, J)
    p = 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    right = (rng.random((R, J)) < p).astype(float)
    asked = rng.random((R, J)) >= missing
    return theta, b, right, asked


def test_the_rasch_fit_matches_an_independent_logistic_regression_and_recovers_the_truth():
    """statsmodels' logistic regression with one dummy per run and per question (unpenalised
    joint ML) on the answered cells only; ours differs by its weak ridge prior alone."""
    import statsmodels.api as sm

    theta, b, right, asked = simulated()
    R, J = right.shape
    fit = scale.fit(right, asked, model="rasch")
    rows, cols = np.nonzero(asked)
    X = np.zeros((len(rows), R + J - 1))
    X[np.arange(len(rows)), rows] = 1.0  # ability of run r
    keep = cols > 0  # question 0's difficulty fixed at 0 (identification)
    X[np.arange(len(rows))[keep], R + cols[keep] - 1] = -1.0
    ref = sm.GLM(right[rows, cols], X, family=sm.families.Binomial()).fit()
    ours = fit.ability - fit.difficulty[0]
    assert np.corrcoef(ours, ref.params[:R])[0, 1] > 0.999
    assert np.all(np.abs(ours - ref.params[:R]) < 0.08 * np.abs(ref.params[:R]) + 0.03)  # the prior's shrinkage
    # the known parameters, up to the scale's origin
    assert np.corrcoef(fit.ability, theta)[0, 1] > 0.9
    assert np.corrcoef(fit.difficulty, b)[0, 1] > 0.95
    assert abs(np.mean((fit.ability - fit.ability.mean()) - (theta - theta.mean()))) < 0.05
    # intervals: about 95 % of the true abilities (centred alike) inside
    lo = fit.ability - 1.96 * fit.ability_se - (fit.difficulty.mean() - b.mean())
    hi = fit.ability + 1.96 * fit.ability_se - (fit.difficulty.mean() - b.mean())
    assert 0.88 < np.mean((lo <= theta) & (theta <= hi)) <= 1.0


def test_the_2pl_is_chosen_only_where_its_bic_is_lower():
    rng = np.random.default_rng(5)
    R, J = 400, 30
    theta, b = rng.normal(0, 1, R), rng.normal(0, 1, J)
    a = np.where(np.arange(J) % 2, 0.4, 2.5)  # discriminations far from equal
    right = (rng.random((R, J)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(float)
    asked = np.ones((R, J), dtype=bool)
    fit = scale.fit(right, asked)
    assert fit.model == "2pl" and fit.bic["2pl"] < fit.bic["rasch"]
    assert np.mean(fit.discrimination[::2]) > 2 * np.mean(fit.discrimination[1::2])
    _, _, right, asked = simulated(R=40, J=30)  # Rasch data, few runs: Rasch
    fit = scale.fit(right, asked)
    assert fit.model == "rasch" and fit.bic["rasch"] < fit.bic["2pl"]


def test_whole_set_accuracy_is_exact_for_a_full_run_and_covers_the_unanswered():
    theta, b, right, asked = simulated(R=200, J=60, missing=0.0, seed=3)
    seen = asked.copy()
    seen[100:, 30:] = False  # half the runs answered half the questions
    fit = scale.fit(right, seen)
    whole = scale.whole_set(fit, right, seen, fit.ability, fit.ability_se)
    truth = right.mean(axis=1)  # what they would have scored on every question
    assert np.allclose(whole.accuracy[:100], truth[:100]) and np.allclose(whole.low[:100], truth[:100])
    inside = (whole.low[100:] <= truth[100:] + 1e-12) & (truth[100:] <= whole.high[100:] + 1e-12)
    assert inside.mean() >= 0.9


def test_misfitting_questions_are_found():
    theta, b, right, asked = simulated(R=300, J=30, missing=0.0, seed=8)
    right[:, 0] = (theta < 0).astype(float)  # the weak runs get it right: contrary to the model
    fit = scale.fit(right, asked, model="rasch")
    assert fit.misfit[0] and fit.misfit.sum() <= 2


def test_respect_moves_a_run_below_the_one_that_significantly_beat_it():
    board = [Ranked(1, 1, 6, 10, 0.6), Ranked(2, 2, 5, 10, 0.5), Ranked(3, 3, 4, 10, 0.4)]
    assert respect(board, set()) is board
    moved = respect(board, {(3, 1)})
    assert [x.run_id for x in moved] == [2, 3, 1] and [x.rank for x in moved] == [1, 2, 3]


def test_different_question_sets_rank_on_the_common_scale(store):
    """A run that answered only the hard questions is not ranked below a run that answered the
    easy ones for having the lower accuracy."""
    rng = np.random.default_rng(2)
    J = 120
    difficulty = np.linspace(-2, 2, J)
    add_questions(store, [1] * J)
    ids = []
    for i, ability in enumerate(np.linspace(-1, 1, 12)):
        right = rng.random(J) < 1 / (1 + np.exp(-(ability - difficulty)))
        ids.append(add_run(store, f"m{i}", [1 if r else 2 for r in right]))
    strong = add_run(store, "strong-on-hard", [1 if x else 2 for x in rng.random(70) < 0.55],
                     uids=[f"q{j}" for j in range(51, 121)])  # only the harder questions, 55 %
    weak = add_run(store, "weak-on-easy", [1 if x else 2 for x in rng.random(60) < 0.6],
                   uids=[f"q{j}" for j in range(1, 61)])  # only the easy half, 60 %
    r = build_report(store, n_boot=200)
    assert r.ranked_by == "whole set" and r.scale_model == "rasch"
    order = [x.run_id for x in r.leaderboard]
    by = {x.run_id: x for x in r.leaderboard}
    assert by[weak].answered_accuracy > by[strong].answered_accuracy
    assert order.index(strong) < order.index(weak)
    assert by[strong].whole_accuracy > by[weak].whole_accuracy
    for x in r.leaderboard:
        assert x.ability_low < x.ability < x.ability_high and x.whole_low <= x.whole_accuracy <= x.whole_high
    assert "whole-set accuracy" in render_text(r)
    same = build_report(store, run_ids=ids, n_boot=50)  # the same questions: ranked by accuracy
    assert same.ranked_by == "answered" and "whole-set 95 %" not in render_text(same)


def test_seed_leaderboard_never_contradicts_a_significant_pair(store, seed):
    """The seed's runs answered 98 or 198 questions: ranked on the common scale, the order agrees
    with every Holm-significant paired result; letters follow it."""
    runs = seed_answer_bank(store, seed / "exp6-llm-answers.csv")
    r = build_report(store, n_boot=300)
    assert r.ranked_by == "whole set"
    position = {x.run_id: i for i, x in enumerate(r.leaderboard)}
    significant = [p for p in r.pairs if p.significant]
    assert significant
    for p in significant:
        winner, loser = (p.a, p.b) if p.a_only > p.b_only else (p.b, p.a)
        assert position[winner] < position[loser]
        assert position[p.a] < position[p.b]  # pairs listed in leaderboard order
    # grok-4-fast beat claude-haiku on their shared questions: no longer ranked below it
    assert position[runs["x-ai/grok-4-fast"]] < position[runs["anthropic/claude-haiku-4.5"]]
    figures = [x.whole_accuracy for x in r.leaderboard]
    assert r.moved or figures == sorted(figures, reverse=True)
    for x in r.leaderboard:
        assert x.rank_low_simultaneous <= x.rank_low <= x.rank_high <= x.rank_high_simultaneous


@pytest.mark.parametrize("n", [10, 25])
def test_anchors_are_deterministic_and_informative(n):
    theta, b, right, asked = simulated(R=120, J=80, missing=0.2, seed=4)
    fit = scale.fit(right, asked)
    uids = [f"q{j}" for j in range(80)]
    chosen = scale.anchors(fit, uids, n)
    assert chosen == scale.anchors(fit, uids, n) and len(set(chosen)) == n
    info = scale.information(fit, fit.ability).sum(axis=0)
    picked = [uids.index(u) for u in chosen]
    assert info[picked].min() >= np.sort(info)[-n]  # the n most informative at the runs' abilities
    rng = np.random.default_rng(0)
    assert info[picked].sum() > max(info[rng.choice(80, n, replace=False)].sum() for _ in range(50))


def test_a_run_asked_only_the_anchors_gets_a_whole_set_estimate(store, capsys):
    """`items anchors --n 12` lists the anchors; `run llm --anchors 12` asks exactly those (over real
    HTTP to the test server); the report then ranks that run on the common scale."""
    from factories import synthetic_bank
    from llm_server import LLMServer, chat

    from persian_tui.cli import main
    from persian_tui.reports.anchors import choose_anchors

    synthetic_bank(store, n_questions=80, abilities=list(np.linspace(0.3, 0.8, 10)))
    expected = [a.uid for a in choose_anchors(store, 12).anchors]
    assert main(["--db", str(store.path), "items", "anchors", "--n", "12", "--format", "csv"]) == 0
    listed = [line.split(",")[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert listed == expected
    assert main(["--db", str(store.path), "items", "anchors", "--n", "500"]) == 1
    assert "has 80 keyed question(s)" in capsys.readouterr().err
    with LLMServer(lambda body, n: chat("Answer: 1")) as server:
        code = main(["--db", str(store.path), "run", "llm", "--base-url", server.url, "--model", "anchored",
                     "--questions", "all", "--anchors", "12", "--max-retries", "0"])
    assert code == 0 and len(server.requests) == 12
    (run,) = [r for r in store.runs.runs() if r.model == "anchored"]
    assert sorted(p.uid for p in store.runs.predictions(run.id)) == sorted(expected)
    r = build_report(store, n_boot=100)
    row = next(x for x in r.leaderboard if x.run_id == run.id)
    assert r.ranked_by == "whole set" and row.answered == 12
    assert row.whole_low < row.whole_accuracy < row.whole_high
