"""Reading input files into records: one per question, valid or with the reason it is not."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..models import Question
from .inputs import InputError, read_input


@dataclass
class Record:
    where: str  # "record 12 (id 93)" or "line 7": how the user finds it in the file
    source_id: str | None = None
    question: Question | None = None
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    key_from_file: bool = False  # the key came from a separate answer-key file
    dirty: list[str] = field(default_factory=list)  # e.g. a repeated couplet: rejected, or a draft on request


def read_text(path: Path) -> str:
    """A UTF-8 regular file's text (a BOM is dropped, line ends made \n), or an InputError naming
    the file and why (a FIFO or device, larger than the input cap, not UTF-8, ...)."""
    try:
        text = read_input(path).decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


MAX_DIGITS = 30  # the longest integer an input file may hold (ids and keys are short)
_LONE_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
                             r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


_DIGIT_RUN = b"0" * (MAX_DIGITS + 1)
_DIGITS_ONLY = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))  # ASCII digits -> "0", all else " "


def _long_digits(text: str | bytes) -> bool:
    """Whether the text (or its UTF-8 bytes) has a run of more than MAX_DIGITS ASCII digits
    (a number that long needs _int's check; without one, the parser's own int is faster)."""
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    return _DIGIT_RUN in raw.translate(_DIGITS_ONLY)


class _LongNumber(Exception):
    pass


def _int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise _LongNumber(len(digits.lstrip("-")))
    return int(digits)


class _Refused(Exception):
    pass


def _object(pairs: list[tuple]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):  # a key given twice: never let the last one win silently
        seen: set = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"the key {key[:60]!r} given twice in one object")
            seen.add(key)
    return obj


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused(f"the number {text[:40]} is too large")
    return value


def _constant(name: str) -> float:
    raise _Refused(f"{name} is not a number (JSON has no NaN or Infinity)")


def parse_json(text: str, raw: bytes | None = None) -> object:
    """json.loads for input files. Raises JSONDecodeError for malformed JSON, and ValueError
    with a one-line reason for what Python's parser would otherwise crash on or let through:
    nesting deeper than the interpreter's recursion limit, an integer longer than MAX_DIGITS
    digits, a lone surrogate escape (``"\\ud800"``: not text, SQLite cannot store it), a key
    given twice in one object, NaN, Infinity or a number too large for a float (1e400).
    `raw`: the text's UTF-8 bytes when the caller has them (a cheaper check for long numbers)."""
    try:
        long_numbers = _long_digits(text if raw is None else raw)
        obj = json.loads(text, parse_int=_int if long_numbers else None, parse_float=_float,
                         parse_constant=_constant, object_pairs_hook=_object)
    except RecursionError:
        raise ValueError("JSON nested too deeply (more than about 1,000 levels)") from None
    except _LongNumber as e:
        raise ValueError(f"a number with {e.args[0]} digits (at most {MAX_DIGITS})") from None
    except _Refused as e:
        raise ValueError(str(e)) from None
    found = _LONE_SURROGATE.search(text) if "\\u" in text else None  # the scan costs more than the parse
    if found and not is_text(json.dumps(obj, ensure_ascii=False)):
        raise ValueError(f"a lone surrogate {found.group()} (not a character){_line_of(text, found.start())}")
    return obj


def _line_of(text: str, pos: int) -> str:
    return f" at line {text.count(chr(10), 0, pos) + 1}" if "\n" in text.rstrip("\n") else ""


def is_text(s: str) -> bool:
    """False when ``s`` holds a lone surrogate (from a JSON escape or an undecodable file name)."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_path(path: Path | str) -> str:
    """A path as text that can be stored: bytes of a non-UTF-8 file name become U+FFFD."""
    return str(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def read_json(path: Path) -> object:
    text = read_text(path)
    try:
        return parse_json(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: malformed JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except ValueError as e:
        raise InputError(f"{path}: {e}") from None


def read_csv(path: Path, text: str) -> tuple[list[str], list[tuple[int, dict]]]:
    """A CSV file's header and rows, each with the physical line it starts on (a quoted field
    may span lines). A field may be up to MAX_FIELD characters; a column named twice, a quote
    never closed and anything else the csv module cannot read is an InputError naming the line."""
    csv.field_size_limit(MAX_FIELD)
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)  # an unclosed quote is an error
    rows, start = [], 1
    try:
        header = list(reader.fieldnames or [])
        twice = sorted({c for c in header if header.count(c) > 1})
        if twice:
            raise InputError(f"{path}: line 1: the column {twice[0]!r} appears twice in the header")
        start = reader.line_num + 1
        for row in reader:
            rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as e:
        reason = str(e)
        if "field larger than field limit" in reason:
            reason = f"a field longer than {MAX_FIELD:,} characters"
        elif "unexpected end of data" in reason:
            reason = "a quoted field is never closed (a \" is missing)"
        raise InputError(f"{path}: line {start}: {reason}") from None
    return header, rows


MAX_FIELD = 16 * 2**20  # characters in one CSV field (a model's whole reply fits)


def read_keys(path: Path) -> dict[str, int]:
    """An answer-key file: {"<question id>": <correct option 1..4>, ...}."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: an answer-key file must be a JSON object {{\"id\": 1..4}}")
    keys = {}
    for k, v in data.items():
        if isinstance(v, str) and v.strip().isdigit() and len(v.strip()) <= MAX_DIGITS:
            v = int(v)
        if not isinstance(v, int) or isinstance(v, bool):
            raise InputError(f"{path}: key of id {k!r} is {v!r}, not an integer 1..4")
        keys[str(k).strip()] = v
    return keys
