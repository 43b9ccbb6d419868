"""Every message the TUI's screens, widgets and workers post (one place, so a handler's
name and a message's fields are found together). Workers post these; handlers on the
screens touch widgets (never a thread). Each is a dataclass (its fields typed, as Toolong's
messages are); Textual names the handler from the class: ``ReportReady`` -> ``on_report_ready``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

from ..models import accuracy

if TYPE_CHECKING:
    from ..models import CorpusCouplet, JudgmentRow, Prediction, Question, Run, SampleVote
    from ..reports.figures import Report
    from ..runs import RunProgress


# report
@dataclass
class ReportReady(Message):
    """A worker computed the report its screen asked for as ``generation``."""

    report: Report
    generation: int


# report
@dataclass
class ReportFailed(Message):
    """The report of ``generation`` could not be computed."""

    error: str
    generation: int


# report
@dataclass
class ReportExported(Message):
    """The report was written to the folder ``path`` (its ``files``), or why not."""

    path: str | None = None
    files: list[str] = field(default_factory=list)
    error: str | None = None


# release
@dataclass
class ReleasePreviewed(Message):
    """The datasheet the release screen's inputs of ``generation`` would write (``text``), or why
    they cannot be written (``error``); ``frozen``: the name holds this release already."""

    generation: int
    text: str = ""
    error: str | None = None
    frozen: bool = False


# release
@dataclass
class ReleaseStep(Message):
    """The release being written: ``what`` is being done, ``done`` of ``total`` steps."""

    what: str
    done: int
    total: int


# release
@dataclass
class ReleaseWritten(Message):
    """The release was written to ``folder`` (its ``files``; ``created``: frozen now), or why
    not (``error``, one line)."""

    folder: str = ""
    files: list[str] = field(default_factory=list)
    summary: str = ""
    created: bool = False
    error: str | None = None


# run_detail
@dataclass
class DetailLoaded(Message):
    """A worker read the run, its predictions and their questions (or an error)."""

    run: Run | None
    preds: list[Prediction]
    questions: dict[str, Question]
    version: tuple[int, int] | None  # the store's data_version() when read
    error: str | None = None
    # uid -> the vote of a run asked several times (preds: the majority's first)
    votes: dict[str, SampleVote] = field(default_factory=dict)
    # uid -> the judge's verdicts on its answers (every judge run of this run), review in force
    judged: dict[str, list[JudgmentRow]] = field(default_factory=dict)


# label
@dataclass
class LabelSaved(Message):
    """A label saved by the background worker (database was busy), or why it was not."""

    uid: str
    done: str
    error: str | None = None


# corpus
@dataclass
class SimilarFound(Message):
    """The corpus couplets most like ``source`` (score, couplet), found by ``how``."""

    found: list[tuple[float, CorpusCouplet]]
    source: str
    how: str = "TF-IDF"


@dataclass
class CandidatesProposed(Message):
    """The candidates screen's proposal ended: how many were made, or the one-line error; with
    prose embedded, its one-line summary."""

    made: int
    error: str | None = None
    prose: str | None = None


@dataclass(frozen=True)
class RunFigures:
    """A copy of a run's progress, safe to hand from the worker thread to the UI."""

    job: int
    run_id: int | None
    kind: str
    model: str
    total: int = 0
    done: int = 0
    correct: int = 0
    scored: int = 0
    invalid: int = 0
    errors: int = 0
    rate: float = 0.0
    eta: float | None = None
    status: str = "starting"
    message: str = ""

    @property
    def accuracy(self) -> float | None:
        return accuracy(self.correct, self.scored, self.done, self.errors)

    @classmethod
    def of(cls, job: int, kind: str, model: str, p: RunProgress) -> RunFigures:
        """The figures of job `job` (a run of `kind` by `model`) from the worker's progress."""
        return cls(job, p.run_id, kind, model, p.total, p.done, p.correct, p.scored,
                   p.invalid, p.errors, p.rate, p.eta, p.status, p.message)


# run_jobs
@dataclass
class RunProgressed(Message):
    """New figures of a job; a newer one of the same job supersedes it in the queue."""

    figures: RunFigures

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RunProgressed) and message.figures.job == self.figures.job


# run_jobs
@dataclass
class RunFailed(Message):
    """A job stopped on an error (the run could not start or go on)."""

    job: int
    run_id: int | None
    error: str


# taxonomy
@dataclass
class UsageCounted(Message):
    """A worker counted how many judgments or reviews use each error category (or failed)."""

    used: dict[str, int]
    generation: int
    error: str | None = None


# review
@dataclass
class KappaReady(Message):
    """A worker computed the review's judge-vs-human kappa line for ``generation``."""

    text: str
    generation: int
