"""Anchor questions: the few questions a new run is asked (`run llm --anchors N`) so that its
whole-set accuracy can be estimated on the common scale (reports/scale.py; docs/methods.md,
"Anchor questions"). Chosen from the model fitted on the report's runs: the N questions with
the most Fisher information summed over the runs' abilities (deterministic, ties by uid)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..store import Store
from . import scale
from .selection import ReportError, report_inputs


@dataclass(frozen=True)
class Anchor:
    uid: str
    difficulty: float  # logits
    discrimination: float
    information: float  # summed over the runs' abilities
    answered: int  # runs that answered it


@dataclass(frozen=True)
class AnchorChoice:
    anchors: list[Anchor]
    model: str  # rasch | 2pl
    runs: int
    keyed: int
    span: tuple[float, float]  # the runs' abilities, lowest and highest (logits)


def choose_anchors(store: Store, n: int, questions: str = "all", run_ids: list[int] | None = None) -> AnchorChoice:
    """The n anchors of the question set, from the runs of the report (default: every finished
    run). ReportError when there is nothing to fit or fewer keyed questions than n."""
    if n < 1:
        raise ReportError("--n must be at least 1")
    inp, _ = report_inputs(store, run_ids, questions)
    if not inp.runs or not inp.asked.any():
        raise ReportError("no run has answered a keyed question: anchors are chosen from runs' answers")
    if n > len(inp.keyed):
        raise ReportError(f"--n {n} but the set {questions!r} has {len(inp.keyed)} keyed question(s)")
    fitted = scale.fit(inp.credit, inp.asked)
    uids = [q.uid for q in inp.keyed]
    chosen = scale.anchors(fitted, uids, n)
    info = scale.information(fitted, fitted.ability).sum(axis=0)
    col = {u: j for j, u in enumerate(uids)}
    answered = inp.asked.sum(axis=0)
    rows = [Anchor(u, float(fitted.difficulty[col[u]]), float(fitted.discrimination[col[u]]),
                   float(info[col[u]]), int(answered[col[u]])) for u in chosen]
    return AnchorChoice(rows, fitted.model, len(inp.runs), len(inp.keyed),
                        (float(np.min(fitted.ability)), float(np.max(fitted.ability))))
