"""Export questions as JSONL (schema in bank/jsonl.py): deterministic bytes, atomic write."""

from __future__ import annotations

from pathlib import Path

from ..bank import jsonl
from ..files.inputs import InputError
from ..models import STATUSES
from ..store import Store


def status_filter(status: str) -> list[str] | None:
    """'all' -> every status; 'ready' -> ready and curated; 'curated' -> curated only."""
    if status == "all":
        return None
    if status == "ready":
        return ["ready", "curated"]
    if status in STATUSES:
        return [status]
    raise InputError(f"unknown status {status!r}; choose all, {', '.join(STATUSES)}")


def export_jsonl(store: Store, path: str | Path, *, status: str = "all",
                 category: str | None = None, with_labels: bool = False,
                 anonymize: bool = False) -> int:
    """Write the questions; `with_labels` adds labels, agreement, adjudication and revision
    count per question (annotators renamed A1, A2, ... with `anonymize`)."""
    questions = store.questions.questions(statuses=status_filter(status), category=category)
    links = store.links.links([q.uid for q in questions])
    if not with_labels:
        return jsonl.write_atomic(path, (jsonl.dumps(q, links.get(q.uid)) for q in questions))
    from ..annotation.consensus import item_votes

    names = {n: (f"A{i}" if anonymize else n) for i, n in enumerate(store.labels.annotators(), 1)}
    votes = {v.uid: v for v in item_votes(store, questions)}
    decisions = {a.uid: a for a in store.curation.adjudications()}  # the last decision per question wins
    revisions = store.curation.revision_counts()

    def line(q):
        record = jsonl.to_record(q, links.get(q.uid))
        v = votes[q.uid]
        record["labels"] = [
            {"annotator": names[l.annotator], "answer": l.answer, "skipped": l.skipped,
             "confidence": l.confidence, "flag": l.flag, "note": l.note, "created_at": l.created_at}
            for l in v.labels]
        record["agreement"] = {"votes": len(v.votes), "majority": v.majority,
                               "agrees_with_key": v.agrees_with_key, "unanimous": v.unanimous}
        a = decisions.get(q.uid)
        record["adjudication"] = None if a is None else {
            "adjudicator": names.get(a.adjudicator, a.adjudicator) if anonymize else a.adjudicator,
            "decision": a.decision, "key": a.key, "reason": a.reason, "created_at": a.created_at}
        record["revision"] = revisions.get(q.uid, 0)
        return jsonl.line(record)

    return jsonl.write_atomic(path, (line(q) for q in questions))
