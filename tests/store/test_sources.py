"""Source references (store/sources.py)."""

from __future__ import annotations

from factories import make_question

from persian_tui.models import SourceRef


def test_editing_the_source_moves_its_reference(store):
    store.questions.add_questions([make_question("q-1", source_name="a", source_id="1")])
    q = store.questions.get_question("q-1")
    q.source_id = "2"
    store.curation.update_question(q, "ali")
    assert store.questions.get_question("q-1").references() == [SourceRef("a", "2")]
