"""The memory section (reports/memory.py) as text, Markdown and CSV rows: the report's files and
the TUI report's Memory tab read these."""

from __future__ import annotations

from ..display import interval, p_value, percent, points, signed_interval
from .csv_text import csv_text as _csv
from .memory import Memory

RECALL_HEADER = ["run", "model", "cue", "format", "probes", "complete", "partial", "none", "recalled",
                 "recalled 95 %"]
CHANCE_HEADER = ["run", "model", "cue", "probes", "right picks", "chance", "above chance", "95 %",
                 "p (guessing)"]
SPLIT_HEADER = ["model", "recall run", "outlier run", "acc. recalled", "n", "acc. not recalled", "n",
                "difference", "Newcombe 95 %", "Fisher p"]
COUPLET_HEADER = ["question", "option", "outlier", "models", "recalled", "rate", "by"]
COUPLETS_SHOWN = 20
NOTE = ("Recalled = complete or partial (GhazalBench: edit distance within 1-3 characters by length, or "
        "character error rate <= 0.2). A question counts as recalled by a model when its outlier couplet "
        "is; accuracy on those against the others is an association, not a cause: remembered couplets "
        "may also be the famous, easier ones. Per-couplet figures count only runs in which the model "
        "wrote the hemistich (format complete): a pick among four is right one time in four by guessing, "
        "so a choose run is read against chance as a whole.")
CHANCE_NOTE = ("A choose run's right picks against guessing: above chance = (share - chance) / (1 - chance), "
               "the correction for guessing; p = the chance of at least as many right picks by guessing alone "
               "(exact).")


def recall_rows(memory: Memory) -> list[list[str]]:
    return [[f"#{r.run_id}", r.model, r.cue, r.format, str(r.probes),
             percent(r.rates.get("complete")), percent(r.rates.get("partial")), percent(r.rates.get("none")),
             percent(r.rates.get("recalled")), interval(r.low.get("recalled"), r.high.get("recalled"))]
            for r in memory.runs]


def chance_rows(memory: Memory) -> list[list[str]]:
    return [[f"#{r.run_id}", r.model, r.cue, str(r.probes), str(r.complete), percent(r.chance),
             percent(r.above_chance), signed_interval(r.above_low, r.above_high), p_value(r.p_chance)]
            for r in memory.runs if r.chance is not None]


def split_rows(memory: Memory) -> list[list[str]]:
    return [[s.model, f"#{s.recall_run}", f"#{s.outlier_run}", percent(s.recalled_accuracy), str(s.recalled),
             percent(s.other_accuracy), str(s.other),
             points(s.difference),
             signed_interval(s.diff_low, s.diff_high), p_value(s.p_value)] for s in memory.splits]


def couplet_rows(memory: Memory, limit: int | None = COUPLETS_SHOWN) -> list[list[str]]:
    """The recalled couplets, most recalled first (the CSV keeps every probed one)."""
    ranked = sorted((c for c in memory.couplets if c.recalled),
                    key=lambda c: (-(c.rate or 0), not c.outlier, c.uid, c.position))
    return [[c.uid, str(c.position), "yes" if c.outlier else "", str(c.models), str(c.recalled),
             percent(c.rate), ", ".join(c.by)] for c in ranked[:limit]]


def memory_text(memory: Memory | None, table, *, md: bool = False) -> list[str]:
    """The section's lines; `table(header, rows)` draws a table (text or Markdown)."""
    if memory is None:
        return []
    out = ["", "## Memory" if md else "== Memory (recall probes: persian-tui run recall)", "", NOTE, ""]
    out += table(RECALL_HEADER, recall_rows(memory))
    if rows := chance_rows(memory):
        out += ["", "### Recognition against chance" if md else "-- Recognition against chance (choose runs)", "",
                CHANCE_NOTE, ""]
        out += table(CHANCE_HEADER, rows)
    if memory.splits:
        out += ["", "### Accuracy by recall" if md else "-- Accuracy by recall (same model, same questions)", ""]
        out += table(SPLIT_HEADER, split_rows(memory))
    if any(c.recalled for c in memory.couplets):
        out += ["", "### Most recalled couplets" if md else "-- Most recalled couplets (across models)", ""]
        out += table(COUPLET_HEADER, couplet_rows(memory))
    if memory.from_memory:
        out += ["", f"Answerable from memory: {len(memory.from_memory)} question(s) whose outlier couplet most "
                "probed models recall: " + ", ".join(sorted(memory.from_memory)[:20])
                + (" ..." if len(memory.from_memory) > 20 else "")]
    return out


REPLY_CHARS = 2000  # of a probe's reply in probes.csv (the database keeps it whole)


def probes_csv(memory: Memory) -> str:
    """One row per probe of the report's recall runs: its cue, the reply, score and CER."""
    return _csv(["run_id", "uid", "position", "poet", "poem", "couplet", "status", "score", "cer", "gold", "cue",
                 "choices", "answer", "predicted", "reply"],
                [[run_id, p.uid, p.position, p.poet, p.poem, p.couplet, p.status, p.score, p.cer, p.gold, p.cue,
                  " | ".join(p.choices or []), p.answer, p.predicted, (p.reply or "")[:REPLY_CHARS]]
                 for run_id, probes in memory.probes.items() for p in probes])


def memory_csvs(memory: Memory | None) -> dict[str, str]:
    """recall.csv, memory_split.csv, couplet_recall.csv and probes.csv (none without a recall run)."""
    if memory is None:
        return {}
    rates = ("complete", "partial", "none", "recalled")
    return {
        "recall.csv": _csv(["run_id", "model", "cue", "format", "status", "probes", "complete", "partial", "none",
                            *[f"{k}_{x}" for k in rates for x in ("rate", "low", "high")],
                            "chance", "above_chance", "above_low", "above_high", "p_chance"],
                           [[r.run_id, r.model, r.cue, r.format, r.status, r.probes, r.complete, r.partial, r.none,
                             *[d.get(k) for k in rates for d in (r.rates, r.low, r.high)],
                             r.chance, r.above_chance, r.above_low, r.above_high, r.p_chance] for r in memory.runs]),
        "memory_split.csv": _csv(["model", "recall_run", "outlier_run", "recalled", "recalled_correct",
                                  "recalled_accuracy", "recalled_low", "recalled_high", "other", "other_correct",
                                  "other_accuracy", "other_low", "other_high", "difference", "diff_low",
                                  "diff_high", "p_fisher"],
                                 [[s.model, s.recall_run, s.outlier_run, s.recalled, s.recalled_correct,
                                   s.recalled_accuracy, s.recalled_low, s.recalled_high, s.other, s.other_correct,
                                   s.other_accuracy, s.other_low, s.other_high, s.difference, s.diff_low,
                                   s.diff_high, s.p_value] for s in memory.splits]),
        "couplet_recall.csv": _csv(["uid", "position", "outlier", "models", "recalled", "rate", "by",
                                    "from_memory"],
                                   [[c.uid, c.position, int(c.outlier), c.models, c.recalled, c.rate,
                                     " | ".join(c.by), int(c.outlier and c.uid in memory.from_memory)]
                                    for c in memory.couplets]),
        "probes.csv": probes_csv(memory),
    }
