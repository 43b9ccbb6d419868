"""Meaning or memory: what the recall runs (runs/recall.py) say about the report's questions.

- Recall per run: of the probes that got a reply (API errors left out; an empty or unreadable
  reply is `none`), the share recalled completely, partially and not at all, each with a Wilson
  95 % interval (statsmodels), and `recalled` = complete + partial.
- Split per model: each recall run is joined to each outlier run of the same model name in the
  report, question by question. A question counts as *recalled* by the model when the recall run
  recalled (complete or partial) its outlier couplet, the key's option; questions whose outlier
  couplet has no usable probe are left out. Accuracy of the outlier run on the recalled questions
  and on the others, each with Wilson 95 %; the difference (recalled minus not) with Newcombe's
  hybrid score 95 % interval, and Fisher's exact two-sided test of the 2 x 2 table. This is an
  association: remembered couplets may also be the famous, easier ones; it is not a cause.
- Recognition against chance (`choose` runs): a pick is right one time in k by guessing (k the
  choices shown, four unless the corpus had fewer distractors), so each such run's share is also
  read against chance: the share above it, (p - c) / (1 - c) with c the mean chance (the correction
  for guessing), its Wilson bounds mapped the same way, and the exact one-sided p of the count under
  guessing alone (the Poisson-binomial distribution of the per-probe chances; the binomial one when
  every probe had four choices).
- Only production probes (models.recall.PRODUCTION: the model wrote the hemistich) make claims
  about one couplet: the split, the per-couplet rates, the flag and the memory cue; a single
  right pick among four is no evidence that a model remembers that couplet.
- Per couplet across models: a model recalls a couplet when any of its recall runs did; the rate
  is over the models with a usable probe of it.
- Answerable from memory (item analysis flag `from_memory`): the outlier couplet is recalled by
  more than half of the models that were probed on it (at least MIN_MODELS of them).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from .. import stats
from ..models import Prediction, Question, Run
from ..models.recall import PRODUCTION, Probe

MOST = 0.5  # from_memory: recalled by more than this share of the probed models
MIN_MODELS = 1


@dataclass
class RecallRun:
    run_id: int
    model: str
    cue: str
    format: str
    status: str
    probes: int  # with a reply (API errors left out)
    complete: int
    partial: int
    none: int
    rates: dict[str, float | None] = field(default_factory=dict)  # complete, partial, none, recalled
    low: dict[str, float | None] = field(default_factory=dict)  # Wilson 95 %
    high: dict[str, float | None] = field(default_factory=dict)
    # choose runs: chance, the share above it with its interval, the exact p under guessing alone
    chance: float | None = None
    above_chance: float | None = None
    above_low: float | None = None
    above_high: float | None = None
    p_chance: float | None = None


@dataclass
class MemorySplit:
    model: str
    recall_run: int
    outlier_run: int
    recalled: int  # questions whose outlier couplet the model recalled
    recalled_correct: int
    other: int
    other_correct: int
    recalled_accuracy: float | None = None
    recalled_low: float | None = None
    recalled_high: float | None = None
    other_accuracy: float | None = None
    other_low: float | None = None
    other_high: float | None = None
    difference: float | None = None  # recalled minus other
    diff_low: float | None = None  # Newcombe 95 %
    diff_high: float | None = None
    p_value: float | None = None  # Fisher's exact, two-sided


@dataclass
class CoupletRecall:
    uid: str
    position: int
    outlier: bool  # the question's key
    models: int  # models with a usable probe of it
    recalled: int  # ... that recalled it
    rate: float | None = None
    by: list[str] = field(default_factory=list)  # the models that recalled it


@dataclass
class Memory:
    runs: list[RecallRun]
    splits: list[MemorySplit]
    couplets: list[CoupletRecall]
    from_memory: dict[str, str] = field(default_factory=dict)  # uid -> evidence
    probes: dict[int, list[Probe]] = field(default_factory=dict, repr=False)  # recall run -> its probes (CSV)


def _rate(n: int, total: int) -> tuple[float | None, float | None, float | None]:
    w = stats.wilson(n, total)
    return (n / total if total else None, *(w or (None, None)))


def above_chance(right: int, total: int, choices: list[int]) -> tuple[float, float, float, float]:
    """(share above chance, its 95 % low, high, exact one-sided p) of `right` picks in `total`
    probes whose choices numbered `choices` (one count per probe): the correction for guessing
    (p - c) / (1 - c) with c the mean of 1/k, Wilson bounds mapped alike, and P(S >= right) for S
    the sum of independent Bernoulli(1/k) (Poisson-binomial, by exact convolution)."""
    chance = float(np.mean([1 / k for k in choices]))
    low, high = stats.wilson(right, total) or (0.0, 1.0)
    def lift(p: float) -> float:
        return (p - chance) / (1 - chance)
    dist = np.ones(1)
    for k in choices:
        dist = np.convolve(dist, [1 - 1 / k, 1 / k])
    return lift(right / total), lift(low), lift(high), float(min(1.0, dist[right:].sum()))


def recall_runs(runs: list[Run], rows: list[tuple[int, str, str, int, str | None]],
                choices: dict[int, list[int]] | None = None) -> list[RecallRun]:
    counts: dict[int, dict[str | None, int]] = defaultdict(lambda: defaultdict(int))
    for run_id, _, _, _, score in rows:
        counts[run_id][score or "none"] += 1
    out = []
    for r in runs:
        c = counts.get(r.id)
        if not c:
            continue
        total = sum(c.values())
        row = RecallRun(r.id, r.model, str(r.params.get("cue")), str(r.params.get("format")), r.status, total,
                        c["complete"], c["partial"], c["none"])
        for name, n in (("complete", row.complete), ("partial", row.partial), ("none", row.none),
                        ("recalled", row.complete + row.partial)):
            row.rates[name], row.low[name], row.high[name] = _rate(n, total)
        shown = (choices or {}).get(r.id)
        if row.format == "choose" and shown and len(shown) == total and min(shown) > 1:
            row.chance = float(np.mean([1 / k for k in shown]))
            row.above_chance, row.above_low, row.above_high, row.p_chance = above_chance(row.complete, total, shown)
        out.append(row)
    return out


def memory_splits(keyed: list[Question], recall: list[Run], outlier: list[Run],
                  preds: dict[int, dict[str, Prediction]],
                  rows: list[tuple[int, str, str, int, str | None]]) -> list[MemorySplit]:
    recalled: dict[int, dict[tuple[str, int], bool]] = defaultdict(dict)
    for run_id, _, uid, position, score in rows:
        recalled[run_id][(uid, position)] = score in ("complete", "partial")
    out = []
    for rr in recall:
        mine = recalled.get(rr.id)
        if not mine:
            continue
        for o in outlier:
            if o.model != rr.model or o.id not in preds:
                continue
            answers = preds[o.id]
            cells = [[0, 0], [0, 0]]  # [recalled, other] x [right, wrong]
            for q in keyed:
                p = answers.get(q.uid)
                hit = mine.get((q.uid, q.key or 0))
                if p is None or hit is None:
                    continue
                cells[0 if hit else 1][0 if p.usable == q.key else 1] += 1
            (a, b), (c, d) = cells
            if a + b + c + d == 0:
                continue
            s = MemorySplit(rr.model, rr.id, o.id, a + b, a, c + d, c)
            s.recalled_accuracy, s.recalled_low, s.recalled_high = _rate(a, a + b)
            s.other_accuracy, s.other_low, s.other_high = _rate(c, c + d)
            if a + b and c + d:
                s.difference = a / (a + b) - c / (c + d)
                s.diff_low, s.diff_high = stats.newcombe_difference(a, a + b, c, c + d) or (None, None)
            s.p_value = stats.fisher_exact(a, b, c, d)
            out.append(s)
    return out


def couplet_recall(keyed: list[Question], rows: list[tuple[int, str, str, int, str | None]]) -> list[CoupletRecall]:
    by_model: dict[tuple[str, int], dict[str, bool]] = defaultdict(dict)
    for _, model, uid, position, score in rows:
        seen = by_model[(uid, position)]
        seen[model] = seen.get(model, False) or score in ("complete", "partial")
    keys = {q.uid: q.key for q in keyed}
    out = []
    for (uid, position), models in sorted(by_model.items()):
        hits = sorted(m for m, ok in models.items() if ok)
        out.append(CoupletRecall(uid, position, keys.get(uid) == position, len(models), len(hits),
                                 len(hits) / len(models), hits))
    return out


def from_memory(couplets: list[CoupletRecall]) -> dict[str, str]:
    """uid -> evidence of the questions whose outlier couplet most probed models recall."""
    return {c.uid: f"its outlier couplet (option {c.position}) is recalled by {c.recalled} of {c.models} "
                   "probed models" for c in couplets
            if c.outlier and c.models >= MIN_MODELS and c.recalled > MOST * c.models}


def build_memory(runs: list[Run], keyed: list[Question], outlier: list[Run],
                 preds: dict[int, dict[str, Prediction]],
                 rows: list[tuple[int, str, str, int, str | None]],
                 choices: dict[int, list[int]] | None = None) -> Memory | None:
    """The memory section from the recall runs `runs` (not archived), their probes `rows`
    (store.probes.recall_rows) and the choices each `choose` probe showed
    (store.probes.choice_counts); None when no recall run has a usable probe. Per-couplet figures
    come from production probes only (PRODUCTION)."""
    recall = [r for r in runs if r.kind == "recall" and not r.archived]
    per_run = recall_runs(recall, rows, choices)
    if not per_run:
        return None
    production = [r for r in recall if r.params.get("format") in PRODUCTION]
    ids = {r.id for r in production}
    written = [row for row in rows if row[0] in ids]
    couplets = couplet_recall(keyed, written)
    return Memory(per_run, memory_splits(keyed, production, outlier, preds, written), couplets,
                  from_memory(couplets))


def memory_rates(rows: list[tuple[int, str, str, int, str | None]]) -> dict[str, dict[int, float]]:
    """uid -> position -> the share of probed models recalling the couplet (shortcut diagnostics),
    from `rows` of production probes (store.probes.recall_rows(formats=PRODUCTION))."""
    return _rates(couplet_recall([], rows))


def _rates(couplets: list[CoupletRecall]) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = defaultdict(dict)
    for c in couplets:
        if c.rate is not None:
            out[c.uid][c.position] = c.rate
    return dict(out)


@dataclass
class ModelRecall:
    """One model's recall of a set of couplets (a release's): a couplet counts once per model,
    recalled when any of the model's recall runs recalled it (complete before partial)."""

    model: str
    probed: int
    complete: int
    partial: int
    recalled_low: float | None = None  # Wilson 95 % of (complete + partial) / probed
    recalled_high: float | None = None

    @property
    def recalled(self) -> float | None:
        return (self.complete + self.partial) / self.probed if self.probed else None


def model_recall(rows: list[tuple[int, str, str, int, str | None]]) -> list[ModelRecall]:
    best: dict[str, dict[tuple[str, int], int]] = defaultdict(dict)  # 2 complete, 1 partial, 0 none
    for _, model, uid, position, score in rows:
        rank = {"complete": 2, "partial": 1}.get(score or "", 0)
        seen = best[model]
        seen[(uid, position)] = max(seen.get((uid, position), 0), rank)
    out = []
    for model, couplets in sorted(best.items()):
        ranks = list(couplets.values())
        m = ModelRecall(model, len(ranks), ranks.count(2), ranks.count(1))
        m.recalled_low, m.recalled_high = stats.wilson(m.complete + m.partial, m.probed) or (None, None)
        out.append(m)
    return out
