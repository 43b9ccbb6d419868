"""One line of an editable field as a Persian reader sees it (``app`` bidi mode), and the caret on it.

A field keeps its text logical; ``FieldLine`` lays one line of it out with ``bidi.visual_cells``
(right to left, joined as the preview shows it) and answers what the field needs: at which
column the caret for a logical position sits, which position a column (a click) means, where
Left and Right go (visually: in a Persian line Left goes toward the end), and the line drawn
with the caret and the selection. The caret is a block on the cell that follows it in reading
order; at the end of the line it sits on an extra cell past the text (on the left of a Persian line).

Pure (no Textual): the fields are ``persian_input.PersianInput`` and ``persian_textarea.PersianTextArea``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from ... import bidi
from ...bidi import Cell

# How the marks that have no width are drawn in a focused field, to be seen and edited:
# ZWNJ (نیم‌فاصله), ZWJ, LRM, RLM, ALM. Only drawn: the text keeps the mark itself.
MARKERS = {"\u200c": "·", "\u200d": "+", "\u200e": "›", "\u200f": "‹", "\u061c": "‹"}


@dataclass(frozen=True)
class Slot:
    """A place the caret can be: ``pos`` the logical position (a cell's first character or
    the line's end), ``x`` its first column, ``text`` drawn there."""

    pos: int
    x: int
    width: int
    text: str
    end: int  # one past the last logical character drawn here (== pos for the end slot)
    marker: bool = False


class FieldLine:
    """``text`` (one logical line, starting at ``offset`` in the field's value) laid out left to
    right. ``rtl``: the paragraph's direction; None: the line's own, from its first strong
    letter (``bidi.starts_rtl``, UAX #9 P2–P3: "1. (۱-۴)" and "uses مار as" are left-to-right
    lines, their Persian runs reordered in place). ``markers``: zero-width marks drawn.
    ``has_end``: the line's end is a caret place (False for a wrapped line that goes on below)."""

    def __init__(self, text: str, *, offset: int = 0, shape: bool = False, rtl: bool | None = None,
                 markers: bool = False, has_end: bool = True) -> None:
        self.offset = offset
        self.rtl = bidi.starts_rtl(text) if rtl is None else rtl
        cells = bidi.visual_cells(text, shape=shape, rtl=self.rtl)
        end = offset + len(text)
        slots: list[Slot] = []
        x = 0
        if has_end and self.rtl:
            slots.append(Slot(end, x, 1, " ", end))
            x += 1
        for cell in cells:
            slot = self._slot(cell, offset, x, markers)
            slots.append(slot)
            x += slot.width
        if has_end and not self.rtl:
            slots.append(Slot(end, x, 1, " ", end))
            x += 1
        self.slots = slots
        self.width = x
        self._by_pos = {s.pos: i for i, s in enumerate(slots)}

    @staticmethod
    def _slot(cell: Cell, offset: int, x: int, markers: bool) -> Slot:
        marker = MARKERS.get(cell.text) if markers else None
        if marker is not None:
            return Slot(offset + cell.start, x, 1, marker, offset + cell.end, marker=True)
        return Slot(offset + cell.start, x, cell.width, cell.text, offset + cell.end)

    def index(self, pos: int) -> int | None:
        """The slot of the caret at logical ``pos`` (inside a cluster: that cluster's slot)."""
        found = self._by_pos.get(pos)
        if found is not None:
            return found
        for i, slot in enumerate(self.slots):
            if slot.pos <= pos < slot.end:
                return i
        return None

    def x_of(self, pos: int) -> int:
        """The column of the caret at ``pos`` (the line's end column if ``pos`` is not on it)."""
        i = self.index(pos)
        if i is None:
            return 0 if self.rtl else self.width
        return self.slots[i].x

    def pos_at(self, x: int) -> int:
        """The logical position a click at column ``x`` means."""
        for slot in self.slots:
            if slot.x <= x < slot.x + max(slot.width, 1):
                return slot.pos
        if not self.slots:
            return self.offset
        before = x < 0
        if self.rtl:  # left of a Persian line: its end; right of it: its start
            return max(s.end for s in self.slots) if before else min(s.pos for s in self.slots)
        return min(s.pos for s in self.slots) if before else max(s.end for s in self.slots)

    def left(self, pos: int) -> int | None:
        """The position one slot to the left of the caret; None at the left edge."""
        i = self.index(pos)
        return None if i is None or i == 0 else self.slots[i - 1].pos

    def right(self, pos: int) -> int | None:
        """The position one slot to the right of the caret; None at the right edge."""
        i = self.index(pos)
        return None if i is None or i + 1 >= len(self.slots) else self.slots[i + 1].pos

    def text(self, *, cursor: int | None = None, selection: tuple[int, int] = (0, 0),
             cursor_style: Style | None = None, selection_style: Style | None = None,
             marker_style: Style | None = None, base: Style | None = None) -> Text:
        """The line drawn: the caret at logical ``cursor`` (None: no caret), the logical range
        ``selection`` (start, end in any order) highlighted wherever its characters are shown;
        ``base``: the style under all that (the caret's line)."""
        low, high = sorted(selection)
        caret = self.index(cursor) if cursor is not None else None
        out = Text(end="", no_wrap=True, style=base or "")
        for i, slot in enumerate(self.slots):
            style = Style()
            if slot.marker and marker_style is not None:
                style += marker_style
            if low < high and slot.pos < slot.end and low <= slot.pos < high and selection_style is not None:
                style += selection_style
            if i == caret and cursor_style is not None:
                style += cursor_style
            out.append(slot.text, style)
        return out
