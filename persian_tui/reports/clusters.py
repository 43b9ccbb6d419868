"""Clustered standard errors of each run's accuracy (docs/methods.md, "Clustered standard errors").

Questions built from the same poem, the same poet or the same source are not independent
draws: a model that knows a poem gets all its questions right. Per run, on the questions it is
ranked on (every keyed question it answered), the standard error of its accuracy clustered by
a UNIT (cluster-robust sandwich, stats.clustered_se, equal to statsmodels' OLS
cov_type="cluster"; Cameron & Miller 2015), beside the unclustered one (each question its own
cluster) and the design effect (SE_clustered / SE_unclustered)^2 (Kish 1965).

Units: `poem` and `poet` of the KEY couplet's corpus link (persian-tui corpus link; a question
whose key is not linked is a cluster of its own), and `source`: the source page (the page of the
book the question was set on, `Question.source_page`, which the book importer stores; questions
set on one page share their making), else the source name. With no
corpus link in the bank the poem and poet rows are left out (unclustered only).

A design effect is an estimate with noise of its own: beside it, the 95 % range it takes when the
unit labels are shuffled over the run's questions (no clustering, the same cluster sizes; seeded
permutations), and its permutation p-value (the share of shuffles giving a design effect at least
as large, (1 + count) / (1 + permutations); Phipson & Smyth 2010). The report reads one design
effect per run, so the p-values are Holm-corrected over the runs (per unit): "above noise" only
where the Holm p < 0.05, so that one run of thirty above its range, about what chance gives,
is not read as clustering."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .. import stats
from ..models import Question

UNITS = ("poem", "poet", "source")


@dataclass
class ClusterRow:
    run_id: int
    unit: str  # poem | poet | source
    questions: int  # the run's answered keyed questions
    clusters: int  # distinct units among them
    se: float | None  # clustered SE of the accuracy (None: fewer than 2 clusters)
    se_unclustered: float | None
    design_effect: float | None  # (se / se_unclustered)^2
    null_low: float | None = None  # 95 % range of the design effect with the labels shuffled
    null_high: float | None = None
    p: float | None = None  # permutation p-value: a design effect this large without clustering
    p_holm: float | None = None  # Holm over the report's runs, per unit

    @property
    def reading(self) -> str:
        """"above noise" / "within noise" / "below noise" / "" (undefined): above by the Holm-corrected
        permutation p when there is one, else against the shuffled-label range."""
        if self.design_effect is None or self.null_high is None or self.null_low is None:
            return ""
        if self.design_effect > self.null_high if self.p_holm is None else self.p_holm < 0.05:
            return "above noise"
        return "below noise" if self.design_effect < self.null_low else "within noise"


def _source(q: Question) -> str:
    """The question's source page (a book's page: questions set together), else its source."""
    name = q.source_name or "(none)"
    return name if q.source_page is None else f"{name} p{q.source_page}"


def question_units(questions: list[Question], links: dict) -> dict[str, list[str]]:
    """unit -> one cluster label per question; poem and poet only when some key is linked."""
    out = {"source": [_source(q) for q in questions]}
    keyed_links = [links.get(q.uid, {}).get(q.key) for q in questions]
    if any(l is not None and l.status == "linked" and l.couplet for l in keyed_links):
        for unit, field in (("poem", "poem"), ("poet", "poet_slug")):
            out[unit] = [getattr(l.couplet, field) if l is not None and l.status == "linked" and l.couplet
                         else f"(unlinked) {q.uid}" for q, l in zip(questions, keyed_links)]
    return out


def null_range(y: npt.NDArray[np.float64], groups: npt.NDArray, permutations: int, seed: int
               ) -> tuple[float, float] | None:
    """2.5th and 97.5th percentiles of the design effect when the cluster labels are shuffled
    over the questions (`permutations` random permutations, numpy default_rng(seed))."""
    deff = _shuffled(y, groups, permutations, seed)
    if deff is None:
        return None
    low, high = np.percentile(deff, [2.5, 97.5])
    return float(low), float(high)


def _shuffled(y: npt.NDArray[np.float64], groups: npt.NDArray, permutations: int, seed: int
              ) -> npt.NDArray[np.float64] | None:
    """The design effects of `permutations` shuffles of the labels (None: undefined)."""
    codes, inverse = np.unique(groups.astype(str), return_inverse=True)
    G, N = len(codes), len(y)
    e = y - y.mean()
    var0 = (e ** 2).sum() / N ** 2 * N / (N - 1) if N > 1 else 0.0
    if G < 2 or N < 2 or var0 <= 0 or permutations < 1:
        return None
    rng = np.random.default_rng(seed)
    shuffled = rng.permuted(np.tile(inverse, (permutations, 1)), axis=1)
    offsets = (np.arange(permutations) * G)[:, None]
    sums = np.bincount((shuffled + offsets).ravel(), weights=np.tile(e, permutations),
                       minlength=permutations * G).reshape(permutations, G)
    deff: npt.NDArray[np.float64] = (sums ** 2).sum(axis=1) / N ** 2 * G / (G - 1) / var0
    return deff


def cluster_rows(run_ids: list[int], order: list[int], right: npt.NDArray[np.float64], asked: npt.NDArray[np.bool_],
                 units: dict[str, list[str]], *, permutations: int | None = None, seed: int = 0) -> list[ClusterRow]:
    """Per run (ranking order) and unit; right: (R, Q) credit 0..1 (a tie 1/t), asked: (R, Q) bool,
    over the questions `units` label; with the shuffled-label range of each design effect.
    Permutations: by default max(1000, 40 R), so that the smallest p-value, 1 / (1 + permutations),
    can pass Holm's first step over R runs (R / (1 + permutations) < 0.05 / 2)."""
    if permutations is None:
        permutations = max(1000, 40 * len(order))
    rows = []
    for i in order:
        mask = asked[i]
        y = right[i][mask].astype(float)
        se0 = stats.clustered_se(y, np.arange(len(y)))
        for unit in (u for u in UNITS if u in units):
            groups = np.asarray(units[unit], dtype=object)[mask]
            se = stats.clustered_se(y, groups)
            deff = None if se is None or not se0 else (se / se0) ** 2
            null = _shuffled(y, groups, permutations, seed) if deff is not None else None
            low, high = np.percentile(null, [2.5, 97.5]) if null is not None else (None, None)
            p = None if null is None or deff is None else (1 + int((null >= deff - 1e-12).sum())) / (1 + len(null))
            rows.append(ClusterRow(run_ids[i], unit, int(mask.sum()), len(set(groups.tolist())),
                                   se, se0, deff, None if low is None else float(low),
                                   None if high is None else float(high), p))
    for unit in UNITS:  # Holm over the runs read, per unit
        tested = [r for r in rows if r.unit == unit and r.p is not None]
        for r, adjusted in zip(tested, stats.holm([r.p or 0.0 for r in tested])):
            r.p_holm = float(adjusted)
    return rows
