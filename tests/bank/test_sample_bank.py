"""The bundled sample bank: valid, complete, and marked as sample data."""

import json
import unicodedata

from persian_tui.bank.importer import plan_import
from persian_tui.settings import sample_bank_path


def test_sample_bank_is_complete_and_valid(store):
    plan = plan_import(store, sample_bank_path())
    assert plan.counts["rejected"] == 0 and plan.counts["new"] >= 12
    questions = [d.record.question for d in plan.decisions]
    assert len({q.category for q in questions}) >= 6
    assert {q.key for q in questions} == {1, 2, 3, 4}
    for q in questions:
        assert "sample" in q.tags and q.explanation and q.category
        assert all(o.poet for o in q.options)


def test_sample_bank_text_is_clean_persian():
    text = sample_bank_path().read_text("utf-8")
    assert "\u064a" not in text and "\u0643" not in text  # Arabic ي and ك
    assert unicodedata.normalize("NFC", text) == text
    couplets = [(o["mesra1"], o["mesra2"]) for line in text.splitlines()
                for o in json.loads(line)["options"]]
    assert len(couplets) == len(set(couplets))  # no couplet used twice
