"""Fixtures of the annotation tests: four questions labelled by three annotators (one flag)."""

import pytest
from factories import make_question


@pytest.fixture
def labelled(store):
    """q-1 agreed on and right, q-2 two to one, q-3 agreed (and flagged by a fourth), q-4 a
    three-way tie; keys 1 2 3 4, categories عشق (q-1, q-2) and قناعت."""
    store.questions.add_questions([make_question(f"q-{i}", key=k, category=c)
                                   for i, (k, c) in enumerate([(1, "عشق"), (2, "عشق"), (3, "قناعت"), (4, "قناعت")], 1)])
    for uid, answers in {"q-1": (1, 1, 1), "q-2": (2, 3, 2), "q-3": (3, 3, 3), "q-4": (1, 2, 3)}.items():
        for name, answer in zip(("ali", "sara", "reza"), answers):
            store.labels.add_label(uid, name, answer)
    store.labels.add_label("q-3", "mina", flag="بیت سوم ناقص است")
    return store
