"""The evaluation report, with the statistics done by the libraries in stats.py. The CLI
(`persian-tui report`) and the TUI report screen are views over `build_report`;
reports/report_files.py writes it as Markdown, CSV, JSON, PNG.

Rules (the documentation's "Reports" page, docs/guide/reports.md, repeats them):

- Questions: the set chosen (`all` = draft, ready and curated; `ready` = ready and curated;
  `curated`) with a key (`keyed`). Each run is ranked on every keyed question it answered; each
  pair is compared on the keyed questions both answered (reports/pairs.py); the sections marked
  "shared" below are on the keyed questions EVERY run answered (`questions` is their number).
- A prediction is correct when `predicted == current key`. A prediction that is not `ok`
  (invalid, ambiguous, empty, refusal, api_error) or has no answer is wrong and counts as invalid.
- Leaderboard (reports/ranking.rank_runs, the one ranking rule): accuracy on all answered, ties
  share a rank, with Wilson 95 % (statsmodels) and a bootstrap 95 % rank interval (`n_boot`
  resamples of the keyed questions, numpy `default_rng(seed)`); accuracy on the usable answers
  and `invalid` on the same questions; the majority-key baseline of those questions. Shared:
  accuracy with Wilson and a paired percentile bootstrap interval, tokens, latency, cost.
- Pairs and letters: reports/pairs.py (exact McNemar on each pair's single-answer overlap, Holm
  over Tarone's family of the report's pairs, Tango score and simultaneous intervals, exact power,
  the compact letter display).
- Baseline: the majority-key baseline, always answering the most common key, on the keyed
  questions (and per run on the questions it answered), Wilson 95 %.
- Clusters: reports/clusters.py (SE of each run's accuracy clustered by poem, poet, source).
- Breakdowns (shared): per category, source (source_name), poet (the question's poet, else its
  options' distinct poets sorted and joined with " + ") and difficulty tier, with counts;
  when options are linked to the corpus, also by poet, form and metre of the key couplet and
  of the question where all four agree (corpus/provenance.py).
  Missing values are "(none)". Tiers follow the seed's exp-6 analysis, from the share of the
  report's runs that solve the item: easy >= 70 %, medium 50-70 %, hard 30-50 %,
  very hard < 30 % (descriptive: it depends on which runs are in the report).
- Position bias (shared): ORIGINAL option positions (a shuffled run's answers are stored mapped
  back to the original order). `chosen` counts the run's valid answers per position 1..4, `keys`
  the keys of those same questions (so both add up to the same total); chi-square goodness
  of fit of chosen against keys (scipy), None when undefined (see stats.chisquare_gof).
- Confusion (shared): per run a 4 x 5 matrix, rows key 1..4, columns chosen 1..4 and a fifth
  column for invalid / no answer.
- Agreement (shared): for runs in leaderboard order, the share of the shared questions on which
  both runs chose the same (valid) option; the diagonal is the run's share of valid answers.
- Hardest (shared): the questions solved by the fewest runs (then uid), with the wrong option
  chosen most often (ties: the lower option) and how many runs chose it.
- Human (shared): each annotator's accuracy against the current key on the shared questions
  they answered (the human baseline of annotation/agreement.py), Wilson 95 %.
- Samples: a run asked each question K times (`run llm --samples K`) takes part with its
  MAJORITY VOTE (per question the majority's first sample, models.sample_vote); the samples section
  gives per such run the accuracy by majority (ties: fractional credit) and by mean with
  intervals, the agreement among samples against chance (reports/samples.py).
- Memory: per recall run its recall rates, per model the accuracy on the questions whose outlier
  couplet it recalls against the others, per couplet its recall across models (reports/memory.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from .. import stats
from ..annotation.agreement import AnnotatorAccuracy
from ..corpus.provenance import DIMENSIONS as PROVENANCE
from ..corpus.provenance import provenance_values
from ..models import QUESTION_SETS, Question
from ..store import Store
from . import scale
from .clusters import ClusterRow, cluster_rows, question_units
from .items import ItemRow, item_analysis
from .memory import Memory, build_memory
from .pairs import ALPHA, Family, PairRow, letters, pair_rows, run_letters  # noqa: F401 (ALPHA, PairRow: re-exported)
from .ranking import Ranked, rank_runs, rank_sets, respect, with_sets
from .scale import Scale
from .selection import NO_ANSWERS, Inputs, ReportError, report_inputs  # noqa: F401 (ReportError: re-exported)
from .sweep_costs import SweepCost

NONE = "(none)"
# origin: when the questions come from more than one (book, fresh, authored); provenance: when linked
DIMENSIONS = ("category", "source", "poet", "difficulty", "origin", *PROVENANCE)
TIERS = ("easy", "medium", "hard", "very hard")
HARDEST = 20
POWER = 0.8
EFFECT = 0.05  # default effect (accuracy difference) for "questions needed"


@dataclass
class LeaderRow:
    run_id: int
    model: str
    kind: str
    correct: float  # on the SHARED questions (every run answered); a tied majority counts 1/t
    total: int
    shared_invalid: int
    accuracy: float | None
    wilson_low: float
    wilson_high: float
    boot_low: float
    boot_high: float
    tokens_in: int | None  # sums over the shared questions (None: never reported)
    tokens_out: int | None
    latency_mean: float | None  # seconds per answer
    cost: float | None  # sum
    # on ALL the keyed questions this run answered (not only the shared ones)
    answered: int = 0
    answered_correct: float = 0  # a tied majority counts 1/t (reports/selection.py)
    answered_accuracy: float | None = None
    answered_low: float | None = None  # Wilson 95 %
    answered_high: float | None = None
    rank: int = 0  # reports/ranking.rank_runs: ties share a rank
    rank_low: int | None = None  # marginal 95 % rank confidence set (reports/ranking.rank_sets)
    rank_high: int | None = None
    invalid: int = 0  # unusable answers among the answered ones (the ranking set)
    usable_accuracy: float | None = None  # correct / usable answers
    usable_low: float | None = None  # Wilson 95 %
    usable_high: float | None = None
    key_baseline: float | None = None  # always the most common key, on the questions it answered
    no_success: bool = False  # not one request succeeded: every figure of accuracy is shown as missing
    ties: int = 0  # answered questions whose majority vote is tied (credit 1/t; left out of pair tests)
    letters: str = ""  # compact letter display: runs sharing a letter were not found different
    rank_low_simultaneous: int | None = None  # rank confidence set holding for all runs at once
    rank_high_simultaneous: int | None = None
    # the common scale (reports/scale.py): ability in logits with its Wald 95 % interval, and the
    # accuracy the run would have had on every keyed question, with its 95 % prediction interval
    ability: float | None = None
    ability_low: float | None = None
    ability_high: float | None = None
    whole_accuracy: float | None = None
    whole_low: float | None = None
    whole_high: float | None = None


@dataclass
class Baseline:
    """Always answering the most common key (the majority-key baseline), on `total` questions."""
    keys: list[int]  # the most common key(s); several on a tie (same score)
    counts: list[int]  # keys 1..4 on these questions
    correct: int
    total: int
    share: float | None
    low: float | None  # Wilson 95 %
    high: float | None

    @property
    def label(self) -> str:
        return "/".join(map(str, self.keys))


@dataclass
class BreakdownRow:
    dimension: str  # category | source | poet | difficulty
    value: str
    run_id: int
    correct: float  # a tied majority counts 1/t
    total: int  # questions with this value
    accuracy: float


@dataclass
class PositionRow:
    run_id: int
    chosen: list[int]  # valid answers per original position 1..4 (tied majorities left out)
    keys: list[int]  # keys of the same questions per position 1..4
    chi2: float | None  # against the keys' distribution
    p: float | None
    chi2_uniform: float | None = None  # against 1/4 each
    p_uniform: float | None = None


@dataclass
class HardRow:
    uid: str
    solved: float  # runs that got it right (a tied majority counts 1/t)
    runs: int
    common_wrong: int | None  # the wrong option chosen most often
    common_wrong_count: int


@dataclass
class Report:
    run_ids: list[int]
    questions: int  # shared questions with a key: every figure is on these
    leaderboard: list[LeaderRow]
    pairs: list[PairRow]
    groups: list[list[int]]  # the letters a, b, ...: the runs sharing each (compact letter display)
    breakdowns: list[BreakdownRow]
    position: list[PositionRow]
    confusion: dict[int, list[list[int]]]  # run -> rows key 1..4 x columns chosen 1..4, invalid
    agreement: tuple[list[int], list[list[float]]]  # (runs in leaderboard order, matrix)
    hardest: list[HardRow]
    human: list[AnnotatorAccuracy]
    seed: int
    n_boot: int
    question_set: str = "all"
    keyed: int = 0  # questions of the set with a key (before the shared restriction)
    answered: dict[int, int] = field(default_factory=dict)  # run -> keyed questions it answered
    left_out: dict[int, str] = field(default_factory=dict)  # run -> why the default left it out
    items: list[ItemRow] = field(default_factory=list)  # every keyed question's item analysis
    samples: list = field(default_factory=list)  # reports/samples.SampleRun per run asked K > 1 times
    effect: float = EFFECT  # the difference n_needed is computed for
    power: float = POWER
    baseline: Baseline | None = None  # majority key on the keyed questions
    shared_baseline: Baseline | None = None  # majority key on the shared questions
    clusters: list[ClusterRow] = field(default_factory=list)
    family: Family | None = None  # what the Holm correction was over
    dropped: dict[int, tuple[int, int]] = field(default_factory=dict)  # imported run -> (rows dropped, rows)
    memory: Memory | None = None  # what the recall runs say (reports/memory.py); None: no recall run
    sweep: SweepCost | None = None  # what a sweep's runs cost (report --sweep; reports/sweep_costs.py)
    ranked_by: str = "answered"  # "answered" (same questions) | "whole set" (common scale: sets differ)
    scale_model: str | None = None  # "rasch" | "2pl" (reports/scale.py), None without a fit
    scale_bic: dict[str, float] = field(default_factory=dict)
    misfit: list[str] = field(default_factory=list)  # uids of the questions the model misfits (Holm)
    moved: list[int] = field(default_factory=list)  # runs a significant pair moved below the figure's order

    @property
    def limiting(self) -> list[int]:
        """Runs that answered fewer keyed questions than the set has (they shrink `questions`)."""
        return [r for r in self.run_ids if self.answered.get(r, 0) < self.keyed]


def _poet(q: Question) -> str:
    if q.poet:
        return q.poet
    poets = sorted({o.poet for o in q.options if o.poet})
    return " + ".join(poets) if poets else NONE


def _tier(solved: float, runs: int) -> str:
    # no division: solved / runs >= 0.7 etc. without float edge cases on whole counts
    if solved * 10 >= 7 * runs:
        return "easy"
    if solved * 10 >= 5 * runs:
        return "medium"
    if solved * 10 >= 3 * runs:
        return "hard"
    return "very hard"


N = TypeVar("N", int, float)  # _sum keeps the type it sums


def _sum(values: list[N | None]) -> N | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def baseline(keys) -> Baseline:
    """The majority-key baseline of these keys (1..4): the share of the most common one."""
    counts = np.bincount(np.asarray(keys, dtype=np.int64), minlength=5)[1:5].astype(int).tolist()
    total, top = sum(counts), max(counts)
    low, high = stats.wilson(top, total) or (None, None)
    return Baseline([k for k, c in enumerate(counts, 1) if c == top and top], counts, top, total,
                    top / total if total else None, low, high)


def _count(x) -> int | float:
    """A sum of credits: an int when whole (the usual case), else the fraction as a float."""
    return int(round(x)) if abs(x - round(x)) < 1e-9 else float(x)


def _ranked(inp: Inputs, fitted: Scale | None) -> tuple[list[Ranked], bool]:
    """The runs in ranking order (reports/ranking.rank_runs), and whether they answered
    different questions (then ranked by whole-set accuracy on the common scale)."""
    ids, answered = [r.id for r in inp.runs], [n for _, n in inp.overall]
    correct: list[int | Fraction] = [c for c, _ in inp.overall]
    differ = bool((inp.asked != inp.asked[:1]).any())
    if differ and fitted is not None:
        whole = scale.whole_set(fitted, inp.credit, inp.asked, fitted.ability, fitted.ability_se)
        return rank_runs(ids, correct, answered, score=whole.accuracy.tolist()), True
    return rank_runs(ids, correct, answered), False


def _leaderboard(inp: Inputs, ranked: list[Ranked], fitted: Scale | None, seed: int, n_boot: int) -> list[LeaderRow]:
    """Rows in ranking order."""
    runs, right, Q, R = inp.runs, inp.credit_shared, len(inp.shared), len(inp.runs)
    asked = inp.asked
    index = {r.id: i for i, r in enumerate(runs)}
    correct = right.sum(axis=1)
    shared_invalid = (inp.chosen == 0).sum(axis=1)
    wl, wh = stats.wilson_many(correct, np.full(R, Q))
    ac = np.array([c for c, _ in inp.overall], dtype=float)
    an = np.array([n for _, n in inp.overall], dtype=float)
    al, ah = stats.wilson_many(ac, an)
    invalid = (inp.answers == 0).sum(axis=1)
    usable = an - invalid
    ul, uh = stats.wilson_many(ac, usable)
    keys = np.array([q.key for q in inp.keyed], dtype=np.int64)
    weights = stats.bootstrap_weights(Q, n_boot, seed).astype(np.float64)
    if fitted is not None:
        whole = scale.whole_set(fitted, inp.credit, asked, fitted.ability, fitted.ability_se)
        th, th_lo, th_hi = fitted.ability, fitted.ability - scale.Z95 * fitted.ability_se, \
            fitted.ability + scale.Z95 * fitted.ability_se
    boot = weights @ right.T.astype(np.float64) / Q  # (n_boot, R) accuracies, paired resamples
    bl, bh = stats.percentile_interval(boot)
    board = []
    for x in ranked:
        i = index[x.run_id]
        r, mine = runs[i], inp.preds[runs[i].id]
        ps = [mine[q.uid] for q in inp.shared]
        lat = [p.latency for p in ps if p.latency is not None]
        n_all, n_ok = int(an[i]), int(usable[i])
        board.append(LeaderRow(
            run_id=r.id, model=r.model, kind=r.kind, correct=_count(correct[i]), total=Q,
            shared_invalid=int(shared_invalid[i]), accuracy=float(correct[i] / Q),
            wilson_low=float(wl[i]), wilson_high=float(wh[i]), boot_low=float(bl[i]), boot_high=float(bh[i]),
            tokens_in=_sum([p.tokens_in for p in ps]), tokens_out=_sum([p.tokens_out for p in ps]),
            latency_mean=float(np.mean(lat)) if lat else None, cost=_sum([p.cost for p in ps]),
            answered=n_all, answered_correct=_count(ac[i]), answered_accuracy=x.accuracy,
            answered_low=float(al[i]) if n_all else None, answered_high=float(ah[i]) if n_all else None,
            rank=x.rank, rank_low=x.rank_low, rank_high=x.rank_high, invalid=int(invalid[i]),
            rank_low_simultaneous=x.rank_low_simultaneous, rank_high_simultaneous=x.rank_high_simultaneous,
            usable_accuracy=float(ac[i] / n_ok) if n_ok else None,
            usable_low=float(ul[i]) if n_ok else None, usable_high=float(uh[i]) if n_ok else None,
            key_baseline=baseline(keys[asked[i]]).share,
            no_success=all(p.parse_status == "api_error" for p in ps), ties=int(inp.tied[i].sum())))
        if fitted is not None and n_all:
            row = board[-1]
            row.ability, row.ability_low, row.ability_high = float(th[i]), float(th_lo[i]), float(th_hi[i])
            row.whole_accuracy = float(whole.accuracy[i])
            row.whole_low, row.whole_high = float(whole.low[i]), float(whole.high[i])
    return board


def _fit(inp: Inputs) -> Scale | None:
    """The common-scale model on every run's answers to the keyed questions (reports/scale.py)."""
    if not inp.runs or not inp.keyed or not inp.asked.any():
        return None
    return scale.fit(inp.credit, inp.asked)


def _breakdowns(store: Store, inp: Inputs) -> list[BreakdownRow]:
    runs, right, shared, R = inp.runs, inp.credit_shared, inp.shared, len(inp.runs)
    solved = right.sum(axis=0)
    values = {
        "category": [q.category or NONE for q in shared],
        "source": [q.source_name or NONE for q in shared],
        "poet": [_poet(q) for q in shared],
        "difficulty": [_tier(float(s), R) for s in solved],
    }
    if len({q.origin for q in shared}) > 1:  # the leaderboard is split by origin
        values["origin"] = [q.origin for q in shared]
    links = store.links.links([q.uid for q in shared])
    if any(l.status == "linked" for per in links.values() for l in per.values()):
        values.update(provenance_values(shared, links))  # corpus provenance of the key couplet
    rows = []
    for dim in (d for d in DIMENSIONS if d in values):
        col = np.array(values[dim], dtype=object)
        names = TIERS if dim == "difficulty" else sorted(set(values[dim]), key=lambda v: (v == NONE, v))
        for value in names:
            mask = col == value
            n = int(mask.sum())
            if not n:
                continue
            hits = right[:, mask].sum(axis=1)
            rows += [BreakdownRow(dim, value, runs[i].id, _count(hits[i]), n, float(hits[i] / n))
                     for i in inp.order]
    return rows


def _onehot(inp: Inputs) -> npt.NDArray[np.bool_]:
    """(R, Q, 4) the option chosen; all False for an unusable answer or a tied majority."""
    single = ~inp.tied_shared
    return np.stack([(inp.chosen == k) & single for k in (1, 2, 3, 4)], axis=2)


def _position(inp: Inputs) -> list[PositionRow]:
    onehot = _onehot(inp)
    key_hot = np.stack([inp.key == k for k in (1, 2, 3, 4)], axis=1)  # (Q, 4)
    rows = []
    for i in inp.order:
        valid = (inp.chosen[i] > 0) & ~inp.tied_shared[i]
        picked = onehot[i].sum(axis=0).astype(int).tolist()
        keys_here = key_hot[valid].sum(axis=0).astype(int).tolist()
        chi2, p = stats.chisquare_gof(picked, keys_here)
        chi2_u, p_u = stats.chisquare_gof(picked, [1, 1, 1, 1])
        rows.append(PositionRow(inp.runs[i].id, picked, keys_here, chi2, p, chi2_u, p_u))
    return rows


def _confusion(inp: Inputs) -> dict[int, list[list[int]]]:
    out = {}
    for i in inp.order:
        single = ~inp.tied_shared[i]  # a tied majority chose no one option
        cells = (inp.key[single].astype(np.int64) - 1) * 5 + np.where(
            inp.chosen[i][single] > 0, inp.chosen[i][single] - 1, 4)
        out[inp.runs[i].id] = np.bincount(cells, minlength=20).reshape(4, 5).tolist()
    return out


def _agreement(inp: Inputs) -> tuple[list[int], list[list[float]]]:
    R, Q = len(inp.runs), len(inp.shared)
    flat = _onehot(inp)[inp.order].reshape(R, Q * 4).astype(np.float64)
    agree = flat @ flat.T / Q
    return [inp.runs[i].id for i in inp.order], [[float(x) for x in row] for row in agree]


def _hardest(inp: Inputs, limit: int) -> list[HardRow]:
    right, R = inp.right, len(inp.runs)
    solved = inp.credit_shared.sum(axis=0)
    wrong_counts = ((_onehot(inp) & ~right[:, :, None]).sum(axis=0))  # (Q, 4)
    rows = []
    for j in sorted(range(len(inp.shared)), key=lambda j: (int(solved[j]), inp.shared[j].uid))[:limit]:
        top = int(np.argmax(wrong_counts[j]))  # argmax takes the lowest option on a tie
        n = int(wrong_counts[j, top])
        rows.append(HardRow(inp.shared[j].uid, _count(solved[j]), R, top + 1 if n else None, n))
    return rows


def _human(store: Store, shared: list[Question]) -> list[AnnotatorAccuracy]:
    from ..annotation.agreement import annotator_accuracy
    from ..annotation.consensus import item_votes

    return annotator_accuracy(item_votes(store, shared))


def build_report(store: Store, *, run_ids: list[int] | None = None, questions: str = "all",
                 seed: int = 0, n_boot: int = 2000, hardest: int = HARDEST,
                 effect: float = EFFECT, power: float = POWER) -> Report:
    """The report of `run_ids` (default: every finished run with predictions, paraphrase and
    judge runs, archived, unfinished and broken runs left out) on the `questions` set
    (all | ready | curated). Raises ReportError for an unknown run, a chosen run without
    predictions, or a bad option; a database without runs, or runs sharing no keyed question,
    gives a report with `questions == 0` and empty tables."""
    if questions not in QUESTION_SETS:
        raise ReportError(f"unknown question set {questions!r}; choose {', '.join(QUESTION_SETS)}")
    if n_boot < 1:
        raise ReportError("the bootstrap needs at least 1 resample")
    if not 0 < effect < 1 or not 0 < power < 1:
        raise ReportError("the effect and the power must be proportions between 0 and 1")
    inp, left_out = report_inputs(store, run_ids, questions)
    answered = {r.id: n for r, (_, n) in zip(inp.runs, inp.overall)}
    dropped = {r.id: (int(r.params["dropped"]), int(r.params.get("rows") or 0)) for r in inp.runs
               if r.kind == "imported" and r.params.get("dropped")}
    report = Report(run_ids=[r.id for r in inp.runs], questions=len(inp.shared), leaderboard=[],
                    pairs=[], groups=[], breakdowns=[], position=[], confusion={},
                    agreement=([], []), hardest=[], human=[], seed=seed, n_boot=n_boot,
                    question_set=questions, keyed=len(inp.keyed), answered=answered,
                    left_out=left_out, effect=effect, power=power, dropped=dropped)
    if rows := store.probes.recall_rows():
        report.memory = build_memory(store.runs.runs(), inp.keyed, inp.runs, inp.preds, rows,
                                     store.probes.choice_counts())
        if report.memory is not None:
            report.memory.probes = {r.run_id: store.probes.probes(r.run_id) for r in report.memory.runs}
    if inp.runs or inp.keyed:
        report.items = item_analysis(store, inp.keyed, [r.id for r in inp.runs], inp.preds, inp.tied_uids())
        from .samples import sample_run

        report.samples = [sample_run(r, inp.votes[r.id], inp.keyed) for r in inp.runs if r.id in inp.votes]
    if not inp.shared:
        return report
    ids = [r.id for r in inp.runs]
    index = {rid: i for i, rid in enumerate(ids)}
    fitted = _fit(inp)
    first, differ = _ranked(inp, fitted)
    order = [index[x.run_id] for x in first]
    report.pairs, report.family = pair_rows(ids, order, inp.right_all, inp.single, effect, power)
    final = respect(first, {(p.a, p.b) if p.a_only > p.b_only else (p.b, p.a) for p in report.pairs if p.significant})
    if final is not first:  # a significant pair contradicted the figure's order: the pairs in the new order
        old = [x.run_id for x in first]
        report.moved = [x.run_id for pos, x in enumerate(final) if old.index(x.run_id) < pos]
        order = [index[x.run_id] for x in final]
        report.pairs, report.family = pair_rows(ids, order, inp.right_all, inp.single, effect, power)
    inp.order = order
    final = with_sets(final, rank_sets(ids, [p.a for p in report.pairs], [p.b for p in report.pairs],
                                       [p.a_only for p in report.pairs], [p.b_only for p in report.pairs]))
    if fitted is not None:
        report.scale_model, report.scale_bic = fitted.model, fitted.bic
        report.misfit = [q.uid for q, bad in zip(inp.keyed, fitted.misfit) if bad]
    report.ranked_by = "whole set" if differ else "answered"
    report.leaderboard = _leaderboard(inp, final, fitted, seed, n_boot)
    ranked = [row.run_id for row in report.leaderboard]
    report.groups = letters(ranked, report.pairs)
    named = run_letters(ranked, report.groups)
    for row in report.leaderboard:
        row.letters = named[row.run_id]
    report.baseline = baseline([q.key for q in inp.keyed])
    report.shared_baseline = baseline(inp.key)
    units = question_units(inp.keyed, store.links.links([q.uid for q in inp.keyed]))
    report.clusters = cluster_rows(ids, inp.order, inp.credit, inp.asked, units, seed=seed)
    report.breakdowns = _breakdowns(store, inp)
    report.position = _position(inp)
    report.confusion = _confusion(inp)
    report.agreement = _agreement(inp)
    report.hardest = _hardest(inp, hardest)
    report.human = _human(store, inp.shared)
    return report
