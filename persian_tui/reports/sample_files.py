"""Repeated samples as table rows, CSV and a report section (`persian-tui samples`, reports)."""

from __future__ import annotations

from ..display import interval, signed_interval
from .csv_text import csv_text
from .samples import SampleRun

SUMMARY_HEADER = ["run", "model", "K", "questions", "majority acc", "95 %", "mean acc", "95 %",
                  "majority − mean", "95 %", "agreement", "chance", "unanimous", "ties", "agreement is"]
ITEM_HEADER = ["run_id", "uid", "key", "answers", "majority", "agreement", "chosen_sample",
               "majority_right", "mean_right", "tied", "credit"]


def _f(x: float | None, pct: bool = True) -> str:
    return "—" if x is None else (f"{x:.1%}" if pct else f"{x:.2f}")


def _pts(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:+.1f} pt"


def summary_rows(runs: list[SampleRun]) -> list[list[str]]:
    return [[f"#{r.run_id}", r.model, str(r.samples), str(r.questions), _f(r.majority_accuracy),
             interval(r.majority_low, r.majority_high, " %"), _f(r.mean_accuracy),
             interval(r.mean_low, r.mean_high, " %"), _pts(r.gap),
             signed_interval(r.gap_low, r.gap_high), _f(r.mean_agreement), _f(r.chance_agreement),
             f"{r.unanimous}/{r.questions}", str(r.ties), r.agreement_label] for r in runs]


def answers_text(answers: list[int]) -> str:
    """A question's samples, e.g. '2 2 - 3' (- = unusable or failed)."""
    return " ".join(str(a) if a else "-" for a in answers)


def item_rows(run: SampleRun) -> list[list]:
    return [[run.run_id, i.uid, i.key, answers_text(i.answers), i.majority or "", i.agreement,
             i.chosen, int(i.majority_right), i.mean_right, " ".join(map(str, i.tied)), i.credit]
            for i in run.items]


def items_csv(runs: list[SampleRun]) -> str:
    return csv_text(ITEM_HEADER, [row for r in runs for row in item_rows(r)])


def summary_csv(runs: list[SampleRun]) -> str:
    return csv_text(["run_id", "model", "samples", "shuffled", "questions", "majority_correct",
                     "majority_accuracy", "majority_low", "majority_high", "mean_accuracy", "mean_low",
                     "mean_high", "gap", "gap_low", "gap_high", "mean_agreement", "chance_agreement",
                     "unanimous", "ties"],
                    [[r.run_id, r.model, r.samples, int(r.shuffled), r.questions, r.majority_correct,
                      r.majority_accuracy, r.majority_low, r.majority_high, r.mean_accuracy, r.mean_low,
                      r.mean_high, r.gap, r.gap_low, r.gap_high, r.mean_agreement, r.chance_agreement,
                      r.unanimous, r.ties] for r in runs])


def least_consistent(run: SampleRun, n: int) -> list:
    """The questions whose samples agree least (then uid)."""
    return sorted((i for i in run.items if i.agreement is not None and i.agreement < 1),
                  key=lambda i: (i.agreement, i.uid))[:n]
