"""Item analysis as a table, CSV rows and JSON-ready data (`persian-tui items`, report sections)."""

from __future__ import annotations

from dataclasses import asdict

from .csv_text import csv_text
from .items import ItemRow

CSV_HEADER = ["uid", "source", "source_id", "key", "flags", "runs_n", "runs_difficulty",
              "runs_discrimination", "runs_distractors", "humans_n", "humans_difficulty",
              "humans_discrimination", "humans_distractors", "evidence"]


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _distractors(d: dict[int, list[str]]) -> str:
    return " ".join(f"{o}:{len(who)}" for o, who in sorted(d.items()))


def item_dict(row: ItemRow) -> dict:
    d = asdict(row)
    for g in ("runs", "humans"):
        d[g]["distractors"] = {str(o): who for o, who in d[g]["distractors"].items()}
    return d


def item_csv(rows: list[ItemRow]) -> str:
    return csv_text(CSV_HEADER, [[r.uid, r.source, r.source_id, r.key, " ".join(r.flags), r.runs.n,
                                  r.runs.difficulty, r.runs.discrimination, _distractors(r.runs.distractors),
                                  r.humans.n, r.humans.difficulty, r.humans.discrimination,
                                  _distractors(r.humans.distractors),
                                  "; ".join(f"{f}: {r.evidence[f]}" for f in r.flags)] for r in rows])


TABLE_HEADER = ["question", "source", "key", "runs p", "runs disc", "wrong picks (runs)",
                "humans p", "humans disc", "flags"]


def item_table_rows(rows: list[ItemRow]) -> list[list[str]]:
    return [[r.uid, f"{r.source or '—'} {r.source_id or ''}".strip(), str(r.key),
             _f(r.runs.difficulty), _f(r.runs.discrimination), _distractors(r.runs.distractors),
             _f(r.humans.difficulty), _f(r.humans.discrimination), ", ".join(r.flags) or "—"]
            for r in rows]


INDEPENDENCE_NOTE = ("The flags' binomial p-values treat the runs as independent respondents; runs of one "
                     "model family are not, so a p-value overstates the evidence: a flag asks a person "
                     "to look, it is not a finding.")


def flag_summary(rows: list[ItemRow]) -> str:
    from .items import FLAGS

    counts = {f: sum(f in r.flags for r in rows) for f in FLAGS}
    return f"{len(rows)} question(s): " + ", ".join(f"{n} {f}" for f, n in counts.items())
