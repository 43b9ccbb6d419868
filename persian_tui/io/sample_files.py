"""Repeated samples as table rows, CSV and a report section (`persian-tui samples`, reports)."""

from __future__ import annotations

import csv
import io

from ..eval.samples import SampleRun

SUMMARY_HEADER = ["run", "model", "K", "questions", "majority acc", "mean acc", "agreement",
                  "unanimous", "agreement is"]
ITEM_HEADER = ["run_id", "uid", "key", "answers", "majority", "agreement", "chosen_sample",
               "majority_right", "mean_right"]


def _f(x: float | None, pct: bool = True) -> str:
    return "—" if x is None else (f"{x:.1%}" if pct else f"{x:.2f}")


def summary_rows(runs: list[SampleRun]) -> list[list[str]]:
    return [[f"#{r.run_id}", r.model, str(r.samples), str(r.questions), _f(r.majority_accuracy),
             _f(r.mean_accuracy), _f(r.mean_agreement), f"{r.unanimous}/{r.questions}",
             r.agreement_label] for r in runs]


def answers_text(answers: list[int]) -> str:
    """A question's samples, e.g. '2 2 - 3' (- = unusable or failed)."""
    return " ".join(str(a) if a else "-" for a in answers)


def item_rows(run: SampleRun) -> list[list]:
    return [[run.run_id, i.uid, i.key, answers_text(i.answers), i.majority or "", i.agreement,
             i.chosen, int(i.majority_right), i.mean_right] for i in run.items]


def items_csv(runs: list[SampleRun]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(ITEM_HEADER)
    for r in runs:
        for row in item_rows(r):
            w.writerow(["" if c is None else (f"{c:.6g}" if isinstance(c, float) else c) for c in row])
    return buf.getvalue()


def summary_csv(runs: list[SampleRun]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["run_id", "model", "samples", "shuffled", "questions", "majority_correct",
                "majority_accuracy", "mean_accuracy", "mean_agreement", "unanimous"])
    for r in runs:
        w.writerow([r.run_id, r.model, r.samples, int(r.shuffled), r.questions, r.majority_correct,
                    *("" if x is None else f"{x:.6g}" for x in (r.majority_accuracy, r.mean_accuracy,
                                                                r.mean_agreement)), r.unanimous])
    return buf.getvalue()


def least_consistent(run: SampleRun, n: int) -> list:
    """The questions whose samples agree least (then uid)."""
    return sorted((i for i in run.items if i.agreement is not None and i.agreement < 1),
                  key=lambda i: (i.agreement, i.uid))[:n]
