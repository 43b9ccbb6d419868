"""Fixtures the TUI tests share (a test file with a bank of its own defines its own `db`, which
takes precedence over this one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import make_question

from persian_tui.store import Store


@pytest.fixture
def db(tmp_path) -> Path:
    """Four unkeyed draft questions q-1..q-4 of the category عشق."""
    path = tmp_path / "bank.db"
    with Store(path) as store:
        store.questions.add_questions([make_question(f"q-{i}", category="عشق") for i in range(1, 5)])
    return path
