"""The multi-line field that takes Persian: logical text stored, each wrapped line shown as read
(wrapped in logical order first, reordered after), caret and arrows as seen, plain in terminal mode."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Input
from tui_helpers import type_persian

from persian_tui import bidi
from persian_tui.bidi import Mode
from persian_tui.tui.fields.persian_textarea import PersianTextArea

ZWNJ = "\u200c"
WIDTH = 30
POEM = f"در تلافی میوه شیرین به دامن می{ZWNJ}دهیم همچو نخل پرثمر"  # wraps at 30 columns
MIXED = "مدل GPT-4o در بیت ۱۲ (نسخه ۲)"


class Area(App[None]):
    def __init__(self, mode: str = "app", shape: bool = True) -> None:
        super().__init__()
        self.bidi_mode = Mode(mode, shape)

    def compose(self) -> ComposeResult:
        area = PersianTextArea(id="t", compact=True)
        area.styles.width = WIDTH
        area.styles.height = 8
        yield area
        yield Input(id="other", compact=True)


def screen_lines(app: Area) -> list[str]:
    area = app.query_one("#t", PersianTextArea)
    lines = ["".join(seg.text for seg in area.render_line(y)) for y in range(area.size.height)]
    return [line.rstrip() for line in lines if line.strip()]


def sections(area: PersianTextArea, row: int) -> list[str]:
    return area.wrapped_document.get_sections(row)


async def test_lines_wrapped_in_logical_order_then_each_shown_as_read():
    app = Area()
    async with app.run_test(size=(80, 12)) as pilot:
        app.query_one("#t").focus()
        await type_persian(pilot, POEM + "\n" + MIXED + "\nGPT-4o")
        area = app.query_one("#t", PersianTextArea)
        assert area.text == POEM + "\n" + MIXED + "\nGPT-4o"  # logical, byte-exact
        app.query_one("#other").focus()
        await pilot.pause()
        parts = sections(area, 0)
        assert len(parts) > 1 and "".join(parts) == POEM
        want = [bidi.visual(p, shape=True, rtl=True).strip() for p in parts]
        want += [bidi.visual(p, shape=True, rtl=True).strip() for p in sections(area, 1)]
        want.append("GPT-4o")
        shown = screen_lines(app)
        assert [line.strip() for line in shown] == want
        assert shown[0].endswith(want[0]) and len(shown[0]) == area._text_width()  # right-aligned
        assert shown[-1] == "GPT-4o"  # a Latin line stays on the left


async def test_caret_and_arrows_as_seen_across_lines():
    app = Area(shape=False)
    async with app.run_test(size=(80, 12)) as pilot:
        app.query_one("#t").focus()
        await type_persian(pilot, "سلام\nدنیا")
        area = app.query_one("#t", PersianTextArea)
        area.move_cursor((0, 0))
        await pilot.pause()
        edge = area._text_width() - 1
        assert area._cursor_offset == (edge, 0)  # the start as read: the right edge
        await pilot.press("left")  # toward the end of a Persian line
        assert area.cursor_location == (0, 1) and area._cursor_offset == (edge - 1, 0)
        await pilot.press("right", "right")  # nothing right of the start: back to the line before (none)
        assert area.cursor_location == (0, 0)
        await pilot.press("end")
        assert area.cursor_location == (0, 4) and area._cursor_offset == (edge - 4, 0)
        await pilot.press("left")  # past the left edge: the next line's start, on its right edge
        assert area.cursor_location == (1, 0) and area._cursor_offset == (edge, 1)
        await pilot.press("right")
        assert area.cursor_location == (0, 4)
        await pilot.press("shift+right", "shift+right")
        assert area.selected_text == "ام"


async def test_zwnj_marker_undo_and_paste():
    app = Area()
    async with app.run_test(size=(80, 12)) as pilot:
        app.query_one("#t").focus()
        await type_persian(pilot, f"می{ZWNJ}خواهم")
        area = app.query_one("#t", PersianTextArea)
        assert area.text == f"می{ZWNJ}خواهم"
        assert "·" in screen_lines(app)[0]  # visible while editing
        await pilot.press("ctrl+z")
        assert area.text != f"می{ZWNJ}خواهم"  # the TextArea's own undo
        area.load_text("")
        area.focus()
        app.post_message(events.Paste(MIXED))  # as the terminal driver sends it
        await pilot.pause()
        assert area.text == MIXED
        want = [bidi.visual(p, shape=True, rtl=True).strip() for p in sections(area, 0)]
        assert [line.strip() for line in screen_lines(app)] == want


async def test_diacritics_typed_and_shown_on_their_letter():
    app = Area(shape=False)
    async with app.run_test(size=(80, 12)) as pilot:
        app.query_one("#t").focus()
        await type_persian(pilot, "دُر بَ بِ بّ")
        area = app.query_one("#t", PersianTextArea)
        assert area.text == "د\u064fر ب\u064e ب\u0650 ب\u0651"
        assert screen_lines(app)[0].strip() == bidi.visual("دُر بَ بِ بّ")


async def test_terminal_mode_is_a_plain_text_area():
    app = Area("terminal")
    async with app.run_test(size=(80, 12)) as pilot:
        app.query_one("#t").focus()
        await type_persian(pilot, "سلام")
        area = app.query_one("#t", PersianTextArea)
        assert screen_lines(app)[0].startswith("سلام")  # logical: the terminal reorders
        await pilot.press("left")
        assert area.cursor_location == (0, 3)
        assert area.bidi_section(0, 0) is None


async def test_click_puts_the_caret_on_the_letter_clicked():
    app = Area(shape=False)
    async with app.run_test(size=(80, 12)) as pilot:
        app.query_one("#t").focus()
        await type_persian(pilot, "سلام\nدنیا")
        area = app.query_one("#t", PersianTextArea)
        edge = area.gutter.left + area._text_width() - 1  # the widget's columns (its padding first)
        await pilot.click("#t", offset=(edge, 0))  # the rightmost letter: the first one read
        assert area.cursor_location == (0, 0)
        await pilot.click("#t", offset=(edge - 2, 1))
        assert area.cursor_location == (1, 2)
        await pilot.click("#t", offset=(2, 0))  # left of the text: the line's end
        assert area.cursor_location == (0, 4)


async def test_each_line_takes_its_direction_from_its_first_strong_letter():
    """A guidelines line with Persian digits but no Persian letter, and a Latin-first note with a
    Persian word, read left to right from the left edge (UAX #9 P2–P3, as the preview); a
    Persian line under them stays right to left."""
    digits, latin = "1. press (1-4 or ۱-۴).", "uses مار as metaphor"
    app = Area()
    async with app.run_test(size=(80, 12)) as pilot:
        app.query_one("#t").focus()
        await type_persian(pilot, f"{digits}\n{latin}\nمدل ۲")
        area = app.query_one("#t", PersianTextArea)
        assert area.text == f"{digits}\n{latin}\nمدل ۲"
        app.query_one("#other").focus()
        await pilot.pause()
        shown = screen_lines(app)
        assert shown[0] == digits
        assert shown[1] == bidi.visual(latin, shape=True, ltr=True) and shown[1].startswith("uses ")
        assert shown[2].endswith(bidi.visual("مدل ۲", shape=True)) and shown[2].startswith(" ")
