"""A report's inputs: which runs take part (the default leaves out unfinished, archived and
broken ones, and says why), their answers (a run asked K times by its majority vote), the keyed
questions of the set, those every run answered, and the answer matrix. The report and the item
analysis are both computed from these (reports/figures.py, reports/items.py).

A tied majority (a run asked K times whose most common answers tie) has no single answer: scores
give it the credit 1/t when the key is one of the t tied options (models.SampleVote.credit, the
expected score of a random tie-break), never the option first given; analyses that need one
answer per question (pair tests, position, confusion, agreement, item analysis) leave it out."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
import numpy.typing as npt

from ..models import QUESTION_SETS, Prediction, Question, Run, SampleVote
from ..store import Store
from .ranking import rank_runs

NO_ANSWERS = ("paraphrase", "judge", "recall")  # run kinds that answer no question themselves
ABSTAINS = ("baseline",)  # run kinds whose empty answers are abstentions by design (shortcut cues)
BROKEN = 0.5  # a run whose share of unusable answers exceeds this is left out by default


class ReportError(ValueError):
    """A report that cannot be built as asked (unknown run, bad option); message for the user."""


def _select_runs(store: Store, run_ids: list[int] | None) -> tuple[list[Run], bool]:
    runs = {r.id: r for r in store.runs.runs(archived=True)}
    if run_ids is None:
        return [r for r in runs.values() if r.status == "done" and r.kind not in NO_ANSWERS
                and not r.archived], False
    missing = sorted({i for i in run_ids if i not in runs})
    if missing:
        raise ReportError(f"no run {', '.join(map(str, missing))}")
    return [runs[i] for i in sorted(set(run_ids))], True


def _usable(p: Prediction) -> int:
    """The chosen option 1..4 of a prediction, 0 when it is unusable (not ok, no answer)."""
    return p.usable


def _broken(preds: dict[str, Prediction]) -> str | None:
    bad = sum(not _usable(p) for p in preds.values())
    if preds and bad > BROKEN * len(preds):
        return f"broken: {bad} of {len(preds)} answers unusable"
    return None


@dataclass
class Inputs:
    """What every section is computed from: runs, the shared questions and the answer matrix."""
    runs: list[Run]  # in input order
    preds: dict[int, dict[str, Prediction]]
    keyed: list[Question]  # the set's questions with a key
    shared: list[Question]  # keyed questions every run answered
    key: npt.NDArray[np.int8]  # (Q,) keys of the shared questions
    chosen: npt.NDArray[np.int8]  # (R, Q) chosen option, 0 = invalid / no answer
    right: npt.NDArray[np.bool_]  # (R, Q)
    order: list[int]  # run indices in leaderboard order (reports/ranking.rank_runs)
    overall: list[tuple[Fraction, int]]  # per run: (credit, answered) on all keyed questions it answered
    votes: dict[int, list[SampleVote]]  # run id -> its votes, for runs asked K > 1 times
    answers: npt.NDArray[np.int8]  # (R, keyed) chosen option, 0 = unusable, -1 = not answered
    credit: npt.NDArray[np.float64]  # (R, keyed) score: 1 right, 1/t a tie with the key among t, else 0
    tied: npt.NDArray[np.bool_]  # (R, keyed): a tied majority (no single answer)

    @property
    def asked(self) -> npt.NDArray[np.bool_]:
        """(R, keyed) bool: the run answered the keyed question."""
        return self.answers >= 0

    @property
    def right_all(self) -> npt.NDArray[np.bool_]:
        """(R, keyed) bool: the run answered the keyed question right."""
        keys = np.array([q.key for q in self.keyed], dtype=np.int8)
        return self.answers == keys[None, :]

    @property
    def single(self) -> npt.NDArray[np.bool_]:
        """(R, keyed) bool: the run answered the keyed question with one answer (not a tie)."""
        return self.asked & ~self.tied

    @cached_property
    def shared_columns(self) -> npt.NDArray[np.int64]:
        """Indices of the shared questions among the keyed ones."""
        shared = {q.uid for q in self.shared}
        return np.array([j for j, q in enumerate(self.keyed) if q.uid in shared], dtype=np.int64)

    @cached_property
    def credit_shared(self) -> npt.NDArray[np.float64]:
        """(R, Q) credit on the shared questions."""
        return self.credit[:, self.shared_columns]

    @cached_property
    def tied_shared(self) -> npt.NDArray[np.bool_]:
        """(R, Q) bool: a tied majority on a shared question."""
        return self.tied[:, self.shared_columns]

    def tied_uids(self) -> dict[int, set[str]]:
        """run id -> uids of the keyed questions where its majority is tied."""
        return {r.id: {q.uid for q, t in zip(self.keyed, self.tied[i]) if t} for i, r in enumerate(self.runs)}


def report_inputs(store: Store, run_ids: list[int] | None, questions: str) -> tuple[Inputs, dict[int, str]]:
    """The inputs of a report and the runs the default selection left out (run -> why)."""
    runs, explicit = _select_runs(store, run_ids)
    left_out: dict[int, str] = {} if explicit else {
        r.id: "archived" if r.archived else r.status for r in store.runs.runs(archived=True)
        if r.kind not in NO_ANSWERS and r not in runs and (r.archived or r.status != "done")}
    preds: dict[int, dict[str, Prediction]] = {}
    votes: dict[int, list[SampleVote]] = {}
    for r in runs:  # one read per run: a run asked K times is voted (its majority's first)
        firsts, voted = store.runs.voted_predictions(r.id)
        preds[r.id] = {p.uid: p for p in firsts}
        if voted is not None:
            votes[r.id] = voted
    if not explicit:
        runs = [r for r in runs if preds[r.id]]
        for r in runs:
            if r.kind not in ABSTAINS and (why := _broken(preds[r.id])):
                left_out[r.id] = why
        runs = [r for r in runs if r.id not in left_out]
    elif empty := [r.id for r in runs if not preds[r.id]]:
        raise ReportError(f"run {', '.join(map(str, empty))} has no predictions")
    keyed = [q for q in store.questions.questions(statuses=QUESTION_SETS[questions]) if q.key is not None]
    shared = [q for q in keyed if all(q.uid in preds[r.id] for r in runs)] if runs else []
    answers = np.full((len(runs), len(keyed)), -1, dtype=np.int8)
    for i, r in enumerate(runs):
        mine = preds[r.id]
        answers[i] = [_usable(mine[q.uid]) if q.uid in mine else -1 for q in keyed]
    keys = np.array([q.key for q in keyed], dtype=np.int8)
    credit = (answers == keys[None, :]).astype(np.float64)
    tied = np.zeros(answers.shape, dtype=bool)
    tie_credit = [Fraction(0)] * len(runs)  # exact, so that equal accuracies rank as equal
    col = {q.uid: j for j, q in enumerate(keyed)}
    for i, r in enumerate(runs):
        for v in votes.get(r.id, ()):
            j = col.get(v.chosen.uid)
            if j is not None and len(v.tied) > 1:
                c = v.credit(int(keys[j]))
                tied[i, j], credit[i, j] = True, float(c)
                tie_credit[i] += c
    overall = [(int(((row == keys) & ~t).sum()) + c, int((row >= 0).sum()))
               for row, t, c in zip(answers, tied, tie_credit)]
    key = np.array([q.key for q in shared], dtype=np.int8)
    chosen = np.zeros((len(runs), len(shared)), dtype=np.int8)
    for i, r in enumerate(runs):
        mine = preds[r.id]
        chosen[i] = [_usable(mine[q.uid]) for q in shared]
    right = chosen == key[None, :]
    # the one ranking rule: accuracy on everything each run answered, ties by run id
    index = {r.id: i for i, r in enumerate(runs)}
    order = [index[x.run_id] for x in rank_runs([r.id for r in runs], [c for c, _ in overall],
                                                  [n for _, n in overall])]
    return Inputs(runs, preds, keyed, shared, key, chosen, right, order, overall,
                  {r.id: votes[r.id] for r in runs if r.id in votes}, answers, credit, tied), left_out


