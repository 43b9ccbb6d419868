"""Judging's data: an error category of the taxonomy, a judge's verdict with the human review in
force, and a key problem flagged in review."""

from __future__ import annotations

from dataclasses import dataclass

from .vocabulary import JudgmentStatus


@dataclass(frozen=True)
class ErrorCategory:
    name: str
    label_fa: str
    label_en: str
    description_fa: str = ""
    description_en: str = ""
    example: str = ""


@dataclass
class JudgmentRow:
    """A judge's verdict on one prediction, with the human review in force (if any)."""

    id: int
    run_id: int  # the judge run
    target_run: int  # the judged run
    uid: str
    model: str  # the judged model
    status: JudgmentStatus
    verdict: str | None
    error_category: str | None
    rationale: str | None
    raw_reply: str | None = None
    error: str | None = None
    review_verdict: str | None = None  # after the latest review (accept copies the judge's)
    review_category: str | None = None
    reviewer: str | None = None
    review_note: str | None = None
    flagged: bool = False
    sample: int = 0  # which of the judged run's samples was judged
    flag_note: str | None = None  # why it was flagged as a key problem

    @property
    def reviewed(self) -> bool:
        return self.reviewer is not None


@dataclass(frozen=True)
class ReviewFlag:
    """A key problem flagged in judge review (in force), with the judgment it was about:
    what adjudication shows beside the votes."""

    reviewer: str
    note: str | None
    model: str  # the judged model
    predicted: int | None  # its answer
    verdict: str | None  # the judge's
    error_category: str | None
    rationale: str | None
    judge_model: str
    judge_run: int
