"""Turn logical Persian / mixed text into display lines for the terminal.

A ``Mode`` says how: its ``name`` is a resolved bidi mode (``settings.bidi_mode`` resolves
the ``--bidi`` setting, whose ``auto`` picks one of these from the terminal):

* ``app``      -- the app reorders: text is word-wrapped in logical order, then
  each wrapped line is put into visual order (python-bidi, RTL base direction,
  with bracket mirroring and combining marks fixed) and padded to the width.
* ``terminal`` -- the terminal reorders (VTE, Konsole, mlterm, Apple Terminal):
  lines are wrapped but stay logical and are NOT padded, because padding
  spaces would be reordered by the terminal too.
* ``off``      -- logical text, no reordering, no padding (same output as
  ``terminal``; use it when reordering gets in the way, e.g. when copying).

and its ``shape`` whether letters are joined (Arabic presentation forms) in ``app`` mode, for
terminals that do not shape.

Every function here is pure; widths are terminal cells (``rich.cells``). Text is
passed through ``display.clean`` first: control characters become visible placeholders.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Protocol, get_args

from bidi import get_display
from bidi.mirror import MIRRORED
from rich.cells import cell_len, chop_cells

from .display import clean

BidiMode = Literal["app", "terminal", "off"]  # resolved modes
MODES: tuple[BidiMode, ...] = get_args(BidiMode)
ELLIPSIS = "…"

# Strong right-to-left characters (Hebrew, Arabic, Syriac, Thaana, NKo,
# presentation forms, RLM and RTL embeddings/overrides/isolates).
_RTL = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u200f\u202b\u202e\u2067\U00010800-\U00010fff\U0001e800-\U0001efff"
_RTL_RE = re.compile(f"[{_RTL}]")
# Same, minus digits: a base letter that combining marks may belong to.
_RTL_LETTER = "\u0590-\u065f\u066a-\u06ef\u06fa-\u08ff\ufb1d-\ufdff\ufe70-\ufefc"
_MARKS = "".join(chr(i) for i in range(0x300, 0x10000) if unicodedata.category(chr(i)) == "Mn")
_MARKS_SET = frozenset(_MARKS)
# In reversed (RTL) text marks come out in front of their base letter.
_MARKS_BEFORE_BASE = re.compile(f"([{re.escape(_MARKS)}]+)([{_RTL_LETTER}])")
_MIRROR_RE = re.compile(f"[{re.escape(''.join(MIRRORED))}]")
_LEVEL_RE = re.compile(r"Level\(\s*(\d+)")


@dataclass(frozen=True)
class Mode:
    """How right-to-left text is shown: ``name`` is a resolved mode (app, terminal or off);
    ``shape`` joins letters in the lines the app reorders (``app``)."""

    name: BidiMode = "app"
    shape: bool = False

    def __post_init__(self) -> None:
        if self.name not in MODES:
            raise ValueError(f"invalid resolved bidi mode {self.name!r}: expected app, terminal or off "
                             "(see settings.bidi_mode)")


APP, TERMINAL, OFF = Mode("app"), Mode("terminal"), Mode("off")


def has_rtl(text: str) -> bool:
    """True if ``text`` contains a right-to-left character."""
    return _RTL_RE.search(text) is not None


def wrap(text: str, width: int) -> list[str]:
    """Word-wrap logical text to ``width`` cells.

    Splits on whitespace (ZWNJ is not whitespace, so it stays inside its
    word), keeps '\\n' as a line break and hard-splits words wider than
    ``width``.  Empty text gives [].
    """
    _check_width(width)
    lines: list[str] = []
    for paragraph in clean(text).splitlines():  # control characters shown, never obeyed
        words: list[str] = []
        used = 0
        for word in paragraph.split():
            size = cell_len(word)
            if size > width:
                if words:
                    lines.append(" ".join(words))
                # Chunks keep marks with their base; a char wider than the
                # whole width (e.g. CJK at width 1) cannot be shown and is dropped.
                chunks = [c for c in chop_cells(word, width) if c and cell_len(c) <= width]
                lines.extend(chunks[:-1])
                words, used = chunks[-1:], cell_len(chunks[-1]) if chunks else 0
            elif words and used + 1 + size > width:
                lines.append(" ".join(words))
                words, used = [word], size
            else:
                used += size + 1 if words else size
                words.append(word)
        lines.append(" ".join(words))
    return lines


def visual(line: str, *, shape: bool = False, rtl: bool = False, ltr: bool = False) -> str:
    """Put one logical line into display (left-to-right) order.

    RTL base direction; Latin words and digit runs stay left-to-right,
    brackets in RTL runs are mirrored, combining marks follow their base
    letter and ZWNJ is kept.  ``shape`` turns letters into Arabic
    presentation forms for terminals that do not shape.  The base direction is the
    line's own (``starts_rtl``: its first strong letter, UAX #9 P2–P3), so an English line
    with a Persian word, or with Persian digits and no Persian letter, stays left to right.
    Lines without RTL characters are returned unchanged, unless ``rtl``: the line belongs to a
    right-to-left paragraph (a wrapped line such as "GPT-4o, 2024)." is laid out
    right-to-left with the rest of its paragraph). ``ltr``: the line belongs to a
    left-to-right paragraph (an English sentence naming a Persian poet): LTR base
    direction, only its right-to-left runs are reordered.
    """
    line = clean(line)
    return _visual(line, shape, rtl, "R" if rtl or not (ltr or not starts_rtl(line)) else "L")


@lru_cache(maxsize=8192)
def _visual(line: str, shape: bool, rtl: bool = False, base: str = "R") -> str:
    if not rtl and not has_rtl(line):
        return line
    if shape:
        line = _get_reshaper().reshape(line)
    if _MIRROR_RE.search(line):
        levels = _levels(line, base)
        if levels is not None:
            return _reorder(line, levels, 1 if base == "R" else 0)
        from bidi.algorithm import get_display as slow_display  # mirrors, no bracket pairs

        return _fix_marks(slow_display(line, base_dir=base))
    return _fix_marks(get_display(line, base_dir=base))


def starts_rtl(line: str) -> bool:
    """Whether the line's first strong character is right-to-left (rule P2 of the bidi
    algorithm): "1. Read ... (۱-۴)" is an English line, "۱. هر چهار بیت" a Persian one."""
    for ch in line:
        kind = unicodedata.bidirectional(ch)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return False


def block(text: str, width: int, mode: Mode) -> list[str]:
    """The display lines of a block of text that may mix Persian and English (a dialog's
    message, a note, a pane): the one layout of every such block.

    Each logical line is a paragraph with its own direction (``starts_rtl``). It is wrapped
    in logical order first and each wrapped line reordered after (never reordered, then
    wrapped): in "app" mode a Persian paragraph's lines are reordered and right-aligned to
    ``width``; an English paragraph's lines stay on the left, its Persian runs (a poet's
    name in brackets) reordered in place and shaped with the mode. "terminal" and "off" keep
    logical, unpadded lines. An empty line stays empty."""
    _check_width(width)
    _check_mode(mode)
    out: list[str] = []
    for line in clean(text).splitlines() or [""]:
        if not line.strip():
            out.append("")
        elif mode.name == "app" and starts_rtl(line):
            out += display_lines(line, width, mode)
        elif mode.name == "app":
            out += [visual(part, shape=mode.shape, ltr=True) for part in wrap(line, width)]
        else:
            out += wrap(line, width) or [""]
    return out


def cut(text: str, width: int) -> str:
    """``text`` on one line (whitespace collapsed) in at most ``width`` cells, cut at its
    logical end with "…": the one way a cell is shortened, before it is reordered."""
    _check_width(width)
    text = " ".join(clean(text).split())
    if cell_len(text) > width:
        head = chop_cells(text, width - 1)[0].rstrip() if width > 1 else ""
        if width > 2 and _joins_on(text, head):  # a word cut after a letter that joins onward
            head = chop_cells(text, width - 2)[0].rstrip()
            head += TATWEEL if _joins_on(text, head) else ""
        text = head + ELLIPSIS
    return text


TATWEEL = "\u0640"  # drawn joined to the letter before it: a cut word keeps its letter's joined form
# Arabic-script letters that join only to the letter before them (never onward)
_RIGHT_JOINING = frozenset("\u0622\u0623\u0624\u0625\u0627\u0629\u062f\u0630\u0631\u0632\u0648\u0671"
                           "\u0698\u06c0\u06c1\u06c3\u06c4\u06c5\u06c6\u06c7\u06c8\u06c9\u06ca\u06cb"
                           "\u06cd\u06cf\u06d2\u06d3\u06d5\u0688\u0691")


def _joins_on(text: str, head: str) -> bool:
    """Whether ``head`` (a prefix of ``text``) ends inside a word, on a letter that would have
    joined the next one: cut there, it would be drawn in its final form and read as a word."""
    rest = text[len(head):]
    if not head or not rest or not _is_letter(rest[0]):
        return False
    last = next((ch for ch in reversed(head) if ch not in _MARKS_SET), "")
    return _is_letter(last) and last not in _RIGHT_JOINING


def _is_letter(ch: str) -> bool:
    return "\u0620" <= ch <= "\u064a" or "\u066e" <= ch <= "\u06d3" or "\u06fa" <= ch <= "\u06ff"


def display_lines(text: str, width: int, mode: Mode, *, align: str = "right") -> list[str]:
    """Wrap ``text`` to ``width`` cells and return the lines to print.

    In "app" mode every line is reordered with ``visual`` (shaped when ``mode.shape``) and
    padded to ``width`` ("right" pads on the left, "left" on the right, "none" does not pad).
    In "terminal" and "off" the wrapped logical lines are returned unpadded.  Never returns
    an empty list.
    """
    _check_width(width)
    _check_mode(mode)
    if align not in ("right", "left", "none"):
        raise ValueError(f"invalid align {align!r}: expected right, left or none")
    lines = wrap(text, width) or [""]
    if mode.name != "app":
        return lines
    rtl = starts_rtl(text)  # the paragraph's direction (its first strong letter) holds for all its lines
    lines = [visual(line, shape=mode.shape, rtl=rtl, ltr=not rtl) for line in lines]
    if align == "right":
        return [" " * (width - cell_len(line)) + line for line in lines]
    if align == "left":
        return [line + " " * (width - cell_len(line)) for line in lines]
    return lines


def display_line(text: str, width: int, mode: Mode) -> str:
    """One unpadded display line for a table cell, at most ``width`` cells.

    Whitespace (including newlines) is collapsed.  Text that does not fit is
    cut in logical order and ends with "…" (so in "app" mode the ellipsis is
    on the left, where RTL text ends).
    """
    _check_mode(mode)
    text = cut(text, width)
    return visual(text, shape=mode.shape) if mode.name == "app" else text


def _check_width(width: int) -> None:
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")


def _check_mode(mode: Mode) -> None:
    if not isinstance(mode, Mode):
        raise TypeError(f"expected a bidi.Mode, got {mode!r}")


class _Reshaper(Protocol):
    def reshape(self, text: str) -> str: ...


@lru_cache(maxsize=1)
def _get_reshaper() -> _Reshaper:
    from arabic_reshaper import ArabicReshaper  # no type information: typed by _Reshaper

    reshaper: _Reshaper = ArabicReshaper(configuration={"delete_harakat": False, "support_ligatures": False})
    return reshaper


def _fix_marks(display: str) -> str:
    # python-bidi reverses "base + marks" into "marks + base": swap them back,
    # restoring the marks' own order too.
    return _MARKS_BEFORE_BASE.sub(lambda m: m[2] + m[1][::-1], display)


def _levels(line: str, base: str = "R") -> list[int] | None:
    """Resolved embedding level of each char, from python-bidi's debug output.

    That output lists one level per UTF-8 byte.  Returns None if the format
    is not what we expect (the caller then falls back).
    """
    debug = get_display(line, base_dir=base, debug=True)
    start = debug.find("\n    levels: [")
    end = debug.find("\n    paragraphs: [", start)
    byte_levels = _LEVEL_RE.findall(debug, start, end) if start >= 0 and end >= 0 else []
    if len(byte_levels) != len(line.encode()):
        return None
    levels, i = [], 0
    for ch in line:
        levels.append(int(byte_levels[i]))
        i += len(ch.encode())
    return levels


def _reorder(line: str, levels: list[int], base_level: int = 1) -> str:
    """Rules L1, L2 and L4 of the bidi algorithm, keeping marks on their base."""
    spans = _clusters(line)
    cluster_levels = _l1([levels[a] for a, _ in spans], [line[a:b] for a, b in spans], base_level)
    # L4: mirror brackets etc. at odd (RTL) levels.
    clusters = [_mirror(line[a:b], lv) for (a, b), lv in zip(spans, cluster_levels)]
    return "".join(clusters[i] for i in _order(cluster_levels))


def _clusters(line: str) -> list[tuple[int, int]]:
    """(start, end) of each base character with the combining marks after it."""
    spans: list[tuple[int, int]] = []
    for i, ch in enumerate(line):
        if spans and ch in _MARKS_SET:
            spans[-1] = (spans[-1][0], i + 1)
        else:
            spans.append((i, i + 1))
    return spans


def _l1(levels: list[int], clusters: list[str], base_level: int = 1) -> list[int]:
    """L1: trailing whitespace goes back to the paragraph level (RTL = 1, LTR = 0)."""
    levels = list(levels)
    i = len(clusters)
    while i and clusters[i - 1].isspace():
        i -= 1
        levels[i] = base_level
    return levels


def _mirror(cluster: str, level: int) -> str:
    return MIRRORED.get(cluster[0], cluster[0]) + cluster[1:] if level % 2 else cluster


def _order(levels: list[int]) -> list[int]:
    """L2: the indices in display order; from the highest level down to the lowest odd one,
    reverse the runs at or above it."""
    order = list(range(len(levels)))
    levels = list(levels)
    for level in range(max(levels, default=0), 0, -1):
        i, n = 0, len(order)
        while i < n:
            if levels[i] >= level:
                j = i
                while j < n and levels[j] >= level:
                    j += 1
                order[i:j] = order[i:j][::-1]
                levels[i:j] = levels[i:j][::-1]
                i = j
            else:
                i += 1
    return order


# ------------------------------------------------------------------ cells (editable fields)


@dataclass(frozen=True)
class Cell:
    """One cluster of a line as displayed: the logical characters ``start:end`` (a base
    character with its combining marks, or a zero-width mark alone) and ``text``, what is
    drawn for them (shaped, mirrored at right-to-left levels), ``width`` terminal cells wide."""

    start: int
    end: int
    text: str
    width: int


ZERO_WIDTH = frozenset("\u200c\u200d\u200e\u200f\u061c")  # ZWNJ, ZWJ, LRM, RLM, ALM: each a cell of its own


def visual_cells(line: str, *, shape: bool = False, rtl: bool | None = None) -> tuple[Cell, ...]:
    """``line`` (one logical line, no newline) as ``visual`` lays it out, cut into cells left
    to right, each knowing where it sits in the logical line: what an editable field needs to
    draw a caret and a selection and to move through the text as it is seen. Joined, the cells'
    texts are ``visual(line, shape=shape, rtl=rtl)`` for a line without control characters
    (those are drawn as ``display.clean`` shows them, each in a cell of its own). ``rtl``: the
    paragraph's direction (True right to left, False left to right); None: the line's own
    (``starts_rtl``)."""
    return _visual_cells(line, shape, starts_rtl(line) if rtl is None else rtl)


@lru_cache(maxsize=1024)
def _visual_cells(line: str, shape: bool, rtl: bool) -> tuple[Cell, ...]:
    safe = "".join(ch if clean(ch, newlines=False) == ch else "\ufffd" for ch in line)  # neutral stand-ins
    spans = _cell_spans(safe)
    glyphs = safe
    mixed = has_rtl(safe)  # a left-to-right line with right-to-left runs: those reordered in place
    if (rtl or mixed) and shape:
        shaped = _get_reshaper().reshape(safe)
        glyphs = shaped if len(shaped) == len(safe) else safe
    texts = [clean(line[a], newlines=False) + glyphs[a + 1:b] if safe[a] == "\ufffd" else glyphs[a:b]
             for a, b in spans]
    if not rtl and not mixed:
        return tuple(Cell(a, b, t, cell_len(t)) for (a, b), t in zip(spans, texts))
    levels = _levels(safe, "R" if rtl else "L") if safe else []
    if levels is None:  # an unexpected debug format: the whole line in its direction
        levels = [1 if rtl else 0] * len(safe)
    cluster_levels = _l1([levels[a] for a, _ in spans], [safe[a:b] for a, b in spans], 1 if rtl else 0)
    texts = [_mirror(t, lv) for t, lv in zip(texts, cluster_levels)]
    return tuple(Cell(spans[i][0], spans[i][1], texts[i], cell_len(texts[i])) for i in _order(cluster_levels))


def _cell_spans(line: str) -> list[tuple[int, int]]:
    """Like ``_clusters``, with each zero-width mark (ZWNJ, ...) a cell of its own."""
    spans: list[tuple[int, int]] = []
    for i, ch in enumerate(line):
        if spans and ch in _MARKS_SET and line[spans[-1][0]] not in ZERO_WIDTH:
            spans[-1] = (spans[-1][0], i + 1)
        else:
            spans.append((i, i + 1))
    return spans
