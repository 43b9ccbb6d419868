"""How much text a person may enter, one cap per idea, and what a text may hold: the one
definition the store checks on write, the app's fields take as their max_length, and the docs'
security page lists (pure, no I/O).

A text a person enters holds no control character (ESC, NUL, DEL, the C1 range, a lone
surrogate); a text of more than one line (a stem, an explanation, the guidelines) may
hold line breaks and tabs. Format characters are text: ZWNJ and ZWJ are Persian spelling and
the bidi marks are how mixed text reads, so they are kept byte-exact (persian_tui/text.py)."""

from __future__ import annotations

import unicodedata
from typing import Literal

TextKind = Literal["note", "stem", "hemistich", "explanation", "category", "tag", "poet", "taxonomy_name",
                   "taxonomy_text", "reason", "search", "setting", "line"]

# kind -> (most characters, lines allowed, what it is in a refusal)
LIMITS: dict[TextKind, tuple[int, bool, str]] = {
    "note": (2_000, False, "a note"),  # one line: a short remark
    "stem": (2_000, True, "a stem"),
    "hemistich": (400, False, "a hemistich"),
    "explanation": (20_000, True, "an explanation"),
    "category": (100, False, "a category"),
    "tag": (100, False, "a tag"),
    "poet": (200, False, "a poet's name"),
    "taxonomy_name": (100, False, "an error category's name"),
    "taxonomy_text": (2_000, True, "an error category's description"),
    "reason": (500, True, "a reason"),
    "search": (500, False, "a search"),
    "setting": (100_000, True, "a shared setting"),  # the guidelines are one
    "line": (1_000, False, "a line"),  # any other one-line field of the app (a folder, a model name)
}

MAX_PASTE = 100_000  # characters of one paste into the app (its longest field is 20,000)
MESSAGE_BYTES = 1024 * 1024  # one message of a browser tab (a paste included), the WebSocket's cap

_LINE_BREAKS = frozenset("\n\t\r")


def limit(kind: TextKind) -> int:
    """The most characters a text of ``kind`` may have."""
    return LIMITS[kind][0]


def text_problem(kind: TextKind, value: str) -> str | None:
    """Why ``value`` cannot be stored as a text of ``kind`` ("a tag is at most 100 characters
    (this one has 120)", "a hemistich holds no control character (U+001B)"); None when it can."""
    most, _, what = LIMITS[kind]
    if len(value) > most:
        return f"{what} is at most {most:,} characters (this one has {len(value):,})"
    return control_problem(kind, value)


def control_problem(kind: TextKind, value: str) -> str | None:
    """Why ``value`` cannot be a text of ``kind`` for what it holds, whatever its length: a
    control character (line breaks and tabs only in a text of lines); None when it holds none."""
    _, lines, what = LIMITS[kind]
    for c in value:
        if unicodedata.category(c) in ("Cc", "Cs") and not (lines and c in _LINE_BREAKS):
            return f"{what} holds no control character (U+{ord(c):04X})"
    return None


def check_text(kind: TextKind, value: str) -> str:
    """``value`` when it may be stored as a text of ``kind``; ValueError with the one line
    saying why otherwise."""
    if problem := text_problem(kind, value):
        raise ValueError(problem)
    return value


def paste_problem(text: str) -> str | None:
    """Why the app refuses a paste (None: it takes it): longer than MAX_PASTE characters."""
    if len(text) > MAX_PASTE:
        return (f"not pasted: {len(text):,} characters, at most {MAX_PASTE:,} in one paste "
                "(what you typed is kept)")
    return None
