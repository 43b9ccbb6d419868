"""The TUI's last line of defence against control characters from data.

Most widgets show text through ``display.clean`` already (visible placeholders such as ␛).
This line filter runs on every rendered line of every widget (headers, inputs, tables,
notifications, ...) and replaces any raw control that still got through with a one-cell
placeholder (␛ ␇ ␍ ..., or � for C1 and bidi controls), so nothing from data can drive the
terminal. Controls take no cells, so each placeholder is paid for with a space from a run
of blanks in the same line (widget or cell padding); a line without room drops the control.
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.console import RenderableType
from rich.segment import Segment
from rich.text import Text
from textual.color import Color
from textual.filter import LineFilter
from textual.widgets import _data_table

from ..display import RAW_CONTROL_RE, clean, strip_raw


def _placeholder(ch: str) -> str:
    c = ord(ch)
    if c < 0x20:
        return chr(0x2400 + c)
    if c == 0x7F:
        return "\u2421"
    return "\ufffd"


def _visible(text: str) -> str:
    return RAW_CONTROL_RE.sub(lambda m: _placeholder(m.group()), text)


_BLANKS = re.compile(" {2,}")


def _pay(segments: list[Segment], extra: int) -> list[Segment] | None:
    """Remove ``extra`` spaces from the longest run of blanks (keeping one), or None."""
    text = "".join("" if s.control else s.text for s in segments)
    runs = [m for m in _BLANKS.finditer(text) if m.end() - m.start() > extra]
    if not runs:
        return None
    run = max(runs, key=lambda m: m.end() - m.start())
    cut_from, cut_to = run.end() - extra, run.end()
    out, pos = [], 0
    for s in segments:
        if s.control:
            out.append(s)
            continue
        start, end = pos, pos + len(s.text)
        pos = end
        a, b = max(start, cut_from), min(end, cut_to)
        if a < b:
            s = Segment(s.text[: a - start] + s.text[b - start:], s.style)
        if s.text:
            out.append(s)
    return out


class ShowControls(LineFilter):
    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(RAW_CONTROL_RE.search(s.text) for s in segments if not s.control):
            return segments
        shown, extra = [], 0
        for s in segments:
            if s.control or not RAW_CONTROL_RE.search(s.text):
                shown.append(s)
                continue
            text = _visible(s.text)
            extra += cell_len(text) - cell_len(s.text)
            shown.append(Segment(text, s.style))
        paid = _pay(shown, extra) if extra else shown
        if paid is not None:
            return paid
        return [s if s.control else Segment(strip_raw(s.text), s.style) for s in segments]


SHOW_CONTROLS = ShowControls()


# DataTable reads a str cell as Rich markup: a category or model name "[/x]" from data would
# crash the screen, "[@click=app.quit]" would act. In this app a str cell is plain text, shown
# through the sanitizer (pass a rich Text for styling). Textual is pinned (pyproject), and
# tests/tui/test_safe_output.py checks this still takes effect.
_format_cell = _data_table.default_cell_formatter


def plain_cell_formatter(obj: object, wrap: bool = True, height: int = 0) -> RenderableType:
    if isinstance(obj, str):
        obj = Text(clean(obj), no_wrap=not wrap, end="")
    return _format_cell(obj, wrap, height)


_data_table.default_cell_formatter = plain_cell_formatter
