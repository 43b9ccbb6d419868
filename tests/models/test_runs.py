"""Runs' rules (models/runs.py): the majority vote over a run's samples and a tie's credit."""

from fractions import Fraction

from persian_tui.models import Prediction, SampleVote, sample_vote


def test_vote_ties_errors_and_no_usable_sample():
    def p(s, ans, status="ok"):
        return Prediction("q", ans, status, sample=s)
    v = sample_vote([p(2, 3), p(0, 1), p(1, 3), p(3, 1)])
    assert (v.answer, v.top, v.asked, v.chosen.sample) == (1, 2, 4, 0)  # a tie: the first given
    v = sample_vote([p(0, None, "api_error"), p(1, None, "invalid"), p(2, 4)])
    assert (v.answer, v.asked, v.agreement, v.chosen.sample) == (4, 2, 0.5, 2)
    v = sample_vote([p(0, None, "api_error"), p(1, None, "refusal")])
    assert (v.answer, v.agreement, v.chosen.sample) == (0, 0.0, 1)
    v = sample_vote([p(0, None, "api_error")])
    assert (v.answer, v.agreement, v.chosen.sample) == (0, None, 0)


def test_vote_credit_is_one_over_the_tied_options():
    def vote(*answers):
        return SampleVote(answers[0], 0, len(answers), None, tuple(answers))

    assert vote(2, 1, 1, 2).tied == (1, 2)
    assert vote(2, 1, 1, 2).credit(1) == vote(2, 1, 1, 2).credit(2) == Fraction(1, 2)
    assert vote(2, 1, 1, 2).credit(3) == 0
    assert vote(1, 2, 3, 0).credit(3) == Fraction(1, 3)
    assert vote(3, 3, 1).credit(3) == 1 and vote(3, 3, 1).tied == (3,)
    assert vote(0, 0).tied == () and vote(0, 0).credit(1) == 0
