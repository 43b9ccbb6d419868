"""Reading input files into records: one per question, valid or with the reason it is not."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..models import Question
from .errors import InputError


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
    """A UTF-8 file's text (a BOM is dropped), or an InputError naming the file and why."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None


_SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH, _LOW = r"\\u[dD][89abAB][0-9a-fA-F]{2}", r"\\u[dD][c-fC-F][0-9a-fA-F]{2}"
_SURROGATE_ESCAPE = re.compile(f"{_HIGH}(?!{_LOW})|(?<!{_HIGH}){_LOW}")  # unpaired, for the column


def loads(text: str) -> object:
    """json.loads for input files: a string with a lone surrogate ("\\ud800" is valid JSON),
    which no UTF-8 file or database can hold, is a JSONDecodeError."""
    obj = json.loads(text)
    stack = [obj]
    while stack:  # iterative: a deeply nested file cannot exhaust the recursion limit here
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                m = _SURROGATE_ESCAPE.search(text)
                at = m.start() if m else 0
                raise json.JSONDecodeError("a lone surrogate escape (not Unicode text)", text, max(at, 0))
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return obj


def read_json(path: Path) -> object:
    text = read_text(path)
    try:
        return loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: malformed JSON at line {e.lineno} column {e.colno}: {e.msg}") from None


def read_keys(path: Path) -> dict[str, int]:
    """An answer-key file: {"<question id>": <correct option 1..4>, ...}."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: an answer-key file must be a JSON object {{\"id\": 1..4}}")
    keys = {}
    for k, v in data.items():
        if isinstance(v, str) and v.strip().isdigit():
            v = int(v)
        if not isinstance(v, int) or isinstance(v, bool):
            raise InputError(f"{path}: key of id {k!r} is {v!r}, not an integer 1..4")
        keys[str(k).strip()] = v
    return keys
