"""Report speed: 30 runs x 600 questions generated into a temporary database through the store
API (each run answers with its own skill, some with a position bias, a few invalid answers;
three annotators label a third of the bank). Times build_report (the report core: reading the
database and every statistic) and the file outputs, and compares the report's paired-comparison
code (reports/pairs.pair_rows) with a naive per-pair loop (the notebook way: Python loops over the
questions both runs answered, one statsmodels call per pair), in the same run on the same answers
(half the runs answering 60-100 % of the questions, so every pair has its own overlap).
With --samples K (default 5) a second database, the same but with every third run asked each
question K times (repeated samples: K rows per question, voted to the majority's first), is timed
the same way: the report with its samples section against the first database in the same run.
Prints figures; asserts nothing.

Run: python bench/bench_report.py [--runs 30] [--questions 600] [--bootstrap 2000] [--samples 5]"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from generate import question  # noqa: E402

from persian_tui import stats  # noqa: E402
from persian_tui.bank.jsonl import from_record  # noqa: E402
from persian_tui.models import Label, Prediction  # noqa: E402
from persian_tui.reports.figures import build_report  # noqa: E402
from persian_tui.reports.report_files import render_files, render_text, write_report  # noqa: E402
from persian_tui.store import Store  # noqa: E402


def make_db(path: Path, n_runs: int, n_questions: int, seed: int = 5, samples: int = 1) -> None:
    """samples > 1: every third run (r % 3 == 1) asks each question that many times."""
    rng = random.Random(seed)
    with Store(path) as store:
        qs = [from_record(question(i, rng)) for i in range(n_questions)]
        for q in qs:
            q.poet = rng.choice(["حافظ", "سعدی", "مولوی", "صائب", None])
        store.questions.add_questions(qs)
        for r in range(n_runs):
            skill = 0.25 + 0.6 * r / max(n_runs - 1, 1)  # from chance to 85 %
            favourite = rng.randint(1, 4) if r % 3 == 0 else None  # every third run leans to a position
            k = samples if samples > 1 and r % 3 == 1 else 1
            preds = []
            for q in qs:
                for s in range(k):
                    x = rng.random()
                    if x < 0.02:
                        preds.append(Prediction(q.uid, None, rng.choice(["invalid", "empty", "api_error"]),
                                                sample=s))
                        continue
                    if rng.random() < skill:
                        answer = q.key
                    elif favourite and rng.random() < 0.5:
                        answer = favourite
                    else:
                        answer = rng.choice([o for o in (1, 2, 3, 4) if o != q.key])
                    preds.append(Prediction(q.uid, answer, "ok", tokens_in=rng.randint(300, 600),
                                            tokens_out=rng.randint(1, 400), latency=rng.uniform(0.2, 3.0),
                                            cost=rng.uniform(0, 1e-3), sample=s))
            store.runs.create_run("llm", f"vendor/model-{r:02d}", {"bench": True, "samples": k}, total=len(preds),
                                  status="done", predictions=preds)
        labels = [Label(q.uid, name, q.key if rng.random() < 0.7 else rng.randint(1, 4))
                  for name in ("ali", "mina", "sara") for q in qs[: n_questions // 3]]
        store.labels.add_labels(labels)


def naive_pairs(right: np.ndarray, asked: np.ndarray, alpha: float = 0.05) -> list[tuple]:
    """Every pair the notebook way, on each pair's own overlap: Python loops over the questions
    both runs answered, one statsmodels exact McNemar and one Tango score interval per pair, Holm
    at the end over Tarone's family (the pairs whose smallest possible p can reach alpha / K)."""
    from statsmodels.stats.contingency_tables import mcnemar

    R, Q = right.shape
    rows, seen = right.tolist(), asked.tolist()
    out = []
    for a in range(R):
        for b in range(a + 1, R):
            n = a_only = b_only = 0
            for x, y, sx, sy in zip(rows[a], rows[b], seen[a], seen[b]):
                if sx and sy:
                    n += 1
                    a_only += x and not y
                    b_only += y and not x
            p = mcnemar([[0, a_only], [b_only, 0]], exact=True).pvalue
            lo, hi = stats.paired_difference_interval(a_only, b_only, n, alpha)
            out.append((a, b, n, a_only, b_only, p, float(lo), float(hi)))
    family = stats.tarone_family([o[3] + o[4] for o in out], alpha)
    holm = np.full(len(out), np.nan)
    holm[family] = stats.holm([o[5] for o, f in zip(out, family) if f])
    return [o + (h,) for o, h in zip(out, holm)]


def report_pairs(right: np.ndarray, asked: np.ndarray) -> list[tuple]:
    """The same from the report's own code (reports/pairs.pair_rows: matrix products, one vectorized
    scipy/statsmodels call per statistic, plus the exact MDE and Connor's n at two levels)."""
    from persian_tui.reports.pairs import pair_rows

    R = right.shape[0]
    rows, _ = pair_rows(list(range(R)), list(range(R)), right, asked, 0.05, 0.8)
    return [(p.a, p.b, p.n, p.a_only, p.b_only, p.p_exact, p.diff_low, p.diff_high,
             np.nan if p.p_holm is None else p.p_holm) for p in rows]


def timed(fn, repeat: int = 1):
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return result, times


def bench_samples(tmp: Path, args, baseline: float) -> None:
    """The same report on a database where every third run was asked each question K times."""
    db = tmp / "samples.db"
    t = time.perf_counter()
    make_db(db, args.runs, args.questions, samples=args.samples)
    with Store(db) as store:
        rows = store.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]
        print(f"database with samples: every third run asked {args.samples} times ({rows:,} predictions), "
              f"built in {time.perf_counter() - t:.1f} s")
        timed(lambda: build_report(store, n_boot=args.bootstrap))
        report, times = timed(lambda: build_report(store, n_boot=args.bootstrap), repeat=5)
    med = statistics.median(times)
    print(f"build_report with majority-vote samples and item analysis: median {med * 1000:.0f} ms of 5 "
          f"(min {min(times) * 1000:.0f})   [target < 1 s]; {len(report.samples)} voted runs; "
          f"{med / baseline:.2f}x the single-sample database's {baseline * 1000:.0f} ms")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--questions", type=int, default=600)
    p.add_argument("--bootstrap", type=int, default=2000)
    p.add_argument("--samples", type=int, default=5, help="K of the repeated-samples database (1: skip it)")
    args = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ptui-bench-report-"))
    db = tmp / "report.db"
    t = time.perf_counter()
    make_db(db, args.runs, args.questions)
    print(f"database: {args.runs} runs x {args.questions} questions "
          f"({args.runs * args.questions:,} predictions) + {args.questions // 3 * 3} labels, "
          f"built in {time.perf_counter() - t:.1f} s")
    pairs = args.runs * (args.runs - 1) // 2
    with Store(db) as store:
        # the first call pays one-time costs (lazy imports inside scipy/statsmodels): kept apart
        _, first = timed(lambda: build_report(store, n_boot=args.bootstrap))
        report, times = timed(lambda: build_report(store, n_boot=args.bootstrap), repeat=5)
        _, load = timed(lambda: [store.runs.predictions(r.id) for r in store.runs.runs()]
                        + [store.questions.questions()], repeat=5)
    core = statistics.median(times)
    print(f"build_report: median {core * 1000:.0f} ms of 5 (min {min(times) * 1000:.0f}, first call "
          f"{first[0] * 1000:.0f} ms)   [target < 1 s]")
    print(f"  of which reading the runs and questions from SQLite: {statistics.median(load) * 1000:.0f} ms; "
          f"{report.questions} shared questions, {len(report.pairs)} pairs, {args.bootstrap} resamples, "
          f"item analysis of {len(report.items)} questions included")
    from persian_tui.reports.items import item_analysis
    from persian_tui.reports.selection import report_inputs

    with Store(db) as store:
        inp, _ = report_inputs(store, None, "all")
        ids = [r.id for r in inp.runs]
        _, it = timed(lambda: item_analysis(store, inp.keyed, ids, inp.preds), repeat=5)
    print(f"  of which item analysis (difficulty, discrimination, distractors, flags; runs + humans): "
          f"{statistics.median(it) * 1000:.0f} ms")
    for fmt in ("json", "csv", "md"):
        _, ts = timed(lambda fmt=fmt: write_report(report, tmp / "out", fmt), repeat=3)
        what = {"json": "report.json", "csv": "8 CSV files", "md": "report.md + 2 PNG charts"}[fmt]
        print(f"write --format {fmt:<4} ({what}): median {statistics.median(ts) * 1000:.0f} ms")
    _, ts = timed(lambda: render_text(report), repeat=3)
    print(f"render --format table: {statistics.median(ts) * 1000:.1f} ms")
    again = build_report(Store(db), n_boot=args.bootstrap)
    same = all(render_files(again, f) == render_files(report, f) for f in ("json", "csv", "md"))
    print(f"deterministic (a second build gives the same bytes in every format): {same}")
    if args.samples > 1:
        bench_samples(tmp, args, core)

    # paired comparisons: the report's code vs the naive per-pair loop, each pair on its own overlap
    right = np.zeros((args.runs, report.questions), dtype=bool)
    with Store(db) as store:
        keys = {q.uid: q.key for q in store.questions.questions()}
        uids = sorted(keys)
        for i, r in enumerate(store.runs.runs()):
            got = {p.uid: p.predicted if p.parse_status == "ok" else None for p in store.runs.predictions(r.id)}
            right[i] = [got[u] == keys[u] for u in uids]
    # every other run answered a random 60-100 % of the questions: overlaps differ pair by pair
    rng = np.random.default_rng(0)
    asked = np.ones_like(right)
    for i in range(1, args.runs, 2):
        asked[i] = rng.random(right.shape[1]) < rng.uniform(0.6, 1.0)
    right &= asked
    fast, tf = timed(lambda: report_pairs(right, asked), repeat=3)
    slow, ts = timed(lambda: naive_pairs(right, asked))
    agree = all(f[:5] == s[:5] and np.allclose(f[5:], s[5:], rtol=1e-9, atol=1e-12, equal_nan=True)
                for f, s in zip(fast, slow))
    vf, vs = statistics.median(tf), ts[0]
    print(f"paired comparisons ({pairs} pairs, each on its own overlap; exact McNemar, Holm over Tarone's "
          f"family, Tango's interval; the report's also Bonferroni intervals, exact MDE and exact n for E at two "
          f"levels):")
    print(f"  report (reports/pairs.pair_rows, vectorized): {vf * 1000:.0f} ms")
    print(f"  naive per-pair loops:                      {vs:.1f} s  -> {vs / vf:.0f}x slower; "
          f"results identical: {agree}")


if __name__ == "__main__":
    main()
