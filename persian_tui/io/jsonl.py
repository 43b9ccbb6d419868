"""The project's JSONL format: one question per line (what `export` writes).

Schema version 2, keys in this order:
  schema_version, uid, status, stem, options[{position, mesra1, mesra2, poet, corpus}], key,
  explanation, category, poet, source{name, id}, tags, author, created_at, updated_at
An option's `corpus` is its provenance link (or null): {poem, couplet, poet, metre, method,
score}; version 1 files (without it) still import. On import `corpus` is not read: links are
recomputed against the local corpus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from ..models import STATUSES, Option, OptionLink, Question
from ..text import nfc
from . import files

SCHEMA_VERSION = 2
READABLE_VERSIONS = (1, 2)


def corpus_field(link: OptionLink | None) -> dict | None:
    """The export's provenance of one option (linked options only)."""
    if link is None or link.status != "linked" or link.couplet is None:
        return None
    c = link.couplet
    return {"poem": c.poem, "couplet": c.couplet, "poet": c.poet, "metre": c.metre,
            "method": link.method, "score": link.score}


def to_record(q: Question, links: dict[int, OptionLink] | None = None) -> dict:
    links = links or {}
    return {
        "schema_version": SCHEMA_VERSION,
        "uid": q.uid,
        "status": q.status,
        "stem": q.stem,
        "options": [
            {"position": o.position, "mesra1": o.mesra1, "mesra2": o.mesra2, "poet": o.poet,
             "corpus": corpus_field(links.get(o.position))}
            for o in sorted(q.options, key=lambda o: o.position)
        ],
        "key": q.key,
        "explanation": q.explanation,
        "category": q.category,
        "poet": q.poet,
        "source": {"name": q.source_name, "id": q.source_id},
        "tags": list(q.tags),
        "author": q.author,
        "created_at": q.created_at,
        "updated_at": q.updated_at,
    }


# characters other tools take for line ends: escaped in every JSONL line we write (valid JSON either way)
_LINE_ENDS = {ord(c): f"\\u{ord(c):04x}" for c in "\u2028\u2029\x85\x0b\x0c\x1c\x1d\x1e"}


def line(record: dict) -> str:
    """One JSONL line: UTF-8 text, but no character that some reader would split the line at."""
    return json.dumps(record, ensure_ascii=False).translate(_LINE_ENDS)


def dumps(q: Question, links: dict[int, OptionLink] | None = None) -> str:
    return line(to_record(q, links))


def _text(d: dict, name: str, *, required: bool = False) -> str | None:
    value = d.get(name)
    if value is None:
        if required:
            raise ValueError(f"missing {name!r}")
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name!r} must be a string, not {type(value).__name__}")
    return nfc(value)


def from_record(d: object) -> Question:
    """A Question from one parsed JSONL object; ValueError says what is wrong."""
    if not isinstance(d, dict):
        raise ValueError(f"expected a JSON object, got {type(d).__name__}")
    version = d.get("schema_version")
    if version not in READABLE_VERSIONS:
        raise ValueError(f"schema_version {version!r} is not supported "
                         f"(expected one of {', '.join(map(str, READABLE_VERSIONS))})")
    uid = _text(d, "uid", required=True)
    if not uid:
        raise ValueError("empty 'uid'")
    raw_options = d.get("options")
    if not isinstance(raw_options, list):
        raise ValueError("'options' must be a list")
    options = []
    for i, o in enumerate(raw_options, 1):
        if not isinstance(o, dict):
            raise ValueError(f"option {i} must be an object")
        position = o.get("position", i)
        if not isinstance(position, int) or isinstance(position, bool):
            raise ValueError(f"option {i}: position must be an integer")
        options.append(Option(position, _text(o, "mesra1") or "", _text(o, "mesra2") or "",
                              _text(o, "poet")))
    key = d.get("key")
    if key is not None and (not isinstance(key, int) or isinstance(key, bool)):
        raise ValueError(f"key {key!r} must be an integer 1..4 or null")
    source = d.get("source") or {}
    if not isinstance(source, dict):
        raise ValueError("'source' must be an object {name, id}")
    tags = d.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError("'tags' must be a list of strings")
    status = d.get("status", "draft")
    if status not in STATUSES:
        raise ValueError(f"status {status!r} is not one of {', '.join(STATUSES)}")
    source_id = source.get("id")
    return Question(
        uid=uid, options=options, stem=_text(d, "stem") or "", key=key, status=status,
        explanation=_text(d, "explanation"), category=_text(d, "category"), poet=_text(d, "poet"),
        source_name=_text(source, "name"), source_id=None if source_id is None else str(source_id),
        tags=[nfc(t) for t in tags], author=_text(d, "author"),
        created_at=_text(d, "created_at"), updated_at=_text(d, "updated_at"),
    )


def write_atomic(path: str | Path, lines: Iterable[str]) -> int:
    """Write lines (each ended by a newline) atomically; returns how many."""
    lines = list(lines)
    data = "".join(f"{line}\n" for line in lines).encode("utf-8")
    files.write_atomic(Path(path), data)
    return len(lines)
