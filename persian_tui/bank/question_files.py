"""Reading a file of questions into records (one per question, valid or with its reason):
the seed's formats and the project's JSONL."""

from __future__ import annotations

import json
from pathlib import Path

from ..files.inputs import InputError
from ..files.records import Record, is_text, parse_json, read_json, read_keys, read_text, shown_path
from ..models.keys import repeated_couplets
from . import jsonl
from .seed import read_benchmark, read_book, read_exp1

FORMATS = ("benchmark", "exp1", "book", "jsonl")


def detect_format(path: Path, data: object) -> str:
    if path.suffix.lower() == ".jsonl":
        return "jsonl"
    if isinstance(data, list) and data and isinstance(data[0], dict) and "options" in data[0]:
        return "benchmark"
    if isinstance(data, dict) and "pages" in data:
        return "book"
    if isinstance(data, dict) and "questions" in data:
        return "exp1"
    raise InputError(f"{path}: cannot tell the format; pass --format {'|'.join(FORMATS)}")


def read_jsonl(path: Path) -> list[Record]:
    lines = read_text(path).split("\n")  # only \n ends a record: U+2028 and friends are text

    records = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        rec = Record(where=f"line {n}")
        records.append(rec)
        try:
            q = jsonl.from_record(parse_json(line))
        except json.JSONDecodeError as e:
            rec.error = f"malformed JSON at column {e.colno}: {e.msg}"
            continue
        except ValueError as e:
            rec.error = str(e)
            continue
        rec.source_id = q.source_id
        rec.where = f"line {n} (uid {q.uid})"
        if problems := q.problems():
            rec.error = "; ".join(problems)
        else:
            rec.question = q
            rec.dirty = repeated_couplets(q)
    return records


def read_file(path: Path, fmt: str | None, answers: Path | None, source: str | None,
              swapped: bool = True) -> tuple[str, str | None, list[Record]]:
    """(format, source name, records) of a file; InputError for a file-level problem."""
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "jsonl" or (fmt is None and path.suffix.lower() == ".jsonl"):
        return "jsonl", None, read_jsonl(path)
    data = read_json(path)
    fmt = fmt or detect_format(path, data)
    if fmt == "jsonl":
        raise InputError(f"{path}: JSONL files hold one JSON object per line")
    if source is not None and not is_text(source):
        raise InputError("--source is not valid UTF-8 text")
    source = source or shown_path(path.stem)
    keys = read_keys(answers) if answers else None
    if fmt == "benchmark":
        return fmt, source, read_benchmark(data, path, source)
    if keys is None:
        raise InputError(f"{path}: the {fmt} format has no answer key; pass --answers KEYS.json")
    if fmt == "exp1":
        return fmt, source, read_exp1(data, path, source, keys, answers)
    return fmt, source, read_book(data, path, source, keys, answers, swapped)
