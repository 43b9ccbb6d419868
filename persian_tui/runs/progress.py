"""A run's progress figures and the questions a run asks.

`RunProgress` counts (question, sample) pairs as their predictions are stored; the CLI prints it
and the TUI posts a frozen copy of it. `select_questions` turns a question set (see
`models.QUESTION_SETS`) or a release into the questions a new run fixes in its parameters."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass, field

from ..models import QUESTION_SETS, Prediction, Question, Run, accuracy
from ..store import Store


class RunError(Exception):
    """A run that cannot start or go on (bad spec, unknown run); the message is for the user."""


@dataclass
class RunProgress:
    run_id: int
    total: int
    done: int = 0
    correct: int = 0
    scored: int = 0  # done predictions of questions with a key
    invalid: int = 0
    errors: int = 0
    started: float = field(default_factory=time.monotonic)
    new: int = 0  # predictions made in this session (for the rate)
    answered_new: int = 0  # of those, replies that are not API errors (real progress)
    status: str = "running"
    message: str = ""
    reason: str | None = None  # why it ended failed

    @property
    def accuracy(self) -> float | None:
        return accuracy(self.correct, self.scored, self.done, self.errors)

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.new / elapsed if elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at this session's rate; None until a reply came back in this session
        (API errors are no progress: an endpoint that refuses gets no made-up ETA)."""
        left = self.total - self.done
        return left / self.rate if self.answered_new and self.rate > 0 else None

    def count(self, p: Prediction, key: int | None) -> None:
        self.done += 1
        self.new += 1
        if p.parse_status == "api_error":
            self.errors += 1
        elif p.parse_status != "ok":
            self.invalid += 1
        self.answered_new += p.parse_status != "api_error"
        if key is not None:
            self.scored += 1
            self.correct += p.predicted == key


Callback = Callable[[RunProgress], None]


def select_questions(store: Store, which: str, limit: int | None = None,
                     release: str | None = None, anchors: list[str] | None = None) -> list[Question]:
    """The questions of a set (ready | curated | all), or exactly those of a release (in its
    order; a question no longer in the bank is an error); with `anchors`, only those of them
    (reports/anchors.py; an anchor not in the set is an error)."""
    if release is not None:
        uids = store.releases.release_uids(release)
        if uids is None:
            raise RunError(f"no release {release!r} (see persian-tui release --list)")
        by_uid = store.questions.questions_for_uids(uids)
        gone = [u for u in uids if u not in by_uid]
        if gone:
            raise RunError(f"release {release!r}: {len(gone)} question(s) are no longer in the bank, "
                           f"e.g. {gone[0]}")
        questions = [by_uid[u] for u in uids]
    else:
        if which not in QUESTION_SETS:
            raise RunError(f"unknown question set {which!r}; choose {', '.join(QUESTION_SETS)}")
        questions = [q for q in store.questions.questions(statuses=QUESTION_SETS[which])]
    if anchors is not None:
        wanted = set(anchors)
        questions = [q for q in questions if q.uid in wanted]
        if missing := wanted - {q.uid for q in questions}:
            raise RunError(f"{len(missing)} anchor question(s) are not in the set, e.g. {sorted(missing)[0]}")
    return questions[:limit] if limit else questions


def stored_progress(store: Store, run: Run, uids: list[str], samples: int = 1,
                    skip: Set[tuple[str, int]] = frozenset(),
                    questions: Mapping[str, Question] | None = None) -> RunProgress:
    """Progress over (question, sample) pairs: every stored reply counts once, but those of
    `skip` (the pairs about to be asked again: a retry counts them afresh). `questions`: the
    run's, by uid, when the caller has read them (else only their keys are read here)."""
    progress = RunProgress(run.id, len(uids) * samples)
    keys = {u: q.key for u, q in questions.items()} if questions else store.questions.keys()
    wanted = set(uids)
    for p in store.runs.predictions(run.id, samples=True):
        if p.uid in wanted and p.sample < samples and (p.uid, p.sample) not in skip:
            progress.count(p, keys.get(p.uid))
            if p.parse_status != "ok":  # the last failure stays quotable in the run's reason
                progress.message = f"{p.uid}: {p.error or p.parse_status}"[:200]
    progress.new = progress.answered_new = 0
    return progress
