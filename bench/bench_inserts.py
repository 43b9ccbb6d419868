"""Bulk inserts of prepared questions (questions, options, source references: rows as dicts by
column name) inside one write transaction: the store's insert_many (one executemany per table)
against sqlite-utils' insert_all, in the same run, on fresh databases. Decides which one the
store uses inside the write lock.

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

import sqlite_utils  # noqa: E402
from generate import write_bank  # noqa: E402

from persian_tui.bank import jsonl  # noqa: E402
from persian_tui.store import Store  # noqa: E402
from persian_tui.store.rows import Prepared, insert_questions, prepare  # noqa: E402


def insert_all(store: Store, rows: list[Prepared]) -> None:
    """The same rows through sqlite-utils (nested in the store's transaction as a savepoint)."""
    db = sqlite_utils.Database(store.conn)
    db["questions"].insert_all([p.row for p in rows])
    ids = {r["uid"]: r["id"] for r in store.conn.execute("SELECT uid, id FROM questions")}
    db["options"].insert_all([{"question_id": ids[p.uid], **o} for p in rows for o in p.options])
    db["question_sources"].insert_all([{"question_id": ids[p.uid], **s} for p in rows for s in p.sources],
                                      ignore=True)


def timed(folder: Path, name: str, rows: list[Prepared], insert) -> float:
    with Store(folder / f"{name}.db") as store:
        start = time.perf_counter()
        with store.tx():
            insert(store, rows)
        took = time.perf_counter() - start
        counts = [store.conn.execute(f"SELECT COUNT(*) AS n FROM {t}").fetchone()["n"]
                  for t in ("questions", "options", "question_sources")]
    assert counts == [len(rows), 4 * len(rows), len(rows)], counts
    return took


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    folder = Path(tempfile.mkdtemp())
    write_bank(folder / "bank.jsonl", n)
    questions = [jsonl.from_record(json.loads(line))
                 for line in (folder / "bank.jsonl").read_text("utf-8").split("\n") if line]
    rows = [prepare(q) for q in questions]  # normalized once, outside the timing
    print(f"{n} questions (+{4 * n} options, {n} references) in one transaction, best of 3 (alternating)")
    times: dict[str, list[float]] = {"insert_many": [], "insert_all": []}
    for i in range(3):
        times["insert_many"].append(timed(folder, f"many{i}", rows, lambda s, r: insert_questions(s.conn, r)))
        times["insert_all"].append(timed(folder, f"all{i}", rows, insert_all))
    best = {k: min(v) for k, v in times.items()}
    for name, t in best.items():
        print(f"  {name:>11}: {t:.2f} s")
    print(f"sqlite-utils insert_all takes {best['insert_all'] / best['insert_many']:.2f}x the time of "
          "the store's executemany")


if __name__ == "__main__":
    main()
