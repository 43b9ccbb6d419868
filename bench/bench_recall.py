"""Recall probes at the pace of `run llm`: the same endpoint (the test server in its own process on
127.0.0.1, a fixed delay per reply), the same concurrency, the same number of requests. An LLM run
of 4N questions against recall runs of the 4N couplets of N questions (cues first and words,
formats complete and choose), alternately, in the same process; prints requests per second and
the ratio to `run llm` measured in the same run. Asserts nothing.

Run: python bench/bench_recall.py [--questions 150] [--delay 0.05] [--concurrency 16] [--rounds 2]
     [--corpus ../shared/ganjoor-sample]"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
from generate import write_bank  # noqa: E402

from persian_tui.bank.importer import apply_import, plan_import  # noqa: E402
from persian_tui.runs import (  # noqa: E402
    LLMRunSpec,
    RecallRunSpec,
    create_llm_run,
    create_recall_run,
    execute_llm_run,
    execute_recall_run,
)
from persian_tui.store import Store  # noqa: E402
from persian_tui.text import warm_up  # noqa: E402


def bank(path: Path, n: int) -> Path:
    db = path / f"bank{n}.db"
    with Store(db) as store:
        apply_import(store, plan_import(store, write_bank(path / f"bank{n}.jsonl", n)))
    return db


def corpus_bank(path: Path, n: int, export: Path) -> Path:
    """A bank whose 4n options are the first 4n couplets of a Ganjoor export, imported and linked:
    probes as on the book (the corpus's poet and text; choose's distractors from the poet's
    couplets of the same metre and rhyme)."""
    from persian_tui.corpus.ganjoor import import_corpus
    from persian_tui.models import Option, Question

    db = path / f"corpus{n}.db"
    with Store(db) as store:
        import_corpus(store, export)
        couplets = [c for c in store.corpus.search_couplets("", limit=8 * n) if c.mesra1 and c.mesra2][:4 * n]
        store.questions.add_questions([
            Question(uid=f"c-{i:04d}", status="ready", key=1,
                     options=[Option(j + 1, c.mesra1, c.mesra2) for j, c in enumerate(couplets[4 * i:4 * i + 4])])
            for i in range(len(couplets) // 4)])
        store.links.link_questions()
    return db


def timed(db: Path, kind: str, spec) -> float:
    """Requests per second of one new run of `spec` on `db`."""
    with Store(db) as store:
        run_id = create_llm_run(store, spec).id if kind == "llm" else create_recall_run(store, spec)[0].id
    execute = execute_llm_run if kind == "llm" else execute_recall_run
    t = time.perf_counter()
    p = asyncio.run(execute(db, run_id))
    return p.done / (time.perf_counter() - t)


def main() -> None:
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--questions", type=int, default=150, help="N: recall runs probe its 4N couplets")
    a.add_argument("--delay", type=float, default=0.05)
    a.add_argument("--concurrency", type=int, default=16)
    a.add_argument("--rounds", type=int, default=2)
    a.add_argument("--corpus", type=Path, help="a Ganjoor export: also probe N questions of its linked couplets")
    args = a.parse_args()
    warm_up()
    import openai  # noqa: F401  (a one-time import, kept out of the timed runs)

    tmp = Path(tempfile.mkdtemp(prefix="ptui-bench-recall-"))
    small, large = bank(tmp, args.questions), bank(tmp, 4 * args.questions)
    linked = corpus_bank(tmp, args.questions, args.corpus) if args.corpus else None
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "llm_server.py"), "--delay", str(args.delay),
                             "--answer", "<answer>2</answer>"], stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip() if proc.stdout else ""
    common = {"base_url": url, "questions": "all", "concurrency": args.concurrency, "cache": False,
              "max_retries": 0}
    cases = {
        "run llm": (large, "llm", LLMRunSpec(model="bench-llm", **common)),
        "recall first/complete": (small, "recall", RecallRunSpec(model="bench-r", **common)),
        "recall words/complete": (small, "recall", RecallRunSpec(model="bench-w", cue="words", **common)),
        "recall first/choose": (small, "recall", RecallRunSpec(model="bench-c", format="choose", **common)),
    }
    if linked is not None:
        cases["linked words/complete"] = (linked, "recall", RecallRunSpec(model="bench-lw", cue="words", **common))
        cases["linked first/choose"] = (linked, "recall", RecallRunSpec(model="bench-lc", format="choose", **common))
    seen: dict[str, list[float]] = {k: [] for k in cases}
    try:
        for _ in range(args.rounds):
            for name, (db, kind, spec) in cases.items():
                seen[name].append(timed(db, kind, spec))
    finally:
        proc.kill()
    ideal = args.concurrency / args.delay
    base = statistics.median(seen["run llm"])
    print(f"{4 * args.questions} requests per run at {args.delay * 1000:.0f} ms per reply, concurrency "
          f"{args.concurrency} (the limit: {ideal:.0f} requests/s); median of {args.rounds} rounds, alternated")
    for name, rates in seen.items():
        rate = statistics.median(rates)
        ratio = "" if name == "run llm" else f", {rate / base:.2f}x run llm"
        print(f"  {name:<24} {rate:6.1f} requests/s ({rate / ideal:.0%} of the limit){ratio}")


if __name__ == "__main__":
    main()
