"""Linking, similar couplets and search on a full-size corpus, this version against an old one
in the same run (issue 33: the book linked in <= 30 s, similar couplets <= 100 ms, search
<= 20 ms at the export's 1.49 M couplets).

Run: python bench/bench_link.py DB [--base DIR] [--old-questions N] [--questions N] [--rounds R]
  DB    a corpus database built by `bench_corpus.py`'s generated export (e.g. 220,000 poems,
        /work/bench-data/full.db); copied to a temporary folder for each version (never written)
  DIR   the old version's checkout (default /tmp/base-link: `git -C MAIN archive HEAD | tar -x -C DIR`)
  R     rounds (default 1), the versions in turn, the first alternating; the median time of the
        book linked as saved, wall and CPU (both threads), per version
The book-like bank: 573 questions, 2,292 options drawn from the couplets of the sample's real
poets (the export's first copy, verbatim): 80 % verbatim, 13 % with their hemistichs swapped,
3 % one letter damaged, 1 % split (halves of two couplets), 1 % one hemistich and a made-up
one, 2 % made up of corpus words (not in the corpus). Each version, in a process of its own:
the bank saved (its options linked as they are saved: the question import), then `corpus link
--force`, similar couplets on 12 of the drawn couplets (after one call that imports
scikit-learn), 14 searches; then 200 edition variants (below) linked one by one. The old version
takes the first --old-questions (100) questions only (its linking took ~150 ms per option at this
size); per option figures compare.
Edition variants (what the full book lost with the key lookup, issue 39): couplets of the real
poets with a ZWNJ in each hemistich, written as the book's PDF writes them (a space for each
ZWNJ) and one word of each hemistich replaced by a word of another couplet.
Prints figures with the load average; asserts nothing."""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = 573


def draw(conn, questions: int, rng: random.Random):
    """[(uid, [(m1, m2)] * 4)] and {(uid, position): (poem path, couplet index)} for the options
    made from a corpus couplet (verbatim, swapped, damaged)."""
    real = conn.execute(
        "SELECT c.id, c.mesra1, c.mesra2, p.path, c.idx FROM corpus_couplets c "
        "JOIN corpus_poems p ON p.id = c.poem_id JOIN corpus_poets pt ON pt.id = p.poet_id "
        "WHERE c.mesra2 != '' AND pt.slug NOT GLOB '*[0-9]' ORDER BY c.id").fetchall()
    picked = rng.sample(real, questions * 4 + 40)
    words = [w for r in picked[-40:] for w in (r[1] + " " + r[2]).split()]
    made_from, bank = {}, []
    for q in range(questions):
        options = []
        for pos in range(1, 5):
            _, m1, m2, path, idx = picked[q * 4 + pos - 1]
            kind, uid = rng.random(), f"b-{q:04d}"
            if kind < 0.80:
                made_from[(uid, pos)] = (path, idx)
            elif kind < 0.93:
                m1, m2 = m2, m1
                made_from[(uid, pos)] = (path, idx)
            elif kind < 0.96:
                i = rng.randrange(1, len(m1) - 1)
                m1 = m1[:i] + m1[i + 1:] if rng.random() < 0.5 else m1[:i] + m1[i] + m1[i:]
                made_from[(uid, pos)] = (path, idx)
            elif kind < 0.97:
                m2 = picked[(q * 4 + pos) % (questions * 4)][2]
            elif kind < 0.98:
                m2 = " ".join(rng.sample(words, 6))
            else:
                m1, m2 = " ".join(rng.sample(words, 6)), " ".join(rng.sample(words, 6))
            options.append((m1, m2))
        bank.append((f"b-{q:04d}", options))
    return bank, made_from, picked


def variants(conn, n: int, rng: random.Random) -> list[tuple[str, str, tuple[str, int]]]:
    """(m1, m2, (poem path, couplet index)): n edition variants in the book's spacing."""
    real = conn.execute(
        "SELECT c.mesra1, c.mesra2, p.path, c.idx FROM corpus_couplets c "
        "JOIN corpus_poems p ON p.id = c.poem_id JOIN corpus_poets pt ON pt.id = p.poet_id "
        "WHERE c.mesra1 LIKE '%‌%' AND c.mesra2 LIKE '%‌%' AND pt.slug NOT GLOB '*[0-9]' "
        "ORDER BY c.id").fetchall()
    picked = rng.sample(real, n + 20)
    words = [w for r in picked[n:] for w in (r[0] + " " + r[1]).split() if len(w) > 2]

    def changed(h: str) -> str:
        ws = h.replace("‌", " ").split()
        ws[rng.randrange(len(ws))] = rng.choice(words)
        return " ".join(ws)

    return [(changed(m1), changed(m2), (path, idx)) for m1, m2, path, idx in picked[:n]]


def worker(db: str, questions: int) -> dict:
    """In a process whose persian_tui is the version to measure."""
    from persian_tui.models import Option, Question
    from persian_tui.store import Store
    from persian_tui.text import warm_up

    warm_up()
    out: dict = {"code": str(Path(sys.modules["persian_tui"].__file__).parents[1])}
    tmp = Path(tempfile.mkdtemp(prefix="ptui-bench-link-"))
    try:
        shutil.copy(db, tmp / "c.db")
        t = time.perf_counter()
        store = Store(tmp / "c.db")  # this version's migrations
        out["open_s"] = time.perf_counter() - t
        out["couplets"] = store.conn.execute("SELECT COUNT(*) FROM corpus_couplets").fetchone()[0]
        bank, made_from, picked = draw(store.conn, QUESTIONS, random.Random(33))
        bank = bank[:questions]
        qs = [Question(uid=uid, key=1, status="ready", options=[Option(i + 1, m1, m2) for i, (m1, m2) in
                                                                enumerate(opts)]) for uid, opts in bank]
        out["options"] = 4 * len(qs)
        out["load_before"] = os.getloadavg()
        t, cpu = time.perf_counter(), time.process_time()
        store.questions.add_questions(qs)  # linked as they are saved (the question import)
        out["import_s"], out["import_cpu"] = time.perf_counter() - t, time.process_time() - cpu
        out["import_links"] = _links(store, made_from)
        t, cpu = time.perf_counter(), time.process_time()
        counts = store.links.link_questions(force=True)
        out["force_s"], out["force_cpu"] = time.perf_counter() - t, time.process_time() - cpu
        out["force_counts"] = {k: v for k, v in counts.items()}
        out["force_links"] = _links(store, made_from)
        out["decisions"] = {f"{uid}/{pos}": [link.status, link.method, link.couplet.poem if link.couplet else None,
                                             link.couplet.couplet if link.couplet else None]
                            for uid, per in store.links.links().items() for pos, link in per.items()}
        out["load_link"] = os.getloadavg()
        drawn = variants(store.conn, 200, random.Random(39))
        store.links._df, store.links._and_df = {}, {}  # word counts kept, as link_questions keeps them
        t = time.perf_counter()
        decided = [store.links.link_option(m1, m2) for m1, m2, _ in drawn]
        out["variants_s"] = time.perf_counter() - t
        out["variants_linked"] = sum(d.status == "linked" for d in decided)
        out["variants_right"] = sum(d.status == "linked" and d.candidate is not None
                                    and (d.candidate.poem, d.candidate.index) == tuple(where)
                                    for d, (_, _, where) in zip(decided, drawn))
        out["variants_n"] = len(drawn)

        from persian_tui.corpus.similar import similar_couplets

        couplets = [(r[1], r[2]) for r in picked[:13]]
        similar_couplets(store, *couplets[0])  # imports scikit-learn
        times = []
        for m1, m2 in couplets[1:]:
            t = time.perf_counter()
            similar_couplets(store, m1, m2)
            times.append(time.perf_counter() - t)
        out["similar_ms"] = [x * 1000 for x in times]
        words = [w for r in picked[20:40] for w in r[1].split() if len(w) > 3]
        searches = words[:6] + [" ".join(words[i:i + 2]) for i in range(6, 12, 2)] + \
            [" ".join(words[i:i + 4]) for i in range(12, 24, 4)] + ["و", "دل"]
        times = []
        for q in searches:
            t = time.perf_counter()
            store.corpus.search_couplets(q, limit=50)
            times.append(time.perf_counter() - t)
        out["search_ms"] = [x * 1000 for x in times]
        out["load_after"] = os.getloadavg()
        store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _links(store, made_from: dict) -> dict:
    """Statuses, and of the options made from a corpus couplet how many link to it."""
    links = store.links.links()
    statuses: dict[str, int] = {}
    for per in links.values():
        for link in per.values():
            statuses[link.status] = statuses.get(link.status, 0) + 1
    right = sum(1 for (uid, pos), where in made_from.items()
                if (link := links.get(uid, {}).get(pos)) and link.status == "linked" and link.couplet
                and (link.couplet.poem, link.couplet.couplet) == where)
    asked = sum(1 for uid, _ in made_from if uid in links)
    return {"statuses": statuses, "made_from_corpus": asked, "linked_to_it": right}


def run(version: Path, db: str, questions: int) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        env = {**os.environ, "PYTHONPATH": str(version)}
        subprocess.run([sys.executable, __file__, "--worker", db, str(questions), f.name], env=env, check=True,
                       cwd=version)
        return json.loads(Path(f.name).read_text())


def report(name: str, r: dict) -> None:
    n = r["options"]
    sim, search = r["similar_ms"], r["search_ms"]
    load = "/".join(f"{x:.1f}" for x in r["load_link"][:1] + r["load_after"][:1])
    print(f"{name}: {r['code']} ({r['couplets']:,} couplets; opening {r['open_s']:.1f} s, migrations included)")
    for path in ("import", "force"):
        links, secs = r[f"{path}_links"], r[f"{path}_s"]
        book = f" (the book's 2,292 at that pace: {secs / n * 2292:.0f} s)" if n < 2292 else ""
        print(f"  link {n:,} options ({'question import' if path == 'import' else 'corpus link --force'}): "
              f"{secs:.1f} s ({r.get(path + '_cpu', 0):.1f} s CPU, both threads), "
              f"{secs / n * 1000:.1f} ms per option{book}; "
              f"{links['statuses']}; of {links['made_from_corpus']:,} made from a corpus couplet, "
              f"{links['linked_to_it']:,} linked to it "
              f"({links['linked_to_it'] / max(links['made_from_corpus'], 1):.1%})")
    if "variants_n" in r:
        print(f"  {r['variants_n']} edition variants in the book's spacing: {r['variants_linked']} linked, "
              f"{r['variants_right']} to their couplet; {r['variants_s']:.1f} s "
              f"({r['variants_s'] / r['variants_n'] * 1000:.1f} ms per option)")
    print(f"  similar couplets: median {statistics.median(sim):.0f} ms, worst {max(sim):.0f} ms (12 couplets)")
    print(f"  search: median {statistics.median(search):.1f} ms, worst {max(search):.1f} ms "
          f"({len(search)} searches)")
    print(f"  load average (1 min) after linking / at the end: {load}")


def main(argv: list[str]) -> None:
    db = argv[0]
    base = Path(argv[argv.index("--base") + 1]) if "--base" in argv else Path("/tmp/base-link")
    old_q = int(argv[argv.index("--old-questions") + 1]) if "--old-questions" in argv else 100
    new_q = int(argv[argv.index("--questions") + 1]) if "--questions" in argv else QUESTIONS
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 1
    print(f"bench_link: {db}; load average {os.getloadavg()[0]:.1f}", flush=True)
    rows: dict = {}
    times: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
    for n in range(rounds):  # in turn, the first version alternating: the load moves on a shared machine
        for name in (("old", "new") if n % 2 == 0 else ("new", "old")):
            if name == "old" and not old_q:
                continue
            rows[name] = run(base if name == "old" else ROOT, db, old_q if name == "old" else new_q)
            report(f"{name} (round {n + 1} of {rounds})" if rounds > 1 else name, rows[name])
            r = rows[name]
            times[name].append((r["import_s"] / r["options"], r["import_cpu"] / r["options"]))
    if rounds > 1 and old_q:
        for i, what in enumerate(("wall", "CPU")):
            o, w = (statistics.median(t[i] for t in times[k]) for k in ("old", "new"))
            print(f"median over {rounds} rounds, the book linked as saved, {what}: old {o * 1000:.1f} ms, "
                  f"new {w * 1000:.1f} ms per option: new / old {w / o:.2f}x")
    if "old" in rows:
        old, new = rows["old"], rows["new"]
        for path in ("import", "force"):
            print(f"ratio, {path}: {old[path + '_s'] / old['options'] / (new[path + '_s'] / new['options']):.2f}x "
                  "less time per option")
        both = sorted(set(old["decisions"]) & set(new["decisions"]))
        differ = [k for k in both if old["decisions"][k] != new["decisions"][k]]
        print(f"links after --force, the {len(both):,} options both linked: {len(both) - len(differ):,} the same "
              f"(status, method, couplet); {len(differ)} differ")
        for k in differ[:12]:
            print(f"  {k}: old {old['decisions'][k]} new {new['decisions'][k]}")
        med = {k: statistics.median(old[k]) / statistics.median(new[k]) for k in ("similar_ms", "search_ms")}
        print(f"ratio, similar couplets: {med['similar_ms']:.1f}x; search: {med['search_ms']:.1f}x (medians)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        sys.path.insert(0, os.environ["PYTHONPATH"])
        result = worker(sys.argv[2], int(sys.argv[3]))
        Path(sys.argv[4]).write_text(json.dumps(result))
    else:
        main(sys.argv[1:])
