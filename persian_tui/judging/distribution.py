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
    final_verdicts: dict[str, int] = field(default_factory=dict)  # the reviewer's where reviewed, else the judge's
    flagged: int = 0  # flagged as key problems (sent to adjudication)
    notes: int = 0  # with a reviewer's note


@dataclass
class Review:
    """One judgment a reviewer acted on: the judge's verdict and the one in force after review."""

    uid: str
    target_run: int
    judge_run: int
    model: str
    judge_verdict: str | None
    judge_category: str | None
    final_verdict: str | None
    final_category: str | None
    reviewer: str | None
    note: str | None
    flagged: bool
    flag_note: str | None


@dataclass
class JudgeAgreement:
    reviewed: int  # reviewed judgments (the runs' `reviewed`, summed)
    verdict_kappa: float | None
    verdict_agree: int
    category_kappa: float | None
    category_items: int
    category_agree: int
    compared: int = 0  # reviewed judgments with a judge verdict: the verdict kappa's items


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
        d.flagged += j.flagged
        d.notes += bool(j.review_note or j.flag_note)
        verdict = j.review_verdict if j.reviewed else j.verdict
        category = j.review_category if j.reviewed else j.error_category
        if verdict:
            d.final_verdicts[verdict] = d.final_verdicts.get(verdict, 0) + 1
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
        reviewed=sum(j.reviewed for j in rows), compared=len(pairs),
        verdict_kappa=stats.cohen_kappa([a for a, _ in pairs], [b for _, b in pairs], labels=verdicts),
        verdict_agree=sum(a == b for a, b in pairs),
        category_kappa=stats.cohen_kappa([a for a, _ in cats], [b for _, b in cats], labels=categories),
        category_items=len(cats), category_agree=sum(a == b for a, b in cats))


def reviews(rows: list[JudgmentRow]) -> list[Review]:
    """The judgments a reviewer acted on (a verdict, a note or a flag), in the rows' order."""
    return [Review(j.uid, j.target_run, j.run_id, j.model, j.verdict, j.error_category,
                   j.review_verdict if j.reviewed else j.verdict,
                   j.review_category if j.reviewed else j.error_category,
                   j.reviewer, j.review_note, j.flagged, j.flag_note)
            for j in rows if j.reviewed or j.flagged or j.review_note]


def most_common(counts: dict[str, int]) -> list[tuple[str, int]]:
    return Counter(counts).most_common()
