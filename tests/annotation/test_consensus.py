"""Per-question votes of the annotators and the queues built on them (annotation/consensus.py)."""

from factories import make_question

from persian_tui.annotation.consensus import adjudication_queue, bulk_acceptable, item_votes


def test_item_votes_and_queues(labelled):
    votes = {v.uid: v for v in item_votes(labelled)}
    assert votes["q-2"].majority == 2 and votes["q-2"].agrees_with_key is True
    assert votes["q-4"].majority is None  # three-way tie
    assert [v.uid for v in adjudication_queue(labelled)] == ["q-2", "q-3", "q-4"]
    assert [v.uid for v in bulk_acceptable(labelled)] == ["q-1"]
    labelled.questions.add_questions([make_question("q-5", key=None, status="draft")])
    labelled.labels.add_label("q-5", "ali", 2)  # labelled but no key yet: an adjudicator sets it
    assert "q-5" in [v.uid for v in adjudication_queue(labelled)]
