"""Bulk inserts of prepared questions (questions, options, source references) inside one write
transaction: sqlite-utils' insert_all (what the store uses) against hand-written executemany
statements (what it used before), in the same run, on fresh databases.

    python bench/bench_inserts.py [N]        # N questions, default 20000
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import write_bank  # noqa: E402

from persian_tui.io import jsonl  # noqa: E402
from persian_tui.store import Store  # noqa: E402
from persian_tui.store.questions import Prepared, _rows_of  # noqa: E402


def executemany(store: Store, rows: list[Prepared]) -> None:
    """The previous hand-written inserts (positional tuples, one statement per table)."""
    q_cols = list(rows[0].row)
    store.conn.executemany(f"INSERT INTO questions ({', '.join(q_cols)}) VALUES ({', '.join('?' * len(q_cols))})",
                           [tuple(p.row[c] for c in q_cols) for p in rows])
    ids = dict(store.conn.execute("SELECT uid, id FROM questions"))
    store.conn.executemany(
        "INSERT INTO options (question_id, position, mesra1, mesra2, poet, match_key) VALUES (?, ?, ?, ?, ?, ?)",
        [(ids[p.uid], o["position"], o["mesra1"], o["mesra2"], o["poet"], o["match_key"])
         for p in rows for o in p.options])
    store.conn.executemany(
        "INSERT OR IGNORE INTO question_sources (question_id, source_name, source_id, file, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        [(ids[p.uid], s["source_name"], s["source_id"], s["file"], s["created_at"]) for p in rows for s in p.sources])


def timed(folder: Path, name: str, rows: list[Prepared], insert) -> float:
    with Store(folder / f"{name}.db") as store:
        start = time.perf_counter()
        with store.tx():
            insert(store, rows)
        took = time.perf_counter() - start
        counts = [store.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                  for t in ("questions", "options", "question_sources")]
    assert counts == [len(rows), 4 * len(rows), len(rows)], counts
    return took


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    folder = Path(tempfile.mkdtemp())
    write_bank(folder / "bank.jsonl", n)
    questions = [jsonl.from_record(json.loads(line))
                 for line in (folder / "bank.jsonl").read_text("utf-8").split("\n") if line]
    rows = [_rows_of(q) for q in questions]  # normalized once, outside the timing
    print(f"{n} questions (+{4 * n} options, {n} references) in one transaction")
    best = {}
    for name, insert in (("insert_all", lambda s, r: s._insert_rows(r)), ("executemany", executemany)):
        best[name] = min(timed(folder, f"{name}{i}", rows, insert) for i in range(3))
        print(f"  {name:>11}: {best[name]:.2f} s (best of 3)")
    print(f"sqlite-utils insert_all takes {best['insert_all'] / best['executemany']:.2f}x the time of executemany")


if __name__ == "__main__":
    main()
