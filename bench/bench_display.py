"""Display sanitizer: what ``display.clean`` adds to the bank's layout (table cells and
detail lines in app mode), against the same layout without it, measured in the same run.

Lines are 90 % clean Persian couplets (the fast path: one regex search) and 10 % with control
characters. ``bidi.visual`` is cached, so each pass uses fresh text. Prints figures; asserts nothing.

Run: python bench/bench_display.py [--lines 20000]"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from persian_tui import bidi, display  # noqa: E402 (after the path set-up)

BASE = "طریق عشق پرآشوب و فتنه است ای دل می\u200cرود بیفتد آن که در این راه با شتاب رود"


def lines(n: int, tag: str) -> list[str]:
    return [f"{BASE} {tag}{i}" + ("\x1b[2J\x07" if i % 10 == 0 else "") for i in range(n)]


def layout(texts: list[str]) -> float:
    start = time.perf_counter()
    for t in texts:
        bidi.display_line(t, 40, bidi.APP)
        bidi.display_lines(t, 30, bidi.APP)
    return time.perf_counter() - start


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--lines", type=int, default=20000)
    n = p.parse_args().lines
    real = bidi.clean

    def layout_without(texts):
        bidi.clean = lambda text: text  # the baseline: the same layout, nothing sanitized
        try:
            return layout(texts)
        finally:
            bidi.clean = real

    layout(lines(n // 4, "warm"))
    runs_with, runs_without = [], []
    for r in range(3):  # interleaved, best of three each
        runs_with.append(layout(lines(n, f"w{r}-")))
        runs_without.append(layout_without(lines(n, f"o{r}-")))
    with_clean, without = min(runs_with), min(runs_without)
    start = time.perf_counter()
    for t in lines(n, "c"):
        display.clean(t)
    alone = time.perf_counter() - start
    print(f"{n} lines, table cell + wrapped lines each (app mode)")
    print(f"layout with sanitizer    {with_clean * 1e6 / n:8.1f} µs/line")
    print(f"layout without (baseline){without * 1e6 / n:8.1f} µs/line")
    print(f"display.clean alone      {alone * 1e6 / n:8.2f} µs/line")
    print(f"ratio with/without       {with_clean / without:8.3f}")


if __name__ == "__main__":
    main()
