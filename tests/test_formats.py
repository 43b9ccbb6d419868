"""The one formatter module (persian_tui.display): every view shows a figure the same way."""

from __future__ import annotations

from persian_tui import display
from persian_tui.display import MISSING, dollars, interval, p_value, percent, points, seconds, signed_interval, tokens


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
