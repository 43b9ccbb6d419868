"""Fresh questions from the corpus: how fast `corpus propose` makes candidates, and how hard they are
for the TF-IDF baseline against the book's questions.

  speed       the cost of a seed with TF-IDF on a generated export (the excerpt's poets copied
              with shuffled words, bench_corpus.make_export) of POEMS poems lengthened to the real
              export's 11.2 couplets a poem (default 132,538 poems: its 1.49 M couplets), with a
              bank of BANK questions made of corpus couplets (their poems are never drawn);
              baseline in the same run: a naive exhaustive pairing (each seed compared with every
              drawable couplet of the corpus, TF-IDF fitted on them all), timed on a few seeds.
              Checked on every candidate: four poems, none holding a bank couplet, provenance.
              Against the code before the TF-IDF counts were read once (bench_propose_old.py) in
              the same run, on the same database: CPU a seed, ratio, the same candidates.
  difficulty  on the Ganjoor excerpt (real text) with the seed's questions imported (the book's):
              the TF-IDF baseline (the project's embedder fitted on a set's texts, centroid scorer,
              as `run embed tfidf` scores) on the book's questions and on COUNT candidates taken
              as if all accepted: accuracy, Wilson 95 % intervals, Fisher's exact test (one-sided:
              are candidates easier?).

Run: python bench/bench_propose.py [POEMS] [SEEDS] [BANK] [COUNT] [--db DB]   (prints figures; asserts nothing)
     python bench/bench_propose.py difficulty [COUNT]         (the difficulty part only)
The rate at the full size: seeds a candidate (on the excerpt's real text) x a seed's cost (at
the full size); --db reuses a database the speed part built before (kept when a run is killed)."""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_corpus import AVERAGE, SAMPLE, make_export  # noqa: E402
from bench_propose_old import old_code  # noqa: E402

from persian_tui.access import solo  # noqa: E402
from persian_tui.corpus import ganjoor  # noqa: E402
from persian_tui.corpus.propose import propose  # noqa: E402
from persian_tui.models import Option, Question  # noqa: E402
from persian_tui.store import Store  # noqa: E402
from persian_tui.text import warm_up  # noqa: E402

SEED_BOOK = Path("/work/shared/seed-data/benchmark_dataset.json")
NAIVE_SEEDS = 3  # seeds the exhaustive baseline is timed on
NAIVE_SAMPLE = 100_000  # drawable couplets it is timed on (scaled to all)


def load(where: str) -> str:
    import os

    return f"load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else where


def bank_of_corpus_couplets(store: Store, n: int, rng: random.Random) -> None:
    rows = store.conn.execute("SELECT mesra1, mesra2 FROM corpus_couplets WHERE mesra2 != '' "
                              "ORDER BY random() LIMIT ?", (n * 4,)).fetchall()
    store.questions.add_questions([Question(uid=f"b-{i:05d}", key=1, status="ready", options=[
        Option(p, *rows[i * 4 + p - 1]) for p in range(1, 5)]) for i in range(len(rows) // 4)])


def shape(store: Store) -> list:
    """The candidates as made: their couplets, outlier and reasons (every similarity)."""
    return [[(x.poem, x.couplet) for x in c.couplets] + [c.outlier, c.reasons] for c in store.candidates.candidates()]


def check(store: Store) -> tuple[int, int]:
    """(candidates, those with four poems, full provenance and no bank poem or couplet)."""
    banned, keys = store.candidates.bank_poems(), store.candidates.bank_keys()
    paths = {r[0]: r[1] for r in store.conn.execute("SELECT path, id FROM corpus_poems")}
    good = 0
    made = store.candidates.candidates()
    for c in made:
        from persian_tui.store.candidates import halves_key
        from persian_tui.text import corpus_key

        ok = len({x.poem for x in c.couplets}) == 4 and all(
            x.poet and x.poem and x.title is not None and paths[x.poem] not in banned
            and halves_key(corpus_key(x.mesra1), corpus_key(x.mesra2)) not in keys for x in c.couplets)
        good += ok
    return len(made), good


def naive_seconds_per_seed(store: Store, seeds: int, rng: random.Random) -> tuple[float, int, int]:
    """The exhaustive pairing: the drawable couplets read and embedded (TF-IDF fitted on them),
    each seed compared with all. Timed on at most NAIVE_SAMPLE of them and scaled to all (its
    cost grows with their number; a fit on 1.49 M texts does not fit in this machine's memory
    beside the others' work): (seconds per seed at the full size, couplets timed, drawable)."""
    import numpy as np

    from persian_tui.runs.embedders import TfidfEmbedder

    banned = store.candidates.bank_poems()
    rows = [r for r in store.conn.execute("SELECT poem_id, mesra1, mesra2 FROM corpus_couplets WHERE mesra2 != ''")
            if r[0] not in banned]
    timed = rng.sample(rows, min(NAIVE_SAMPLE, len(rows)))
    t = time.perf_counter()
    m = TfidfEmbedder.fitted_sparse([f"{r[1]} {r[2]}" for r in timed])
    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1), dtype=np.float32).ravel())
    norms[norms == 0] = 1.0
    for _ in range(seeds):
        i = rng.randrange(len(timed))
        sims = (m @ m[i].T).toarray().ravel() / (norms * norms[i])
        np.argsort(-sims)[:12]  # the nearest, from which the three are chosen
    return (time.perf_counter() - t) / seeds * len(rows) / len(timed), len(timed), len(rows)


def speed(poems: int, seeds: int, bank: int, db: Path | None = None) -> None:
    """The cost of a seed at the full size (building the export unless `db` is one built
    before), and the naive pairing's. The generated copies' shuffled words make them poor
    material (a couplet's copies are the same words in another order), so how many seeds a
    candidate takes is measured on real text (difficulty, below)."""
    warm_up()
    rng = random.Random(7)
    tmp = Path(tempfile.mkdtemp(prefix="ptui-bench-propose-"))
    try:
        if db is None:
            export = tmp / "export"
            t = time.perf_counter()
            made = make_export(export, poems, rng, couplets=round(poems * AVERAGE))
            db = tmp / "propose.db"
            with Store(db) as store:
                ganjoor.import_corpus(store, export)
                bank_of_corpus_couplets(store, bank, rng)
            print(f"export: {made:,} poems, built and imported in {time.perf_counter() - t:.0f} s ({load('')})")
        with Store(db) as store:
            couplets = store.conn.execute("SELECT COUNT(*) FROM corpus_couplets").fetchone()[0]
            print(f"corpus: {couplets:,} couplets; bank of corpus couplets: "
                  f"{len(store.candidates.bank_poems()):,} poems excluded")
            runs = {}
            for name in ("current", "before", "current again"):  # the cache warmed for both
                store.conn.execute("DELETE FROM candidates")
                store.conn.commit()
                with old_code(name == "before"):
                    result = propose(store, solo("bench"), seeds, seed=1, tries=seeds)
                total, good = check(store)
                runs[name] = (result, shape(store))
                wall, cpu = result.seconds / result.tried, result.cpu_seconds / result.tried
                print(f"corpus propose ({name}), {result.tried} seeds at this size (tfidf): {wall * 1000:.0f} ms a "
                      f"seed wall, {cpu * 1000:.0f} ms CPU ({load('')}); {total} candidates made from the shuffled "
                      f"copies, {good} with four poems, full provenance and no bank couplet")
            cpu = min(runs[n][0].cpu_seconds / runs[n][0].tried for n in ("current", "current again"))
            wall = min(runs[n][0].seconds / runs[n][0].tried for n in ("current", "current again"))
            before = runs["before"][0]
            print(f"  the counts read once: {before.cpu_seconds / before.tried / cpu:.2f}x less CPU a seed than "
                  f"before ({before.seconds / before.tried / wall:.2f}x wall); the same candidates: "
                  f"{runs['current'][1] == runs['before'][1] == runs['current again'][1]}")
            SEED_COST.update(cpu_before=before.cpu_seconds / before.tried)
            per_seed, timed, drawable = naive_seconds_per_seed(store, NAIVE_SEEDS, rng)
            print(f"baseline, exhaustive pairing: {per_seed:.1f} s a seed at {drawable:,} drawable couplets "
                  f"(timed on {timed:,}, the fit shared by {NAIVE_SEEDS} seeds, scaled): "
                  f"{per_seed / wall:.0f}x a seed of corpus propose (wall)")
            SEED_COST.update(wall=wall, cpu=cpu, naive=per_seed)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


SEED_COST: dict[str, float] = {}  # a seed's cost at the full size (speed), for the rate estimate


def tfidf_accuracy(questions: list[list[str]], keys: list[int]) -> tuple[int, int]:
    """The TF-IDF baseline as `run embed tfidf` scores a set: fitted on the set's texts, centroid."""
    import numpy as np

    from persian_tui.runs.embedders import make_embedder
    from persian_tui.runs.outlier import predict

    texts = sorted({t for q in questions for t in q})
    embedder = make_embedder("tfidf", corpus=texts)
    index = {t: i for i, t in enumerate(texts)}
    vectors = embedder.embed(texts)
    E = np.stack([vectors[[index[t] for t in q]] for q in questions])
    picked, _ = predict(E, "centroid")
    return int(sum(int(p) == k for p, k in zip(picked, keys))), len(keys)


def difficulty(count: int) -> None:
    from scipy.stats import fisher_exact

    from persian_tui.bank.importer import apply_import, plan_import  # as `persian-tui import` does
    from persian_tui.runs.embedding import couplet_text
    from persian_tui.stats import wilson

    if not SEED_BOOK.is_file() or not SAMPLE.is_dir():
        print("difficulty: needs the seed's book and the Ganjoor excerpt (not here)")
        return
    tmp = Path(tempfile.mkdtemp(prefix="ptui-bench-difficulty-"))
    try:
        with Store(tmp / "d.db") as store:
            apply_import(store, plan_import(store, SEED_BOOK), skip_invalid=True)
            ganjoor.import_corpus(store, SAMPLE)
            store.links.link_questions()
            book = [q for q in store.questions.questions() if q.key]
            with old_code():  # before the counts were read once: the time, and the same candidates
                before = propose(store, solo("bench"), count, seed=1)
            made_before = shape(store)
            store.conn.execute("DELETE FROM candidates")
            store.conn.commit()
            result = propose(store, solo("bench"), count, seed=1)
            print(f"difficulty on the excerpt, before the counts were read once: {len(before.ids)} candidates in "
                  f"{before.cpu_seconds:.1f} s CPU ({len(before.ids) / before.cpu_seconds * 60:.1f} a CPU minute); "
                  f"now {result.cpu_seconds:.1f} s: {before.cpu_seconds / result.cpu_seconds:.2f}x; the same "
                  f"candidates: {made_before == shape(store)}")
            cands = store.candidates.candidates()
            sets = {
                "book": ([[couplet_text(o.mesra1, o.mesra2) for o in q.options] for q in book], [q.key for q in book]),
                "candidates": ([[couplet_text(x.mesra1, x.mesra2) for x in c.couplets] for c in cands],
                               [c.outlier for c in cands]),
            }
            figures = {name: tfidf_accuracy(*s) for name, s in sets.items()}
            per = result.tried / max(len(result.ids), 1)
            print(f"difficulty on the excerpt: {len(result.ids)} candidates ({result.seconds:.1f} s, "
                  f"{result.cpu_seconds:.1f} s CPU = {len(result.ids) / result.cpu_seconds * 60:.1f} a CPU minute; "
                  f"{result.tried} seeds tried, {per:.2f} a candidate; {load('')})")
            if SEED_COST:
                print(f"  at the full size: {per:.2f} seeds a candidate x {SEED_COST['cpu'] * 1000:.0f} ms CPU a seed "
                      f"= {60 / (per * SEED_COST['cpu']):.1f} candidates a CPU minute (before: "
                      f"{60 / (per * SEED_COST['cpu_before']):.1f}) "
                      f"({60 / (per * SEED_COST['wall']):.1f} a minute at this run's load); the exhaustive "
                      f"pairing: {60 / (per * SEED_COST['naive']):.2f} a minute")
            for name, (right, n) in figures.items():
                low, high = wilson(right, n) or (0.0, 0.0)
                print(f"  TF-IDF baseline on the {name}: {right}/{n} = {right / n:.1%} "
                      f"(Wilson 95 % {low:.1%}–{high:.1%})")
            (cr, cn), (br, bn) = figures["candidates"], figures["book"]
            _, p = fisher_exact([[cr, cn - cr], [br, bn - br]], alternative="greater")
            print(f"  Fisher's exact test, candidates easier than the book (one-sided): p = {p:.3f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "difficulty":
        difficulty(int(args[1]) if len(args) > 1 else 100)
    else:
        db = Path(args.pop(args.index("--db") + 1)) if "--db" in args else None
        if "--db" in args:
            args.remove("--db")
        speed(int(args[0]) if args else 132_538, int(args[1]) if len(args) > 1 else 40,
              int(args[2]) if len(args) > 2 else 250, db)
        difficulty(int(args[3]) if len(args) > 3 else 100)
