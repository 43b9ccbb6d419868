"""Evaluation-run speed: (a) the default embedder on 1,000 questions, cold and cached;
(b) an LLM run of 600 questions against a local OpenAI-compatible server answering in 100 ms,
concurrency 16 vs 1 (the seed's sequential loop). Prints figures; asserts nothing.

Run: python bench/bench_runs.py [--questions 600] [--delay 0.1]"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
from generate import write_bank  # noqa: E402
from llm_server import LLMServer, Reply  # noqa: E402

from persian_tui.bank.importer import apply_import, plan_import  # noqa: E402
from persian_tui.runs import EmbedRunSpec, LLMRunSpec, create_llm_run, execute_llm_run, run_embedding  # noqa: E402
from persian_tui.store import Store  # noqa: E402
from persian_tui.store.runs import RunsRepo  # noqa: E402
from persian_tui.text import warm_up  # noqa: E402


def bank(path: Path, n: int) -> Path:
    db = path / f"bank{n}.db"
    with Store(db) as store:
        plan = plan_import(store, write_bank(path / f"bank{n}.jsonl", n))
        apply_import(store, plan)
    return db


def embeddings(tmp: Path) -> None:
    db = bank(tmp, 1000)
    with Store(db) as store:
        t = time.perf_counter()
        p = run_embedding(store, EmbedRunSpec(questions="all"))
        cold = time.perf_counter() - t
        t = time.perf_counter()
        run_embedding(store, EmbedRunSpec(questions="all"))
        again = time.perf_counter() - t
    print(f"(a) tfidf baseline, 1,000 questions (4,000 texts): {cold:.2f} s, rerun {again:.2f} s "
          f"(tfidf is refitted, not cached: its rows are vocabulary-wide); accuracy {p.accuracy:.1%} "
          "on random text, i.e. chance")

    # a model behind an OpenAI-compatible /v1/embeddings endpoint costing 20 ms per batch of 64
    def script(body, n):
        data = [{"object": "embedding", "index": i, "embedding": [float(len(t) % 7), float(len(t) % 5), 1.0]}
                for i, t in enumerate(body["input"])]
        return Reply(body={"object": "list", "model": "m", "data": data,
                           "usage": {"prompt_tokens": 1, "total_tokens": 1}}, delay=0.02)

    with LLMServer(script) as server, Store(db) as store:
        spec = EmbedRunSpec(model="openai:bench", base_url=server.url, questions="all")
        t = time.perf_counter()
        run_embedding(store, spec)
        cold = time.perf_counter() - t
        calls = len(server.requests)
        t = time.perf_counter()
        run_embedding(store, spec)
        cached = time.perf_counter() - t
    print(f"    endpoint model (20 ms per batch): cold {cold:.2f} s ({calls} requests), cached rerun "
          f"{cached:.2f} s ({len(server.requests) - calls} requests) -> {cold / cached:.1f}x faster")


def llm(tmp: Path, n: int, delay: float) -> None:
    db = bank(tmp, n)
    writes: list[float] = []
    original = RunsRepo.save_predictions

    def timed_save(self, run_id, preds):
        t = time.perf_counter()
        original(self, run_id, preds)
        writes.append(time.perf_counter() - t)

    RunsRepo.save_predictions = timed_save
    results = {}
    # the server runs in its own process, so it does not share this one's GIL with the client
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "llm_server.py"), "--delay", str(delay)],
                            stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    try:
        for concurrency in (16, 1):
            writes.clear()
            with Store(db) as store:
                spec = LLMRunSpec(base_url=url, model=f"bench-c{concurrency}", questions="all",
                                  concurrency=concurrency, cache=False)
                run = create_llm_run(store, spec)
            t = time.perf_counter()
            p = asyncio.run(execute_llm_run(db, run.id))
            elapsed = time.perf_counter() - t
            results[concurrency] = elapsed
            writes.sort()
            print(f"(b) LLM run, {n} questions at {delay * 1000:.0f} ms/reply, concurrency {concurrency:>2}: "
                  f"{elapsed:.1f} s, {p.done / elapsed:.1f} answers/s; row writes median "
                  f"{writes[len(writes) // 2] * 1000:.1f} ms, max {writes[-1] * 1000:.1f} ms")
    finally:
        proc.kill()
    ideal = 16
    speedup = results[1] / results[16]
    print(f"    concurrency 16 vs 1: {speedup:.1f}x ({speedup / ideal:.0%} of the ideal {ideal}x)   "
          "[target >= 80 %]")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--questions", type=int, default=600)
    p.add_argument("--delay", type=float, default=0.1)
    args = p.parse_args()
    warm_up()
    import openai  # noqa: F401  (a one-time ~0.7 s import, kept out of the timed runs)

    tmp = Path(tempfile.mkdtemp(prefix="ptui-bench-runs-"))
    embeddings(tmp)
    llm(tmp, args.questions, args.delay)


if __name__ == "__main__":
    main()
