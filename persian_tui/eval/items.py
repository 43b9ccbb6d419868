"""Item analysis: is each QUESTION any good? Classical test theory over model runs and, separately,
over human labels (`persian-tui items`, the report's item section).

For every keyed question, per respondent group (runs | humans):

- difficulty: proportion of respondents who answered it correctly (a run's unusable answer is
  wrong; a respondent who never saw the item does not count);
- discrimination: point-biserial correlation of item correctness with the respondent's REST
  score — their accuracy on the other items they answered (rest-score corrected, so the item
  does not correlate with itself). None with fewer than 3 respondents or no variance;
- distractors: how often each wrong option was chosen, and by whom.

Flags (names are stable; README "Item analysis" explains them):

- suspect_key: among the strong runs (the better half by overall accuracy, at least 3), one
  wrong option is chosen by more than half of them, AND the runs' discrimination is negative
  (the better runs get the item "wrong" more often than the weaker ones) or undefined (every
  run answered alike). Evidence: that option, its takers, the discrimination.
- too_easy: difficulty >= TOO_EASY with at least MIN_N respondents;
- too_hard: difficulty <= TOO_HARD with at least MIN_N respondents (far below 25 % chance);
- low_agreement: humans only; at least 2 votes and the most common answer holds less than
  LOW_AGREEMENT of them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..models import Question
from ..store import Store
from .inputs import report_inputs

TOO_EASY = 0.95
TOO_HARD = 0.10
MIN_N = 5
LOW_AGREEMENT = 2 / 3
FLAGS = ("suspect_key", "low_agreement", "too_hard", "too_easy")  # by severity


@dataclass
class GroupStats:
    n: int  # respondents who answered the item
    correct: int
    difficulty: float | None
    discrimination: float | None
    distractors: dict[int, list[str]]  # wrong option -> respondents choosing it


@dataclass
class ItemRow:
    uid: str
    source: str | None
    source_id: str | None
    key: int
    runs: GroupStats
    humans: GroupStats
    flags: list[str] = field(default_factory=list)
    evidence: dict[str, str] = field(default_factory=dict)  # flag -> why

    @property
    def severity(self) -> int:
        """Sort rank: the most serious flag first (0 = suspect_key), unflagged last."""
        return min((FLAGS.index(f) for f in self.flags), default=len(FLAGS))


def rest_discrimination(right: np.ndarray, answered: np.ndarray) -> np.ndarray:
    """(Q,) point-biserial correlation of each item's correctness with the respondents' rest
    score (accuracy on their OTHER answered items), over the respondents who answered it (and
    answered something else). right, answered: (P, Q) bool. NaN where undefined (fewer than 3
    respondents, or no variance). Vectorized over items; equals scipy.stats.pointbiserialr."""
    r = (right & answered).astype(float)
    tot_r = r.sum(axis=1, keepdims=True)
    others = answered.sum(axis=1, keepdims=True) - 1.0
    m = answered & (others > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = np.where(m, (tot_r - r) / np.where(others > 0, others, 1.0), 0.0)
        n = m.sum(axis=0).astype(float)
        x = np.where(m, r, 0.0)
        mx = x.sum(axis=0) / n
        mr = rest.sum(axis=0) / n
        dx = np.where(m, r - mx, 0.0)
        dr = np.where(m, rest - mr, 0.0)
        vx, vr = (dx * dx).sum(axis=0), (dr * dr).sum(axis=0)
        corr = (dx * dr).sum(axis=0) / np.sqrt(vx * vr)
    ok = (n >= 3) & (vx > 0) & (vr > 1e-20 * np.maximum(1.0, n))
    return np.where(ok, np.clip(corr, -1.0, 1.0), np.nan)


def _group(chosen: np.ndarray, names: list[str], keys: np.ndarray) -> list[GroupStats]:
    """chosen: (P, Q) option 1..4, 0 = unusable, -1 = not answered."""
    answered = chosen >= 0
    right = chosen == keys[None, :]
    disc = rest_discrimination(right, answered) if len(names) else np.full(len(keys), np.nan)
    ns = answered.sum(axis=0).tolist()
    cs = right.sum(axis=0).tolist()
    out = []
    for j, (k, column) in enumerate(zip(keys.tolist(), chosen.T.tolist())):
        dis: dict[int, list[str]] = {o: [] for o in (1, 2, 3, 4) if o != k}
        for name, o in zip(names, column):
            if o in dis:
                dis[o].append(name)
        n, c = ns[j], cs[j]
        out.append(GroupStats(n, c, c / n if n else None,
                              None if np.isnan(disc[j]) else float(disc[j]), dis))
    return out


def item_analysis(store: Store, questions: list[Question], run_ids: list[int],
                  preds: dict | None = None) -> list[ItemRow]:
    """Item statistics and flags for the keyed `questions`, from the runs `run_ids` (their
    predictions read from the store unless given as run -> {uid: Prediction}) and every
    annotator's labels, sorted by flag severity then uid."""
    from .votes import item_votes

    qs = [q for q in questions if q.key is not None]
    keys = np.array([q.key for q in qs], dtype=np.int8)
    col = {q.uid: j for j, q in enumerate(qs)}
    runs = {r.id: r for r in store.runs(archived=True)}
    run_names = [f"#{i} {runs[i].model}" for i in run_ids]
    chosen = np.full((len(run_ids), len(qs)), -1, dtype=np.int8)
    for i, rid in enumerate(run_ids):
        for p in (preds[rid].values() if preds is not None else store.predictions(rid)):
            if p.uid in col:
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
    # strong runs: the better half by accuracy over what they answered
    acc = (chosen == keys[None, :]).sum(axis=1) / np.maximum(1, (chosen >= 0).sum(axis=1))
    strong = np.argsort(-acc, kind="stable")[:max(3, (len(run_ids) + 1) // 2)] if len(run_ids) >= 3 else []
    votes_by_uid = {v.uid: v for v in votes}
    S = chosen[list(strong)]  # (strong, Q)
    n_strong = (S >= 0).sum(axis=0)
    picks = np.stack([(S == o) & (keys != o)[None, :] for o in (1, 2, 3, 4)], axis=1).sum(axis=0)  # (4, Q)
    top_wrong = picks.argmax(axis=0)  # lowest option on a tie
    rows = []
    for j, q in enumerate(qs):
        row = ItemRow(q.uid, q.source_name, q.source_id, int(q.key), run_stats[j], hum_stats[j])
        if n_strong[j] >= 3:
            option, count, total = int(top_wrong[j]) + 1, int(picks[top_wrong[j], j]), int(n_strong[j])
            d = run_stats[j].discrimination
            if count * 2 > total and (d is None or d < 0):
                row.flags.append("suspect_key")
                row.evidence["suspect_key"] = (
                    f"{count} of {total} strong runs chose {option}, not the key {q.key}; "
                    f"{len(run_stats[j].distractors[option])} of {run_stats[j].n} runs in all"
                    + ("" if d is None else f"; discrimination {d:+.2f}"))
        votes_here = list(votes_by_uid[q.uid].votes.values())
        if len(votes_here) >= 2:
            top = Counter(votes_here).most_common(1)[0][1]
            if top < LOW_AGREEMENT * len(votes_here):
                row.flags.append("low_agreement")
                row.evidence["low_agreement"] = (f"the most common answer has {top} of "
                                                 f"{len(votes_here)} human votes")
        for g, who in ((run_stats[j], "runs"), (hum_stats[j], "annotators")):
            if g.n >= MIN_N and g.difficulty is not None:
                if g.difficulty <= TOO_HARD and "too_hard" not in row.flags:
                    row.flags.append("too_hard")
                    row.evidence["too_hard"] = f"{g.correct} of {g.n} {who} right"
                elif g.difficulty >= TOO_EASY and "too_easy" not in row.flags:
                    row.flags.append("too_easy")
                    row.evidence["too_easy"] = f"{g.correct} of {g.n} {who} right"
        row.flags.sort(key=FLAGS.index)
        rows.append(row)
    rows.sort(key=lambda r: (r.severity, r.uid))
    return rows


QUEUED = ("suspect_key", "low_agreement", "too_hard")  # too_easy asks no decision


def queue_flags(store: Store) -> dict[str, dict[str, str]]:
    """uid -> {flag: evidence} of the flags that send a question to adjudication, from the
    default report's runs (finished, not archived, not broken) and every annotator's labels."""
    inp, _ = report_inputs(store, None, "all")
    rows = item_analysis(store, inp.keyed, [r.id for r in inp.runs], inp.preds)
    return {r.uid: {f: r.evidence[f] for f in r.flags if f in QUEUED}
            for r in rows if any(f in QUEUED for f in r.flags)}
