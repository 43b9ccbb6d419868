"""A report's inputs: which runs take part (the default leaves out unfinished, archived and
broken ones, and says why), their answers (a run asked K times by its majority vote), the keyed
questions of the set, those every run answered, and the answer matrix. The report and the item
analysis are both computed from these (eval/report.py, eval/items.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..models import QUESTION_SETS, Prediction, Question
from ..store import Store

NO_ANSWERS = ("paraphrase", "judge")  # run kinds that answer no question themselves
ABSTAINS = ("baseline",)  # run kinds whose empty answers are abstentions by design (shortcut cues)
BROKEN = 0.5  # a run whose share of unusable answers exceeds this is left out by default


class ReportError(ValueError):
    """A report that cannot be built as asked (unknown run, bad option); message for the user."""


def _select_runs(store: Store, run_ids: list[int] | None):
    runs = {r.id: r for r in store.runs(archived=True)}
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
    runs: list  # Run rows in input order
    preds: dict[int, dict[str, Prediction]]
    keyed: list[Question]  # the set's questions with a key
    shared: list[Question]  # keyed questions every run answered
    key: np.ndarray  # (Q,) keys of the shared questions
    chosen: np.ndarray  # (R, Q) chosen option, 0 = invalid / no answer
    right: np.ndarray  # (R, Q) bool
    order: list[int]  # run indices in leaderboard order
    overall: list[tuple[int, int]]  # per run: (correct, answered) on all keyed questions it answered
    votes: dict = field(default_factory=dict)  # run id -> [models.Vote] for runs asked K > 1 times


def report_inputs(store: Store, run_ids: list[int] | None, questions: str) -> tuple[Inputs, dict]:
    """The inputs of a report and the runs the default selection left out (run -> why)."""
    runs, explicit = _select_runs(store, run_ids)
    left_out = {} if explicit else {
        r.id: "archived" if r.archived else r.status for r in store.runs(archived=True)
        if r.kind not in NO_ANSWERS and r not in runs and (r.archived or r.status != "done")}
    preds: dict[int, dict[str, Prediction]] = {}
    votes: dict[int, list] = {}
    for r in runs:  # one read per run: a run asked K times is voted (its majority's first)
        chosen, voted = store.voted_predictions(r.id)
        preds[r.id] = {p.uid: p for p in chosen}
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
    keyed = [q for q in store.questions(statuses=QUESTION_SETS[questions]) if q.key is not None]
    shared = [q for q in keyed if all(q.uid in preds[r.id] for r in runs)] if runs else []
    overall = []
    for r in runs:
        mine = [(q.key, preds[r.id][q.uid]) for q in keyed if q.uid in preds[r.id]]
        overall.append((sum(_usable(p) == k for k, p in mine), len(mine)))
    key = np.array([q.key for q in shared], dtype=np.int8)
    chosen = np.zeros((len(runs), len(shared)), dtype=np.int8)
    for i, r in enumerate(runs):
        mine = preds[r.id]
        chosen[i] = [_usable(mine[q.uid]) for q in shared]
    right = chosen == key[None, :]
    correct = right.sum(axis=1)
    # the honest order: accuracy on everything each run answered, then on the shared questions
    acc = [c / n if n else 0.0 for c, n in overall]
    order = sorted(range(len(runs)), key=lambda i: (-acc[i], -int(correct[i]), runs[i].id))
    return Inputs(runs, preds, keyed, shared, key, chosen, right, order, overall,
                  {r.id: votes[r.id] for r in runs if r.id in votes}), left_out


