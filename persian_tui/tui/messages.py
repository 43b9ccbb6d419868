"""Every message the TUI's screens, widgets and workers post (one place, so a handler's
name and a message's fields are found together). Workers post these; handlers on the
screens touch widgets (never a thread)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from ..models import accuracy

if TYPE_CHECKING:
    from ..models import CorpusCouplet, Prediction, Question, Run
    from ..runs import RunProgress


# report
class ReportReady(Message):
    def __init__(self, report, generation: int) -> None:
        super().__init__()
        self.report = report
        self.generation = generation


# report
class ReportFailed(Message):
    def __init__(self, error: str, generation: int) -> None:
        super().__init__()
        self.error = error
        self.generation = generation


# report
class ReportExported(Message):
    def __init__(self, path: str | None = None, files: list[str] | None = None,
                 error: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.files = files or []
        self.error = error


# run_detail
class DetailLoaded(Message):
    """A worker read the run, its predictions and their questions (or an error)."""

    def __init__(self, run: Run | None, preds: list[Prediction], questions: dict[str, Question],
                 version: tuple | None, error: str | None = None, votes: dict | None = None) -> None:
        super().__init__()
        self.run, self.preds, self.questions = run, preds, questions
        self.version, self.error = version, error
        self.votes = votes or {}  # uid -> models.SampleVote of a run asked several times (preds: the majority's first)


# label
class LabelSaved(Message):
    """A label saved by the background worker (database was busy), or why it was not."""

    def __init__(self, uid: str, done: str, error: str | None = None) -> None:
        super().__init__()
        self.uid = uid
        self.done = done
        self.error = error


# corpus
class SimilarFound(Message):
    def __init__(self, found: list[tuple[float, CorpusCouplet]], source: str, how: str = "TF-IDF") -> None:
        super().__init__()
        self.found, self.source, self.how = found, source, how


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
class RunProgressed(Message):
    """New figures of a job; a newer one of the same job supersedes it in the queue."""

    def __init__(self, figures: RunFigures) -> None:
        super().__init__()
        self.figures = figures

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RunProgressed) and message.figures.job == self.figures.job


# run_jobs
class RunFailed(Message):
    """A job stopped on an error (the run could not start or go on)."""

    def __init__(self, job: int, run_id: int | None, error: str) -> None:
        super().__init__()
        self.job = job
        self.run_id = run_id
        self.error = error



# taxonomy
class UsageCounted(Message):
    """A worker counted how many judgments or reviews use each error category (or failed)."""

    def __init__(self, used: dict[str, int], generation: int, error: str | None = None) -> None:
        super().__init__()
        self.used, self.generation, self.error = used, generation, error
