"""The one display sanitizer: text from data never reaches the terminal as a control sequence.

``clean`` is applied to copies on their way to the screen (CLI output, TUI widgets);
stored text is never changed. What users see instead:

* C0 controls (except newline and tab) and DEL -> their Unicode control pictures:
  ESC -> ␛, BEL -> ␇, backspace -> ␈, carriage return -> ␍, DEL -> ␡.
* C1 controls (U+0080-U+009F, e.g. the one-byte CSI U+009B) -> ``\\x9b`` (four visible characters).
* Bidi embeddings, overrides and isolates (U+202A-202E, U+2066-2069) -> ⟨LRE⟩ ⟨RLE⟩ ⟨PDF⟩ ⟨LRO⟩
  ⟨RLO⟩ ⟨LRI⟩ ⟨RLI⟩ ⟨FSI⟩ ⟨PDI⟩: they can silently reorder what is shown (a reversed
  hemistich, a disguised answer), so they are made visible rather than obeyed or dropped.
* Line and paragraph separators (U+2028, U+2029) -> ␤; lone surrogates -> U+FFFD.

Kept as they are: newline and tab (``newlines=False`` shows a newline as ␤ for one-line
fields), and the marks Persian needs: ZWNJ U+200C, ZWJ U+200D, LRM/RLM U+200E/U+200F,
ALM U+061C, and all diacritics.

The figures every view shows (TUI, CLI, report files) are formatted here too, once:
``figure``, ``percent``, ``interval``, ``signed_interval``, ``points``, ``p_value``,
``tokens``, ``seconds``, ``dollars``; a missing figure is ``MISSING``; and the one name of a
question, ``question_id`` (its uid, with its source id beside it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TextIO

_BIDI = {0x202A: "LRE", 0x202B: "RLE", 0x202C: "PDF", 0x202D: "LRO", 0x202E: "RLO",
         0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI", 0x2069: "PDI"}

_TABLE: dict[int, str] = {c: chr(0x2400 + c) for c in range(0x20) if c not in (0x09, 0x0A)}
_TABLE[0x7F] = "\u2421"
_TABLE.update({c: f"\\x{c:02x}" for c in range(0x80, 0xA0)})
_TABLE.update({c: f"⟨{name}⟩" for c, name in _BIDI.items()})
_TABLE.update({0x2028: "\u2424", 0x2029: "\u2424"})
_TABLE.update({c: "\ufffd" for c in range(0xD800, 0xE000)})
_ONE_LINE = {**_TABLE, 0x0A: "\u2424"}

_UNSAFE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff"
_UNSAFE_RE = re.compile(f"[{_UNSAFE}]")
_UNSAFE_LINE_RE = re.compile(f"[{_UNSAFE}\n]")
# what must never be in a rendered terminal cell (the TUI's last line of defence)
RAW_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")


def clean(text: str, *, newlines: bool = True) -> str:
    """``text`` with every terminal-dangerous code point replaced by a visible placeholder."""
    if newlines:
        return text.translate(_TABLE) if _UNSAFE_RE.search(text) else text
    return text.translate(_ONE_LINE) if _UNSAFE_LINE_RE.search(text) else text


def line(text: str) -> str:
    """``clean`` for a one-line field: a newline inside it shows as ␤."""
    return clean(text, newlines=False)


def strip_raw(text: str) -> str:
    """Drop (not replace) raw controls: for already laid-out cells, where a placeholder
    would change the width. Everything shown should have gone through ``clean`` first."""
    return RAW_CONTROL_RE.sub("", text)


def json_safe(text: str) -> str:
    """JSON text (from ``json.dumps(ensure_ascii=False)``) with the characters ``clean``
    would replace written as \\uXXXX escapes: same data when parsed, safe to print."""
    return _UNSAFE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class SafeStream:
    """A text stream that cleans everything written to it (the CLI's choke point).
    ``raw`` is the stream underneath, for the CLI's own terminal controls (progress line)."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, s: str) -> int:
        self.raw.write(clean(s))
        return len(s)

    def writelines(self, lines: Iterable[str]) -> None:
        for s in lines:
            self.write(s)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


MISSING = "—"  # how every view shows a figure that does not exist (no answer, nothing to divide)


def figure(value: object, fmt: str = "{}") -> str:
    """A figure formatted with `fmt`, or MISSING when it is None."""
    return MISSING if value is None else fmt.format(value)


def count(x: float | None) -> str:
    """A count that may hold fractional credit (a tied majority's 1/t): 37, 37.5, 36.33."""
    if x is None:
        return MISSING
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}".rstrip("0")


def percent(x: float | None, digits: int = 1, unit: str = "%") -> str:
    """A proportion as a percentage: 0.582 -> '58.2%' (``unit=" %"`` -> '58.2 %')."""
    return MISSING if x is None else f"{100 * x:.{digits}f}{unit}"


def interval(low: float | None, high: float | None, unit: str = "") -> str:
    """A 95 % interval of a proportion, in %: '58.2–71.0' (``unit=" %"`` -> '58.2–71.0 %')."""
    if low is None or high is None:
        return MISSING
    return f"{100 * low:.1f}–{100 * high:.1f}{unit}"


def signed_interval(low: float | None, high: float | None) -> str:
    """A 95 % interval of a difference, in points, with a real minus: '−5.1…+25.6'."""
    if low is None or high is None:
        return MISSING
    return f"{100 * low:+.1f}…{100 * high:+.1f}".replace("-", "−")


def points(diff: float | None) -> str:
    """A difference of proportions in points: '+3.2'."""
    return MISSING if diff is None else f"{100 * diff:+.1f}"


def p_value(p: float | None) -> str:
    """The p-value format of every report view: '< 0.0001' or 4 decimals."""
    if p is None:
        return MISSING
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def tokens(n_in: int | None, n_out: int | None) -> str:
    """Tokens in/out, short: '12.3k/800'."""
    if n_in is None and n_out is None:
        return MISSING
    return f"{_thousands(n_in)}/{_thousands(n_out)}"


def _thousands(n: int | float | None) -> str:
    if n is None:
        return MISSING
    if not n:
        return "0"
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(int(n))


def seconds(x: float | None) -> str:
    return MISSING if x is None else f"{x:.2f} s"


def dollars(x: float | None) -> str:
    """A cost; none (or zero) is MISSING."""
    if not x:
        return MISSING
    return f"${x:.4f}" if x < 1 else f"${x:.2f}"


def question_id(uid: str, source_id: str | None = None) -> str:
    """How every view names a question: its uid, with the source id beside it when it has one
    ("sample-06 (6)"); one line, cleaned."""
    if source_id and source_id != uid:
        return line(f"{uid} ({source_id})")
    return line(uid)


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, ending in "…" whenever it was cut."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def distinct_cuts(texts: list[str], width: int) -> list[str]:
    """Each text cut to ``width`` (``cut``), except that texts which differ but would be cut
    alike keep their ends instead ("qwen/qwen3-n…a3b-thinking"): a list of run names never
    shows two different models the same way. Equal texts stay equal."""
    out = [cut(t, width) for t in texts]
    groups: dict[str, set[str]] = {}
    for text, shown in zip(texts, out):
        groups.setdefault(shown, set()).add(text)
    for shown, same in groups.items():
        if len(same) < 2 or width < 3:
            continue
        for tail in range(1, width - 1):  # the fewest end characters that tell them apart
            head = width - 1 - tail
            cuts = {t: t if len(t) <= width else t[:head] + "…" + t[-tail:] for t in same}
            if len(set(cuts.values())) == len(same):
                break
        out = [cuts.get(t, o) if o == shown else o for t, o in zip(texts, out)]
    return out
