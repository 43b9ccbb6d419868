"""Shortcut diagnostics: can a surface cue find the key without reading the poems?

For each question with a key, each cue either picks an option or abstains:
  poet, metre, rhyme, form  the only option whose value (from its corpus link) differs from the
                            other three, which agree; eligible only when all four values are
                            known (four options linked as whole couplets, each with that value)
  length                    an option at least 30 % longer or shorter than the mean of the other
                            three, which are within 15 % of their own mean
  position                  "always answer the most common key": the key position most common
                            among the *other* questions (leave-one-out, so a question's own key
                            never votes for itself; ties go to the lower position)
  lexical                   the TF-IDF centroid baseline (never abstains)
  memory                    the only option whose couplet most models probed on it recall (recall
                            runs, reports/memory.py); eligible when all four were probed
Over the bank: how often each cue fires, how often it is right when it fires, with a Wilson 95 %
interval and a two-sided exact binomial test against chance (25 %): a cue far below chance is
as telling as one far above. The keys' positions are also tested against a uniform
distribution (Pearson's chi-square goodness of fit, 3 degrees of freedom; with fewer than 20 keys,
expected counts under 5, the exact multinomial test). A question whose key
a poet/metre/rhyme/form/length cue finds is flagged: its answer can be guessed from the surface.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..models import OptionLink, Question
from ..stats import binom_two_sided, chisquare_gof, wilson
from ..text import corpus_key

CUES = ("poet", "metre", "rhyme", "form", "length", "position", "lexical", "memory")
# cues that abstain unless the surface singles one option out: a hit flags the question
# (the position and lexical baselines always answer, so their hits say little about one question)
FLAG_CUES = ("poet", "metre", "rhyme", "form", "length", "memory")
CHANCE = 0.25
LENGTH_OUTLIER = 0.30
LENGTH_PEERS = 0.15


@dataclass
class CueRow:
    cue: str
    eligible: int  # questions the cue could judge
    fired: int  # it picked an option
    hits: int  # ... and that option is the key
    low: float | None = None
    high: float | None = None
    p_value: float | None = None

    @property
    def precision(self) -> float | None:
        return self.hits / self.fired if self.fired else None

    @property
    def recall(self) -> float | None:
        """The share of eligible questions whose key the cue alone finds."""
        return self.hits / self.eligible if self.eligible else None


@dataclass
class ShortcutReport:
    questions: int  # with a key
    linked: int  # ... with all four options linked
    rows: list[CueRow]
    picks: dict[str, dict[str, int]]  # uid -> cue -> picked option
    flagged: dict[str, list[str]] = field(default_factory=dict)  # uid -> cues that find the key
    keys: dict[int, int] = field(default_factory=dict)  # key position -> questions
    uniform_p: float | None = None  # chi-square goodness of fit of the keys' positions vs uniform


def odd_one(values: list) -> int | None:
    """Position (1..4) of the only value differing from the other three, which agree."""
    if len(values) != 4 or any(v is None or v == "" for v in values):
        return None
    for i in range(4):
        rest = values[:i] + values[i + 1:]
        if rest[0] == rest[1] == rest[2] != values[i]:
            return i + 1
    return None


def length_outlier(lengths: list[int]) -> int | None:
    if len(lengths) != 4:
        return None
    for i in range(4):
        rest = np.array(lengths[:i] + lengths[i + 1:], dtype=float)
        mean = rest.mean()
        if mean <= 0:
            continue
        if abs(lengths[i] - mean) / mean >= LENGTH_OUTLIER and np.all(np.abs(rest - mean) / mean <= LENGTH_PEERS):
            return i + 1
    return None


def _link_value(link: OptionLink | None, cue: str) -> str | None:
    c = link.couplet if link is not None else None
    if link is None or c is None or not link.whole:  # one hemistich, halves of two couplets: not one poem
        return None
    return {"poet": c.poet_slug, "metre": c.metre, "rhyme": c.rhyme, "form": c.form}[cue]


def memory_pick(rates: dict[int, float]) -> int | None:
    """The only option (1..4) recalled by more than half of the models probed on it, when all
    four were probed."""
    if sorted(rates) != [1, 2, 3, 4]:
        return None
    most = [p for p, r in rates.items() if r > 0.5]
    return most[0] if len(most) == 1 else None


def analyse(questions: list[Question], links: dict[str, dict[int, OptionLink]],
            lexical: dict[str, int] | None = None,
            memory: dict[str, dict[int, float]] | None = None) -> ShortcutReport:
    """`lexical`: uid -> the option the TF-IDF centroid baseline picks (see lexical_picks);
    `memory`: uid -> position -> share of probed models recalling it (reports/memory.memory_rates)."""
    keyed = [q for q in questions if q.key is not None and len(q.options) == 4]
    eligible = {c: 0 for c in CUES}
    fired = {c: 0 for c in CUES}
    hits = {c: 0 for c in CUES}
    picks: dict[str, dict[str, int]] = {}
    flagged: dict[str, list[str]] = {}
    linked = 0
    keys = Counter(q.key for q in keyed)
    for q in keyed:
        ql = links.get(q.uid, {})
        opts = sorted(q.options, key=lambda o: o.position)
        linked += all(ql.get(o.position) and ql[o.position].whole for o in opts)
        mine: dict[str, int] = {}
        for cue in ("poet", "metre", "rhyme", "form"):
            values = [_link_value(ql.get(o.position), cue) for o in opts]
            if any(v is None or v == "" for v in values):
                continue  # eligible only when all four values are known
            eligible[cue] += 1
            pick = odd_one(values)
            if pick:
                mine[cue] = pick
        eligible["length"] += 1
        pick = length_outlier([len(corpus_key(f"{o.mesra1} {o.mesra2}").replace(" ", "")) for o in opts])
        if pick:
            mine["length"] = pick
        eligible["position"] += 1
        others = Counter(keys)
        others[q.key] -= 1
        mine["position"] = min(range(1, 5), key=lambda k: (-others[k], k))
        if lexical is not None and q.uid in lexical:
            eligible["lexical"] += 1
            mine["lexical"] = lexical[q.uid]
        if memory is not None and sorted(memory.get(q.uid, {})) == [1, 2, 3, 4]:
            eligible["memory"] += 1
            if pick := memory_pick(memory[q.uid]):
                mine["memory"] = pick
        for cue, pick in mine.items():
            fired[cue] += 1
            if pick == q.key:
                hits[cue] += 1
                if cue in FLAG_CUES:
                    flagged.setdefault(q.uid, []).append(cue)
        picks[q.uid] = mine
    rows = []
    for cue in CUES:
        if (cue == "lexical" and lexical is None) or (cue == "memory" and not memory):
            continue
        row = CueRow(cue, eligible[cue], fired[cue], hits[cue])
        if row.fired:
            row.low, row.high = wilson(row.hits, row.fired) or (None, None)
            row.p_value = binom_two_sided(row.hits, row.fired, CHANCE)
        rows.append(row)
    return ShortcutReport(len(keyed), linked, rows, picks, flagged, {k: keys[k] for k in range(1, 5)},
                          uniform_keys(keys))


def uniform_keys(keys: Counter) -> float | None:
    """p of Pearson's chi-square goodness of fit of the key positions 1-4 against uniform
    (None without keys); with fewer than 20 keys (expected counts under 5) the exact multinomial
    test's p instead (stats.chisquare_gof)."""
    counts = [keys.get(k, 0) for k in range(1, 5)]
    if not sum(counts):
        return None
    return chisquare_gof(counts, [1, 1, 1, 1])[1]


def lexical_picks(questions: list[Question], texts: dict[str, list[str]]) -> dict[str, int]:
    """uid -> the option the TF-IDF centroid baseline picks (fitted on the bank's own texts)."""
    from ..runs.embedders import TfidfEmbedder
    from ..runs.outlier import predict

    keyed = [q for q in questions if q.uid in texts and len(texts[q.uid]) == 4]
    if not keyed:
        return {}
    flat = [t for q in keyed for t in texts[q.uid]]
    emb = TfidfEmbedder(flat)
    E = emb.embed(flat).reshape(len(keyed), 4, -1)
    predicted, _ = predict(E, "centroid")
    return {q.uid: int(p) for q, p in zip(keyed, predicted, strict=True)}
