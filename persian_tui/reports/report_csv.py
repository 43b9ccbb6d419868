"""The evaluation report (reports/figures.py) as CSV files: one per table (reports/csv_text.py
writes each)."""

from __future__ import annotations

from dataclasses import asdict

from .csv_text import csv_text as _csv
from .figures import Report
from .memory_files import memory_csvs
from .sweep_costs import sweep_csvs


def _items_csv(report: Report) -> str:
    from .item_files import item_csv

    return item_csv(report.items)


def _samples_csvs(report: Report) -> dict[str, str]:
    """samples.csv and sample_items.csv, only when a run was asked several times."""
    from .sample_files import items_csv, summary_csv

    if not report.samples:
        return {}
    return {"samples.csv": summary_csv(report.samples), "sample_items.csv": items_csv(report.samples)}


def render_csvs(report: Report) -> dict[str, str]:
    """file name -> CSV text."""
    lb = ["run_id", "model", "kind", "answered", "answered_correct", "answered_accuracy",
          "answered_low", "answered_high", "rank_low", "rank_high", "rank_low_simultaneous",
          "rank_high_simultaneous", "invalid", "usable_accuracy",
          "usable_low", "usable_high", "key_baseline", "correct", "total", "shared_invalid", "accuracy",
          "wilson_low", "wilson_high", "boot_low", "boot_high", "tokens_in", "tokens_out", "latency_mean",
          "cost", "ties", "ability", "ability_low", "ability_high", "whole_accuracy", "whole_low", "whole_high"]
    pair_cols = ["a", "b", "n", "a_only", "b_only", "p_exact", "p_holm", "diff", "diff_low",
                 "diff_high", "diff_low_simultaneous", "diff_high_simultaneous", "mde", "mde_adjusted",
                 "n_needed", "n_needed_adjusted", "in_family", "disagree"]
    runs, matrix = report.agreement
    rank = {r.run_id: r.rank for r in report.leaderboard}
    return {
        "leaderboard.csv": _csv(["rank"] + lb + ["letters"],
                                [[rank[r.run_id]] + [getattr(r, c) for c in lb] + [r.letters]
                                 for r in report.leaderboard]),
        "pairs.csv": _csv(pair_cols, [[getattr(p, c) for c in pair_cols] for p in report.pairs]),
        "breakdowns.csv": _csv(["dimension", "value", "run_id", "correct", "total", "accuracy"],
                               [list(asdict(b).values()) for b in report.breakdowns]),
        "position.csv": _csv(["run_id", "chosen_1", "chosen_2", "chosen_3", "chosen_4", "key_1", "key_2",
                              "key_3", "key_4", "chi2", "p", "chi2_uniform", "p_uniform"],
                             [[p.run_id, *p.chosen, *p.keys, p.chi2, p.p, p.chi2_uniform, p.p_uniform]
                              for p in report.position]),
        "confusion.csv": _csv(["run_id", "key", "chose_1", "chose_2", "chose_3", "chose_4", "invalid"],
                              [[r, k, *row] for r, m in report.confusion.items()
                               for k, row in enumerate(m, 1)]),
        "agreement.csv": _csv(["run_id"] + [str(r) for r in runs],
                              [[r, *row] for r, row in zip(runs, matrix)]),
        "clusters.csv": _csv(["run_id", "unit", "questions", "clusters", "se", "se_unclustered",
                              "design_effect", "null_low", "null_high", "reading"],
                             [[*asdict(c).values(), c.reading] for c in report.clusters]),
        "baseline.csv": _csv(["questions", "keys", "key_1", "key_2", "key_3", "key_4", "correct", "total",
                              "share", "wilson_low", "wilson_high"],
                             [[name, b.label, *b.counts, b.correct, b.total, b.share, b.low, b.high]
                              for name, b in (("keyed", report.baseline), ("shared", report.shared_baseline))
                              if b is not None]),
        "items.csv": _items_csv(report),
        **_samples_csvs(report),
        **memory_csvs(report.memory),
        **sweep_csvs(report.sweep),
        "hardest.csv": _csv(["uid", "solved", "runs", "common_wrong", "common_wrong_count"],
                            [list(asdict(h).values()) for h in report.hardest]),
        "human.csv": _csv(["annotator", "correct", "total", "accuracy", "wilson_low", "wilson_high"],
                          [[a.annotator, a.correct, a.total, a.accuracy, a.low, a.high]
                           for a in report.human]),
    }
