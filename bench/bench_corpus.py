"""Corpus speed: import (poems/s, longest write-lock hold), linking 10,000 questions, word search.

Each figure has a baseline measured in the same run:
  import  batched short transactions vs one transaction for the whole import (lock held throughout),
          each while an annotator in another process saves a label every 20 ms (its longest wait)
  link    FTS-blocked fuzzy candidates vs brute force (every couplet scored), per option
  search  the FTS5 index vs a LIKE scan of the normalized text
The export is generated: the poems of ../shared/ganjoor-sample (else the test fixture) copied
under new poet names with their words shuffled, until there are POEMS poems.

Run: python bench/bench_corpus.py [POEMS] [QUESTIONS]   (prints figures; asserts nothing)
     python bench/bench_corpus.py cost [POEMS] [QUESTIONS] [--baseline DIR] [--ways now,...]
       import cost: time, bytes written per byte stored, every write transaction's hold, while
       an annotator in another process saves a label every 20 ms; then linking QUESTIONS (250)
       questions. POEMS defaults to the real export's 132,538 files (one of them a masnavi of
       50,000 couplets; the generated poems lengthened to its 1.49 M couplets). Ways, each a
       fresh process importing into a new database, in turn: `now` (this version, worker
       processes by default), `now-0` (this version, files read in the importing process),
       `baseline` (the code of DIR, e.g. main's: `git -C ../main archive HEAD | tar -x -C DIR`),
       and `FTS5 merging`, `old way` (this version with FTS5's own merging / as before issue 20).
       Default: now, now-0 and, with --baseline, baseline. The load average is printed with each."""

from __future__ import annotations

import json
import multiprocessing as mp
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
CODE = os.environ.get("PTUI_BENCH_CODE") or str(ROOT)  # the persian_tui measured (a baseline's: another tree)
sys.path.insert(0, CODE)

from persian_tui.corpus import ganjoor  # noqa: E402
from persian_tui.models import Option, Question  # noqa: E402
from persian_tui.store import Store  # noqa: E402
from persian_tui.text import warm_up  # noqa: E402

SAMPLE = ROOT.parent.parent / "shared" / "ganjoor-sample"
if not SAMPLE.is_dir():
    SAMPLE = Path("/work/shared/ganjoor-sample")
SOURCE = SAMPLE if SAMPLE.is_dir() else ROOT / "tests" / "data" / "ganjoor-mini"


EXPORT_POEMS, EXPORT_COUPLETS = 132_538, 1_490_000  # the real export's poem files and couplets
AVERAGE = EXPORT_COUPLETS / EXPORT_POEMS  # couplets per poem: 11.2 (the sample's poems have 6.4)
_VERSE = ("Right", "Left", "CenteredVerse1", "CenteredVerse2")


def make_export(dest: Path, poems: int, rng: random.Random, couplets: int | None = None) -> int:
    """Copies of SOURCE's poets: the first copy verbatim, later ones with shuffled words and
    each poem lengthened (its couplets repeated, words shuffled anew) so that the export holds
    about `couplets` couplets (default: the real export's average of 11.2 a poem; 0: no
    lengthening). Deterministic for a given rng seed."""
    files = sorted(p for p in (SOURCE / "poets").rglob("*.json") if p.name not in ("poet.json", "_cat.json"))
    texts = {f: f.read_text("utf-8") for f in files}
    lengths = {f: len({v["CoupletIndex"] for v in json.loads(t)["Verses"] if v.get("Position") in _VERSE})
               for f, t in texts.items()}
    first = min(poems, len(files))  # the verbatim copy
    rest = poems - first
    target = round(poems * AVERAGE) if couplets is None else couplets
    sample = sum(lengths.values()) / max(len(files), 1)
    scale = max(1.0, (target - sum(lengths[f] for f in files[:first])) / max(rest * sample, 1)) if rest and target \
        else 1.0
    written, copy = 0, 0
    while written < poems:
        for poet_dir in sorted((SOURCE / "poets").iterdir()):
            slug = poet_dir.name if copy == 0 else f"{poet_dir.name}{copy}"
            out = dest / "poets" / slug
            out.mkdir(parents=True, exist_ok=True)
            meta = json.loads((poet_dir / "poet.json").read_text("utf-8"))
            meta["Nickname"] = f"{meta['Nickname']} {copy}" if copy else meta["Nickname"]
            (out / "poet.json").write_text(json.dumps(meta, ensure_ascii=False), "utf-8")
            for f in (f for f in files if f.is_relative_to(poet_dir)):
                if written >= poems:
                    return written
                d = json.loads(texts[f])
                d["FullUrl"] = "/" + slug + d["FullUrl"][len(poet_dir.name) + 1:]
                if copy:
                    n = lengths[f]
                    want = int(n * scale + rng.random()) if n else 0  # rounded at random: the mean holds
                    _lengthen(d, n, want)
                    for v in d["Verses"]:
                        words = v["Text"].split()
                        rng.shuffle(words)
                        v["Text"] = " ".join(words)
                target_file = out / f.relative_to(poet_dir)
                target_file.parent.mkdir(parents=True, exist_ok=True)
                target_file.write_text(json.dumps(d, ensure_ascii=False), "utf-8")
                written += 1
        copy += 1
    return written


def _lengthen(d: dict, n: int, want: int) -> None:
    """A poem of n couplets made `want` long: its verses repeated after it with the next
    couplet indexes (its other text fields repeated alike, so a file's size grows with it)."""
    if want <= n or not n:
        return
    verses = [v for v in d["Verses"] if v.get("Position") in _VERSE]
    top = max(v["CoupletIndex"] for v in verses)
    order = max((v.get("VOrder") or 0) for v in d["Verses"])
    extra, k = [], 0
    while len({v["CoupletIndex"] for v in verses}) + len({v["CoupletIndex"] for v in extra}) < want:
        k += 1
        for v in verses:
            order += 1
            extra.append({**v, "VOrder": order, "CoupletIndex": v["CoupletIndex"] + k * (top + 1)})
    keep = {i for i in sorted({v["CoupletIndex"] for v in extra})[:want - n]}
    d["Verses"] += [v for v in extra if v["CoupletIndex"] in keep]
    times = max(1, round(want / n))
    for s in d.get("Sections") or []:
        for key in ("PlainText", "HtmlText"):
            if isinstance(s.get(key), str):
                s[key] = s[key] * times


def damaged(text: str, rng: random.Random) -> str:
    """An OCR-like error: one letter dropped or doubled."""
    if len(text) < 6:
        return text
    i = rng.randrange(1, len(text) - 1)
    return text[:i] + text[i + 1:] if rng.random() < 0.5 else text[:i] + text[i] + text[i:]


def annotator(db: str, ready, stop, waits, refused) -> None:
    """One label every 20 ms, each its own transaction; records how long each save took
    (refused: "database busy" after the busy timeout)."""
    from persian_tui.store import StoreError

    with Store(db) as store:
        store.questions.add_questions([Question(uid="w-1", key=1, status="ready", options=[
            Option(i, f"مصراع نخست {i}", f"مصراع دوم {i}") for i in range(1, 5)])])
        ready.set()
        while not stop.is_set():
            start = time.perf_counter()
            try:
                store.labels.add_label("w-1", "annotator", 1)
            except StoreError:
                refused.append(1)
            waits.append(time.perf_counter() - start)
            time.sleep(0.02)


def import_beside_annotator(db: Path, export: Path):
    """(seconds, ImportProgress, annotator's longest wait, labels saved, refused)."""
    with mp.Manager() as manager:
        ready, stop, waits, refused = manager.Event(), manager.Event(), manager.list(), manager.list()
        proc = mp.Process(target=annotator, args=(str(db), ready, stop, waits, refused))
        proc.start()
        ready.wait()
        with Store(db) as store:
            t, p = timed(lambda: ganjoor.import_corpus(store, export))
        stop.set()
        proc.join()
        return t, p, max(waits), len(waits), len(refused)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main(poems: int = 20_000, questions: int = 10_000) -> None:
    warm_up()
    rng = random.Random(7)
    tmp = Path(tempfile.mkdtemp(prefix="ptui-bench-corpus-"))
    try:
        export = tmp / "export"
        n = make_export(export, poems, rng)
        print(f"persian-tui corpus benchmark: {n:,} generated poems from {SOURCE}")

        # 1. import beside an annotator: batches of short transactions; baseline: one transaction
        t, p, wait, saved, refused = import_beside_annotator(tmp / "a.db", export)
        with Store(tmp / "a.db") as store:
            stats = store.corpus.corpus_stats()
            t_again, again = timed(lambda: ganjoor.import_corpus(store, export))
        batch = ganjoor.BATCH, ganjoor.BATCH_COUPLETS
        ganjoor.BATCH = ganjoor.BATCH_COUPLETS = 10 ** 9
        t_one, one, wait_one, saved_one, refused_one = import_beside_annotator(tmp / "b.db", export)
        ganjoor.BATCH, ganjoor.BATCH_COUPLETS = batch
        print(f"import: {p.done / t:,.0f} poems/s ({stats['couplets']:,} couplets in {t:.1f} s), "
              f"longest write-lock hold {p.longest_lock * 1000:.0f} ms (batches of <= {batch[0]} poems, "
              f"~{batch[1]} couplets); the annotator's longest wait {wait * 1000:.0f} ms, "
              f"{saved:,} labels saved, {refused} refused")
        print(f"  baseline one transaction: {one.done / t_one:,.0f} poems/s, lock held "
              f"{one.longest_lock * 1000:.0f} ms, the annotator's longest wait {wait_one * 1000:.0f} ms "
              f"({saved_one:,} saved, {refused_one} refused) -> batching holds the lock "
              f"{one.longest_lock / max(p.longest_lock, 1e-9):.0f}x shorter at "
              f"{(p.done / t) / (one.done / t_one):.2f}x the speed")
        print(f"  re-import (nothing changed): {again.done / t_again:,.0f} poems/s, "
              f"{again.unchanged:,} unchanged")

        # 2. link 10k questions: exact, swapped, damaged (fuzzy), half-known, unknown options
        with Store(tmp / "a.db") as store:
            pool = store.conn.execute(
                "SELECT p.path, c.idx, c.mesra1, c.mesra2 FROM corpus_couplets c JOIN corpus_poems p "
                "ON p.id = c.poem_id WHERE c.mesra2 != '' ORDER BY random() LIMIT ?", (questions * 4,)).fetchall()
            made_from: dict[tuple[str, int], tuple[str, int]] = {}  # option -> its couplet (in the corpus)
            qs = []
            for i in range(questions):
                opts = []
                for pos in range(1, 5):
                    path, idx, m1, m2 = pool[(i * 4 + pos - 1) % len(pool)]
                    kind = rng.random()
                    if kind < 0.15:
                        m1, m2 = m2, m1
                    elif kind < 0.35:
                        m1 = damaged(m1, rng)
                    elif kind < 0.40:
                        m2 = "مصراعی که در هیچ دیوانی نیامده است"
                    elif kind < 0.45:
                        m1, m2 = "بیتی ساختگی برای سنجش", "که در پیکره نیست و نخواهد بود"
                    if kind < 0.35 or kind >= 0.45:  # swapped, damaged or verbatim: still that couplet
                        made_from[(f"q-{i:05d}", pos)] = (path, idx)
                    opts.append(Option(pos, m1, m2))
                qs.append(Question(uid=f"q-{i:05d}", options=opts, key=1, status="ready"))
            store.questions.add_questions(qs)  # linked as they are saved
            t_link, counts = timed(lambda: store.links.link_questions(force=True))
            options = sum(v for k, v in counts.items() if k != "up to date")
            print(f"link: {options:,} options of {len(store.questions.uids()):,} questions in {t_link:.1f} s "
                  f"({options / t_link:,.0f} options/s): linked {counts['linked']:,}, "
                  f"ambiguous {counts['ambiguous']:,}, unlinked {counts['unlinked']:,}")
            links = store.links.links()
            got = {k: links.get(k[0], {}).get(k[1]) for k in made_from}
            right = sum(1 for k, l in got.items() if l and l.status == "linked"
                        and (l.couplet.poem, l.couplet.couplet) == made_from[k])
            status = {s: sum(1 for l in got.values() if l and l.status == s) for s in ("ambiguous", "unlinked")}
            quoted = sum(1 for l in got.values() if l and l.status == "unlinked" and l.method == "quoted")
            print(f"  of the {len(made_from):,} options made from a corpus couplet (verbatim, swapped or damaged): "
                  f"{right:,} linked to that couplet ({right / len(made_from):.1%}), "
                  f"{sum(1 for l in got.values() if l and l.status == 'linked') - right:,} to another, "
                  f"{status['ambiguous']:,} ambiguous, {status['unlinked']:,} unlinked ({quoted:,} of them "
                  f"'quoted': only a quoting work holds the couplet, e.g. the copies of a listed anthology)")
            sample = [o for q in qs[:3] for o in q.options]
            t_blocked, _ = timed(lambda: [store.links.link_option(o.mesra1, o.mesra2) for o in sample])
            t_brute, _ = timed(lambda: [store.links.link_option(o.mesra1, o.mesra2, brute=True) for o in sample])
            print(f"  baseline brute-force fuzzy: {t_brute / len(sample) * 1000:.0f} ms/option vs "
                  f"{t_blocked / len(sample) * 1000:.1f} ms blocked -> {t_brute / t_blocked:.0f}x faster")

            # 3. search latency: FTS vs LIKE scan, median over words of the corpus
            words = [w for _, _, m1, _ in pool[:200] for w in m1.split() if len(w) > 3][:60]
            fts, scan = [], []
            for w in words:
                fts.append(timed(lambda w=w: store.corpus.search_couplets(w, limit=50))[0])
                scan.append(timed(lambda w=w: store.corpus.search_couplets(w, limit=50, scan=True))[0])
            two = [" ".join(words[i:i + 2]) for i in range(0, 40, 2)]
            fts2 = [timed(lambda q=q: store.corpus.search_couplets(q, limit=50))[0] for q in two]
            scan2 = [timed(lambda q=q: store.corpus.search_couplets(q, limit=50, scan=True))[0] for q in two]
            four = [" ".join(words[i:i + 4]) for i in range(0, 40, 4)]  # 8 spellings each (words joined)
            fts4 = [timed(lambda q=q: store.corpus.search_couplets(q, limit=50))[0] for q in four]
            scan4 = [timed(lambda q=q: store.corpus.search_couplets(q, limit=50, scan=True))[0] for q in four]
            for label, f, sc in (("one word", fts, scan), ("two words", fts2, scan2), ("four words", fts4, scan4)):
                mf, ms = statistics.median(f), statistics.median(sc)
                print(f"search, {label}: median {mf * 1000:.2f} ms (FTS5) vs {ms * 1000:.1f} ms (LIKE scan) "
                      f"-> {ms / mf:.0f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def written_bytes() -> int:
    """Bytes this process has caused to be written to storage (Linux /proc/self/io)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    raise RuntimeError("no write_bytes in /proc/self/io")


WAYS = ("now", "now-0", "baseline", "FTS5 merging", "old way")


def import_cost(db: Path, export: Path, way: str) -> dict:
    """One import into a new database, every write transaction timed (Store.timing), while an
    annotator process saves a label every 20 ms (its longest wait). "now": this version
    (worker processes as it chooses); "now-0": files read in this process; "baseline": the
    same call to another tree's code (PTUI_BENCH_CODE). "FTS5 merging": as this branch had it
    before issue 20's merging: one INSERT per couplet (FTS5 makes each a segment) and FTS5's
    own merging inside the commits (its default settings), no merge steps. "old way": that,
    plus as before issue 20: the two exact-hemistich B-trees and a poem of any length in one
    transaction. All but the baseline use this version's quoting pass."""
    with mp.Manager() as manager:
        ready, stop, waits, refused = manager.Event(), manager.Event(), manager.list(), manager.list()
        proc = mp.Process(target=annotator, args=(str(db), ready, stop, waits, refused))
        proc.start()
        ready.wait()
        try:
            r = _import_cost(db, export, way)
        finally:
            stop.set()
            proc.join()
        r.update(wait=max(waits, default=0.0), saved=len(waits), refused=len(refused))
    size = sum(f.stat().st_size for f in db.parent.glob(db.name + "*"))
    r.update(size=size, load=os.getloadavg())
    return r


def _import_cost(db: Path, export: Path, way: str) -> dict:
    kwargs = {"workers": 0} if way == "now-0" else {}
    with Store(db) as store:
        if way in ("FTS5 merging", "old way"):
            for key, value in (("automerge", 4), ("usermerge", 4), ("crisismerge", 16)):  # FTS5's defaults
                store.conn.execute("INSERT INTO corpus_fts (corpus_fts, rank) VALUES (?, ?)", (key, value))
            store.corpus.merge_index = lambda **kw: 0
            store.corpus._insert_couplets = lambda rows: store.conn.executemany(
                "INSERT INTO corpus_couplets (poem_id, idx, mesra1, mesra2, norm1, norm2) VALUES (?,?,?,?,?,?)", rows)
        merges: list[float] = []  # the holds of merge steps (the others: batches, flags)
        if way in ("now", "now-0", "baseline"):
            merge = store.corpus.merge_index

            def timed_merge(**kw):
                with store.timing() as steps:
                    out = merge(**kw)
                merges.extend(steps)
                return out
            store.corpus.merge_index = timed_merge
        if way == "old way":
            store.conn.execute("CREATE INDEX corpus_couplets_key1 ON corpus_couplets (replace(norm1, ' ', ''))")
            store.conn.execute("CREATE INDEX corpus_couplets_key2 ON corpus_couplets (replace(norm2, ' ', ''))")
        saved = ganjoor.BATCH_COUPLETS
        if way == "old way":
            ganjoor.BATCH_COUPLETS = 10 ** 9  # long poems are not split (batches still close near 2,000)
        try:
            with store.timing() as held:
                before, t, cpu = written_bytes(), time.perf_counter(), time.process_time()
                p = ganjoor.import_corpus(store, export, **kwargs)
                seconds, written = time.perf_counter() - t, written_bytes() - before
                cpu = time.process_time() - cpu
        finally:
            ganjoor.BATCH_COUPLETS = saved
        segments = len(store.corpus.index_segments())
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return {"poems": p.done, "couplets": p.couplets, "seconds": seconds, "cpu": cpu, "written": written,
            "longest": p.longest_lock, "held": sorted(held), "segments": segments, "merges": sorted(merges)}


def import_cost_in_process(db: Path, export: Path, way: str) -> dict:
    """import_cost in a fresh Python (the baseline's: with the other tree's code)."""
    env = dict(os.environ)
    if way == "baseline":
        env["PTUI_BENCH_CODE"] = BASELINE
    out = subprocess.run([sys.executable, __file__, "_import", str(db), str(export), way], env=env,
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{way}: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


BASELINE = ""  # the baseline's source tree (--baseline DIR)


def link_cost(db: Path, questions: int, rng: random.Random) -> tuple[int, list[float]]:
    """Save a bank of `questions` made from corpus couplets (verbatim or swapped), each option
    linked as it is saved: the options and every write transaction's hold."""
    with Store(db) as store:
        pool = store.conn.execute("SELECT mesra1, mesra2 FROM corpus_couplets WHERE mesra2 != '' "
                                  "ORDER BY random() LIMIT ?", (questions * 4,)).fetchall()
        bank = [Question(uid=f"c-{i:05d}", key=1, status="ready", options=[
            Option(pos, *(reversed(pool[i * 4 + pos - 1]) if rng.random() < 0.5 else pool[i * 4 + pos - 1]))
            for pos in range(1, 5)]) for i in range(len(pool) // 4)]
        with store.timing() as held:
            store.questions.add_questions(bank)
    return 4 * len(bank), held


def _held(r: dict) -> str:
    held = r["held"]
    over = sum(h > 0.25 for h in held)
    merges = r["merges"]
    of_merges = (f" (the {len(merges):,} merge steps: longest {merges[-1] * 1000:.0f} ms)") if merges else ""
    return (f"{len(held):,} write transactions, longest {held[-1] * 1000:.0f} ms, "
            f"99th percentile {held[int(len(held) * 0.99)] * 1000:.0f} ms, {over} over 250 ms{of_merges}")


LONG = 50_000  # couplets of the longest poem (the export has one of about this length)


def add_long_poem(export: Path, couplets: int, rng: random.Random) -> int:
    """A poet with one masnavi of `couplets` couplets, its hemistichs drawn from the export."""
    verses = [v["Text"] for f in sorted((export / "poets").rglob("sh*.json"))[:400]
              for v in json.loads(f.read_text("utf-8"))["Verses"] if v.get("Position") in ("Right", "Left")]
    folder = export / "poets" / "longpoet"
    (folder / "masnavi").mkdir(parents=True)
    (folder / "poet.json").write_text(json.dumps({"Id": 99999, "Name": "long", "Nickname": "long"}), "utf-8")
    rows = []
    for i in range(couplets):
        rows += [{"VOrder": 2 * i + 1, "Position": "Right", "Text": rng.choice(verses), "CoupletIndex": i},
                 {"VOrder": 2 * i + 2, "Position": "Left", "Text": rng.choice(verses), "CoupletIndex": i}]
    poem = {"Id": 99999, "Title": "long", "FullUrl": "/longpoet/masnavi/sh1", "Verses": rows}
    (folder / "masnavi" / "sh1.json").write_text(json.dumps(poem, ensure_ascii=False), "utf-8")
    return 1


def cost(poems: int = 132_538, questions: int = 250, ways: tuple[str, ...] = ("now", "now-0", "baseline")) -> None:
    rng = random.Random(7)
    ways = tuple(w for w in ways if w != "baseline" or BASELINE)
    tmp = Path(tempfile.mkdtemp(prefix="ptui-bench-cost-"))
    try:
        export = tmp / "export"
        n = make_export(export, poems - 1, rng, couplets=round((poems - 1) * AVERAGE) - LONG if poems > 1000 else None)
        n += add_long_poem(export, LONG, rng)
        print(f"corpus import cost: {n:,} generated poems from {SOURCE}, one of them {LONG:,} couplets long; "
              f"load average {_load()} ({os.cpu_count()} cores)", flush=True)
        rows = {}
        for way in ways:
            folder = tmp / way.replace(" ", "-")
            folder.mkdir()
            r = rows[way] = import_cost_in_process(folder / "c.db", export, way)
            print(f"{way:>12}: {r['couplets']:,} couplets in {r['seconds']:.0f} s ({r['poems'] / r['seconds']:,.0f} "
                  f"poems/s; {r['cpu']:.0f} s CPU in the importing process); wrote {r['written'] / 2**20:,.0f} MiB "
                  f"for a {r['size'] / 2**20:,.0f} MiB database -> write amplification "
                  f"{r['written'] / r['size']:.1f}x; "
                  f"{_held(r)}; {r['segments']} FTS segments left; the annotator's longest wait "
                  f"{r['wait'] * 1000:.0f} ms ({r['saved']:,} labels saved, {r['refused']} refused); "
                  f"load average at the end {_load(r['load'])}", flush=True)
            if way == "now" and questions:
                options, held = link_cost(folder / "c.db", questions, rng)
                print(f"{'':>12}  then saving {options // 4:,} questions, linking their {options:,} options: "
                      f"{len(held)} write transactions, longest {max(held, default=0) * 1000:.0f} ms", flush=True)
            shutil.rmtree(folder, ignore_errors=True)
        now = rows.get("now")
        for way in ways:
            if now and way != "now":
                r = rows[way]
                print(f"ratio: {way} took {r['seconds'] / now['seconds']:.2f}x the time of now, wrote "
                      f"{r['written'] / now['written']:.1f}x the bytes, held the lock at most "
                      f"{r['longest'] / max(now['longest'], 1e-9):.1f}x as long")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _load(load: tuple[float, ...] | None = None) -> str:
    return " / ".join(f"{x:.1f}" for x in (load or os.getloadavg()))


if __name__ == "__main__":
    if sys.argv[1:2] == ["_import"]:  # one way of import_cost, in this fresh process
        print(json.dumps(import_cost(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4])))
    elif sys.argv[1:2] == ["cost"]:
        args, options = [], {}
        rest = iter(sys.argv[2:])
        for a in rest:
            if a in ("--baseline", "--ways"):
                options[a] = next(rest)
            elif a == "--now":  # as before issue 33: this version only
                options["--ways"] = "now"
            else:
                args.append(int(a))
        BASELINE = str(Path(options["--baseline"]).resolve()) if "--baseline" in options else ""
        cost(*args, **({"ways": tuple(options["--ways"].split(","))} if "--ways" in options else {}))
    else:
        main(*(int(a) for a in sys.argv[1:3]))
