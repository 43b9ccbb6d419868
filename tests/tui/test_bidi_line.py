"""FieldLine: one line of an editable field as read, and the caret on it (pure)."""

from __future__ import annotations

from rich.style import Style

from persian_tui.tui.fields.bidi_line import FieldLine

ZWNJ = "\u200c"


def test_persian_line_slots_right_to_left_with_the_end_on_the_left():
    line = FieldLine("سلام")
    assert line.rtl and line.width == 5
    assert [s.pos for s in line.slots] == [4, 3, 2, 1, 0]  # the end slot first, on the left
    assert [line.x_of(p) for p in range(5)] == [4, 3, 2, 1, 0]
    assert [line.pos_at(x) for x in range(5)] == [4, 3, 2, 1, 0]
    assert line.pos_at(-3) == 4 and line.pos_at(9) == 0  # left of it: its end; right of it: its start
    assert line.left(0) == 1 and line.left(4) is None
    assert line.right(0) is None and line.right(4) == 3


def test_latin_line_keeps_logical_order_and_the_end_on_the_right():
    line = FieldLine("GPT")
    assert not line.rtl and [s.pos for s in line.slots] == [0, 1, 2, 3]
    assert line.left(1) == 0 and line.right(3) is None


def test_marks_zwnj_markers_and_offsets():
    line = FieldLine(f"بَ{ZWNJ}ت", offset=10, markers=True)
    assert [(s.pos, s.end, s.text, s.marker) for s in line.slots] == [
        (14, 14, " ", False), (13, 14, "ت", False), (12, 13, "·", True), (10, 12, "بَ", False)]
    assert line.x_of(11) == line.x_of(10)  # inside a letter with its mark: that letter's cell
    plain = FieldLine(f"بَ{ZWNJ}ت", offset=10)
    assert [s.text for s in plain.slots] == [" ", "ت", ZWNJ, "بَ"] and plain.width == 3


def test_a_wrapped_line_has_no_end_slot():
    line = FieldLine("سلام ", offset=0, has_end=False)
    assert [s.pos for s in line.slots] == [4, 3, 2, 1, 0]  # the trailing space on the left (rule L1)
    assert line.left(4) is None


def test_drawn_caret_selection_and_markers():
    line = FieldLine(f"می{ZWNJ}خ", markers=True)
    caret, chosen, dim = Style(reverse=True), Style(bgcolor="blue"), Style(dim=True)
    text = line.text(cursor=0, selection=(2, 0), cursor_style=caret, selection_style=chosen, marker_style=dim)
    assert text.plain == " خ·یم"
    styles = [Style.combine([Style(), *(span.style for span in text.spans if span.start <= i < span.end)])
              for i in range(len(text.plain))]
    assert styles[4].reverse and styles[4].bgcolor is not None  # the caret on the first letter, selected
    assert styles[3].bgcolor is not None and styles[2].bgcolor is None and styles[2].dim
