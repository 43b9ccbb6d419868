"""Per-question votes of the annotators, and the queues built on them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..models import Label, Question, ReviewFlag
from ..store import Store

BULK_REASON = "all labels agree with the key"  # the reason recorded by a bulk acceptance


@dataclass
class ItemVotes:
    uid: str
    category: str | None
    key: int | None
    status: str
    labels: list[Label] = field(default_factory=list)
    review_flags: dict[str, ReviewFlag] = field(default_factory=dict)  # reviewer -> key problem (judge review)
    item_flags: dict[str, str] = field(default_factory=dict)  # item-analysis flag -> evidence (reports/items.py)

    @property
    def votes(self) -> dict[str, int]:
        """annotator -> answer (skips and flag-only labels left out)."""
        return {l.annotator: l.answer for l in self.labels if l.answer is not None}

    @property
    def flags(self) -> dict[str, str]:
        return {l.annotator: l.flag for l in self.labels if l.flag}

    @property
    def majority(self) -> int | None:
        """The strict-plurality answer (None on a tie or with no votes)."""
        counts = Counter(self.votes.values()).most_common()
        if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
            return None
        return counts[0][0]

    @property
    def agrees_with_key(self) -> bool | None:
        m = self.majority
        return None if m is None or self.key is None else m == self.key

    @property
    def unanimous(self) -> bool:
        return len(set(self.votes.values())) == 1

    @property
    def needs_adjudication(self) -> bool:
        """Annotators disagree with each other or with the key, flagged the item, or
        labelled a question that has no key yet; or a reviewer flagged a judged answer."""
        answers = set(self.votes.values())
        return bool(self.flags) or bool(self.review_flags) or bool(self.item_flags) or len(answers) > 1 or (
            bool(answers) and (self.key is None or answers != {self.key}))

    @property
    def acceptable(self) -> bool:
        """Every vote agrees with the key and nobody flagged it: can be accepted in bulk."""
        return self.key is not None and bool(self.votes) and not self.needs_adjudication


def item_votes(store: Store, questions: list[Question] | None = None,
               item_flags: dict[str, dict[str, str]] | None = None) -> list[ItemVotes]:
    """Votes for each question (all questions in bank order by default); `item_flags`
    (uid -> flag -> evidence, reports/items.queue_flags) are attached where given."""
    questions = questions if questions is not None else store.questions.questions()
    by_uid: dict[str, list[Label]] = {}
    for label in store.labels.labels():
        by_uid.setdefault(label.uid, []).append(label)
    flagged = store.judging.review_flags()
    item_flags = item_flags or {}
    return [ItemVotes(q.uid, q.category, q.key, q.status, by_uid.get(q.uid, []), flagged.get(q.uid, {}),
                      item_flags.get(q.uid, {})) for q in questions]


def adjudication_queue(store: Store, item_flags: dict[str, dict[str, str]] | None = None,
                       votes: list[ItemVotes] | None = None) -> list[ItemVotes]:
    """Open questions (not curated/retired) whose labels need a decision, or that the item
    analysis flags (`item_flags`, reports/items.queue_flags); and any question, whatever its status,
    with a judge-review key-problem flag no adjudication has settled yet. `votes`: item_votes
    already read."""
    votes = votes if votes is not None else item_votes(store, item_flags=item_flags)
    return [v for v in votes if v.review_flags
            or (v.status not in ("curated", "retired") and v.needs_adjudication)]


def bulk_acceptable(store: Store, item_flags: dict[str, dict[str, str]] | None = None,
                    votes: list[ItemVotes] | None = None) -> list[ItemVotes]:
    """Open questions whose labels all agree with the key (and that no item flag questions)."""
    votes = votes if votes is not None else item_votes(store, item_flags=item_flags)
    return [v for v in votes if v.status not in ("curated", "retired") and v.acceptable]


def flag_reasons(item: ItemVotes) -> list[str]:
    """Why a question is flagged (annotators' flags, reviewers' key problems, item-analysis
    flags), one phrase each; empty when nothing flags it."""
    return ([f"flagged by {who}: {why}" for who, why in sorted(item.flags.items())]
            + [f"key problem reported by {who}" for who in sorted(item.review_flags)]
            + [f"{flag}: {evidence}" for flag, evidence in sorted(item.item_flags.items())])
