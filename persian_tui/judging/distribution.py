"""Error analysis: the category distribution per judged run (judge and human-reviewed), and
how well the judge agrees with the reviewers."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .. import stats
from ..models import JudgmentRow


@dataclass
class Distribution:
    target_run: int
    model: str
    judged: int
    unscored: int
    errors: int
    verdicts: dict[str, int] = field(default_factory=dict)  # the judge's
    categories: dict[str, int] = field(default_factory=dict)  # the judge's, flawed answers
    reviewed: int = 0
    final_categories: dict[str, int] = field(default_factory=dict)  # a review overrides the judge


@dataclass
class JudgeAgreement:
    reviewed: int
    verdict_kappa: float | None
    verdict_agree: int
    category_kappa: float | None
    category_items: int
    category_agree: int


def distributions(rows: list[JudgmentRow]) -> list[Distribution]:
    out: dict[int, Distribution] = {}
    for j in rows:
        d = out.setdefault(j.target_run, Distribution(j.target_run, j.model, 0, 0, 0))
        d.judged += 1
        d.unscored += j.status == "unscored"
        d.errors += j.status == "api_error"
        if j.verdict:
            d.verdicts[j.verdict] = d.verdicts.get(j.verdict, 0) + 1
        if j.verdict == "flawed" and j.error_category:
            d.categories[j.error_category] = d.categories.get(j.error_category, 0) + 1
        d.reviewed += j.reviewed
        verdict = j.review_verdict if j.reviewed else j.verdict
        category = j.review_category if j.reviewed else j.error_category
        if verdict == "flawed" and category:
            d.final_categories[category] = d.final_categories.get(category, 0) + 1
    return [out[k] for k in sorted(out)]


def judge_agreement(rows: list[JudgmentRow]) -> JudgeAgreement:
    """Cohen's kappa between the judge and the reviewers' decisions on reviewed judgments
    (accepting the judge counts as agreeing)."""
    pairs = [(j.verdict, j.review_verdict) for j in rows if j.reviewed and j.verdict and j.review_verdict]
    cats = [(j.error_category or "none", j.review_category or "none") for j in rows
            if j.reviewed and j.verdict == "flawed" and j.review_verdict == "flawed"]
    verdicts = sorted({v for p in pairs for v in p})
    categories = sorted({c for p in cats for c in p})
    return JudgeAgreement(
        reviewed=len(pairs),
        verdict_kappa=stats.cohen_kappa([a for a, _ in pairs], [b for _, b in pairs], labels=verdicts),
        verdict_agree=sum(a == b for a, b in pairs),
        category_kappa=stats.cohen_kappa([a for a, _ in cats], [b for _, b in cats], labels=categories),
        category_items=len(cats), category_agree=sum(a == b for a, b in cats))


def most_common(counts: dict[str, int]) -> list[tuple[str, int]]:
    return Counter(counts).most_common()
