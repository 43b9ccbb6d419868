"""Annotation's data: an annotator's label, an adjudication, a question's revision, the progress of
a labelling queue and its scope (`QueueScope.refusal`: which statuses a queue serves)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .limits import check_text, limit
from .vocabulary import QuestionStatus

CONFIDENCES = ("low", "medium", "high")
MAX_NOTE = limit("note")  # characters of a label's note (a short remark; the app, a browser or a file alike)


def check_note(note: str | None) -> str | None:
    """A label's note as stored: trimmed, None when empty; ValueError for one longer than
    MAX_NOTE or holding a control character (ESC, NUL, a line break, ...): none reaches the
    database (models/limits.py's rule for a note)."""
    note = (note or "").strip()
    check_text("note", note)
    return note or None

Changes = dict[str, list[Any]]  # a revision's changes: field -> [old, new]


@dataclass(frozen=True)
class Label:
    """An annotator's current (effective) label of a question."""

    uid: str
    annotator: str
    answer: int | None  # 1..4, None when skipped
    skipped: bool = False
    confidence: str | None = None
    flag: str | None = None  # reason the item is defective
    note: str | None = None
    seconds: float | None = None
    created_at: str | None = None


@dataclass(frozen=True)
class Adjudication:
    uid: str
    adjudicator: str
    decision: str  # accept | key | retire
    key: int | None
    reason: str | None
    created_at: str


@dataclass(frozen=True)
class Revision:
    uid: str
    author: str | None
    created_at: str
    changes: Changes


@dataclass(frozen=True)
class Progress:
    mine: int  # questions I have answered (skips not counted)
    queue_left: int  # questions still offered to me under the label target
    bank: int  # questions open for labelling (draft/ready/curated) in the queue's scope
    target: int
    skipped: int = 0  # questions I skipped
    complete: int = 0  # questions of the scope that have `target` answers (anyone's)
    flagged: int = 0  # questions I only flagged (a flag is not an answer)




LABELLED_STATUSES = ("draft", "ready", "curated")  # the statuses a labelling queue serves by default


@dataclass(frozen=True)
class QueueScope:
    """Which questions a labelling queue serves; empty fields do not restrict."""

    tag: str | None = None
    category: str | None = None
    source: str | None = None
    status: QuestionStatus | None = None  # draft | ready | curated (default: all three)
    uids: tuple[str, ...] = ()

    @property
    def statuses(self) -> tuple[str, ...]:
        """The question statuses this queue serves (retired questions never)."""
        return (self.status,) if self.status else LABELLED_STATUSES

    def refusal(self, uid: str, status: str) -> str | None:
        """Why a question of this status cannot be labelled in this queue (None: it can)."""
        if status in self.statuses:
            return None
        if status == "retired":
            return f"{uid} is retired: retired questions are not labelled"
        return f"{uid} is {status}: this labelling queue serves {' and '.join(self.statuses)} questions only"

    def describe(self) -> str:
        parts = [f"{k} {v}" for k, v in (("tag", self.tag), ("category", self.category),
                                         ("source", self.source), ("status", self.status)) if v]
        if self.uids:
            parts.append(f"{len(self.uids)} chosen question{'s' if len(self.uids) != 1 else ''}")
        return ", ".join(parts) or "the whole bank"
