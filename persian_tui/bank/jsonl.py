"""The project's JSONL format: one question per line (what `export` writes).

Schema version 5, keys in this order:
  schema_version, uid, status, stem, options[{position, mesra1, mesra2, order, poet, corpus}],
  key, explanation, category, poet, sources[{name, id}], source_page, tags, author, created_at,
  updated_at, origin
`sources` lists every reference the question is known by, its own source first (empty when it
has none); `origin` where the question came from (`book`: a seed book's import, `fresh`: a
vetted corpus candidate, `authored`: written by a person); `source_page` the page of its own
source it is on (a book's page), null when unknown.
An option's `order` says whether its hemistichs were checked against the corpus
(`poet`, `reversed`, `unverified`); its `corpus` is its provenance link, null when it has none
(no corpus loaded): {status: linked, poem, couplet, poet, metre, method, score, also_in},
{status: ambiguous, method, score, candidates} or {status: unlinked} (with method `quoted` and
the quoting works as candidates when only such works hold it). On import `order` and `corpus`
are not read: links are recomputed against the local corpus. Versions 1 (no `corpus`), 2 (one
`source{name, id}` instead of `sources`) 3 (`corpus` null unless linked, no `order`) and 4 (no `origin`:
read as `authored`) still import.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from ..files import outputs
from ..models import MAX_PAGE, STATUSES, Option, OptionLink, Question, SourceRef
from ..models.bank import check_origin
from ..text import nfc

SCHEMA_VERSION = 5
READABLE_VERSIONS = (1, 2, 3, 4, 5)


def corpus_field(link: OptionLink | None) -> dict | None:
    """The export's provenance of one option: linked, ambiguous (with its candidates) or
    unlinked; None when the option has no link (no corpus)."""
    if link is None:
        return None
    places = [{"poem": p, "couplet": i} for p, i, _ in link.others]
    c = link.couplet
    if link.status == "linked" and c is not None:
        return {"status": "linked", "poem": c.poem, "couplet": c.couplet, "poet": c.poet, "metre": c.metre,
                "method": link.method, "score": link.score, "also_in": places}
    if link.status == "ambiguous" and c is not None:
        return {"status": "ambiguous", "method": link.method, "score": link.score,
                "candidates": [{"poem": c.poem, "couplet": c.couplet}, *places]}
    if link.method == "quoted" and c is not None:
        return {"status": "unlinked", "method": "quoted",
                "candidates": [{"poem": c.poem, "couplet": c.couplet}, *places]}
    return {"status": link.status}


def to_record(q: Question, links: dict[int, OptionLink] | None = None) -> dict:
    links = links or {}
    return {
        "schema_version": SCHEMA_VERSION,
        "uid": q.uid,
        "status": q.status,
        "stem": q.stem,
        "options": [
            {"position": o.position, "mesra1": o.mesra1, "mesra2": o.mesra2,
             "order": links[o.position].order if o.position in links else "unverified", "poet": o.poet,
             "corpus": corpus_field(links.get(o.position))}
            for o in sorted(q.options, key=lambda o: o.position)
        ],
        "key": q.key,
        "explanation": q.explanation,
        "category": q.category,
        "poet": q.poet,
        "sources": [{"name": r.name, "id": r.id} for r in q.references()],
        "source_page": q.source_page,
        "tags": list(q.tags),
        "author": q.author,
        "created_at": q.created_at,
        "updated_at": q.updated_at,
        "origin": q.origin,
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
    refs = _sources(d, version)
    page = d.get("source_page")
    if page is not None and (not isinstance(page, int) or isinstance(page, bool) or not 0 <= page <= MAX_PAGE):
        raise ValueError(f"source_page {page!r} must be a page number 0..{MAX_PAGE} or null")
    tags = d.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError("'tags' must be a list of strings")
    status = d.get("status", "draft")
    if status not in STATUSES:
        raise ValueError(f"status {status!r} is not one of {', '.join(STATUSES)}")
    own = refs[0] if refs else SourceRef(None, None)
    origin = check_origin(d["origin"]) if version >= 5 and "origin" in d else "authored"
    return Question(
        uid=uid, options=options, stem=_text(d, "stem") or "", key=key, status=status,
        explanation=_text(d, "explanation"), category=_text(d, "category"), poet=_text(d, "poet"),
        source_name=own.name, source_id=own.id, source_page=page, tags=[nfc(t) for t in tags],
        author=_text(d, "author"),
        created_at=_text(d, "created_at"), updated_at=_text(d, "updated_at"), sources=refs,
        origin=origin,
    )


def _ref(obj: object, what: str) -> SourceRef | None:
    """One {name, id} object (an id may be a number); None when both are missing."""
    if not isinstance(obj, dict):
        raise ValueError(f"{what} must be an object {{name, id}}")
    sid = obj.get("id")
    if isinstance(sid, int) and not isinstance(sid, bool):
        sid = str(sid)
    name, sid = _text(obj, "name"), _text({"id": sid}, "id")
    return SourceRef(name or None, sid or None) if (name or sid) else None


def _sources(d: dict, version: int) -> list[SourceRef]:
    if version < 3:
        ref = _ref(d.get("source") or {}, "'source'")
        return [ref] if ref else []
    raw = d.get("sources")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValueError("'sources' must be a list of objects {name, id}")
    refs = [_ref(obj, f"sources[{i}]") for i, obj in enumerate(raw)]
    return list(dict.fromkeys(r for r in refs if r is not None))


def write_atomic(path: str | Path, lines: Iterable[str]) -> int:
    """Write lines (each ended by a newline) atomically; returns how many."""
    lines = list(lines)
    data = "".join(f"{line}\n" for line in lines).encode("utf-8")
    outputs.write_atomic(Path(path), data)
    return len(lines)
