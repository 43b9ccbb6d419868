"""The report's Items tab: every keyed question's item analysis, the most serious flag first
(reports/items.py sorts them: suspect_key, low_agreement, too_hard, low_discrimination,
weak_distractor, too_easy, then unflagged)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import DataTable, Static

from ... import display
from ...reports.items import FLAGS, ItemRow

FLAG_STYLE = {"suspect_key": "bold red", "low_agreement": "yellow", "too_hard": "magenta",
              "low_discrimination": "cyan", "weak_distractor": "dim", "too_easy": "dim"}



def _cut(text: str, width: int) -> str:
    text = display.line(text)  # uids and evidence come from data
    return text if len(text) <= width else text[: width - 1] + "…"


def item_note(rows: list[ItemRow], uid: str) -> str:
    """What the pop-up says of one question: its flags and their evidence."""
    row = next((r for r in rows if r.uid == uid), None)
    if row is None or not row.flags:
        return f"{uid}: no flag"
    return f"{uid}: " + "; ".join(f"{f}: {row.evidence[f]}" for f in row.flags)


def fill_items(table: DataTable[Any], note: Static, rows: list[ItemRow],
               source_ids: dict[str, str] | None = None) -> None:
    ids = source_ids or {}
    table.clear(columns=True)
    for label, key in (("question", "uid"), ("flags", "flags"), ("runs p", "rp"), ("runs disc", "rd"),
                       ("humans p", "hp"), ("evidence (most serious flag)", "evidence")):
        table.add_column(Text(label, justify="right") if key in ("rp", "rd", "hp") else label, key=key)
    for r in rows:
        flags = Text(", ".join(r.flags) or "—", style=FLAG_STYLE.get(r.flags[0], "") if r.flags else "dim",
                     no_wrap=True)
        table.add_row(_cut(display.question_id(r.uid, ids.get(r.uid)), 20), flags,
                      Text(display.figure(r.runs.difficulty, "{:.2f}"), justify="right"),
                      Text(display.figure(r.runs.discrimination, "{:.2f}"), justify="right"),
                      Text(display.figure(r.humans.difficulty, "{:.2f}"), justify="right"),
                      _cut(r.evidence[r.flags[0]], 70) if r.flags else "", key=r.uid)
    counts = {f: sum(f in r.flags for r in rows) for f in FLAGS}
    note.update(f"{len(rows)} keyed question(s), most serious flag first: "
                + ", ".join(f"{n} {f}" for f, n in counts.items())
                + ". p = share right, disc = rest-score point-biserial. Enter shows the question; "
                  "flagged open questions wait in adjudication with this evidence.")
