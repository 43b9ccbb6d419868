"""Coverage of the report's rank confidence sets (reports/ranking.rank_sets: the exact paired
tests, Holm over Tarone's family of all pairs for the simultaneous set, of the run's own pairs
for the marginal one) by simulation, with true ties, near ties and separated runs.

Each repetition draws R runs' answers to Q questions from a Rasch model, P(right) =
1 / (1 + exp(-(theta_r - b_j))), the question difficulties b_j ~ N(0, 1) drawn afresh each time
(questions differ in difficulty, so the runs' answers are correlated as real ones are). A run's
true rank is 1 + the runs with a higher ability (tied runs share the best rank). Simultaneous
coverage: every run's true rank inside its simultaneous set; marginal: a run's true rank inside
its marginal set, the lowest over runs shown. Also: the share of runs whose marginal set is a
single rank (how informative the sets are). Prints figures; asserts nothing.

Run: python bench/bench_rank_sets.py [--reps 1000] [--runs 29] [--questions 194]"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from persian_tui.reports.ranking import rank_sets  # noqa: E402


def configurations(R: int) -> dict[str, np.ndarray]:
    """name -> abilities (logits)."""
    return {
        "all tied": np.zeros(R),
        "two tied blocks": np.repeat([0.0, 0.6], [R // 2, R - R // 2]),
        "near ties (0.02 logit apart)": np.linspace(0, 0.02 * (R - 1), R),
        "near ties (0.05 logit apart)": np.linspace(0, 0.05 * (R - 1), R),
        "separated (0.15 logit apart)": np.linspace(0, 0.15 * (R - 1), R),
    }


def one(theta: np.ndarray, Q: int, rng: np.random.Generator) -> tuple[bool, np.ndarray, np.ndarray]:
    """Whether the simultaneous sets all cover, per run whether the marginal set covers, and
    per run whether the marginal set is one rank."""
    R = len(theta)
    b = rng.normal(0, 1, Q)
    right = (rng.random((R, Q)) < 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))).astype(np.int64)
    ia, ib = np.triu_indices(R, k=1)
    both = right @ right.T
    total = right.sum(axis=1)
    a_only = (total[:, None] - both)[ia, ib]
    b_only = (total[None, :] - both)[ia, ib]
    ids = list(range(R))
    sets = rank_sets(ids, ia, ib, a_only, b_only)
    true = np.array([1 + int((theta > t).sum()) for t in theta])
    low_m, high_m, low_s, high_s = (np.array([sets[i][k] for i in ids]) for k in range(4))
    marginal = (low_m <= true) & (true <= high_m)
    simultaneous = bool(np.all((low_s <= true) & (true <= high_s)))
    return simultaneous, marginal, low_m == high_m


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=29)
    ap.add_argument("--questions", type=int, default=194)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2026)
    print(f"{args.runs} runs, {args.questions} questions, {args.reps} repetitions per configuration "
          f"(Monte Carlo SE of a coverage near 0.95: {np.sqrt(0.95 * 0.05 / args.reps):.3f})")
    print(f"{'configuration':32}  simultaneous  marginal (mean, lowest run)  single-rank marginal sets")
    for name, theta in configurations(args.runs).items():
        sim, marg, single = [], [], []
        for _ in range(args.reps):
            s, m, one_rank = one(theta, args.questions, rng)
            sim.append(s)
            marg.append(m)
            single.append(one_rank)
        m = np.array(marg)
        print(f"{name:32}  {np.mean(sim):12.3f}  {m.mean():8.3f}, {m.mean(axis=0).min():.3f}"
              f"{np.mean(single):27.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
