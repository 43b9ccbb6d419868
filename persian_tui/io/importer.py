"""Import a file of questions: read, validate, decide per record, then write all in one transaction.

Per valid record the outcome is one of:
  new        added
  unchanged  already in the bank exactly (same source + id + content): re-imports change nothing
  duplicate  the same or nearly the same couplets as another question (reported, not added)
  conflict   the same uid / source id is stored with different content (never overwritten)
Invalid records are `rejected`: by default one rejected record aborts the whole import.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..bank import couplet_keys, fingerprint, import_uid, repeated_couplets
from ..models import Question
from ..store import Store
from . import jsonl
from .errors import InputError
from .records import Record, loads, read_json, read_keys, read_text
from .seed import read_benchmark, read_book, read_exp1

FORMATS = ("benchmark", "exp1", "book", "jsonl")
NEAR_DUPLICATE = 90.0  # mean couplet similarity (0..100) from which a question is a duplicate


@dataclass
class Decision:
    record: Record
    outcome: str  # new | unchanged | duplicate | conflict | rejected
    reason: str = ""


@dataclass
class ImportPlan:
    path: Path
    format: str
    source_name: str | None
    sha256: str
    decisions: list[Decision] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    allow_duplicates: bool = False

    @property
    def counts(self) -> dict[str, int]:
        c = Counter(d.outcome for d in self.decisions)
        return {k: c.get(k, 0) for k in ("new", "unchanged", "duplicate", "conflict", "rejected")}

    def of(self, outcome: str) -> list[Decision]:
        return [d for d in self.decisions if d.outcome == outcome]

    def summary(self) -> str:
        return ", ".join(f"{v} {k}" for k, v in self.counts.items())


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
    import json

    lines = read_text(path).split("\n")  # only \n ends a record: U+2028 and friends are text

    records = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        rec = Record(where=f"line {n}")
        records.append(rec)
        try:
            q = jsonl.from_record(loads(line))
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
    source = source or path.stem
    keys = read_keys(answers) if answers else None
    if fmt == "benchmark":
        return fmt, source, read_benchmark(data, path, source)
    if keys is None:
        raise InputError(f"{path}: the {fmt} format has no answer key; pass --answers KEYS.json")
    if fmt == "exp1":
        return fmt, source, read_exp1(data, path, source, keys, answers)
    return fmt, source, read_book(data, path, source, keys, answers, swapped)


def _differences(a: Question, b: Question) -> list[str]:
    """Names of the fields where two questions differ (ignoring uid and timestamps)."""
    fields = ("stem", "options", "key", "status", "explanation", "category", "poet", "tags",
              "source_name", "source_id", "author")
    return [f for f in fields if getattr(a, f) != getattr(b, f)]


def _ambiguous_keys(records: list[Record], plan: ImportPlan) -> None:
    """A source id that repeats with different content: its key is not applied to either."""
    groups: dict[str, list[Record]] = defaultdict(list)
    for rec in records:
        if rec.question is not None and rec.source_id is not None:
            groups[rec.source_id].append(rec)
    for sid, recs in groups.items():
        if len({fingerprint(r.question) for r in recs}) < 2:
            continue
        where = ", ".join(r.where for r in recs)
        note = f"id {sid} repeats with different content ({where}): all kept as separate questions"
        if any(r.key_from_file for r in recs):
            note += "; the answer key is ambiguous and was not applied"
            for r in recs:
                r.question.key = None
                r.question.status = "draft"
                r.notes.append(f"key not applied: id {sid} is ambiguous")
        plan.warnings.append(note)


def plan_import(store: Store, path: str | Path, *, fmt: str | None = None,
                answers: str | Path | None = None, source: str | None = None,
                allow_duplicates: bool = False, swapped: bool = True,
                allow_dirty: bool = False) -> ImportPlan:
    """Read `path` and decide what importing it would do, without writing anything."""
    path = Path(path)
    answers = Path(answers) if answers else None
    fmt, source, records = read_file(path, fmt, answers, source, swapped)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    plan = ImportPlan(path, fmt, source, sha, allow_duplicates=allow_duplicates)
    _ambiguous_keys(records, plan)

    stored_uids = store.uids()
    by_source = store.questions_by_source(source) if source else {}
    fingerprints = store.fingerprints()
    index = store.duplicate_index()
    seen_uids: dict[str, Record] = {}
    label = {}  # uid -> how to name it in messages (file records get their location)

    for rec in records:
        q = rec.question
        if q is None:
            plan.decisions.append(Decision(rec, "rejected", rec.error or "invalid"))
            continue
        if rec.dirty:
            if not allow_dirty:
                plan.decisions.append(Decision(rec, "rejected", "; ".join(rec.dirty)
                                               + " (--allow-dirty imports it as a draft tagged dirty)"))
                continue
            q.status = "draft"
            q.tags = [*q.tags, "dirty"]
            rec.notes.append("imported as a draft tagged dirty: " + "; ".join(rec.dirty))
        fp = fingerprint(q)
        if fmt != "jsonl":
            q.uid = import_uid(source, rec.source_id, fp)
        if q.uid in seen_uids:
            other = seen_uids[q.uid]
            if fmt == "jsonl" and _differences(q, other.question):
                plan.decisions.append(Decision(rec, "rejected", f"uid {q.uid} repeats {other.where} with different content"))
            else:
                plan.decisions.append(Decision(rec, "duplicate", f"repeats {other.where}"))
            continue
        seen_uids[q.uid] = rec

        if q.uid in stored_uids:
            stored = store.get_question(q.uid)
            differs = _differences(q, stored)
            if differs:
                shown = [f"{f} (stored {getattr(stored, f)!r}, file {getattr(q, f)!r})"
                         if f in ("key", "status") else f for f in differs]
                plan.decisions.append(Decision(rec, "conflict", f"{q.uid} is stored with different {', '.join(shown)}; not overwritten"))
            else:
                plan.decisions.append(Decision(rec, "unchanged"))
            continue
        stored_same_id = by_source.get(rec.source_id, []) if fmt != "jsonl" else []
        if stored_same_id:
            uids = ", ".join(s.uid for s in stored_same_id)
            plan.decisions.append(Decision(rec, "conflict", f"id {rec.source_id} of {source} is already stored as {uids} with different content; not overwritten"))
            continue

        keys = couplet_keys(q)
        reason = ""
        # JSONL records carry their own uids: copies inside one such file are deliberate
        # (e.g. the same couplets under two stems), so only the bank's questions count there
        in_file = label if fmt == "jsonl" else {}
        if fp in fingerprints and fingerprints[fp] not in in_file:
            reason = f"same question as {label.get(fingerprints[fp], fingerprints[fp])}"
        else:
            matches = [m for m in index.query(keys, min_score=NEAR_DUPLICATE) if m.uid not in in_file]
            near = [m for m in matches if m.score >= NEAR_DUPLICATE]
            if near:
                other = label.get(near[0].uid, near[0].uid)
                if near[0].score == 100:
                    reason = f"same couplets as {other} (stem or order differs)"
                else:
                    reason = f"near-duplicate of {other} (similarity {near[0].score:.0f}%)"
            for m in matches:
                if m.score < NEAR_DUPLICATE:
                    rec.notes.append(f"shares {m.shared} couplet(s) with {label.get(m.uid, m.uid)}")
        if reason and not allow_duplicates:
            plan.decisions.append(Decision(rec, "duplicate", reason))
            continue
        if reason:
            rec.notes.append(f"added although {reason}")
        plan.decisions.append(Decision(rec, "new"))
        fingerprints.setdefault(fp, q.uid)
        index.add(q.uid, keys)
        label[q.uid] = rec.where
    return plan


class ImportFailed(InputError):
    pass


def apply_import(store: Store, plan: ImportPlan, *, skip_invalid: bool = False) -> int:
    """Write the plan's new questions in one transaction. Without skip_invalid, any rejected
    record aborts the import and the database is left unchanged."""
    rejected = plan.of("rejected")
    if rejected and not skip_invalid:
        lines = [f"  {d.record.where}: {d.reason}" for d in rejected[:20]]
        if len(rejected) > 20:
            lines.append(f"  ... and {len(rejected) - 20} more")
        valid = len(plan.decisions) - len(rejected)
        raise ImportFailed(
            f"{plan.path}: {len(rejected)} invalid record(s); nothing imported "
            f"(--skip-invalid imports the {valid} valid ones)\n" + "\n".join(lines)
        )
    new = [d.record.question for d in plan.of("new")]
    log = {"path": str(plan.path), "sha256": plan.sha256, "format": plan.format,
           "source_name": plan.source_name, **plan.counts}
    # re-checked under the write lock: another import may have stored them since the plan
    raced = dict(store.add_new_questions(new, import_log=log, same_question=not plan.allow_duplicates))
    for d in plan.decisions:
        if d.outcome == "new" and d.record.question.uid in raced:
            d.outcome = raced[d.record.question.uid]
            d.reason = "stored meanwhile by another import"
    return len(new) - len(raced)
