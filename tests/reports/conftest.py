"""Fixtures of the report tests: two runs on five hand-made questions."""

import pytest
from factories import add_questions, add_run


@pytest.fixture
def two_runs(store):
    """5 questions, keys 1 2 3 4 1; A answers 1 2 3 4 2 (4 right), B 1 3 - 4 1 (3 right, 1 empty)."""
    add_questions(store, [1, 2, 3, 4, 1], category=["a", "a", "a", "b", None],
                  poet=["حافظ", None, None, None, None],
                  option_poets={"q2": ["سعدی", "حافظ", "سعدی", None]})  # q2: its options' poets
    a = add_run(store, "model-a", [1, 2, 3, 4, 2], tokens_in=10, tokens_out=2, latency=0.5, cost=0.001)
    b = add_run(store, "model-b", [1, 3, None, 4, 1])
    return store, a, b
