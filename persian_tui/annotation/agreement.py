"""Inter-annotator agreement and the human baseline, overall and per category."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .. import settings, stats
from ..store import Store
from .consensus import ItemVotes, item_votes


def is_fast(seconds: float | None, minimum: float) -> bool:
    """An answer given in less than ``minimum`` seconds (an unknown time is not fast)."""
    return seconds is not None and seconds < minimum


@dataclass
class AnnotatorAccuracy:
    annotator: str
    correct: int
    total: int  # items with a key that this annotator answered
    low: float | None = None  # Wilson 95 %
    high: float | None = None
    answered: int = 0  # every item this annotator answered (keyed or not)
    fast: int = 0  # of those, answered faster than the minimum (settings.label_min_seconds)

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.total if self.total else None


@dataclass
class Agreement:
    scope: str  # "all" or a category
    items: int  # questions in scope
    labelled: int  # with at least one vote
    multi: int  # with at least two votes
    majority_agrees: int  # majority equals the key
    majority_disagrees: int
    cohen_mean: float | None
    cohen_pairs: list[dict] = field(default_factory=list)  # {a, b, kappa, items}
    fleiss: float | None = None
    fleiss_items: int = 0
    alpha: float | None = None
    alpha_items: int = 0
    annotators: list[AnnotatorAccuracy] = field(default_factory=list)


def annotator_accuracy(votes: list[ItemVotes]) -> list[AnnotatorAccuracy]:
    """Each annotator's accuracy against the current key over the keyed items they answered,
    Wilson 95 %, sorted by name (the human baseline of the agreement view and the report)."""
    tally: dict[str, list[int]] = {}
    for v in votes:
        if v.key is None:
            continue
        for name, answer in v.votes.items():
            t = tally.setdefault(name, [0, 0])
            t[0] += answer == v.key
            t[1] += 1
    out = []
    for name, (correct, total) in sorted(tally.items()):
        low, high = stats.wilson(correct, total) or (None, None)
        out.append(AnnotatorAccuracy(name, correct, total, low, high))
    return out


def with_fast(accuracy: list[AnnotatorAccuracy], votes: list[ItemVotes],
              minimum: float) -> list[AnnotatorAccuracy]:
    """The accuracy rows with each annotator's answers and fast answers counted (annotators
    who answered only unkeyed items get a row too), sorted by name."""
    rows = {a.annotator: a for a in accuracy}
    for v in votes:
        for label in v.labels:
            if label.answer is None:
                continue
            row = rows.setdefault(label.annotator, AnnotatorAccuracy(label.annotator, 0, 0))
            row.answered += 1
            row.fast += is_fast(label.seconds, minimum)
    return [rows[name] for name in sorted(rows)]


def agreement(votes: list[ItemVotes], scope: str = "all",
              minimum: float = settings.LABEL_MIN_SECONDS.default) -> Agreement:
    ballots = [v.votes for v in votes]
    pairs = stats.pairwise_cohen(ballots)
    kappas = [k for k, n in pairs.values() if k is not None]
    fleiss, fleiss_n = stats.fleiss_kappa(ballots)
    alpha, alpha_n = stats.krippendorff_alpha(ballots)
    annotators = with_fast(annotator_accuracy(votes), votes, minimum)
    return Agreement(
        scope=scope, items=len(votes), labelled=sum(bool(v.votes) for v in votes),
        multi=sum(len(v.votes) >= 2 for v in votes),
        majority_agrees=sum(v.agrees_with_key is True for v in votes),
        majority_disagrees=sum(v.agrees_with_key is False for v in votes),
        cohen_mean=sum(kappas) / len(kappas) if kappas else None,
        cohen_pairs=[{"a": a, "b": b, "kappa": k, "items": n} for (a, b), (k, n) in pairs.items()],
        fleiss=fleiss, fleiss_items=fleiss_n, alpha=alpha, alpha_items=alpha_n,
        annotators=annotators,
    )


def agreement_report(store: Store) -> list[Agreement]:
    """Overall figures first, then one per category (questions not retired)."""
    votes = [v for v in item_votes(store) if v.status != "retired"]
    minimum = settings.label_min_seconds(store.labels)
    out = [agreement(votes, minimum=minimum)]
    for category in sorted({v.category for v in votes if v.category}):
        out.append(agreement([v for v in votes if v.category == category], category, minimum))
    return out


def as_dict(a: Agreement) -> dict:
    d = asdict(a)
    for acc, obj in zip(d["annotators"], a.annotators):
        acc["accuracy"] = obj.accuracy
    return d
