"""Repeated samples: a run asked each question K times (`run llm --samples K`), voted.

Per question (keyed questions only): the answer of every sample (0 = unusable), the majority's
answer (models.sample_vote: the representative the rest of the app uses), the agreement (share of the
samples that got a reply which gave the majority's answer), the options TIED for the majority,
the majority's credit (1 when the key is the single most common answer, 1/t when it is one of t
tied options, else 0: a tie is never decided by the order the samples came in) and the share of
samples that are right. Per run: accuracy by majority vote (mean credit; Wilson 95 % on the
credit sum), accuracy by mean (the expected accuracy of one sample: unusable and failed samples
count as wrong; t interval over questions), their paired gap majority - mean with its t interval
over the questions (statsmodels DescrStatsW), mean agreement beside the chance agreement of a
uniform random answerer asked K times (stats.chance_agreement: E[max count]/K, 0.496 for K = 5)
whose replies are unusable as often as the run's (the observed agreement counts unusable replies
in its denominator, so chance does too: like for like),
the unanimous and the tied questions. When the run shuffles the options (`--shuffle-seed`) every sample
saw its own option order, so the agreement is the consistency of the chosen COUPLET across
option orders, and is labelled so."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import stats
from ..models import Question, Run, SampleVote


@dataclass
class SampleItem:
    uid: str
    key: int
    answers: list[int]  # per sample, 0 = unusable or failed
    majority: int  # 0 when no sample is usable
    agreement: float | None
    chosen: int  # the representative sample (the majority's first): what judging uses by default
    majority_right: bool  # the representative answer is the key
    mean_right: float  # share of the stored samples that are right (a run stopped early: fewer than K)
    tied: list[int] = field(default_factory=list)  # options sharing the top count (2+ = a tie)
    credit: float = 0.0  # 1/len(tied) when the key is among the tied options, else 0


@dataclass
class SampleRun:
    run_id: int
    model: str
    samples: int  # K asked per question
    shuffled: bool  # each sample its own option order
    questions: int  # keyed questions with at least one sample
    majority_correct: float  # sum of the majority credits (ties: fractional)
    majority_accuracy: float | None
    mean_accuracy: float | None
    mean_agreement: float | None
    unanimous: int  # questions whose replied samples all gave one usable answer
    items: list[SampleItem] = field(default_factory=list)
    ties: int = 0  # questions whose majority is a tie
    chance_agreement: float | None = None  # a uniform random answerer's, at the run's unusable share
    unusable_share: float | None = None  # unusable replies among the replied samples
    majority_low: float | None = None  # Wilson 95 %
    majority_high: float | None = None
    mean_low: float | None = None  # t 95 % over questions
    mean_high: float | None = None
    gap: float | None = None  # majority - mean accuracy (paired, per question)
    gap_low: float | None = None  # t 95 % over questions
    gap_high: float | None = None

    @property
    def agreement_label(self) -> str:
        return "consistency across option orders" if self.shuffled else "agreement among samples"


def _t_interval(values: list[float]) -> tuple[float | None, float | None]:
    """t 95 % interval of a mean (statsmodels); None with fewer than 2 values, the point when all equal."""
    from statsmodels.stats.weightstats import DescrStatsW

    if len(values) < 2:
        return None, None
    x = np.asarray(values, dtype=float)
    if np.all(x == x[0]):
        return float(x[0]), float(x[0])
    low, high = DescrStatsW(x).tconfint_mean(alpha=0.05)
    return float(low), float(high)


def _chance(replied: list[int], unusable: float) -> float | None:
    """Chance agreement averaged over the questions, each at its number of replied samples."""
    if not replied:
        return None
    levels = {k: stats.chance_agreement(k, unusable=unusable) for k in set(replied) if k > 0}
    return sum(levels.get(k, 0.0) for k in replied) / len(replied)


def sample_run(run: Run, votes: list[SampleVote], keyed: list[Question]) -> SampleRun:
    """The vote figures of one run over the keyed questions it answered (in bank order)."""
    K = int(run.params.get("samples") or 1)
    by_uid = {v.chosen.uid: v for v in votes}
    items = []
    for q in keyed:
        v = by_uid.get(q.uid)
        if v is None or q.key is None:
            continue
        answers = list(v.answers)
        right = sum(a == q.key for a in answers)
        items.append(SampleItem(q.uid, q.key, answers, v.answer, v.agreement, v.chosen.sample,
                                v.answer == q.key, right / len(answers),  # of the samples stored
                                list(v.tied), float(v.credit(q.key))))
    n = len(items)
    mine = {i.uid for i in items}
    replied = [v.asked for v in votes if v.chosen.uid in mine]
    usable = sum(sum(1 for a in i.answers if a) for i in items)
    share = 1 - usable / sum(replied) if sum(replied) else None
    agreements = [i.agreement for i in items if i.agreement is not None]
    credit = sum(i.credit for i in items)
    majority = credit / n if n else None
    mean = sum(i.mean_right for i in items) / n if n else None
    out = SampleRun(run.id, run.model, K, run.params.get("shuffle_seed") is not None, n, credit,
                    majority, mean, sum(agreements) / len(agreements) if agreements else None,
                    sum(i.agreement == 1.0 and i.majority != 0 for i in items), items,
                    ties=sum(len(i.tied) > 1 for i in items), unusable_share=share,
                    chance_agreement=_chance(replied, share or 0.0))
    if majority is not None and mean is not None:  # n > 0
        # fractional credit (ties); stats.wilson is annotated int but takes any count
        out.majority_low, out.majority_high = stats.wilson(credit, n) or (None, None)  # type: ignore[arg-type]
        out.mean_low, out.mean_high = _t_interval([i.mean_right for i in items])
        out.gap = majority - mean
        out.gap_low, out.gap_high = _t_interval([i.credit - i.mean_right for i in items])
    return out
