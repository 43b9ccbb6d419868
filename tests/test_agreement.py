"""Agreement statistics against hand-computed values and direct library calls."""

import numpy as np
import pytest
from factories import make_question

from persian_tui import stats
from persian_tui.annotation.agreement import agreement_report
from persian_tui.annotation.consensus import adjudication_queue, bulk_acceptable, item_votes


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


def test_item_votes_and_queues(labelled):
    votes = {v.uid: v for v in item_votes(labelled)}
    assert votes["q-2"].majority == 2 and votes["q-2"].agrees_with_key is True
    assert votes["q-4"].majority is None  # three-way tie
    assert [v.uid for v in adjudication_queue(labelled)] == ["q-2", "q-3", "q-4"]
    assert [v.uid for v in bulk_acceptable(labelled)] == ["q-1"]
    labelled.questions.add_questions([make_question("q-5", key=None, status="draft")])
    labelled.labels.add_label("q-5", "ali", 2)  # labelled but no key yet: an adjudicator sets it
    assert "q-5" in [v.uid for v in adjudication_queue(labelled)]


def test_agreement_report(labelled):
    overall, *per_category = agreement_report(labelled)
    assert (overall.items, overall.labelled, overall.multi) == (4, 4, 4)
    assert (overall.majority_agrees, overall.majority_disagrees) == (3, 0)
    accuracy = {a.annotator: (a.correct, a.total) for a in overall.annotators}
    assert accuracy == {"ali": (3, 4), "reza": (3, 4), "sara": (2, 4)}
    ali_sara = next(p for p in overall.cohen_pairs if (p["a"], p["b"]) == ("ali", "sara"))
    assert ali_sara["items"] == 4
    assert ali_sara["kappa"] == pytest.approx(stats.cohen_kappa([1, 2, 3, 1], [1, 3, 3, 2]))
    assert overall.fleiss_items == 4 and overall.alpha_items == 4
    assert [a.scope for a in per_category] == ["عشق", "قناعت"]
    assert per_category[0].items == 2
