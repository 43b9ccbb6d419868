"""The one-line field that takes Persian: keys in -> logical text stored byte-exact; screen ->
the text as a Persian reader reads it (app bidi mode), plain in terminal mode. Cases from the
seed book: ZWNJ words, diacritics, Persian digits beside a Latin model name, brackets."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Input
from tui_helpers import type_persian

from persian_tui import bidi
from persian_tui.bidi import Mode
from persian_tui.tui.fields.persian_input import PersianInput

ZWNJ = "\u200c"
SEED = [
    f"در تلافی میوه شیرین به دامن می{ZWNJ}دهیم",  # benchmark_dataset.json
    "دُر میچکد از منطق سعدی",
    f"جلوه{ZWNJ}ای کرد رُخت دید ملک عشق نداشت",
    f"من می{ZWNJ}خواهم",
    "بَ بِ بّ",
    "مدل GPT-4o در بیت ۱۲ (نسخه ۲) بود.",
    "«به خانه» [روزی]",
]
WIDTH = 60


class Field(App[None]):
    """A bare app holding one field, with the resolved mode a PersianTUI has."""

    def __init__(self, mode: str = "app", shape: bool = True, width: int = WIDTH) -> None:
        super().__init__()
        self.bidi_mode = Mode(mode, shape)
        self.width = width

    def compose(self) -> ComposeResult:
        field = PersianInput(id="f", compact=True, select_on_focus=False)
        field.styles.width = self.width
        yield field
        yield Input(id="other", compact=True)


def shown(app: Field) -> str:
    """What the field's one line shows on the screen."""
    return "".join(seg.text for seg in app.query_one("#f").render_line(0))


async def typed(pilot, text: str) -> None:
    await type_persian(pilot, text)
    await pilot.pause()


def blur(app: Field):
    app.query_one("#other").focus()


@pytest.mark.parametrize("text", SEED)
async def test_keys_in_logical_text_stored_visual_text_shown(text):
    app = Field()
    async with app.run_test(size=(80, 5)) as pilot:
        await typed(pilot, text)
        field = app.query_one("#f", PersianInput)
        assert field.value == text  # byte-exact, logical
        blur(app)
        await pilot.pause()
        expected = bidi.visual(text, shape=True)
        line = shown(app)
        assert line.rstrip() == " " * (WIDTH - cell_len(expected)) + expected  # right-aligned, as read
        assert line.strip() == bidi.display_line(text, 200, app.bidi_mode)  # exactly as the preview


async def test_zwnj_from_shift_space_and_its_marker_while_editing():
    app = Field()
    async with app.run_test(size=(80, 5)) as pilot:
        await typed(pilot, f"می{ZWNJ}خواهم")
        field = app.query_one("#f", PersianInput)
        assert field.value == "می\u200cخواهم"
        assert "·" in shown(app)  # visible while the field is focused
        await pilot.press("ctrl+@")  # Ctrl+Space: the same, from any terminal
        assert field.value.endswith(ZWNJ)
        blur(app)
        await pilot.pause()
        assert "·" not in shown(app) and field.value == f"می{ZWNJ}خواهم{ZWNJ}"


async def test_caret_and_arrows_move_as_the_text_is_seen():
    app = Field(shape=False)
    async with app.run_test(size=(80, 5)) as pilot:
        await typed(pilot, "سلام")
        field = app.query_one("#f", PersianInput)
        right_edge = WIDTH - 1
        assert field.cursor_position == 4 and field._cursor_offset == right_edge - 4  # the end: left of the text
        await pilot.press("home")  # the start as read: the right edge
        assert field.cursor_position == 0 and field._cursor_offset == right_edge
        await pilot.press("right")  # nothing right of the start
        assert field.cursor_position == 0
        await pilot.press("left", "left")  # toward the end of a Persian line
        assert field.cursor_position == 2 and field._cursor_offset == right_edge - 2
        await pilot.press("end")
        assert field.cursor_position == 4
        await pilot.press("left")
        assert field.cursor_position == 4
        await pilot.press("backspace")  # deletes the letter before the caret as read (the last one)
        assert field.value == "سلا"


async def test_arrows_through_a_latin_run_inside_persian():
    app = Field(shape=False)
    async with app.run_test(size=(80, 5)) as pilot:
        await typed(pilot, "مدل GPT")
        field = app.query_one("#f", PersianInput)
        await pilot.press("home")
        seen = []
        for _ in range(8):
            await pilot.press("left")
            seen.append(field.cursor_position)
        # shown "GPT لدم": from م leftward ...ل, the space, then the Latin run's cells G P T
        # from its left end, then the line's end
        assert seen == [1, 2, 3, 6, 5, 4, 7, 7]
        offsets = []
        for pos in (4, 5, 6):
            field.cursor_position = pos
            offsets.append(field._cursor_offset)
        assert offsets == sorted(offsets)  # G P T left to right


async def test_shift_arrows_select_and_typing_replaces_the_selection():
    app = Field()
    async with app.run_test(size=(80, 5)) as pilot:
        await typed(pilot, "سلام دنیا")
        field = app.query_one("#f", PersianInput)
        await pilot.press("home", "shift+left", "shift+left", "shift+left", "shift+left")
        assert field.selected_text == "سلام"
        await typed(pilot, "درود")
        assert field.value == "درود دنیا"


async def test_diacritics_stay_on_their_letter_and_one_backspace_removes_one_mark():
    app = Field(shape=False)
    async with app.run_test(size=(80, 5)) as pilot:
        await typed(pilot, "بَ")
        field = app.query_one("#f", PersianInput)
        assert field.value == "\u0628\u064e"
        assert "بَ" in shown(app)
        await pilot.press("home", "left")  # one cell: the letter with its mark
        assert field.cursor_position == 2
        await pilot.press("backspace")
        assert field.value == "ب"


async def test_undo_and_redo_word_by_word():
    app = Field()
    async with app.run_test(size=(80, 5)) as pilot:
        field = app.query_one("#f", PersianInput)
        await typed(pilot, "سلام دنیا")
        await pilot.press("ctrl+z")
        assert field.value == "سلام "
        await pilot.press("ctrl+z")
        assert field.value == ""
        await pilot.press("ctrl+y")
        assert field.value == "سلام "
        await pilot.press("backspace", "ctrl+z")
        assert field.value == "سلام "
        field.value = "از فرم"  # set by the form: nothing before it to undo
        await pilot.press("ctrl+z")
        assert field.value == "از فرم"


async def test_paste_keeps_the_text_and_shows_it_as_read():
    app = Field()
    async with app.run_test(size=(80, 5)) as pilot:
        field = app.query_one("#f", PersianInput)
        app.post_message(events.Paste(SEED[5]))  # as the terminal driver sends it
        await pilot.pause()
        assert field.value == SEED[5]
        assert shown(app).strip().startswith(bidi.visual(SEED[5], shape=True)[:5])
        await pilot.press("ctrl+z")
        assert field.value == ""


async def test_a_long_line_scrolls_to_keep_the_caret_in_view():
    app = Field(width=20)
    async with app.run_test(size=(80, 5)) as pilot:
        await typed(pilot, SEED[0])
        field = app.query_one("#f", PersianInput)
        view = field.scrollable_content_region.width
        for keys in ((), ("home",), ("left",) * 12, ("end",)):
            await pilot.press(*keys)
            x = field._cursor_offset - field.scroll_offset.x
            assert 0 <= x <= view, keys
            field_line = shown(app)
            assert len(field_line) == view + 1


async def test_click_puts_the_caret_on_the_letter_clicked():
    app = Field(shape=False)
    async with app.run_test(size=(80, 5)) as pilot:
        await typed(pilot, "سلام")
        field = app.query_one("#f", PersianInput)
        await pilot.click("#f", offset=(WIDTH - 1, 0))  # the rightmost letter: the first one read
        assert field.cursor_position == 0


async def test_terminal_mode_is_a_plain_input():
    app = Field("terminal")
    async with app.run_test(size=(80, 5)) as pilot:
        await typed(pilot, f"من می{ZWNJ}خواهم")
        field = app.query_one("#f", PersianInput)
        assert field.value == f"من می{ZWNJ}خواهم"
        assert shown(app).startswith("من می")  # logical: the terminal reorders
        await pilot.press("left")
        assert field.cursor_position == len(field.value) - 1  # logical movement
        assert field.bidi_line() is None


async def test_latin_text_in_app_mode_is_a_plain_input():
    app = Field()
    async with app.run_test(size=(80, 5)) as pilot:
        await typed(pilot, "GPT-4o")
        field = app.query_one("#f", PersianInput)
        assert shown(app).startswith("GPT-4o") and field.bidi_line() is None
        await pilot.press("left")
        assert field.cursor_position == 5


# ------------------------------------------------------------------ snapshot: the editor


def test_editor_with_persian_typed_snapshot(tmp_path, snap_compare):
    """The question editor at 120×40 in app mode with Persian typed into its fields: each field
    shows its text as the preview beside it does (ZWNJ markers in the focused explanation)."""
    from tui_helpers import make_app, open_screen, settle

    from persian_tui.tui.screens.author import AuthorScreen

    async def run_before(pilot) -> None:
        screen = await open_screen(pilot, "n", AuthorScreen)
        for field, text in (("stem", "کدام بیت متفاوت است؟"), ("m1-1", SEED[0]), ("m2-1", SEED[2]),
                            ("poet-1", "صائب"), ("category", SEED[5])):
            screen.query_one(f"#{field}").focus()
            await pilot.pause()
            await type_persian(pilot, text)
        screen.query_one("#explanation").focus()
        await pilot.pause()
        await type_persian(pilot, f"بیت نخست از دشواری راه عشق می{ZWNJ}گوید و «به خانه» نمی{ZWNJ}رسد.\nGPT-4o ۱۲")
        for field in screen.query("Input, TextArea"):
            field.cursor_blink = False  # the cursor is drawn the same in every run
        await settle(pilot, pauses=3, seconds=0.6)  # past the near-duplicate check's delay

    app = make_app(tmp_path / "editor.db", "app", annotator="reza", shape=True)
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


DIGITS_ONLY = "1. press the number (1-4 or ۱-۴)."  # Persian digits, no Persian letter
LATIN_FIRST = "judge missed: option 4 uses مار as metaphor"


@pytest.mark.parametrize("text", [DIGITS_ONLY, LATIN_FIRST])
async def test_a_line_takes_its_direction_from_its_first_strong_letter(text):
    """UAX #9 P2–P3, as the preview lays it out: a line whose first letter is Latin (or that has
    no Persian letter at all) reads left to right, from the left edge; its Persian words, if
    any, are reordered in place."""
    app = Field()
    async with app.run_test(size=(80, 5)) as pilot:
        await typed(pilot, text)
        assert app.query_one("#f", PersianInput).value == text
        blur(app)
        await pilot.pause()
        line = shown(app)
        expected = bidi.display_line(text, 200, app.bidi_mode)
        assert line.startswith(expected) and line.startswith(text.split(" ")[0])  # on the left, in order
        assert "press the number" in line or "judge missed: option 4 uses" in line
