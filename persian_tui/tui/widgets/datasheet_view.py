"""The release datasheet (its README.md) laid out for the terminal: headings, bullets, paragraphs
and tables of the Markdown the release writes, in ``render.Line``s a ``LinesView`` shows.

The datasheet is English with Persian names and words inside (poets, categories, a question's
evidence): each line is wrapped in logical order first, then each Persian run inside it is
reordered (app bidi mode), so the English around it keeps its order; a table cell holding Persian
is laid out right-to-left, right-aligned. The YAML header the hub reads is shown dimmed, its long
column-type block in one line. Pure (no Textual): the release screen shows the lines in a
LinesView."""

from __future__ import annotations

import re

from rich.cells import cell_len, chop_cells

from ... import bidi, display
from ...bidi import Mode
from ..render import Line

_LETTER = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc"
# a Persian run: from a right-to-left letter to the last one, with spaces, ZWNJ, digits and the
# punctuation Persian text carries between them
_RUN = re.compile(f"[{_LETTER}](?:[{_LETTER}\\s\u200c\u200d0-9۰-۹٫٬،؛؟«»()\\-.]*[{_LETTER}])?")
_CELL = re.compile(r"(?<!\\)\|")
GAP = 2  # cells between table columns
MIN_COLUMN = 4


def inline(text: str, mode: Mode) -> str:
    """A logical line of mostly left-to-right text as shown: in app mode each Persian run in it
    is put into display order (joined when ``mode.shape``); other modes keep it as it is."""
    if mode.name != "app" or not bidi.has_rtl(text):
        return text
    return _RUN.sub(lambda m: bidi.visual(m[0], shape=mode.shape), text)


def _wrapped(text: str, width: int, mode: Mode, style: str = "", first: str = "", rest: str = "") -> list[Line]:
    """``text`` wrapped in logical order to ``width`` cells (after the prefix), each line then
    shown with ``inline``; ``first`` prefixes its first line, ``rest`` the others."""
    room = max(width - cell_len(first), 1)
    lines = bidi.wrap(text, room) or [""]
    return [Line((first if i == 0 else rest) + inline(t, mode), style) for i, t in enumerate(lines)]


def _cut(text: str, width: int) -> str:
    """One line as it is (its indentation kept), cut with "…" past ``width`` cells."""
    text = display.clean(text)
    if cell_len(text) <= width:
        return text
    return chop_cells(text, max(width - 1, 1))[0] + bidi.ELLIPSIS


def _cells(row: str) -> list[str]:
    inner = row.strip().removeprefix("|").removesuffix("|")
    return [c.strip().replace("\\|", "|") for c in _CELL.split(inner)]


def _widths(rows: list[list[str]], width: int) -> list[int]:
    """Each column's width: its widest cell, the widest columns narrowed until the table fits."""
    n = max(len(r) for r in rows)
    widths = [max((cell_len(r[i]) for r in rows if i < len(r)), default=0) for i in range(n)]
    room = width - GAP * (n - 1)
    while sum(widths) > room and max(widths) > MIN_COLUMN:
        widest = widths.index(max(widths))
        widths[widest] -= 1
    return [max(w, 1) for w in widths]


def _cell(text: str, width: int, mode: Mode) -> str:
    """One cell padded to ``width``: Persian laid out right-to-left and right-aligned (app mode)."""
    if bidi.has_rtl(text):
        shown = bidi.display_line(text, width, mode)
        return shown.rjust(width) if mode.name == "app" else shown + " " * (width - cell_len(shown))
    shown = _cut(text, width)
    return shown + " " * (width - cell_len(shown))


def table_lines(rows: list[str], width: int, mode: Mode) -> list[Line]:
    """A Markdown table: its header bold, a rule under it, its rows (the separator row dropped)."""
    cells = [_cells(r) for r in rows if not set(r.replace("|", "").strip()) <= set("-: ")]
    if not cells:
        return []
    widths = _widths(cells, width)
    out = []
    for n, row in enumerate(cells):
        row = row + [""] * (len(widths) - len(row))
        text = (" " * GAP).join(_cell(c, w, mode) for c, w in zip(row, widths)).rstrip()
        out.append(Line(text, "bold" if n == 0 else ""))
        if n == 0:
            out.append(Line("─" * min(sum(widths) + GAP * (len(widths) - 1), width), "dim"))
    return out


def _header(lines: list[str], width: int) -> list[Line]:
    out = [Line("YAML header (the Hugging Face hub reads it)", "dim italic")]
    inside = False
    for line in lines:
        if line.startswith("dataset_info:"):
            out.append(Line(_cut("dataset_info: the column types of data/test.jsonl, for datasets", width), "dim"))
            inside = True
            continue
        if inside and line.startswith(" "):
            continue
        inside = False
        out.append(Line(_cut(line, width), "dim"))
    return out


HEADINGS = {1: "bold $text-accent", 2: "bold $text-accent", 3: "bold"}


def datasheet_lines(text: str, width: int, mode: Mode) -> list[Line]:
    """Every line the preview shows of the datasheet ``text`` at ``width`` cells."""
    width = max(width, 8)
    lines = text.split("\n")
    out: list[Line] = []
    i = 0
    if lines and lines[0] == "---" and "---" in lines[1:]:
        end = lines.index("---", 1)
        out += _header(lines[1:end], width)
        i = end + 1
    code = False
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            code = not code
            i += 1
            continue
        if code:
            out.append(Line(_cut("  " + line, width), "$text-muted"))
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            out += table_lines(rows, width, mode)
            continue
        elif line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            if out and out[-1].text:
                out.append(Line(""))
            out += _wrapped(line.lstrip("#").strip(), width, mode, HEADINGS.get(level, "bold"))
        elif line.startswith("- "):
            out += _wrapped(line[2:], width, mode, first="• ", rest="  ")
        elif line.strip():
            out += _wrapped(line, width, mode)
        elif out and out[-1].text:
            out.append(Line(""))
        i += 1
    return out
