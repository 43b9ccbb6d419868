"""Import, dedupe, normalization, search and bank-screen speed on a generated 10,000-question bank.

Run: python bench/bench_bank.py [N]   (prints figures; asserts nothing)"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import write_bank  # noqa: E402

from persian_tui.bank.importer import apply_import, plan_import  # noqa: E402
from persian_tui.store import Store  # noqa: E402
from persian_tui.text import normalize, search_terms, warm_up  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def sql_search(store: Store, text: str) -> list[str]:
    """The baseline: every word looked for with SQLite's instr() in the compacted search text."""
    terms = search_terms(text)
    where = " AND ".join(["instr(replace(replace(replace(search_text, char(8204), ''), "
                          "char(8205), ''), ' ', ''), ?) > 0"] * len(terms)) or "1"
    return [r["uid"] for r in store.conn.execute(f"SELECT uid FROM questions WHERE {where} ORDER BY id", terms)]


def main(n: int = 10_000) -> None:
    warm_up()  # hazm's import (~1 s) is start-up, not import work
    tmp = Path(tempfile.mkdtemp(prefix="ptui-bench-"))
    bank = write_bank(tmp / "bank.jsonl", n)
    print(f"persian-tui bank benchmark: {n:,} generated questions ({bank.stat().st_size / 1e6:.1f} MB JSONL)")

    # 1. full import: parse, validate, normalize, dedupe against the bank and the file, one transaction
    with Store(tmp / "a.db") as store:
        t_plan, plan = timed(lambda: plan_import(store, bank))
        t_apply, added = timed(lambda: apply_import(store, plan))
        assert added == n, plan.summary()
    total = t_plan + t_apply
    # baseline: the floor - the same rows bulk-inserted with no parsing checks, normalization or dedupe
    rows = [json.loads(line) for line in bank.read_text("utf-8").splitlines()]
    with Store(tmp / "b.db") as floor:
        def raw_insert():
            with floor.tx():
                for i, r in enumerate(rows):
                    floor.conn.execute(
                        "INSERT INTO questions (uid, stem, key, status, created_at, updated_at, fingerprint) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (r["uid"], r["stem"], r["key"], r["status"], r["created_at"], r["updated_at"], str(i)))
                    qid = floor.conn.execute("SELECT last_insert_rowid()").fetchone()[0]
                    floor.conn.executemany(
                        "INSERT INTO options (question_id, position, mesra1, mesra2, match_key) VALUES (?,?,?,?,'')",
                        [(qid, o["position"], o["mesra1"], o["mesra2"]) for o in r["options"]])
        t_floor, _ = timed(raw_insert)
    print(f"import {n:,}: {total:.2f} s (plan {t_plan:.2f} s + write {t_apply:.2f} s), "
          f"{n / total:,.0f} questions/s   [target < 5 s]")
    print(f"  baseline raw INSERTs without checks/dedupe: {t_floor:.2f} s "
          f"-> import costs {total / t_floor:.1f}x the floor")

    # 2. re-import of the same file (idempotent: everything unchanged)
    with Store(tmp / "a.db") as store:
        t_re, plan = timed(lambda: plan_import(store, bank))
    print(f"re-import (all unchanged: {plan.counts['unchanged']:,}): {t_re:.2f} s")

    # 3. the normalizer: hazm's per-character steps compiled into one translate table vs hazm itself
    from hazm import Normalizer

    hz = Normalizer(correct_spacing=False, remove_diacritics=True, remove_specials_chars=True,
                    decrease_repeated_chars=False, persian_style=False, persian_numbers=True,
                    unicodes_replacement=True, seperate_mi=False)
    texts = [o["mesra1"] for r in rows[:2000] for o in r["options"]]
    t_ours, _ = timed(lambda: [normalize.__wrapped__(t) for t in texts])  # uncached
    t_hazm, _ = timed(lambda: [hz.normalize(t) for t in texts])
    print(f"normalize: {t_ours / len(texts) * 1e6:.1f} us/hemistich vs hazm.Normalizer "
          f"{t_hazm / len(texts) * 1e6:.1f} us -> {t_hazm / t_ours:.0f}x faster")

    # 4. near-duplicate lookup: inverted index vs scoring every question (rapidfuzz either way)
    from rapidfuzz import fuzz

    with Store(tmp / "a.db") as store:
        index = store.questions.duplicate_index()
    probes = [index._keys[f"gen-{i:06d}"] for i in range(0, n, max(1, n // 50))]
    t_idx, _ = timed(lambda: [index.query(k) for k in probes])
    everything = list(index._keys.values())
    t_brute, _ = timed(lambda: [[max(fuzz.ratio(a, b) for b in other) for a in k for other in everything]
                                for k in probes[:5]])
    per_idx, per_brute = t_idx / len(probes), t_brute / 5
    print(f"near-duplicate lookup in {n:,}: {per_idx * 1e3:.2f} ms vs brute force {per_brute * 1e3:.0f} ms "
          f"-> {per_brute / per_idx:.0f}x faster")


    # 5. incremental search: in memory (BankSearch, what the TUI uses) vs SQLite instr()
    from persian_tui.access import Access, solo
    from persian_tui.bank.search import BankSearch

    admin, blind = solo(), Access("ali", "annotator")
    with Store(tmp / "a.db") as store:
        search = BankSearch(store)
        t_read, _ = timed(lambda: search.entries(True))
        t_read_blind, _ = timed(lambda: search.entries(False))  # an annotator's: built from what they see
        prefixes = ["ع", "عش", "عشق", "عشق د", "عشق دل"]
        t_mem, _ = timed(lambda: [search.uids(p, who=admin) for p in prefixes])
        t_blind, _ = timed(lambda: [search.uids(p, who=blind) for p in prefixes])
        t_sql, _ = timed(lambda: [sql_search(store, p) for p in prefixes])
    print(f"search filter over {n:,}: {t_mem / len(prefixes) * 1e3:.1f} ms per keystroke in memory vs "
          f"{t_sql / len(prefixes) * 1e3:.1f} ms with SQL instr() -> {t_sql / t_mem:.0f}x faster")
    print(f"  an annotator's (blind) search: {t_blind / len(prefixes) * 1e3:.1f} ms per keystroke; its texts "
          f"read in {t_read_blind * 1e3:.0f} ms vs {t_read * 1e3:.0f} ms for the full ones "
          f"({t_read_blind / t_read:.2f}x; once per change of the database)")

    # 6. the bank screen, headless (Textual run_test at 120x40): start and search keystrokes
    import asyncio

    from tui_measure import measure, report  # bench/tui_measure.py (bench code stays out of the package)

    result = asyncio.run(measure(tmp / "a.db", query="عشق"))
    print("\n".join(report(result, "عشق")))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
