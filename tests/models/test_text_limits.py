"""Every text a person enters has one cap and holds no control character, checked in the store on
write whichever way it came (the app, a browser, a file, the CLI): a stem, a hemistich, a poet, a
category, a tag, a label's flag, an error category's fields, a candidate's reject reason, a search.
ZWNJ, ZWJ and the bidi marks are text and stay byte-exact."""

from __future__ import annotations

from dataclasses import replace

import pytest
from factories import make_question

from persian_tui.access import solo
from persian_tui.bank.search import BankSearch
from persian_tui.models import ErrorCategory
from persian_tui.models.limits import LIMITS, check_text, limit, text_problem
from persian_tui.store import Store

ESC = "\x1b[31m"
PERSIAN = "می\u200cخانه \u200dپ \u200fسلام\u202b متن\u202c"  # ZWNJ, ZWJ, RLM, RLE ... PDF


def test_one_cap_per_idea_and_no_control_character():
    for kind, (most, lines, what) in LIMITS.items():
        assert check_text(kind, "x" * most) == "x" * most
        said = f"{what} is at most {most:,} characters (this one has {most + 1:,})"
        assert text_problem(kind, "x" * (most + 1)) == said
        assert text_problem(kind, f"a{ESC}") == f"{what} holds no control character (U+001B)"
        assert text_problem(kind, "a\x00") is not None and text_problem(kind, "a\x85") is not None
        assert (text_problem(kind, "one\ntwo") is None) == lines
        assert check_text(kind, PERSIAN) == PERSIAN  # byte-exact


@pytest.mark.parametrize("field", ["stem", "hemistich", "option poet", "poet", "category", "tag", "explanation"])
def test_a_question_with_a_control_character_or_an_overlong_field_is_never_stored(tmp_path, field):
    q = make_question("q-1")
    bad = {"stem": lambda t: replace(q, stem=t),
           "hemistich": lambda t: replace(q, options=[replace(q.options[0], mesra1=t), *q.options[1:]]),
           "option poet": lambda t: replace(q, options=[replace(q.options[0], poet=t), *q.options[1:]]),
           "poet": lambda t: replace(q, poet=t), "category": lambda t: replace(q, category=t),
           "tag": lambda t: replace(q, tags=[t]), "explanation": lambda t: replace(q, explanation=t)}[field]
    with Store(tmp_path / "b.db") as store:
        store.questions.add_questions([q])
        for text in (f"عشق{ESC}", "ع" * 20_001):
            edited = bad(text)
            assert edited.problems(), (field, text[:5])
            with pytest.raises(ValueError, match="control character|at most"):
                store.curation.update_question(edited, "boss")
        assert store.questions.get_question("q-1").options[0].mesra1 == q.options[0].mesra1  # unchanged
        fine = bad(PERSIAN)
        assert not fine.problems()


def test_a_flag_an_error_category_and_a_reject_reason_are_checked_on_write(tmp_path):
    with Store(tmp_path / "b.db") as store:
        store.questions.add_questions([make_question("q-1")])
        with pytest.raises(ValueError, match="a reason holds no control character"):
            store.labels.add_label("q-1", "ali", None, flag=f"bad{ESC}")
        with pytest.raises(ValueError, match="a reason is at most 500 characters"):
            store.labels.add_label("q-1", "ali", None, flag="x" * 501)
        store.labels.add_label("q-1", "ali", None, flag=PERSIAN)
        assert [lab.flag for lab in store.labels.labels("q-1")] == [PERSIAN]  # byte-exact
        for field, text in (("label_fa", f"x{ESC}"), ("description_en", "d" * 2_001), ("example", "e\x07")):
            c = ErrorCategory(**{"name": "made_up", "label_fa": "ساختگی", "label_en": "made up", field: text})
            with pytest.raises(ValueError, match="error category"):
                store.judging.save_error_category(c)
        with pytest.raises(ValueError, match="a reason holds no control character"):
            store.candidates.decide(1, "rejected", "boss", reason=f"no{ESC}")
        with pytest.raises(ValueError, match="a shared setting holds no control character"):
            store.labels.set_setting("guidelines", f"# راهنما\n{ESC}")
        store.labels.set_setting("guidelines", f"# راهنما\n\t{PERSIAN}")
        with pytest.raises(ValueError, match="a search is at most 500 characters"):
            BankSearch(store).uids("ع" * (limit("search") + 1), who=solo())


def test_the_security_page_lists_the_caps_the_code_has():
    import re
    from pathlib import Path

    from persian_tui.models.limits import MAX_PASTE, MESSAGE_BYTES

    page = (Path(__file__).parents[2] / "docs" / "guide" / "security.md").read_text("utf-8")
    rows = [line.strip() for line in page.splitlines() if line.strip().startswith("| ")]
    shown = {int(n.replace(",", "")) for row in rows for pair in re.findall(r"\| ([\d,]+)(?: / ([\d,]+))? \|", row)
             for n in pair if n}
    assert shown == {most for most, _, _ in LIMITS.values()} | {MAX_PASTE}, shown
    assert MESSAGE_BYTES == 2**20 and "| 1 MB |" in page
