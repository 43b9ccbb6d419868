"""Fixtures of the CLI tests: the sample bank in a new database."""

import pytest


@pytest.fixture
def sample_db(tmp_path, monkeypatch):
    """The sample bank in a new database file (its path); PERSIAN_TUI_DB unset."""
    from persian_tui.cli import main

    monkeypatch.delenv("PERSIAN_TUI_DB", raising=False)
    path = str(tmp_path / "habits.db")
    assert main(["--db", path, "sample"]) == 0
    return path
