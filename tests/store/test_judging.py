"""The error taxonomy (store/judging.py)."""

import pytest

from persian_tui.judging.verdicts import DEFAULT_TAXONOMY

CATS = [row[0] for row in DEFAULT_TAXONOMY]


def test_taxonomy_is_seeded_once_and_editable(store):
    from persian_tui.models import ErrorCategory

    store.judging.ensure_error_categories(DEFAULT_TAXONOMY)
    assert [c.name for c in store.judging.error_categories()] == CATS
    store.judging.save_error_category(ErrorCategory("meter_confusion", "خلط وزن", "meter confusion"))
    store.judging.ensure_error_categories(DEFAULT_TAXONOMY)  # an edited taxonomy is not reset
    assert store.judging.error_categories()[-1].name == "meter_confusion"
    store.judging.delete_error_category("meter_confusion")
    with pytest.raises(ValueError):
        store.judging.save_error_category(ErrorCategory("bad name!", "x", "x"))
