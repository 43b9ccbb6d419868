"""Links lost or found: two linkers side by side on every option the seed files give and on
edition variants of the Ganjoor sample's couplets, at the full export's word frequencies.

Run: python bench/bench_link_recall.py [--base DIR] [--scale N] [--candidates K] [--show N]
  DIR   the other version's checkout (default /tmp/base-link: `git -C MAIN archive REV | tar -x -C DIR`)
  N     the full export's couplets per couplet of the sample (default 111: 1.49 M / 13,395); the
        linkers' budgets (OR_POSTINGS, AND_POSTINGS, AND_RANKED, the old COMMON) are divided by
        it, so a word counts as common where it would at the export's size
  K     FTS_CANDIDATES (default 4, for 40): the best K of a ranked query, as the export's
        competition leaves the best 40 (about N times the couplets outrank a couplet there)
With --scale 1 --candidates 40 the sample as it is. Each version imports the sample into a
database of its own (in a process of its own, its code first on sys.path) and decides every
option with `link_option`. The options: the seed's book sample (hemistichs as the book has
them), its 41-question benchmark and exp1 questions; and, of 150 couplets of the sample's poets
drawn at random (150 with a ZWNJ in each hemistich for the book-spacing kinds), edition variants
of each kind below. Prints, per kind, the options linked and linked to their couplet by each
version, and the options whose decision differs. Asserts nothing."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path("/work/shared") if Path("/work/shared").is_dir() else ROOT.parent.parent / "shared"
SAMPLE, SEED = SHARED / "ganjoor-sample", SHARED / "seed-data"
ZWNJ = "\u200c"


def _couplets() -> list[tuple[str, str]]:
    """The sample's couplets (its poets', not the quoting prose book's), in file order."""
    out = []
    for f in sorted((SAMPLE / "poets").rglob("*.json")):
        if f.name in ("poet.json", "_cat.json") or "naraghi" in f.parts:
            continue
        halves: dict[int, dict[str, str]] = defaultdict(dict)
        for v in json.loads(f.read_text("utf-8")).get("Verses") or []:
            if v.get("Position") in ("Right", "Left") and v.get("CoupletIndex") is not None:
                halves[v["CoupletIndex"]][v["Position"]] = v["Text"]
        out += [(h["Right"], h["Left"]) for _, h in sorted(halves.items()) if len(h) == 2]
    return out


def options() -> list[dict]:
    """[{kind, m1, m2, source: [m1, m2] or absent}]"""
    sys.path.insert(0, str(ROOT))
    from persian_tui.text import CoupletError, split_couplet

    out: list[dict] = []
    for page in json.loads((SEED / "gherabat-questions-sample.json").read_text("utf-8"))["pages"]:
        out += [{"kind": "book sample", "m1": o["mesra2"], "m2": o["mesra1"]}
                for q in page["data"]["questions"] for o in q["options"]]
    for q in json.loads((SEED / "benchmark_dataset.json").read_text("utf-8")):
        for text in q["options"]:
            try:
                out.append({"kind": "benchmark (41)", "m1": split_couplet(text)[0], "m2": split_couplet(text)[1]})
            except CoupletError:
                pass
    for name in ("exp1-zero-shot-questions.json", "exp1-few-shot-questions.json"):
        out += [{"kind": "exp1", "m1": a["answer_text_1"], "m2": a["answer_text_2"]}
                for q in json.loads((SEED / name).read_text("utf-8"))["questions"] for a in q["answers"]]
    seen: set[tuple[str, str]] = set()
    out = [o for o in out if (o["m1"], o["m2"]) not in seen and not seen.add((o["m1"], o["m2"]))]

    rows = _couplets()
    rng = random.Random(39)
    vocab = [w for a, _ in rows[:3000] for w in a.split() if len(w) > 2]

    def other(w: str) -> str:  # a word of the corpus of about its length
        for _ in range(50):
            if abs(len(x := rng.choice(vocab)) - len(w)) <= 1 and x != w:
                return x
        return w

    def at(h: str, i: int | None) -> str:
        ws = h.split()
        i = (rng.randrange(1, len(ws) - 1) if len(ws) > 2 else 0) if i is None else i
        ws[i] = other(ws[i])
        return " ".join(ws)

    def damaged(h: str) -> str:
        i = rng.randrange(1, len(h) - 1)
        return h[:i] + h[i + 1:] if rng.random() < 0.5 else h[:i] + h[i] + h[i:]

    def spaced(h: str) -> str:  # the book's PDF: a space for each ZWNJ
        return h.replace(ZWNJ, " ")

    def moved(a: str, b: str) -> tuple[str, str]:  # the couplet split a word later
        ws = a.split()
        return " ".join(ws[:-1]), ws[-1] + " " + b

    kinds = {
        "first word of 1, last of 2": lambda a, b: (at(a, 0), at(b, -1)),
        "last word of 1, first of 2": lambda a, b: (at(a, -1), at(b, 0)),
        "a word inside each": lambda a, b: (at(a, None), at(b, None)),
        "both ends of each": lambda a, b: (at(at(a, 0), -1), at(at(b, 0), -1)),
        "first word of each dropped": lambda a, b: (" ".join(a.split()[1:]), " ".join(b.split()[1:])),
        "last word of each dropped": lambda a, b: (" ".join(a.split()[:-1]), " ".join(b.split()[:-1])),
        "a word added before each": lambda a, b: (rng.choice(["که", "و", "ای", "چو"]) + " " + a,
                                                  rng.choice(["که", "و", "ای", "چو"]) + " " + b),
        "a letter damaged in each": lambda a, b: (damaged(a), damaged(b)),
        "split a word later": moved,
        "swapped, a word inside each": lambda a, b: (at(b, None), at(a, None)),
        "book spacing, a word inside each": lambda a, b: (at(spaced(a), None), at(spaced(b), None)),
        "book spacing, a letter damaged in each": lambda a, b: (damaged(spaced(a)), damaged(spaced(b))),
        "book spacing, a word inside one": lambda a, b: (at(spaced(a), None), spaced(b)),
        "book spacing, «لا» as «ال»": lambda a, b: (spaced(a).replace("لا", "ال"), spaced(b).replace("لا", "ال")),
    }
    picked = rng.sample(rows, 150)
    with_zwnj = rng.sample([r for r in rows if ZWNJ in r[0] and ZWNJ in r[1]], 150)
    with_la = [r for r in with_zwnj if "لا" in r[0] + r[1]]
    for kind, make in kinds.items():
        pool = with_la if "«لا»" in kind else with_zwnj if "spacing" in kind else picked
        for m1, m2 in pool:
            a, b = make(m1, m2)
            out.append({"kind": kind, "m1": a, "m2": b, "source": [m1, m2]})
    return out


def worker(opts_file: str, out_file: str, scale: float, candidates: int) -> None:
    """In a process whose persian_tui is the version to measure."""
    from persian_tui.corpus.ganjoor import import_corpus
    from persian_tui.store import Store
    from persian_tui.store import links as links_module

    for name in ("OR_POSTINGS", "AND_POSTINGS", "AND_RANKED", "COMMON"):
        if hasattr(links_module, name):
            setattr(links_module, name, max(1, int(getattr(links_module, name) / scale)))
    links_module.FTS_CANDIDATES = candidates  # type: ignore[attr-defined]
    opts = json.loads(Path(opts_file).read_text("utf-8"))
    with tempfile.TemporaryDirectory(prefix="ptui-bench-recall-") as tmp, Store(Path(tmp) / "c.db") as store:
        import_corpus(store, SAMPLE)
        store.links._df, store.links._and_df = {}, {}  # counts kept while a batch links
        t = time.perf_counter()
        decided = [store.links.link_option(o["m1"], o["m2"]) for o in opts]
        secs = time.perf_counter() - t
        out = [[d.status, d.method, d.score, d.candidate.poem if d.candidate else None,
                d.candidate.index if d.candidate else None,
                [d.candidate.norm1, d.candidate.norm2] if d.candidate else None] for d in decided]
    Path(out_file).write_text(json.dumps({"seconds": secs, "decisions": out}, ensure_ascii=False))


def run(version: Path, opts_file: str, scale: float, candidates: int) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        env = {**os.environ, "PYTHONPATH": str(version)}
        subprocess.run([sys.executable, __file__, "--worker", opts_file, f.name, str(scale), str(candidates)],
                       env=env, check=True, cwd=version)
        return json.loads(Path(f.name).read_text("utf-8"))


def main(argv: list[str]) -> None:
    def arg(name: str, default: str) -> str:
        return argv[argv.index(name) + 1] if name in argv else default

    base = Path(arg("--base", "/tmp/base-link"))
    scale, candidates, show = float(arg("--scale", "111")), int(arg("--candidates", "4")), int(arg("--show", "20"))
    sys.path.insert(0, str(ROOT))
    from persian_tui.text import corpus_key

    opts = options()
    print(f"bench_link_recall: {len(opts):,} options; budgets / {scale:g}, best {candidates} of a ranked query; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as f:
        json.dump(opts, f, ensure_ascii=False)
        f.flush()
        got = {"base": run(base, f.name, scale, candidates), "this": run(ROOT, f.name, scale, candidates)}

    def flat(h: str) -> str:
        return corpus_key(h).replace(" ", "")

    def right(o: dict, d: list) -> bool:
        return d[0] == "linked" and "source" in o and d[5] is not None and \
            {flat(d[5][0]), flat(d[5][1])} == {flat(o["source"][0]), flat(o["source"][1])}

    print(f"{'kind':42} {'options':>7}  linked base / this  to their couplet base / this")
    kinds = list(dict.fromkeys(o["kind"] for o in opts))
    total = [0, 0, 0, 0]
    for kind in kinds:
        rows = [(o, got["base"]["decisions"][n], got["this"]["decisions"][n]) for n, o in enumerate(opts)
                if o["kind"] == kind]
        c = [sum(b[0] == "linked" for _, b, _ in rows), sum(t[0] == "linked" for _, _, t in rows),
             sum(right(o, b) for o, b, _ in rows), sum(right(o, t) for o, _, t in rows)]
        total = [x + y for x, y in zip(total, c)]
        print(f"{kind:42} {len(rows):7}  {c[0]:6} / {c[1]:<6} {c[2]:14} / {c[3]}")
    print(f"{'all':42} {len(opts):7}  {total[0]:6} / {total[1]:<6} {total[2]:14} / {total[3]}")
    print(f"time: base {got['base']['seconds']:.1f} s, this {got['this']['seconds']:.1f} s")
    differ = [(o, b, t) for o, b, t in zip(opts, got["base"]["decisions"], got["this"]["decisions"]) if b[:5] != t[:5]]
    print(f"{len(differ)} decisions differ (status, method, score, couplet)")
    for o, b, t in differ[:show]:
        print(f"  [{o['kind']}] {o['m1']} / {o['m2']}\n    base {b[:5]}\n    this {t[:5]}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        sys.path.insert(0, os.environ["PYTHONPATH"])
        worker(sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5]))
    else:
        main(sys.argv[1:])
