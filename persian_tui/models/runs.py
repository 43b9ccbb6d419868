"""Runs' data: a run, its predictions and its summary, with the rules that score them: which
questions are scored (`scored_key`), a run's `accuracy`, and the majority vote over the samples of a
run asked each question several times (`sample_vote`, `SampleVote`: LLM samples, not annotators;
those are annotation/consensus.py)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .bank import QUESTION_SETS
from .vocabulary import ParseStatus, RunKind, RunStatus

# The one accuracy rule (runs list, run detail, report, judge form): a prediction is scored when its
# question has a key and is not retired; correct when it picked that key.
SCORED_STATUSES = QUESTION_SETS["all"]


def scored_key(key: int | None, status: str) -> int | None:
    """The key a prediction is scored against: None for a keyless or retired question."""
    return key if status in SCORED_STATUSES else None


@dataclass
class Run:
    id: int
    kind: RunKind
    model: str
    params: dict[str, Any]
    status: RunStatus
    total: int
    created_at: str
    finished_at: str | None = None
    prompt_template: str | None = None
    prompt_hash: str | None = None
    note: str | None = None
    reason: str | None = None  # why it ended failed/cancelled (secrets redacted)
    archived: bool = False  # hidden from lists and default reports
    # status running, but the process that held its lease is gone (killed) or the lease lapsed:
    # shown "interrupted", resumable
    interrupted: bool = False

    @property
    def shown_status(self) -> str:
        """The status as lists show it: `interrupted` for a running run whose process is gone."""
        return "interrupted" if self.interrupted else self.status

    @property
    def label(self) -> str:
        """The model, with what else tells runs of it apart in a list: samples per question
        ("×3") and the release it was run on ("@v1.0")."""
        k = int(self.params.get("samples") or 1)
        release = self.params.get("release")
        return self.model + (f" ×{k}" if k > 1 else "") + (f" @{release}" if release else "")


@dataclass
class Prediction:
    uid: str
    predicted: int | None  # original option 1..4 (after undoing a shuffle)
    parse_status: ParseStatus
    scores: list[float] | None = None
    raw_output: str | None = None
    reasoning: str | None = None
    permutation: list[int] | None = None
    prompt_hash: str | None = None
    exemplars: list[str] | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency: float | None = None
    cost: float | None = None
    error: str | None = None
    created_at: str | None = None
    sample: int = 0  # which of a run's K replies to the question (0 when asked once)

    @property
    def usable(self) -> int:
        """The chosen option 1..4, 0 when the reply is unusable (not ok, no answer)."""
        return (self.predicted or 0) if self.parse_status == "ok" and self.predicted in (1, 2, 3, 4) else 0


@dataclass(frozen=True)
class SampleVote:
    """The samples of one question in one run, voted: `answer` the majority's option (0 when no
    sample is usable; on a tie the option first given, which only picks the representative: a
    score uses `credit`, which never breaks a tie), `top` how many samples gave it,
    `asked` the samples that got a reply (API errors left out), `chosen` the representative
    sample (the majority's first; else the first that got a reply; else the first), `answers`
    every sample's usable answer in sample order (0 = unusable or failed)."""
    answer: int
    top: int
    asked: int
    chosen: Prediction
    answers: tuple[int, ...]

    @property
    def agreement(self) -> float | None:
        """Share of the replied samples that gave the majority's answer (None: no reply)."""
        return self.top / self.asked if self.asked else None

    @property
    def tied(self) -> tuple[int, ...]:
        """The options sharing the top count (2+ = a tied majority; empty: nothing usable)."""
        counts = Counter(a for a in self.answers if a)
        top = max(counts.values(), default=0)
        return tuple(sorted(o for o, c in counts.items() if c == top)) if top else ()

    def credit(self, key: int | None) -> Fraction:
        """The majority's score against `key`: 1 when the key alone is the most common answer,
        1/t when it is one of t tied options (the expected score of a random tie-break), else 0."""
        tied = self.tied
        return Fraction(1, len(tied)) if key in tied else Fraction(0)


def tally(answers: list[int], replied: list[bool]) -> tuple[int, int, int, int]:
    """The vote of one question's samples in sample order: (answer, top, asked, index of the
    chosen sample). answers: usable option or 0; replied: False for an API error."""
    counts: dict[int, int] = {}
    for a in answers:
        if a:
            counts[a] = counts.get(a, 0) + 1
    asked = sum(replied)
    if counts:
        answer = max(counts, key=counts.__getitem__)  # dict order: the first given wins a tie
        return answer, counts[answer], asked, answers.index(answer)
    return 0, 0, asked, replied.index(True) if asked else 0


def sample_vote(samples: list[Prediction]) -> SampleVote:
    """Majority vote over one question's samples (in any order; sorted by sample index)."""
    ordered = sorted(samples, key=lambda p: p.sample)
    answers = [p.usable for p in ordered]
    answer, top, asked, i = tally(answers, [p.parse_status != "api_error" for p in ordered])
    return SampleVote(answer, top, asked, ordered[i], tuple(answers))


@dataclass(frozen=True)
class RunSummary:
    run: Run
    done: int  # predictions stored
    correct: int  # predicted == current key
    scored: int  # predictions of questions that have a key and are not retired (scored_key)
    invalid: int  # invalid / empty / refusal / ambiguous
    errors: int  # api_error

    @property
    def accuracy(self) -> float | None:
        """correct / scored; None (shown "—") when nothing is scored or no answer came back."""
        return accuracy(self.correct, self.scored, self.done, self.errors)


def accuracy(correct: int | None, scored: int | None, done: int | None, errors: int | None) -> float | None:
    """A run's accuracy (an invalid answer or API error counts as wrong), or None when there is
    nothing to divide or every request failed: a run that got no answer has no accuracy."""
    if not scored or correct is None or (done and errors is not None and errors >= done):
        return None
    return correct / scored
