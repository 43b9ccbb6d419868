"""Answer parser: accuracy on the hand-labelled corpus of replies (tests/data/replies.jsonl) and
speed, against two baselines measured in the same run:

- "first digit": the seed scripts' way, the first 1-4 anywhere in the reply (Persian digits
  folded), nothing else ever invalid;
- "previous": this project's parser before the clause-level reading (read from git history,
  commit 4105c1f; skipped when git or the commit is not available).

A reading is right when it equals the label: an answer 1-4, or a status (invalid, ambiguous,
refusal, empty). Prints figures; asserts nothing.

Run: python bench/bench_parse.py [--repeat 20]"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
import types
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from persian_tui.runs.parse import parse_answer  # noqa: E402 (after the path set-up)

CORPUS = ROOT / "tests" / "data" / "replies.jsonl"
PREVIOUS = "4105c1fd73c2173e15b9c8a2a5c8c9ef6ae03235"
_FOLD = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")


def first_digit(text: str):
    m = re.search(r"[1-4]", (text or "").translate(_FOLD))
    return int(m.group()) if m else "invalid"


def previous_parser():
    try:
        source = subprocess.run(["git", "-C", str(ROOT), "show", f"{PREVIOUS}:persian_tui/eval/parse.py"],
                                capture_output=True, text=True, check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    module = types.ModuleType("previous_parse")
    sys.modules["previous_parse"] = module  # dataclasses look their module up
    exec(compile(source, "previous_parse.py", "exec"), module.__dict__)  # noqa: S102 - our own history

    def read(text):
        p = module.parse_answer(text)
        return p.answer if p.status == "ok" else p.status
    return read


def current(text):
    p = parse_answer(text)
    return p.answer if p.status == "ok" else p.status


def measure(name, read, corpus, repeat):
    right, by_kind = 0, Counter()
    for item in corpus:
        ok = read(item["text"]) == item["expect"]
        right += ok
        by_kind[("answer" if isinstance(item["expect"], int) else item["expect"], ok)] += 1
    start = time.perf_counter()
    for _ in range(repeat):
        for item in corpus:
            read(item["text"])
    us = (time.perf_counter() - start) / (repeat * len(corpus)) * 1e6
    kinds = sorted({k for k, _ in by_kind})
    detail = ", ".join(f"{k} {by_kind[(k, True)]}/{by_kind[(k, True)] + by_kind[(k, False)]}" for k in kinds)
    print(f"{name:<12} {right:>4}/{len(corpus)}  {right / len(corpus):6.1%}  {us:8.1f} µs/reply   ({detail})")
    return right / len(corpus), us


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    corpus = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines() if line.strip()]
    labels = Counter("answer" if isinstance(x["expect"], int) else x["expect"] for x in corpus)
    print(f"corpus: {len(corpus)} replies ({', '.join(f'{k} {v}' for k, v in sorted(labels.items()))})")
    print(f"{'parser':<12} {'right':>9}  {'acc':>6}  {'speed':>8}")
    acc, us = measure("current", current, corpus, args.repeat)
    base_acc, base_us = measure("first digit", first_digit, corpus, args.repeat)
    prev = previous_parser()
    if prev is not None:
        prev_acc, prev_us = measure("previous", prev, corpus, args.repeat)
        print(f"current vs previous: accuracy {acc - prev_acc:+.1%}, time per reply x{us / prev_us:.1f}")
    print(f"current vs first digit: accuracy {acc - base_acc:+.1%}, time per reply x{us / base_us:.0f}")


if __name__ == "__main__":
    main()
