"""Import a file of questions: read, validate, decide per record, then write all in one transaction.

Per valid record the outcome is one of:
  new        added
  linked     the same or nearly the same couplets as a question already in the bank (or earlier
             in the file): not added again; its source reference (name, id) is added to that question
  unchanged  already in the bank exactly (same source + id + content, or its reference is already
             linked to the question it repeats): re-imports change nothing
  duplicate  the same record twice in the file (reported, not added)
  conflict   the same uid / source id is stored with different content (never overwritten)
Invalid records are `rejected`: by default one rejected record aborts the whole import.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..files.inputs import InputError, read_input
from ..files.records import Record, shown_path
from ..models import Question, SourceRef
from ..models.keys import couplet_keys, fingerprint, import_uid
from ..store import Store
from ..store.imports import ImportResult
from .question_files import read_file

NEAR_DUPLICATE = 90.0  # mean couplet similarity (0..100) from which a question is a duplicate


@dataclass
class Decision:
    record: Record
    outcome: str  # new | linked | unchanged | duplicate | conflict | rejected
    reason: str = ""
    target: str | None = None  # linked: the uid of the question the record repeats
    refs: list[SourceRef] = field(default_factory=list)  # linked: the references added to it


@dataclass
class ImportPlan:
    path: Path
    format: str
    source_name: str | None
    sha256: str
    decisions: list[Decision] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    allow_duplicates: bool = False
    since: int = 0  # the newest question's row id when planned: later ones are re-checked
    corpus: dict[str, int] = field(default_factory=dict)  # links of the written questions (when applied)

    @property
    def counts(self) -> dict[str, int]:
        return _count(d.outcome for d in self.decisions)

    def of(self, outcome: str) -> list[Decision]:
        return [d for d in self.decisions if d.outcome == outcome]

    def summary(self) -> str:
        return ", ".join(f"{v} {k}" for k, v in self.counts.items())


OUTCOMES = ("new", "linked", "unchanged", "duplicate", "conflict", "rejected")


def _count(outcomes) -> dict[str, int]:
    c = Counter(outcomes)
    return {k: c.get(k, 0) for k in OUTCOMES}


def _differences(a: Question, b: Question) -> list[str]:
    """Names of the fields where two questions differ (ignoring uid and timestamps)."""
    fields = ("stem", "options", "key", "status", "explanation", "category", "poet", "tags",
              "source_name", "source_id", "author")
    return [f for f in fields if getattr(a, f) != getattr(b, f)]


def _ambiguous_keys(records: list[Record], plan: ImportPlan) -> None:
    """A source id that repeats with different content: its key is not applied to either."""
    groups: dict[SourceRef, list[tuple[Record, Question]]] = defaultdict(list)
    for rec in records:
        if rec.question is not None:
            for ref in rec.question.references():
                if ref.id is not None:
                    groups[ref].append((rec, rec.question))  # the same id in two sources is two references
    for ref, recs in groups.items():
        if len({fingerprint(q) for _, q in recs}) < 2:
            continue
        where = ", ".join(r.where for r, _ in recs)
        sid = ref.id
        note = f"id {sid} repeats with different content ({where}): all kept as separate questions"
        if any(r.key_from_file for r, _ in recs):
            note += "; the answer key is ambiguous and was not applied"
            for r, q in recs:
                q.key = None
                q.status = "draft"
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
    sha = hashlib.sha256(read_input(path)).hexdigest()
    plan = ImportPlan(path, fmt, source, sha, allow_duplicates=allow_duplicates)
    plan.since = store.questions.max_question_id()  # read first: anything stored later is re-checked on write
    for rec in records:
        if rec.question is not None:  # where each reference was learnt
            rec.question.sources = [SourceRef(r.name, r.id, shown_path(path)) for r in rec.question.references()]
    _ambiguous_keys(records, plan)
    _Planner(store, plan, allow_duplicates, allow_dirty).run(records)
    return plan


class _Planner:
    """Decides each record's outcome against the bank and the records before it in the file."""

    def __init__(self, store: Store, plan: ImportPlan, allow_duplicates: bool, allow_dirty: bool):
        self.store, self.plan = store, plan
        self.allow_duplicates, self.allow_dirty = allow_duplicates, allow_dirty
        self.jsonl = plan.format == "jsonl"
        self.stored_uids = store.questions.uids()
        self.by_source = store.sources.questions_by_source(plan.source_name) if plan.source_name else {}
        self.fingerprints = store.questions.fingerprints()
        self.index = store.questions.duplicate_index()
        self.seen_uids: dict[str, tuple[Record, Question]] = {}  # uid -> its first record
        self.label: dict[str, str] = {}  # uid -> how to name it in messages (file records: their location)
        self.planned: dict[str, Question] = {}  # this file's new questions

    def decide(self, rec: Record, outcome: str, reason: str = "", **kw) -> None:
        self.plan.decisions.append(Decision(rec, outcome, reason, **kw))

    def run(self, records: list[Record]) -> None:
        for rec in records:
            if rec.question is None:
                self.decide(rec, "rejected", rec.error or "invalid")
            elif not rec.dirty or self._dirty(rec, rec.question):
                self._one(rec, rec.question)

    def _dirty(self, rec: Record, q: Question) -> bool:
        if not self.allow_dirty:
            self.decide(rec, "rejected", "; ".join(rec.dirty) + " (--allow-dirty imports it as a draft tagged dirty)")
            return False
        q.status = "draft"
        q.tags = [*q.tags, "dirty"]
        rec.notes.append("imported as a draft tagged dirty: " + "; ".join(rec.dirty))
        return True

    def _one(self, rec: Record, q: Question) -> None:
        fp = fingerprint(q)
        source = self.plan.source_name
        if source is not None:  # every format but JSONL, whose records carry their own uids
            q.uid = import_uid(source, rec.source_id, fp)
        if q.uid in self.seen_uids:
            other, other_q = self.seen_uids[q.uid]
            if self.jsonl and _differences(q, other_q):
                self.decide(rec, "rejected", f"uid {q.uid} repeats {other.where} with different content")
            else:
                self.decide(rec, "duplicate", f"repeats {other.where}")
            return
        self.seen_uids[q.uid] = (rec, q)
        # (a question removed since the uids were read is planned as new: the write re-checks)
        if q.uid in self.stored_uids and (stored := self.store.questions.get_question(q.uid)) is not None:
            self._stored(rec, q, stored)
            return
        keys = couplet_keys(q)
        matches = self.index.query(keys, min_score=NEAR_DUPLICATE)
        sid = rec.source_id
        stored_same_id = self.by_source.get(sid, []) if sid is not None and not self.jsonl else []
        if stored_same_id:
            near = {m.uid for m in matches if m.score >= NEAR_DUPLICATE}
            same = [s for s in stored_same_id if s.uid in near or fingerprint(s) == fp]
            if same:  # the reference is already linked to the question this record repeats
                self.decide(rec, "unchanged", f"id {rec.source_id} is already a reference of {same[0].uid}")
            else:
                uids = ", ".join(s.uid for s in stored_same_id)
                self.decide(rec, "conflict", f"id {rec.source_id} of {self.plan.source_name} is already stored "
                                             f"as {uids} with different content; not overwritten")
            return
        target, reason = self._repeats(rec, fp, matches)
        if target and not self.allow_duplicates and not q.references():  # nothing to link: reported
            self.decide(rec, "duplicate", reason, target=target)
            return
        if target and not self.allow_duplicates:
            self.decide(rec, "linked", reason + self._key_note(q, target), target=target,
                        refs=q.references())
            return
        if target:
            rec.notes.append(f"added although {reason}")
        self.decide(rec, "new")
        self.fingerprints.setdefault(fp, q.uid)
        self.index.add(q.uid, keys)
        self.label[q.uid] = rec.where
        self.planned[q.uid] = q

    def _stored(self, rec: Record, q: Question, stored: Question) -> None:
        differs = _differences(q, stored)
        if differs:
            shown = [f"{f} (stored {getattr(stored, f)!r}, file {getattr(q, f)!r})"
                     if f in ("key", "status") else f for f in differs]
            self.decide(rec, "conflict", f"{q.uid} is stored with different {', '.join(shown)}; not overwritten")
            return
        known = stored.references()
        missing = [r for r in q.references() if r not in known]
        if missing:  # a file that knows the question by more names than this bank does
            names = ", ".join(r.label() for r in missing)
            self.decide(rec, "linked", f"adds {names} to {q.uid}", target=q.uid, refs=missing)
        else:
            self.decide(rec, "unchanged")

    def _repeats(self, rec: Record, fp: str, matches) -> tuple[str | None, str]:
        """The question (uid) this record repeats, and how it was found."""
        # JSONL records carry their own uids: copies inside one such file are deliberate
        # (e.g. the same couplets under two stems), so only the bank's questions count there
        in_file = self.label if self.jsonl else {}
        if fp in self.fingerprints and self.fingerprints[fp] not in in_file:
            uid = self.fingerprints[fp]
            return uid, f"same question as {self._name(uid)}"
        matches = [m for m in matches if m.uid not in in_file]
        for m in matches:
            if m.score < NEAR_DUPLICATE:
                rec.notes.append(f"shares {m.shared} couplet(s) with {self._name(m.uid)}")
        near = [m for m in matches if m.score >= NEAR_DUPLICATE]
        if not near:
            return None, ""
        if near[0].score == 100:
            return near[0].uid, f"same couplets as {self._name(near[0].uid)} (stem or order differs)"
        return near[0].uid, f"near-duplicate of {self._name(near[0].uid)} (similarity {near[0].score:.0f}%)"

    def _name(self, uid: str) -> str:
        return f"{uid} ({self.label[uid]})" if uid in self.label else uid

    def _key_note(self, q: Question, target: str) -> str:
        other = self.planned.get(target) or self.store.questions.get_question(target)
        if other is None or q.key is None or other.key is None or q.key == other.key:
            return ""
        return f"; its key {q.key} differs from {target}'s {other.key} (kept)"


class ImportFailed(InputError):
    pass


def _final(plan: ImportPlan, result: ImportResult) -> list[tuple[Decision, str, str, str | None]]:
    """(decision, outcome, reason, target) once written: what other processes did meanwhile counts."""
    out = []
    links = iter(result.links)
    for d in plan.decisions:
        outcome, reason, target = d.outcome, d.reason, d.target
        q = d.record.question
        if d.outcome == "new" and q is not None and q.uid in result.skipped:
            outcome, target = result.skipped[q.uid]
            reason = ("stored meanwhile by another import" if target == q.uid
                      else f"same question as {target}, stored meanwhile by another import")
        elif d.outcome == "linked":
            done = [next(links) for _ in d.refs]
            if "linked" in done:
                pass
            elif "missing" in done:
                outcome, reason = "conflict", f"{target} was removed meanwhile; not linked"
            else:
                outcome, reason = "unchanged", f"{reason}; linked meanwhile by another import"
        out.append((d, outcome, reason, target))
    return out


def apply_import(store: Store, plan: ImportPlan, *, skip_invalid: bool = False,
                 only_into_empty: bool = False) -> int:
    """Write the plan: new questions, and the references of linked ones. Without skip_invalid,
    any rejected record aborts the import and the database is left unchanged. Everything is
    re-checked under the write lock (another import may have stored the same questions since
    the plan); the decisions are updated to what was really written. ``only_into_empty``: nothing
    is written unless the bank never held a question (re-checked under the write lock)."""
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
    new = [q for d in plan.of("new") if (q := d.record.question) is not None]  # (every new one has)
    links = [(d.target, ref) for d in plan.of("linked") if d.target is not None for ref in d.refs]

    def log(result: ImportResult) -> dict:
        return {"path": shown_path(plan.path), "sha256": plan.sha256, "format": plan.format,
                "source_name": plan.source_name, **_count(o for _, o, _, _ in _final(plan, result))}

    result = store.imports.add_new_questions(new, links=links, log=log, same_question=not plan.allow_duplicates,
                                             since=plan.since, near=None if plan.allow_duplicates else NEAR_DUPLICATE,
                                             only_into_empty=only_into_empty)
    for d, outcome, reason, target in _final(plan, result):
        d.outcome, d.reason, d.target = outcome, reason, target
    plan.corpus = result.corpus
    return len(result.written)
