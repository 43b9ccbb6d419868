"""One CSV writer for every file of the report (its tables, the items', the samples', the
memory section's): a header row, then rows; None is an empty cell, a float is rounded to 6
significant digits and written as that number's shortest form (a non-finite one empty, never NaN
or Infinity)."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence


def rounded(x: float | None) -> float | None:
    """A float rounded to 6 significant digits (stable text in every output); a non-finite
    one is missing (None, shown "—"), never NaN or Infinity in a report."""
    return None if x is None or not math.isfinite(x) else float(f"{x:.6g}")


def _cell(c: object) -> object:
    if isinstance(c, float):
        c = rounded(c)
        return "" if c is None else repr(c)
    return "" if c is None else c


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow([_cell(c) for c in row])
    return buf.getvalue()
