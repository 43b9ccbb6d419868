"""Repeated samples: a run asked each question K times (`run llm --samples K`), voted.

Per question (keyed questions only): the answer of every sample (0 = unusable), the majority's
answer (models.vote: a tie goes to the option given first), the agreement (share of the samples
that got a reply which gave the majority's answer), whether the majority is right and the share
of samples that are right. Per run: accuracy by majority vote, accuracy by mean (the expected
accuracy of one sample: unusable and failed samples count as wrong), mean agreement and the
share of unanimous questions. When the run shuffles the options (`--shuffle-seed`) every sample
saw its own option order, so the agreement is the consistency of the chosen COUPLET across
option orders, and is labelled so."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models import Question, Run, Vote


@dataclass
class SampleItem:
    uid: str
    key: int
    answers: list[int]  # per sample, 0 = unusable or failed
    majority: int  # 0 when no sample is usable
    agreement: float | None
    chosen: int  # the representative sample (the majority's first): what judging uses by default
    majority_right: bool
    mean_right: float  # share of the stored samples that are right (a run stopped early: fewer than K)


@dataclass
class SampleRun:
    run_id: int
    model: str
    samples: int  # K asked per question
    shuffled: bool  # each sample its own option order
    questions: int  # keyed questions with at least one sample
    majority_correct: int
    majority_accuracy: float | None
    mean_accuracy: float | None
    mean_agreement: float | None
    unanimous: int  # questions whose replied samples all gave one usable answer
    items: list[SampleItem] = field(default_factory=list)

    @property
    def agreement_label(self) -> str:
        return "consistency across option orders" if self.shuffled else "agreement among samples"


def sample_run(run: Run, votes: list[Vote], keyed: list[Question]) -> SampleRun:
    """The vote figures of one run over the keyed questions it answered (in bank order)."""
    K = int(run.params.get("samples") or 1)
    by_uid = {v.chosen.uid: v for v in votes}
    items = []
    for q in keyed:
        v = by_uid.get(q.uid)
        if v is None:
            continue
        answers = list(v.answers)
        right = sum(a == q.key for a in answers)
        items.append(SampleItem(q.uid, int(q.key), answers, v.answer, v.agreement, v.chosen.sample,
                                v.answer == q.key, right / len(answers)))  # of the samples stored
    n = len(items)
    agreements = [i.agreement for i in items if i.agreement is not None]
    correct = sum(i.majority_right for i in items)
    return SampleRun(run.id, run.model, K, run.params.get("shuffle_seed") is not None, n, correct,
                     correct / n if n else None, sum(i.mean_right for i in items) / n if n else None,
                     sum(agreements) / len(agreements) if agreements else None,
                     sum(i.agreement == 1.0 and i.majority != 0 for i in items), items)
