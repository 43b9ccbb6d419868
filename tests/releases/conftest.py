"""Fixtures of the release tests: the sample bank released as v1 (the harness tests start from it)."""

import pytest

from persian_tui.store import Store


@pytest.fixture
def release(tmp_path, monkeypatch):
    """The sample bank, every question accepted, released as v1."""
    from persian_tui.cli import main

    monkeypatch.delenv("PERSIAN_TUI_DB", raising=False)
    db = str(tmp_path / "h.db")
    assert main(["--db", db, "sample"]) == 0
    with Store(db) as s:
        for q in s.questions.questions():
            s.curation.adjudicate(q.uid, "mina", "accept")
    out = tmp_path / "rel" / "v1"
    assert main(["--db", db, "release", "v1", "-o", str(out)]) == 0
    return db, out
