"""How long a large import holds the write lock, and how long a small writer (an annotator saving
one label) waits meanwhile: the import as it is (normalized before the lock, bulk inserts, batches)
against the old way (normalization inside one transaction), in the same run.

    python bench/bench_locks.py [N]        # N questions, default 100000
"""

from __future__ import annotations

import json
import multiprocessing as mp
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import write_bank  # noqa: E402

from persian_tui.bank import jsonl  # noqa: E402
from persian_tui.store import Store  # noqa: E402
from persian_tui.store.rows import insert_questions, prepare  # noqa: E402


def small_writer(db: str, stop, waits, failed) -> None:
    """One label every 20 ms, each in its own transaction; records how long it waited
    (a label refused as "database busy" after the 10 s busy timeout is counted as failed)."""
    from persian_tui.store import StoreError

    with Store(db) as store:
        store.questions.add_questions([jsonl.from_record({**json.loads(LINE), "uid": "w-1",
                                                          "source": {"name": "w", "id": "1"}})])
        while not stop.is_set():
            start = time.perf_counter()
            try:
                store.labels.add_label("w-1", "annotator", 1)
            except StoreError:
                failed.append(1)
            waits.append(time.perf_counter() - start)
            time.sleep(0.02)


def measure(db: Path, questions, *, old: bool) -> tuple[float, float, float, int, int]:
    """(import seconds, longest lock hold, small writer's longest wait, its writes, refused)."""
    with mp.Manager() as manager:
        stop, waits, failed = manager.Event(), manager.list(), manager.list()
        proc = mp.Process(target=small_writer, args=(str(db), stop, waits, failed))
        proc.start()
        time.sleep(1.0)
        holds = []
        start = time.perf_counter()
        with Store(db) as store:
            if old:  # as before: normalize and insert inside one transaction
                t = time.perf_counter()
                with store.tx() as conn:
                    insert_questions(conn, [prepare(q) for q in questions])
                holds.append(time.perf_counter() - t)
            else:
                real = store.tx

                def timed_tx():
                    class Timed:
                        def __enter__(self):
                            self.cm = real()
                            self.conn = self.cm.__enter__()
                            self.t = time.perf_counter()
                            return self.conn

                        def __exit__(self, *exc):
                            out = self.cm.__exit__(*exc)
                            holds.append(time.perf_counter() - self.t)
                            return out
                    return Timed()

                store.tx = timed_tx
                store.imports.add_new_questions(questions)
        took = time.perf_counter() - start
        time.sleep(0.5)
        stop.set()
        proc.join()
        return took, max(holds), max(waits), len(waits) - len(failed), len(failed)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    folder = Path(tempfile.mkdtemp())
    write_bank(folder / "bank.jsonl", n)
    lines = (folder / "bank.jsonl").read_text("utf-8").splitlines()
    global LINE
    LINE = lines[0]
    questions = [jsonl.from_record(json.loads(line)) for line in lines]
    print(f"{n} questions; a small writer saves one label every 20 ms in another process")
    results = {}
    for name, old in (("now", False), ("old", True)):
        for q in questions:
            q.created_at = q.updated_at = None
        from persian_tui import text
        from persian_tui.models import keys

        for module in (text, keys):  # the same cold caches for both ways
            for value in vars(module).values():
                if hasattr(value, "cache_clear"):
                    value.cache_clear()
        db = folder / f"{name}.db"
        Store(db).close()
        results[name] = measure(db, questions, old=old)
        took, hold, wait, writes, refused = results[name]
        print(f"  {name:>3}: import {took:6.1f} s · longest lock hold {hold:5.2f} s · "
              f"small writer's longest wait {wait:5.2f} s ({writes} labels saved, {refused} refused busy)")
    print(f"longest hold: {results['old'][1] / results['now'][1]:.1f}x shorter; longest wait of the "
          f"small writer: {results['old'][2] / max(results['now'][2], 1e-6):.1f}x shorter")


LINE = ""

if __name__ == "__main__":
    main()
