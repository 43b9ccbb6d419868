"""The one-line text field of every form: Persian typed as it is read.

``PersianInput`` is a Textual ``Input`` (selection, paste, validation, restrictions and typed-ahead
keys work as in any Input) whose value stays logical and byte-exact. In ``app`` bidi mode a line
with a right-to-left letter is drawn as the preview draws it (right to left, joined when the
mode shapes, right-aligned; ``bidi_line.FieldLine``), with the caret where a Persian reader
expects it; Left and Right move through the text as it is seen (Left toward the end of a
Persian line), Home and End go to its start and end as read; a long line scrolls to keep the
caret in view. In a focused field the marks without width (ZWNJ, ...) are drawn as dim markers.
In ``terminal`` and ``off`` modes it draws like a plain Input: the terminal reorders, the field
never reverses twice.

Everywhere: Shift+Space (and Ctrl+Space, which every terminal can send) types ZWNJ (U+200C,
نیم‌فاصله), as does the character itself (Textual's Input drops it: not ``isprintable``);
Ctrl+Z undoes, Ctrl+Y redoes. ``FitInput``'s placeholder follows the box's width, cut with "…".
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.geometry import Size
from textual.strip import Strip
from textual.widgets import Input
from textual.widgets._input import Selection

from ...bidi import OFF, Mode, display_line, has_rtl
from ...models.limits import limit
from ..keys import Key, bindings
from .bidi_line import FieldLine

ZWNJ = "\u200c"
# by key name too: Textual's test pilot sends these keys without their character; Shift+Space
# is ZWNJ on Persian keyboards, Ctrl+Space (NUL, "ctrl+@") reaches the app from any terminal
JOINERS = {"zero_width_non_joiner": ZWNJ, "zero_width_joiner": "\u200d", "shift+space": ZWNJ,
           "ctrl+@": ZWNJ, "ctrl+at": ZWNJ, "ctrl+space": ZWNJ}
UNDO_DEPTH = 200
# the keys of every text field (PersianInput, PersianTextArea), for the keys reference; the rows
# without an action are the Input's and TextArea's own keys, turned as the text is seen
FIELD_KEYS = (
    Key("shift+space,ctrl+space", "", shown="Shift+Space / Ctrl+Space",
        description="ZWNJ (نیم‌فاصله); Ctrl+Space where the terminal cannot tell Shift+Space from Space",
        footer=False),
    Key("left,right", "", shown="← / →", description="move as the text is seen: in a Persian line ← goes "
        "toward its end (Ctrl+←/→ by words; with Shift: select)", footer=False),
    Key("home,end", "", description="the start / end of the line as read (in a Persian line: its right / "
        "left edge)", footer=False),
    Key("ctrl+z", "undo", "Undo", "undo (in a one-line field word by word)", footer=False),
    Key("ctrl+y,ctrl+shift+z", "redo", "Redo", "redo", footer=False),
)


def joiner(event: events.Key) -> str | None:
    """The zero-width joiner or non-joiner a key types, if it types one."""
    if event.character in ("\u200c", "\u200d"):
        return event.character
    return JOINERS.get(event.key)


def field_mode(widget: Any) -> Mode:
    """The bidi mode a field draws with: the app's (``TuiApp.bidi_mode``), else ``off``."""
    mode = getattr(widget.app, "bidi_mode", None)
    return mode if isinstance(mode, Mode) else OFF


class FitInput(Input):
    """An Input whose placeholder fits the box, cut with "…" when the box is narrow."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.hint = self.placeholder  # the whole placeholder; the shown one fits the width

    def on_resize(self, event: events.Resize) -> None:
        if self.hint and event.size.width > 1:  # the cursor's cell kept free
            self.placeholder = display_line(self.hint, event.size.width - 1, OFF)


class PersianInput(FitInput):
    """The one-line field that takes Persian (see the module's docstring)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings(FIELD_KEYS)
    COMPONENT_CLASSES: ClassVar[set[str]] = Input.COMPONENT_CLASSES | {"input--marker"}
    DEFAULT_CSS = """
    PersianInput > .input--marker { text-style: dim; }
    """

    # set before Input.__init__ sets a first value
    _own_change = False  # the value changes by an edit here, not by the form setting it
    _line: tuple[tuple[object, ...], FieldLine] | None = None

    def __init__(self, *args: Any, **kw: Any) -> None:
        kw.setdefault("max_length", limit("line"))  # every field has a cap (models/limits.py)
        super().__init__(*args, **kw)
        self._undo: list[tuple[str, Selection]] = []
        self._redo: list[tuple[str, Selection]] = []
        self._typing_at: int | None = None  # where the word being typed goes on (one undo step)

    # ------------------------------------------------------------ typing

    async def _on_key(self, event: events.Key) -> None:
        char = joiner(event)
        if char:
            event.stop()
            event.prevent_default()
            selection = self.selection
            if selection.is_empty:
                self.insert_text_at_cursor(char)
            else:
                self.replace(char, *selection)
            return
        await super()._on_key(event)

    def replace(self, text: str, start: int, end: int) -> None:
        before = (self.value, self.selection)
        self._own_change = True
        try:
            super().replace(text, start, end)
        finally:
            self._own_change = False
        if self.value == before[0]:
            return
        typed = len(text) == 1 and start == end
        if not (typed and self._typing_at == start):  # a new word, a paste, a deletion: a new step
            self._undo = [*self._undo[-UNDO_DEPTH + 1:], before]
        self._redo.clear()
        self._typing_at = start + 1 if typed and not text.isspace() else None

    def restricted(self) -> None:
        """An edit the field refused: past its cap, said in a notice (a number field's letter
        still rings the bell)."""
        if self.type == "text" and not self.restrict and self.max_length:
            self.app.notify(f"at most {self.max_length:,} characters in this field: not inserted",
                            severity="warning", timeout=5)
        else:
            super().restricted()

    def _watch_value(self, value: str) -> None:
        super()._watch_value(value)
        if not self._own_change:  # set by the form (filled, cleared): nothing to undo before it
            self._undo, self._redo, self._typing_at = [], [], None
        self._line = None

    def action_undo(self) -> None:
        if self._undo:
            self._redo.append((self.value, self.selection))
            self._restore(*self._undo.pop())

    def action_redo(self) -> None:
        if self._redo:
            self._undo.append((self.value, self.selection))
            self._restore(*self._redo.pop())

    def _restore(self, value: str, selection: Selection) -> None:
        self._own_change = True
        try:
            self.value = value
        finally:
            self._own_change = False
        self.selection = selection
        self._typing_at = None

    # ------------------------------------------------------------ right to left

    def bidi_line(self) -> FieldLine | None:
        """The value laid out as read, in ``app`` mode when it has a right-to-left letter;
        None: drawn as a plain Input."""
        mode = field_mode(self)
        if mode.name != "app" or self.password or not has_rtl(self.value):
            return None
        key = (self.value, mode.shape, self.has_focus)
        if self._line is None or self._line[0] != key:
            self._line = (key, FieldLine(self.value, shape=mode.shape, markers=self.has_focus))
        return self._line[1]

    def _pad(self, line: FieldLine) -> int:
        """Blank columns left of a line shorter than the box (a right-to-left line is
        right-aligned, a left-to-right one starts on the left)."""
        return max(0, self.scrollable_content_region.width - line.width) if line.rtl else 0

    @property
    def _cursor_offset(self) -> int:
        line = self.bidi_line()
        if line is None:
            return int(super()._cursor_offset)
        return self._pad(line) + line.x_of(self.cursor_position)

    @property
    def content_width(self) -> int:
        line = self.bidi_line()
        return int(super().content_width) if line is None else line.width

    def _cell_offset_to_index(self, offset: int) -> int:
        line = self.bidi_line()
        if line is None:
            return int(super()._cell_offset_to_index(offset))
        return line.pos_at(offset + int(self.scroll_offset.x) - self._pad(line))

    def _on_focus(self, event: events.Focus) -> None:
        self.virtual_size = Size(self.content_width, 1)  # markers drawn while focused

    def _on_blur(self, event: events.Blur) -> None:
        self.virtual_size = Size(self.content_width, 1)

    def render_line(self, y: int) -> Strip:
        line = self.bidi_line()
        if line is None or y != 0:
            return super().render_line(y)
        view = self.scrollable_content_region.width
        focused = self.has_focus
        text = line.text(
            cursor=self.cursor_position if focused and self._cursor_visible else None,
            selection=tuple(self.selection) if focused else (0, 0),  # type: ignore[arg-type]
            cursor_style=self.get_component_rich_style("input--cursor"),
            selection_style=self.get_component_rich_style("input--selection"),
            marker_style=self.get_component_rich_style("input--marker"),
        )
        pad = self._pad(line)
        drawn = Text(" " * pad, end="", no_wrap=True) + text
        console = self.app.console
        strip = Strip(console.render(drawn, self.app.console_options.update_width(pad + line.width)))
        scroll_x = 0 if pad else int(self.scroll_offset.x)
        strip = strip.crop(scroll_x, scroll_x + view + 1).extend_cell_length(view + 1)
        return strip.apply_style(self.rich_style)

    # ------------------------------------------------------------ moving as it is seen

    def _visual_move(self, left: bool, select: bool) -> bool:
        """Left / Right through a right-to-left line as it is seen; False: the plain move."""
        line = self.bidi_line()
        if line is None or not line.rtl:
            return False
        start, end = self.selection
        if not select and start != end:  # a selection collapses to its side
            edges = sorted((start, end), key=line.x_of)
            self.cursor_position = edges[0] if left else edges[1]
            return True
        target = line.left(end) if left else line.right(end)
        if target is not None:
            self.selection = Selection(start, target) if select else Selection.cursor(target)
        return True

    def action_cursor_left(self, select: bool = False) -> None:
        if not self._visual_move(True, select):
            super().action_cursor_left(select)

    def action_cursor_right(self, select: bool = False) -> None:
        if not self._visual_move(False, select):
            super().action_cursor_right(select)

    def action_cursor_left_word(self, select: bool = False) -> None:
        line = self.bidi_line()
        if line is not None and line.rtl:  # toward the end of a Persian line
            super().action_cursor_right_word(select)
        else:
            super().action_cursor_left_word(select)

    def action_cursor_right_word(self, select: bool = False) -> None:
        line = self.bidi_line()
        if line is not None and line.rtl:
            super().action_cursor_left_word(select)
        else:
            super().action_cursor_right_word(select)
