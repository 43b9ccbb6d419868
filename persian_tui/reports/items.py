"""Item analysis: is each QUESTION any good? Classical test theory over model runs and, separately,
over human labels (`persian-tui items`, the report's item section).

For every keyed question, per respondent group (runs | humans):

- difficulty: proportion of respondents who answered it correctly (a run's unusable answer is
  wrong; a respondent who never saw the item does not count);
- discrimination: point-biserial correlation of item correctness with the respondent's REST
  score — their accuracy on the other items they answered (rest-score corrected, so the item
  does not correlate with itself). None with fewer than 3 respondents or no variance;
- distractors: how often each wrong option was chosen, and by whom, and each wrong option's own
  point-biserial (choosing it against the rest score).

Flags (names are stable; docs/guide/items.md explains them, docs/methods.md gives the
references). Each carries a one-line evidence and its figures (`details`):

- suspect_key (runs): the most chosen wrong option is chosen more often than the key and by at
  least DOMINANCE of the runs that answered, and an exact one-sided binomial test of its count
  against the key's (H0: the two are equally attractive) gives a Benjamini-Hochberg q < ALPHA over
  the questions where the test was run (the report reads every question). Shown as evidence, never
  a veto: the upper group (the better half, by rest score, of the runs that answered THIS item)
  and the option's point-biserial.
- low_agreement: humans only; at least 2 votes and the most common answer holds less than
  LOW_AGREEMENT of them.
- too_hard: fewer right than chance: exact binomial lower tail P(X <= right | n, CHANCE), its
  Benjamini-Hochberg q over the questions below chance < ALPHA (per group: runs, annotators).
- low_discrimination: point-biserial below LOW_DISCRIMINATION with at least MIN_N_DISCRIMINATION
  respondents (Ebel & Frisbie's "poor" band).
- weak_distractor (runs): a wrong option chosen by fewer than WEAK_DISTRACTOR of at least
  MIN_N_DISTRACTOR runs (a non-functioning distractor, Haladyna & Downing).
- too_easy: difficulty >= TOO_EASY with at least MIN_N respondents.
- from_memory: answerable from memory: the outlier couplet is recalled by most of the models
  probed on it (recall runs; reports/memory.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .. import stats
from ..models import Question
from ..models.recall import PRODUCTION
from ..store import Store
from .memory import couplet_recall, from_memory
from .selection import report_inputs

Bools = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]

ALPHA = 0.05  # false discovery rate of each screening test over the questions (Benjamini-Hochberg)
CHANCE = 0.25  # four options
DOMINANCE = 0.5  # suspect_key: share of the runs that answered holding the wrong option
LOW_DISCRIMINATION = 0.20  # Ebel & Frisbie: below .20 is poor
MIN_N_DISCRIMINATION = 10  # a point-biserial's SE is about 1/sqrt(n): 0.3 at n = 10
WEAK_DISTRACTOR = 0.05  # Haladyna & Downing: chosen by under 5 % = non-functioning
MIN_N_DISTRACTOR = 20  # so that 5 % is at least one respondent
TOO_EASY = 0.95
MIN_N = 5
LOW_AGREEMENT = 2 / 3
FLAGS = ("suspect_key", "low_agreement", "too_hard", "from_memory", "low_discrimination", "weak_distractor",
         "too_easy")  # by severity


@dataclass
class GroupStats:
    n: int  # respondents who answered the item
    correct: int
    difficulty: float | None
    discrimination: float | None
    distractors: dict[int, list[str]]  # wrong option -> respondents choosing it
    distractor_discrimination: dict[int, float | None] = field(default_factory=dict)  # its point-biserial


@dataclass
class ItemRow:
    uid: str
    source: str | None
    source_id: str | None
    key: int
    runs: GroupStats
    humans: GroupStats
    flags: list[str] = field(default_factory=list)
    evidence: dict[str, str] = field(default_factory=dict)  # flag -> why, one line
    details: dict[str, dict] = field(default_factory=dict)  # flag -> its figures

    @property
    def severity(self) -> int:
        """Sort rank: the most serious flag first (0 = suspect_key), unflagged last."""
        return min((FLAGS.index(f) for f in self.flags), default=len(FLAGS))

    def flag(self, name: str, evidence: str, **figures) -> None:
        self.flags.append(name)
        self.evidence[name] = evidence
        self.details[name] = figures


def rest_scores(right: Bools, answered: Bools) -> tuple[Floats, Bools]:
    """(P, Q) rest score of each respondent on each item (accuracy on their OTHER answered items)
    and the mask where it is defined (the item answered, and something else too)."""
    r = (right & answered).astype(float)
    others = answered.sum(axis=1, keepdims=True) - 1.0
    m = answered & (others > 0)
    rest = np.where(m, (r.sum(axis=1, keepdims=True) - r) / np.where(others > 0, others, 1.0), 0.0)
    return rest, m


def rest_discrimination(right: Bools, answered: Bools, x: Bools | None = None) -> Floats:
    """(Q,) point-biserial correlation of each item's correctness (or of `x`, e.g. "chose option
    3") with the respondents' rest score, over the respondents who answered it (and answered
    something else). right, answered, x: (P, Q) bool. NaN where undefined (fewer than 3
    respondents, or no variance). Vectorized over items; equals scipy.stats.pointbiserialr."""
    rest, m = rest_scores(right, answered)
    x = (right if x is None else x) & answered
    with np.errstate(invalid="ignore", divide="ignore"):
        n = m.sum(axis=0).astype(float)
        xs = np.where(m, x, 0.0)
        mx = xs.sum(axis=0) / n
        mr = rest.sum(axis=0) / n
        dx = np.where(m, x - mx, 0.0)
        dr = np.where(m, rest - mr, 0.0)
        vx, vr = (dx * dx).sum(axis=0), (dr * dr).sum(axis=0)
        corr = (dx * dr).sum(axis=0) / np.sqrt(vx * vr)
    ok = (n >= 3) & (vx > 1e-20) & (vr > 1e-20 * np.maximum(1.0, n))
    return np.where(ok, np.clip(corr, -1.0, 1.0), np.nan)


def _num(x) -> float | None:
    return None if np.isnan(x) else float(x)


def _group(chosen: npt.NDArray[np.int8], names: list[str], keys: npt.NDArray[np.int8]) -> list[GroupStats]:
    """chosen: (P, Q) option 1..4, 0 = unusable, -1 = not answered."""
    answered = chosen >= 0
    right = chosen == keys[None, :]
    if names:
        disc = rest_discrimination(right, answered)
        opt_disc = [rest_discrimination(right, answered, chosen == o) for o in (1, 2, 3, 4)]
    else:
        disc = np.full(len(keys), np.nan)
        opt_disc = [disc] * 4
    ns = answered.sum(axis=0).tolist()
    cs = right.sum(axis=0).tolist()
    out = []
    for j, (k, column) in enumerate(zip(keys.tolist(), chosen.T.tolist())):
        dis: dict[int, list[str]] = {o: [] for o in (1, 2, 3, 4) if o != k}
        for name, o in zip(names, column):
            if o in dis:
                dis[o].append(name)
        n, c = ns[j], cs[j]
        out.append(GroupStats(n, c, c / n if n else None, _num(disc[j]), dis,
                              {o: _num(opt_disc[o - 1][j]) for o in dis}))
    return out


def _upper_group(rest: Floats, defined: Bools, j: int) -> npt.NDArray[np.intp]:
    """Indices of the upper group on item j: the better half (rounded up), by rest score, of the
    respondents who answered it and something else (ties: input order)."""
    who = np.flatnonzero(defined[:, j])
    order = who[np.argsort(-rest[who, j], kind="stable")]
    return order[: (len(who) + 1) // 2]


def _suspect_p(g: GroupStats) -> float | None:
    """The suspect-key test's p-value (module docstring); None where it is not tested."""
    counts = {o: len(who) for o, who in g.distractors.items()}
    option = max(counts, key=lambda o: (counts[o], -o))  # the lowest option on a tie
    top, at_key = counts[option], g.correct
    if not g.n or top <= at_key or top < DOMINANCE * g.n:
        return None
    return stats.binom_greater(top, top + at_key, 0.5)


def _hard_p(g: GroupStats) -> float | None:
    """The too-hard test's p-value; None where it is not tested (at or above chance)."""
    if not g.n or g.correct >= CHANCE * g.n:
        return None
    return stats.binom_less(g.correct, g.n, CHANCE)


def _adjusted(pvalues: list[float | None]) -> list[float | None]:
    """Benjamini-Hochberg q-values over the questions tested (None: not tested)."""
    tested = [(i, p) for i, p in enumerate(pvalues) if p is not None]
    out: list[float | None] = [None] * len(pvalues)
    for (i, _), q in zip(tested, stats.benjamini_hochberg([p for _, p in tested])):
        out[i] = float(q)
    return out


def _suspect_key(row: ItemRow, g: GroupStats, column: npt.NDArray[np.int8], upper: npt.NDArray[np.intp],
                 q: float | None) -> None:
    """Distractor dominance, tested against the key's count (module docstring); q: its BH q-value."""
    counts = {o: len(who) for o, who in g.distractors.items()}
    option = max(counts, key=lambda o: (counts[o], -o))  # the lowest option on a tie
    top, at_key = counts[option], g.correct
    p = _suspect_p(g)
    if p is None or q is None or q >= ALPHA:
        return
    up_option, up_key = int((column[upper] == option).sum()), int((column[upper] == row.key).sum())
    r = g.distractor_discrimination.get(option)
    row.flag("suspect_key",
             f"{top} of {g.n} runs chose {option}, {at_key} the key {row.key} (binomial p {p:.2g}, BH q {q:.2g}); "
             f"upper half ({len(upper)} runs by rest score): {up_option} chose {option}, {up_key} the key"
             + ("" if r is None else f"; {option}'s point-biserial {r:+.2f}"),
             option=option, chosen=top, key_chosen=at_key, n=g.n, p_value=p, q_value=q, upper_n=int(len(upper)),
             upper_option=up_option, upper_key=up_key, option_discrimination=r)


def _too_hard(row: ItemRow, g: GroupStats, who: str, q: float | None) -> bool:
    p = _hard_p(g)
    if p is None or q is None or q >= ALPHA:
        return False
    row.flag("too_hard", f"{g.correct} of {g.n} {who} right, below chance (1/4): binomial P(X ≤ "
             f"{g.correct}) = {p:.2g}, BH q {q:.2g}", group=who, correct=g.correct, n=g.n, p_value=p, q_value=q)
    return True


def _low_discrimination(row: ItemRow, g: GroupStats, who: str) -> bool:
    d = g.discrimination
    if d is None or g.n < MIN_N_DISCRIMINATION or d >= LOW_DISCRIMINATION:
        return False
    row.flag("low_discrimination", f"point-biserial {d:+.2f} over {g.n} {who} (below "
             f"{LOW_DISCRIMINATION:.2f}: poor)", group=who, discrimination=d, n=g.n)
    return True


def _weak_distractor(row: ItemRow, g: GroupStats) -> None:
    if g.n < MIN_N_DISTRACTOR:
        return
    weak = {o: len(who) for o, who in g.distractors.items() if len(who) < WEAK_DISTRACTOR * g.n}
    if weak:
        row.flag("weak_distractor", ", ".join(f"{o} chosen by {c} of {g.n} runs" for o, c in weak.items())
                 + f" (under {WEAK_DISTRACTOR:.0%})", options=[str(o) for o in weak], chosen=list(weak.values()),
                 n=g.n)


def item_analysis(store: Store, questions: list[Question], run_ids: list[int],
                  preds: dict | None = None, tied: dict[int, set[str]] | None = None) -> list[ItemRow]:
    """Item statistics and flags for the keyed `questions`, from the runs `run_ids` (their
    predictions read from the store unless given as run -> {uid: Prediction}, with `tied`: run
    -> uids where its majority vote is tied) and every annotator's labels, sorted by flag
    severity then uid. A tied majority chose no one option: it counts as not answered here."""
    from ..annotation.consensus import item_votes

    qs = [q for q in questions if q.key is not None]
    keys = np.array([q.key for q in qs], dtype=np.int8)
    col = {q.uid: j for j, q in enumerate(qs)}
    runs = {r.id: r for r in store.runs.runs(archived=True)}
    run_names = [f"#{i} {runs[i].model}" for i in run_ids]
    if preds is None:
        preds, tied = {}, {}
        for rid in run_ids:
            chosen_preds, voted = store.runs.voted_predictions(rid)
            preds[rid] = {p.uid: p for p in chosen_preds}
            tied[rid] = {v.chosen.uid for v in voted or () if len(v.tied) > 1}
    tied = tied or {}
    chosen = np.full((len(run_ids), len(qs)), -1, dtype=np.int8)
    for i, rid in enumerate(run_ids):
        skip = tied.get(rid, set())
        for p in preds[rid].values():
            if p.uid in col and p.uid not in skip:
                chosen[i, col[p.uid]] = p.usable
    votes = item_votes(store, qs)
    annotators = sorted({a for v in votes for a in v.votes})
    hum = np.full((len(annotators), len(qs)), -1, dtype=np.int8)
    arow = {a: i for i, a in enumerate(annotators)}
    for v in votes:
        for a, ans in v.votes.items():
            hum[arow[a], col[v.uid]] = ans
    run_stats = _group(chosen, run_names, keys)
    hum_stats = _group(hum, annotators, keys)
    rest, defined = rest_scores(chosen == keys[None, :], chosen >= 0)
    votes_by_uid = {v.uid: v for v in votes}
    memory = from_memory(couplet_recall(qs, store.probes.recall_rows(uids=col, formats=PRODUCTION)))
    # each screening test corrected over the questions it was run on (Benjamini-Hochberg)
    suspect_q = _adjusted([_suspect_p(g) for g in run_stats])
    hard_q = {who: _adjusted([_hard_p(g) for g in group]) for group, who in ((run_stats, "runs"),
                                                                              (hum_stats, "annotators"))}
    rows = []
    for j, q in enumerate(qs):
        row = ItemRow(q.uid, q.source_name, q.source_id, int(keys[j]), run_stats[j], hum_stats[j])
        _suspect_key(row, run_stats[j], chosen[:, j], _upper_group(rest, defined, j), suspect_q[j])
        votes_here = list(votes_by_uid[q.uid].votes.values())
        if len(votes_here) >= 2:
            top = Counter(votes_here).most_common(1)[0][1]
            if top < LOW_AGREEMENT * len(votes_here):
                row.flag("low_agreement", f"the most common answer has {top} of {len(votes_here)} human votes",
                         votes=len(votes_here), most_common=top)
        groups = ((run_stats[j], "runs"), (hum_stats[j], "annotators"))
        any(_too_hard(row, g, who, hard_q[who][j]) for g, who in groups)  # the first group that shows it
        any(_low_discrimination(row, g, who) for g, who in groups)
        _weak_distractor(row, run_stats[j])
        if q.uid in memory:
            row.flag("from_memory", memory[q.uid])
        for g, who in groups:
            if g.n >= MIN_N and g.difficulty is not None and g.difficulty >= TOO_EASY:
                row.flag("too_easy", f"{g.correct} of {g.n} {who} right", group=who, correct=g.correct, n=g.n)
                break
        row.flags.sort(key=FLAGS.index)
        rows.append(row)
    rows.sort(key=lambda r: (r.severity, r.uid))
    return rows


QUEUED = ("suspect_key", "low_agreement", "too_hard")  # the others ask no decision of an adjudicator


def queue_flags(store: Store) -> dict[str, dict[str, str]]:
    """uid -> {flag: evidence} of the flags that send a question to adjudication, from the
    default report's runs (finished, not archived, not broken) and every annotator's labels."""
    inp, _ = report_inputs(store, None, "all")
    rows = item_analysis(store, inp.keyed, [r.id for r in inp.runs], inp.preds, inp.tied_uids())
    return {r.uid: {f: r.evidence[f] for f in r.flags if f in QUEUED}
            for r in rows if any(f in QUEUED for f in r.flags)}
