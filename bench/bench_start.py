"""First contact: time from start to a filled bank (new database with the sample, and a
10,000-question bank), and the first search against the second.

Each start runs in a fresh Python process (imports included, as a user meets them), headless.
Run: python bench/bench_start.py [N]   (prints figures; asserts nothing)"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

CHILD = r"""
import asyncio, json, sys, time
t0 = time.perf_counter()
from persian_tui.tui.app import PersianTUI
db, sample, query = sys.argv[1], sys.argv[2] == "1", sys.argv[3]

async def main():
    app = PersianTUI(db, "app", sample=sample, db_label="bench.db")
    async with app.run_test(size=(120, 40)) as pilot:
        while app.bank is None or app.bank.loaded_at is None:
            await asyncio.sleep(0.001)
        first_paint = (app.bank.loaded_at - t0) * 1000
        rows = len(app.bank.matches)
        bank = app.bank
        searches = []
        for text in (query, query[:-1] or query, query):  # first, then other searches
            t = time.perf_counter()
            bank.search = text
            bank.refresh_rows()
            searches.append((time.perf_counter() - t) * 1000)
        hazm = "hazm" in sys.modules
    print(json.dumps({"first_paint_ms": first_paint, "rows": rows, "searches_ms": searches,
                      "hazm_loaded": hazm}))

asyncio.run(main())
"""


def start(db: Path, sample: bool, query: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(db), "1" if sample else "0", query],
                         capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(n: int = 10_000) -> None:
    from generate import write_bank

    from persian_tui.bank.importer import apply_import, plan_import
    from persian_tui.store import Store

    tmp = Path(tempfile.mkdtemp(prefix="ptui-start-"))
    query = "عشق"
    new = start(tmp / "new.db", True, query)
    print(f"new database (sample imported before the first paint): start -> {new['rows']} rows "
          f"painted {new['first_paint_ms']:.0f} ms; hazm imported: {new['hazm_loaded']}")
    bank = write_bank(tmp / "bank.jsonl", n)
    with Store(tmp / "big.db") as store:
        apply_import(store, plan_import(store, bank))
    big = start(tmp / "big.db", False, query)
    print(f"{n:,}-question database: start -> {big['rows']:,} matches, first rows painted "
          f"{big['first_paint_ms']:.0f} ms")
    # baseline measured now: what a start paid before the table shipped (building it with hazm)
    code = ("import time; t = time.perf_counter(); from persian_tui.text import {f}; {f}({a}); "
            "print((time.perf_counter() - t) * 1000)")
    cost = {f: float(subprocess.run([sys.executable, "-c", code.format(f=f, a=a)], capture_output=True,
                                    text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, check=True).stdout)
            for f, a in (("build_table", "True"), ("_table", "True"))}
    print(f"  normalizer table: shipped JSON {cost['_table']:.0f} ms vs built with hazm "
          f"{cost['build_table']:.0f} ms (the baseline: {cost['build_table'] / cost['_table']:.0f}x)")
    first, second, third = big["searches_ms"]
    print(f"  search {query!r} on {n:,}: first {first:.1f} ms, next {second:.1f} ms, "
          f"{third:.1f} ms (first/next {first / max(second, 0.01):.2f}x)   [target first < 150 ms]")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
