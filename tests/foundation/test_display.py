"""Safe terminal output and the one formatter of figures (display.py)."""

from __future__ import annotations

import json

from factories import HOSTILE, RAW

from persian_tui import bidi, display
from persian_tui.display import MISSING, dollars, interval, p_value, percent, points, seconds, signed_interval, tokens

ZWNJ, ZWJ, LRM, RLM, ALM = "\u200c", "\u200d", "\u200e", "\u200f", "\u061c"


def test_clean_replaces_controls_with_visible_placeholders():
    out = display.clean(HOSTILE)
    assert out == "␛]0;pwned␇␛[2J␛[31mred␛[0m\\x9b31m␈␇␍back"
    assert display.clean("a\nb\tc") == "a\nb\tc" and display.line("a\nb") == "a␤b"
    assert display.clean("\x00\x7f\x85\u2028") == "␀␡\\x85␤"
    assert display.clean("x\u202ey\u2066z\u2069") == "x⟨RLO⟩y⟨LRI⟩z⟨PDI⟩"
    assert display.clean("\ud800") == "\ufffd"
    assert display.clean(display.clean(HOSTILE)) == display.clean(HOSTILE)  # idempotent


def test_persian_marks_and_diacritics_are_kept():
    text = f"می{ZWNJ}رود {ZWJ}{LRM}{RLM}{ALM} دلِ مَن"
    assert display.clean(text) is text  # untouched, not even copied
    assert ZWNJ in "".join(bidi.display_lines(text, 40, bidi.APP))
    assert "ِ" in bidi.display_line(text, 40, bidi.APP)


def test_json_safe_keeps_the_data():
    data = {"m": HOSTILE + "\u202e"}
    text = display.json_safe(json.dumps(data, ensure_ascii=False))
    assert not RAW.search(text.encode()) and json.loads(text) == data


def test_bidi_layout_shows_placeholders_in_every_mode():
    for mode in (bidi.APP, bidi.TERMINAL, bidi.OFF):
        lines = bidi.display_lines("بیت " + HOSTILE, 80, mode)
        cell = bidi.display_line("بیت " + HOSTILE, 80, mode)
        for shown in lines + [cell]:
            assert not RAW.search(shown.encode()) and "␛" in shown and "␍" in shown


def test_percent():
    assert percent(0.582) == "58.2%" and percent(0.582, 0) == "58%" and percent(0.582, 1, " %") == "58.2 %"
    assert percent(None) == MISSING == "—"
    assert percent(3 / 80) == "3.8%"  # the share times 100, then rounded (3.75 -> 3.8)


def test_intervals_and_points():
    assert interval(0.582, 0.71) == "58.2–71.0" and interval(0.582, 0.71, " %") == "58.2–71.0 %"
    assert interval(None, 0.7) == interval(0.5, None) == MISSING
    assert signed_interval(-0.051, 0.256) == "−5.1…+25.6" and signed_interval(None, 0.1) == MISSING
    assert points(0.032) == "+3.2" and points(-0.032) == "-3.2" and points(None) == MISSING


def test_p_value():
    assert [p_value(p) for p in (None, 0.0, 5e-5, 0.00049, 0.04, 1.0)] == \
        [MISSING, "< 0.0001", "< 0.0001", "0.0005", "0.0400", "1.0000"]


def test_tokens_seconds_dollars():
    assert tokens(None, None) == MISSING and tokens(None, 5) == "—/5"
    assert tokens(0, 999) == "0/999" and tokens(1234, 12_345) == "1.2k/12k" and tokens(2_500_000, 1) == "2.5M/1"
    assert seconds(1.234) == "1.23 s" and seconds(None) == MISSING
    assert dollars(None) == dollars(0) == MISSING and dollars(0.01234) == "$0.0123" and dollars(12.345) == "$12.35"


def test_figure():
    assert display.figure(None) == MISSING and display.figure(0.5, "{:.3f}") == "0.500"


def test_question_id_is_the_uid_with_its_source_id_beside_it():
    """One identifier on every screen: the uid, with the source id beside it when the question
    has one (and it says something the uid does not)."""
    assert display.question_id("sample-06", "6") == "sample-06 (6)"
    assert display.question_id("q-1", None) == "q-1"
    assert display.question_id("q-1", "") == "q-1"
    assert display.question_id("q-1", "q-1") == "q-1"
    assert display.question_id("q\x1b-1", "6\n") == "q␛-1 (6␤)"  # data never reaches the terminal raw
