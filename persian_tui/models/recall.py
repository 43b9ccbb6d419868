"""Recall probes' data and the rule that scores them (GhazalBench's, its calcRecallPersian.py).

A recall run asks a model for the second hemistich of each couplet of its questions, given a
cue (`first`: the poet and the first hemistich; `prose`: the poet and a prose paraphrase;
`words`: the first hemistich and the two rarest words of the second; `shuffled`: the first
hemistich and the second's words shuffled), either to write it (`complete`) or to pick it among
four (`choose`). One `Probe` per (run, question, option position)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from .vocabulary import ParseStatus

Cue = Literal["first", "prose", "words", "shuffled"]
CUES: tuple[Cue, ...] = get_args(Cue)
Format = Literal["complete", "choose"]
FORMATS: tuple[Format, ...] = get_args(Format)
RecallScore = Literal["complete", "partial", "none"]
RECALL_SCORES: tuple[RecallScore, ...] = get_args(RecallScore)
CHOOSE_CUES: tuple[Cue, ...] = ("first", "prose")  # the others give the answer away among choices
# The formats whose probes are evidence that a model remembers one couplet: it wrote the hemistich.
# A `choose` probe is right one time in four by guessing, so it says something about a run
# (recognition against chance, reports/memory.py), nothing about one couplet.
PRODUCTION: tuple[Format, ...] = ("complete",)

PARTIAL_CER = 0.2  # a character error rate at most this is partial recall
MAX_SCORED_CHARS = 4000  # a longer reply is scored on its head (it is `none` by length alone)


def complete_edits(gold_chars: int) -> int:
    """The edits a complete recall may have: 1 under 40 characters, 2 under 80, 3 beyond."""
    return 1 if gold_chars < 40 else 2 if gold_chars < 80 else 3


def score_recall(gold: str, reply: str) -> tuple[RecallScore, float]:
    """(score, character error rate) of a written hemistich against the gold one, both in
    GhazalBench's comparison form (text.recall_form): `complete` within complete_edits(len),
    else `partial` when distance / gold length <= 0.2, else `none`. An empty gold is `none`."""
    from rapidfuzz.distance import Levenshtein

    from ..text import recall_form

    g, r = recall_form(gold), recall_form(reply[:MAX_SCORED_CHARS])
    if not g:
        return "none", 1.0
    distance = Levenshtein.distance(g, r)
    cer = distance / len(g)
    if distance <= complete_edits(len(g)):
        return "complete", cer
    return ("partial" if cer <= PARTIAL_CER else "none"), cer


@dataclass
class Probe:
    """One probed couplet of a recall run (`position`: the option's position in its question)."""

    uid: str
    position: int
    gold: str  # the second hemistich asked for (the corpus's when linked)
    cue: str  # what the prompt gave besides the instructions
    status: ParseStatus
    poet: str | None = None  # None: unknown (an unlinked couplet)
    poem: str | None = None  # corpus poem path and couplet index when linked
    couplet: int | None = None
    choices: list[str] | None = None  # choose: the four second hemistichs, in the order shown
    answer: int | None = None  # choose: the true one's shown position
    predicted: int | None = None  # choose: the position picked
    reply: str | None = None
    score: str | None = None  # complete | partial | none (None: no usable reply)
    cer: float | None = None  # complete format only
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency: float | None = None
    cost: float | None = None
    error: str | None = None
    created_at: str | None = None

    @property
    def recalled(self) -> bool:
        """Complete or partial recall (a chosen true hemistich counts complete)."""
        return self.score in ("complete", "partial")
