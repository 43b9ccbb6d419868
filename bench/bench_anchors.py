"""Anchor questions against random questions, leave one run out, on the seed's experiment-6
answers (the CSV's is_correct column; the question id the source repeats, 6, left out; the run
whose answers are almost all unusable left out as the report's default does: 30 runs, 98 or 198
questions each).

For each run in turn: the common-scale model (reports/scale.py) is fitted on the OTHER runs'
answers; the n anchors are chosen from that fit among the questions the run answered (its
"whole set"); the run's ability is estimated from its answers on the anchors alone, and its
whole-set accuracy estimated with its 95 % prediction interval (scale.whole_set). The error is
against the run's real accuracy on its whole set. Baseline: plain accuracy on n questions drawn
at random from the same set (its expected absolute error over --draws draws). Prints the mean
absolute errors, their ratio (the target is <= 0.75) and the intervals' coverage.

Run: python bench/bench_anchors.py [--n 50] [--draws 2000] [--csv ../shared/seed-data/exp6-llm-answers.csv]"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from persian_tui.reports import scale  # noqa: E402

SEED_CSV = ROOT.parent / "shared" / "seed-data" / "exp6-llm-answers.csv"


def seed_matrix(path: Path) -> tuple[list[str], np.ndarray, np.ndarray]:
    """models, right (R, J) and answered (R, J) from the CSV."""
    rows = list(csv.DictReader(open(path, encoding="utf-8")))
    twice = Counter((r["model_name"], r["question_id"]) for r in rows)
    rows = [r for r in rows if twice[(r["model_name"], r["question_id"])] == 1]
    models = sorted({r["model_name"] for r in rows})
    ids = sorted({r["question_id"] for r in rows}, key=int)
    mi, qi = {m: i for i, m in enumerate(models)}, {q: j for j, q in enumerate(ids)}
    right, asked = np.zeros((len(models), len(ids))), np.zeros((len(models), len(ids)), dtype=bool)
    unusable = np.zeros(len(models))
    for r in rows:
        i, j = mi[r["model_name"]], qi[r["question_id"]]
        asked[i, j], right[i, j] = True, r["is_correct"] == "True"
        unusable[i] += not r["model_answer"].strip()
    keep = unusable <= 0.5 * asked.sum(axis=1)  # the report's default leaves out broken runs
    return [m for m, k in zip(models, keep) if k], right[keep], asked[keep]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--csv", type=Path, default=SEED_CSV)
    args = ap.parse_args(argv)
    if not args.csv.is_file():
        print(f"no {args.csv}: the seed's answers are needed")
        return 1
    models, right, asked = seed_matrix(args.csv)
    R, J = right.shape
    rng = np.random.default_rng(0)
    err_anchor, err_random, covered, widths = [], [], [], []
    for i in range(R):
        others = np.arange(R) != i
        fit = scale.fit(right[others], asked[others])
        mine = np.flatnonzero(asked[i])
        uids = [str(j) for j in mine]
        chosen = np.array([int(u) for u in scale.anchors(fit, uids, args.n)])
        seen = np.zeros((1, J), dtype=bool)
        seen[0, chosen] = True
        theta, se = scale.abilities(fit, right[i:i + 1], seen)
        whole = scale.whole_set(fit, right[i:i + 1], seen, theta, se, columns=mine)
        truth = right[i, mine].mean()
        err_anchor.append(abs(whole.accuracy[0] - truth))
        covered.append(whole.low[0] <= truth <= whole.high[0])
        widths.append(whole.high[0] - whole.low[0])
        draws = np.array([rng.choice(mine, args.n, replace=False) for _ in range(args.draws)])
        err_random.append(np.abs(right[i, draws].mean(axis=1) - truth).mean())
    a, b = float(np.mean(err_anchor)), float(np.mean(err_random))
    print(f"{R} runs, {J} questions ({int(asked.sum(axis=1).min())}-{int(asked.sum(axis=1).max())} per run), "
          f"{args.n} anchors, leave one run out")
    print(f"mean absolute error: anchors {100 * a:.2f} pt, {args.n} random questions {100 * b:.2f} pt "
          f"(mean over {args.draws} draws per run); ratio {a / b:.2f} (target <= 0.75)")
    print(f"anchors' 95 % prediction interval: coverage {np.mean(covered):.3f} ({int(np.sum(covered))}/{R}), "
          f"mean width {100 * np.mean(widths):.1f} pt")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
