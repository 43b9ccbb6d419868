"""The multi-line text field of every form: Persian typed as it is read (see ``persian_input``).

``PersianTextArea`` is a Textual ``TextArea`` (selection, paste, undo, soft wrap work as in any
TextArea) whose text stays logical. In ``app`` bidi mode, with soft wrap, each logical line with
a right-to-left letter is wrapped in logical order first (the TextArea's own wrapping) and each
wrapped line reordered after, right-aligned (``bidi_line.FieldLine``): the caret sits where a
Persian reader expects it, Left and Right move as the text is seen (past a line's edge to the
next line as read), Home and End go to the wrapped line's start and end as read. A focused
area draws ZWNJ and the other zero-width marks as dim markers. Other lines, and every line in
``terminal`` and ``off`` modes, are drawn as the TextArea draws them.
Shift+Space (or Ctrl+Space) types ZWNJ.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.events import MouseEvent
from textual.geometry import Offset
from textual.strip import Strip
from textual.widgets import TextArea
from textual.widgets.text_area import EditResult, Location

from ...bidi import has_rtl, starts_rtl
from ...models.limits import MAX_PASTE
from ..compat import line_info
from .bidi_line import FieldLine
from .persian_input import field_mode, joiner


class PersianTextArea(TextArea):
    """The multi-line field that takes Persian (see the module's docstring)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = TextArea.COMPONENT_CLASSES | {"text-area--marker"}
    DEFAULT_CSS = """
    PersianTextArea > .text-area--marker { text-style: dim; }
    """

    max_length = MAX_PASTE  # characters; a field sets its own (models/limits.py)

    def _replace_via_keyboard(self, insert: str, start: Location, end: Location) -> EditResult | None:
        """Typing and pasting, refused in a notice past the field's cap."""
        if not self.read_only and insert and \
                len(self.text) - len(self.get_text_range(*sorted((start, end)))) + len(insert) > self.max_length:
            self.app.notify(f"at most {self.max_length:,} characters in this field: not inserted",
                            severity="warning", timeout=5)
            return None
        return super()._replace_via_keyboard(insert, start, end)

    async def _on_key(self, event: events.Key) -> None:
        char = joiner(event)
        if char and not self.read_only:
            event.stop()
            event.prevent_default()
            self.replace(char, *self.selection)
            return
        await super()._on_key(event)

    # ------------------------------------------------------------ right to left

    def _text_width(self) -> int:
        """Columns a wrapped line is drawn in (the TextArea's wrap width and the caret's cell)."""
        return max(1, self.scrollable_content_region.width - self.gutter_width)

    def bidi_section(self, row: int, section: int) -> tuple[FieldLine, int] | None:
        """The wrapped line ``section`` of document line ``row`` laid out as read, and the blank
        columns left of it; None: drawn as the TextArea draws it (not ``app`` mode, no soft
        wrap, line numbers, or a line without a right-to-left letter)."""
        mode = field_mode(self)
        if mode.name != "app" or not self.soft_wrap or self.show_line_numbers:
            return None
        line = self.document[row]
        if not has_rtl(line):
            return None
        offsets = self.wrapped_document.get_offsets(row)
        starts, ends = [0, *offsets], [*offsets, len(line)]
        if not 0 <= section < len(starts):
            return None
        start, end = starts[section], ends[section]
        last = section == len(starts) - 1
        width = self._text_width()
        rtl = starts_rtl(line)  # the paragraph's direction holds for each of its wrapped lines
        placed = FieldLine(line[start:end], offset=start, shape=mode.shape, rtl=rtl,
                           markers=self.has_focus, has_end=last)
        if placed.width > width:  # no room for the markers: the marks drawn as they are
            placed = FieldLine(line[start:end], offset=start, shape=mode.shape, rtl=rtl, has_end=last)
        return placed, max(0, width - placed.width) if rtl else 0

    def _section_of(self, location: Location) -> tuple[int, int]:
        row, column = location
        return row, bisect_right(self.wrapped_document.get_offsets(row), column)

    def _recompute_cursor_offset(self) -> None:
        super()._recompute_cursor_offset()
        placed = self.bidi_section(*self._section_of(self.cursor_location))
        if placed is not None:
            line, pad = placed
            self._cursor_offset = Offset(pad + line.x_of(self.cursor_location[1]), self._cursor_offset[1])

    def get_target_document_location(self, event: MouseEvent) -> Location:
        location = super().get_target_document_location(event)
        y = event.y + self.scroll_offset.y - self.gutter.top
        info = line_info(self.wrapped_document)
        if not 0 <= y < len(info) or info[y] is None:
            return location
        row, section = info[y]
        placed = self.bidi_section(row, section)
        if placed is None:
            return location
        line, pad = placed
        column = line.pos_at(event.x - self.gutter.left - pad)
        ends = [*self.wrapped_document.get_offsets(row), len(self.document[row])]
        if section < len(ends) - 1:  # a wrapped line's end is the next one's start
            column = min(column, ends[section] - 1)
        return row, column

    def _render_line(self, y: int) -> Strip:
        info = line_info(self.wrapped_document)
        y_offset = y + self.scroll_offset.y
        if not 0 <= y_offset < len(info) or info[y_offset] is None:
            return super()._render_line(y)
        row, section = info[y_offset]
        placed = self.bidi_section(row, section)
        if placed is None:
            return super()._render_line(y)
        line, pad = placed
        theme = self._theme
        base_style = theme.base_style if theme and theme.base_style is not None else self.rich_style
        top, bottom = sorted(self.selection)
        low = high = 0
        if top != bottom and top[0] <= row <= bottom[0]:
            low = top[1] if top[0] == row else 0
            high = bottom[1] if bottom[0] == row else len(self.document[row]) + 1
        cursor_row, cursor_column = self.selection.end
        on_row = cursor_row == row and self._has_cursor
        caret = cursor_column if on_row and self._draw_cursor else None
        line_style = theme.cursor_line_style if theme and on_row and self.highlight_cursor_line else None
        text = line.text(cursor=caret, selection=(low, high),
                         cursor_style=theme.cursor_style if theme else None,
                         selection_style=theme.selection_style if theme else None,
                         marker_style=self.get_component_rich_style("text-area--marker"),
                         base=line_style)
        drawn = Text(" " * pad, style=line_style or Style(), end="", no_wrap=True) + text
        console = self.app.console
        strip = Strip(console.render(drawn, self.app.console_options.update_width(pad + line.width)))
        strip = strip.crop(0, self._text_width()).extend_cell_length(self._text_width(), line_style)
        return strip.apply_style(base_style)

    # ------------------------------------------------------------ moving as it is seen

    def _visual_move(self, left: bool, select: bool) -> bool:
        """Left / Right through a right-to-left line as it is seen; False: the plain move."""
        if not self._has_cursor:
            return False
        location = self.cursor_location
        placed = self.bidi_section(*self._section_of(location))
        if placed is None:
            return False
        line, _ = placed
        if not select and not self.selection.is_empty:  # collapses to its side: Left is on toward the end
            first, last = sorted(self.selection)
            self.move_cursor(last if left else first)
            return True
        column = line.left(location[1]) if left else line.right(location[1])
        if column is not None:
            target = (location[0], column)
        elif left:  # past the line's left edge: on to the next line as read
            target = self.navigator.get_location_right(location)
        else:
            target = self.navigator.get_location_left(location)
        self.move_cursor(target, select=select)
        return True

    def action_cursor_left(self, select: bool = False) -> None:
        if not self._visual_move(True, select):
            super().action_cursor_left(select)

    def action_cursor_right(self, select: bool = False) -> None:
        if not self._visual_move(False, select):
            super().action_cursor_right(select)

    def _rtl_here(self) -> bool:
        return self.bidi_section(*self._section_of(self.cursor_location)) is not None

    def action_cursor_word_left(self, select: bool = False) -> None:
        if self._rtl_here():  # toward the end of a Persian line
            super().action_cursor_word_right(select)
        else:
            super().action_cursor_word_left(select)

    def action_cursor_word_right(self, select: bool = False) -> None:
        if self._rtl_here():
            super().action_cursor_word_left(select)
        else:
            super().action_cursor_word_right(select)
