"""Links the faster linker loses: the linker before the key index (issue 33) and this one on the
same options and corpus, every option the old links that this one leaves unlinked or links to
another poem listed with why (the stage that saw the old's couplet, or none).

Run: python bench/linker_diff.py --old DIR [--base DIR] [--datasets sample,proxy] [--show N]
                                  [--export DIR] [--per-kind K]
  --old DIR   the linker before the key index, checked out apart from the package:
              `git worktree add --detach /tmp/linker-old 1e6fb75` (3349b19^, the commit before
              "verbatim hemistichs found by a lookup")
  --base DIR  optional: another tree of the current linker (e.g. main before a fix) timed and
              compared in the same run (the speed ratio)
Datasets: `sample`, the Ganjoor excerpt as it is (13,395 couplets, best 40 of a ranked query);
`proxy`, the excerpt at the export's scale (bench_link_recall's: every budget divided by 111 =
1.49 M / 13,395, the best 4 of a ranked query kept); `full`, an export of the real size generated
by bench_corpus.py (its real poets' poems verbatim among 1.49 M couplets: `--export DIR`, each
tree importing it, the old one slowly), the budgets as they are. `--per-kind K`: the first K
options of each kind only (the old linker takes 0.1-0.3 s an option at the full size).
Options: the seed files' (book sample, 41-question benchmark, exp1), bench_link_recall's 14
edition-variant kinds and the hostile kinds below, each made from real couplets of the excerpt.
Each tree decides every option with `link_option` in a process of its own (its code first on
sys.path), on a database it imported itself. Prints per dataset and kind the options linked by
each tree, the differential counts (lost: old linked, this not; moved: both linked, another poem;
gained), every lost and moved option with the reason (and, but on `full`, the decision with
every couplet a candidate as referee), the linking time of each tree and the load. Asserts
nothing."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_link_recall as recall  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATASETS = {"sample": (1.0, 40), "proxy": (111.0, 4), "full": (1.0, 40)}  # budget divisor, FTS_CANDIDATES
ARABIC = str.maketrans({"ی": "ي", "ک": "ك"})
HARAKAT = "\u064e\u064f\u0650\u0651\u0652\u064b"


def hostile() -> list[dict]:
    """Options the book could print, each from a real couplet of the excerpt: [{kind, m1, m2,
    source}]. The kinds not in bench_link_recall: letter forms, diacritics, very common words,
    short hemistichs, couplets in several poems, splits elsewhere, one hemistich of another
    couplet."""
    rows = recall._couplets()
    rng = random.Random(3939)
    words = Counter(w for a, b in rows for w in (a + " " + b).split())
    vocab = [w for w, n in words.items() if len(w) > 2 and n > 1]

    def other(w: str) -> str:
        for _ in range(50):
            if abs(len(x := rng.choice(vocab)) - len(w)) <= 1 and x != w:
                return x
        return w

    def at(h: str, i: int | None = None) -> str:
        ws = h.split()
        i = (rng.randrange(1, len(ws) - 1) if len(ws) > 2 else 0) if i is None else i
        ws[i] = other(ws[i])
        return " ".join(ws)

    def voweled(h: str) -> str:
        return "".join(c + (rng.choice(HARAKAT) if unicodedata.category(c) == "Lo" and rng.random() < 0.3 else "")
                       for c in h)

    def rarity(r: tuple[str, str]) -> int:  # the count of its rarest word: high = every word common
        return min(words[w] for w in (r[0] + " " + r[1]).split())

    copies = Counter(rows)
    several = [r for r, n in copies.items() if n > 1]
    common = sorted(rows, key=rarity, reverse=True)[:150]
    short = [r for r in rows if len(r[0].split()) <= 4 and len(r[1].split()) <= 4]
    picked = rng.sample(rows, 150)
    kinds = {
        "letter forms (ي ك), a word inside each": (picked, lambda a, b: (at(a).translate(ARABIC),
                                                                      at(b).translate(ARABIC))),
        "diacritics, a word inside each": (picked, lambda a, b: (voweled(at(a)), voweled(at(b)))),
        "every word common, verbatim": (common, lambda a, b: (a, b)),
        "every word common, a word inside each": (common, lambda a, b: (at(a), at(b))),
        "every word common, swapped, a word inside one": (common, lambda a, b: (b, at(a))),
        "short hemistichs, a word inside each": (rng.sample(short, min(150, len(short))),
                                                 lambda a, b: (at(a), at(b))),
        "short hemistichs, a word inside one": (rng.sample(short, min(150, len(short))),
                                                lambda a, b: (at(a), b)),
        "in several poems, verbatim": (several[:150], lambda a, b: (a, b)),
        "in several poems, a word inside each": (several[:150], lambda a, b: (at(a), at(b))),
        "split a word earlier": (picked, lambda a, b: (" ".join(a.split()[:-1]), a.split()[-1] + " " + b)),
        "one hemistich of another couplet": (picked, lambda a, b: (a, rng.choice(rows)[1])),
    }
    out = []
    for kind, (pool, make) in kinds.items():
        for m1, m2 in pool:
            a, b = make(m1, m2)
            out.append({"kind": kind, "m1": a, "m2": b, "source": [m1, m2]})
    return out


def options() -> list[dict]:
    return recall.options() + hostile()


def worker(opts_file: str, out_file: str, scale: float, candidates: int, targets_file: str,
           export: str = "") -> None:
    """In a process whose persian_tui is the tree measured: every option decided (timed), then,
    for each (option, poem, index) in targets_file, the stages whose candidates held that couplet;
    with targets {"referee": [options]}, only those options, each decided with every couplet of
    the corpus a candidate (`brute`: the linker's rule without its search)."""
    from persian_tui.corpus.ganjoor import import_corpus
    from persian_tui.models.linking import Candidate, decide
    from persian_tui.store import Store
    from persian_tui.store import links as links_module
    from persian_tui.text import corpus_key

    for name in ("OR_POSTINGS", "AND_POSTINGS", "AND_RANKED", "COMMON"):
        if hasattr(links_module, name):
            setattr(links_module, name, max(1, int(getattr(links_module, name) / scale)))
    links_module.FTS_CANDIDATES = candidates  # type: ignore[attr-defined]
    opts = json.loads(Path(opts_file).read_text("utf-8"))
    targets = json.loads(Path(targets_file).read_text("utf-8")) if targets_file != "-" else []
    with tempfile.TemporaryDirectory(prefix="ptui-linker-diff-") as tmp, Store(Path(tmp) / "c.db") as store:
        t = time.perf_counter()
        import_corpus(store, Path(export) if export else recall.SAMPLE)
        print(f"  {Path(sys.modules['persian_tui'].__file__).parents[1]}: imported in "
              f"{time.perf_counter() - t:.0f} s", flush=True)
        links = store.links
        if isinstance(targets, dict):
            brute = {n: links.link_option(opts[n]["m1"], opts[n]["m2"], brute=True) for n in targets["referee"]}
            Path(out_file).write_text(json.dumps({n: [d.status, d.method, d.score, d.candidate and d.candidate.poem,
                                                      d.candidate and d.candidate.index] for n, d in brute.items()}))
            return
        links._df = {}
        if hasattr(links, "_and_df"):
            links._and_df = {}
        t, cpu = time.perf_counter(), time.process_time()
        decided = [links.link_option(o["m1"], o["m2"]) for o in opts]
        secs, cpu = time.perf_counter() - t, time.process_time() - cpu
        out = [[d.status, d.method, d.score, d.candidate.poem if d.candidate else None,
                d.candidate.index if d.candidate else None,
                [d.candidate.norm1, d.candidate.norm2] if d.candidate else None] for d in decided]
        why = {}
        for n, poem, index in targets:
            o = opts[n]
            a, b = corpus_key(o["m1"]), corpus_key(o["m2"])
            row = links.db.conn.execute(
                f"{links_module._CANDIDATE_SELECT} WHERE p.path = ? AND c.idx = ?", (poem, index)).fetchone()
            if row is None:
                why[n] = "the old's couplet is not in this corpus"
                continue
            found: dict[int, Candidate] = {}
            seen = []
            for stage in links_module.STAGES:
                links._candidates(a, b, found, stage)
                if row["couplet_id"] in found:
                    seen.append(stage)
                    break
            alone = decide(a, b, [Candidate(**row)])
            why[n] = (f"its couplet a candidate from stage {seen[0]}" if seen else
                      "its couplet never a candidate (" + ", ".join(links_module.STAGES) + ")") + \
                f"; decided alone: {alone.status} {alone.method} {alone.score}"
    Path(out_file).write_text(json.dumps({"seconds": secs, "cpu": cpu, "decisions": out, "why": why},
                                         ensure_ascii=False))


def run(tree: Path, opts_file: str, scale: float, candidates: int, targets: list | dict | None = None,
        export: str = "") -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json") as f, \
            tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as t:
        json.dump(targets or [], t)
        t.flush()
        env = {**os.environ, "PYTHONPATH": str(tree)}
        subprocess.run([sys.executable, __file__, "--worker", opts_file, f.name, str(scale), str(candidates),
                        t.name, export], env=env, check=True, cwd=tree)
        return json.loads(Path(f.name).read_text("utf-8"))


def main(argv: list[str]) -> None:
    def arg(name: str, default: str) -> str:
        return argv[argv.index(name) + 1] if name in argv else default

    old = Path(arg("--old", "/tmp/linker-old"))
    base = Path(arg("--base", "")) if "--base" in argv else None
    show = int(arg("--show", "60"))
    export = arg("--export", "")
    opts = options()
    if "--per-kind" in argv:
        per: Counter[str] = Counter()
        opts = [o for o in opts if per.update([o["kind"]]) or per[o["kind"]] <= int(arg("--per-kind", "0"))]
    kinds = list(dict.fromkeys(o["kind"] for o in opts))
    print(f"linker_diff: {len(opts):,} options in {len(kinds)} kinds; old {old}; this {ROOT}"
          + (f"; base {base}" if base else ""), flush=True)
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as f:
        json.dump(opts, f, ensure_ascii=False)
        f.flush()
        for name in arg("--datasets", "sample,proxy").split(","):
            scale, candidates = DATASETS[name]
            where = export if name == "full" else ""
            print(f"\n== {name}: budgets / {scale:g}, best {candidates} of a ranked query; "
                  f"load average {os.getloadavg()[0]:.1f}", flush=True)
            got = {"old": run(old, f.name, scale, candidates, export=where)}
            if base:
                got["base"] = run(base, f.name, scale, candidates, export=where)
            d_old = got["old"]["decisions"]
            probe = [(n, d[3], d[4]) for n, d in enumerate(d_old) if d[0] == "linked"]
            got["this"] = run(ROOT, f.name, scale, candidates, probe, export=where)
            this = got["this"]["decisions"]
            differ = sorted({n for k in got for n, d in enumerate(got[k]["decisions"])
                             if d[0] == "linked" and (this[n][0] != "linked" or d[3:5] != this[n][3:5])})
            got["rule"] = ({int(n): d for n, d in run(ROOT, f.name, scale, candidates, {"referee": differ},
                                                      export=where).items()} if name != "full" else {})
            report(opts, kinds, got, show)
            print(f"load average {os.getloadavg()[0]:.1f}", flush=True)


def report(opts: list[dict], kinds: list[str], got: dict, show: int) -> None:
    rule = got.pop("rule")  # option -> its decision with every couplet a candidate (where trees differ)
    names = list(got)
    old, this = got["old"]["decisions"], got["this"]["decisions"]
    sys.path.insert(0, str(ROOT))
    from persian_tui.text import corpus_key

    def source(o: dict, d: list, i: int) -> str:
        """whether the decision's couplet is the one the option was made from (its text), and
        whether it is the rule's: the link with every couplet of the corpus a candidate"""
        made = "?" if "source" not in o or d[5] is None else "its source" if len({
            frozenset(corpus_key(h).replace(" ", "") for h in pair) for pair in (d[5], o["source"])}) == 1 \
            else "not its source"
        r = rule.get(i)
        return made + ("" if r is None else ", the rule's" if r[0] == d[0] and r[3:5] == d[3:5] else ", not the rule's")

    def linked(d: list) -> bool:
        return d[0] == "linked"

    print(f"{'kind':48} {'options':>7}  " + " / ".join(f"linked {n}" for n in names) + "  lost moved gained")
    totals: Counter[str] = Counter()
    lost, moved = [], []
    for kind in kinds + ["all"]:
        idx = [n for n, o in enumerate(opts) if kind in ("all", o["kind"])]
        c = {n: sum(linked(got[n]["decisions"][i]) for i in idx) for n in names}
        kl = [i for i in idx if linked(old[i]) and not linked(this[i])]
        km = [i for i in idx if linked(old[i]) and linked(this[i]) and old[i][3] != this[i][3]]
        kg = [i for i in idx if linked(this[i]) and not linked(old[i])]
        if kind != "all":
            lost += kl
            moved += km
        else:
            totals.update(lost=len(kl), moved=len(km), gained=len(kg))
        print(f"{kind:48} {len(idx):7}  " + " / ".join(f"{c[n]:>{7 + len(n)}}" for n in names)
              + f"  {len(kl):4} {len(km):5} {len(kg):6}")
    for n in names:
        print(f"time {n}: {got[n]['seconds']:.1f} s ({got[n]['cpu']:.1f} s CPU), "
              f"{1000 * got[n]['seconds'] / len(opts):.1f} ms an option")
    if "base" in got:
        print(f"this / base time: {got['this']['seconds'] / got['base']['seconds']:.2f}x")
        base = got["base"]["decisions"]
        changed = [i for i in range(len(opts)) if base[i][:5] != this[i][:5]]
        lost_b = sum(linked(base[i]) and not linked(this[i]) for i in changed)
        gained_b = sum(linked(this[i]) and not linked(base[i]) for i in changed)
        moved_b = [i for i in changed if linked(base[i]) and linked(this[i]) and base[i][3:5] != this[i][3:5]]
        print(f"this against base: {len(changed)} decisions differ; lost {lost_b}, gained {gained_b}, "
              f"moved {len(moved_b)}, the rest the same couplet (method or score)")
        for i in moved_b[:show]:
            o = opts[i]
            print(f"  [{o['kind']}] {o['m1']} / {o['m2']}\n    base {base[i][:5]} {source(o, base[i], i)}\n"
                  f"    this {this[i][:5]} {source(o, this[i], i)}")
    print(f"this / old time: {got['this']['seconds'] / got['old']['seconds']:.2f}x")
    why = got["this"]["why"]
    for title, rows in (("lost", lost), ("moved", moved)):
        right = Counter((source(opts[i], old[i], i), source(opts[i], this[i], i)) for i in rows)
        print(f"{title}: {len(rows)}" + (f" (old, this: {dict(right)})" if rows else ""))
        for i in rows[:show]:
            o = opts[i]
            print(f"  [{o['kind']}] {o['m1']} / {o['m2']}\n    old  {old[i][:5]} {source(o, old[i], i)}\n"
                  f"    this {this[i][:5]} {source(o, this[i], i)}\n    why: {why.get(str(i), '?')}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        sys.path.insert(0, os.environ["PYTHONPATH"])
        worker(*sys.argv[2:4], float(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7])
    else:
        main(sys.argv[1:])
