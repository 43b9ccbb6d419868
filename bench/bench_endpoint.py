"""Runs at the endpoint's pace (issue 33): whole `persian-tui run llm` / `judge` processes and
`inspect eval` of the release's own Inspect task, side by side on the same local
OpenAI-compatible server (its own process, 127.0.0.1), in turn, each case twice.

Cases: (a) 567 questions, 100 ms replies, 16 connections: the wall time against the concurrency
limit (567 x 0.1 s / 16) and the sequential ideal (567 x 0.1 s); (b) 200 ms replies with every
10th first attempt answered 429: ours against Inspect's (skipped, said so, without inspect-ai);
(c) a zero-latency endpoint: CPU per request, whole process and in the run alone (the process's
CPU less that of the same command with --limit 1); (d) a judge run of the (a) run's replies;
(e) CLI start: `--help` and reading commands against `python -c pass`.
(a) and (c) also time bench/openai_floor.py on the same prompts: a bare script through the same
`openai` client (import, client, posts; nothing stored) -- the floor any run through it has.

`--baseline DIR` runs every case on another checkout's persian_tui too (e.g. `git archive` of an
older commit), alternately with this one, for before/after figures in the same run. Prints
figures; asserts nothing.

Run: python bench/bench_endpoint.py [--questions 567] [--rounds 2] [--baseline DIR] [--skip a,b,c,d,e]"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
from generate import write_bank  # noqa: E402

CONNECTIONS = 16


class Server:
    """tests/llm_server.py in its own process (its GIL is not the client's)."""

    def __init__(self, delay: float, busy: int = 0, cost: float | None = None, busy_delay: float | None = None,
                 retry_after: str | None = None):
        cmd = [sys.executable, str(ROOT / "tests" / "llm_server.py"), "--delay", str(delay)]
        if busy:
            cmd += ["--busy", str(busy)]
        if busy_delay is not None:
            cmd += ["--busy-delay", str(busy_delay)]
        if retry_after is not None:
            cmd += ["--retry-after", retry_after]
        if cost is not None:
            cmd += ["--cost", str(cost)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.proc.kill()
        self.proc.wait()


def timed(cmd: list[str], env: dict, cwd: Path | None = None) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system, children included) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    # never the checkout as the working folder: `python -c` puts it first on sys.path, and the
    # baseline's processes would import this checkout's persian_tui
    out = subprocess.run(cmd, env=env, cwd=cwd or tempfile.gettempdir(), capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} failed ({out.returncode}): {out.stderr[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout + out.stderr


CLI = [sys.executable, "-c", "import sys; from persian_tui.cli import main; sys.exit(main())"]


def setup(tmp: Path, n: int) -> tuple[Path, Path]:
    """A bank of n generated questions, all accepted and released as v1 (the Inspect task)."""
    from persian_tui.bank.importer import apply_import, plan_import
    from persian_tui.cli import main
    from persian_tui.store import Store

    db = tmp / "bank.db"
    with Store(db) as store:
        apply_import(store, plan_import(store, write_bank(tmp / "bank.jsonl", n)))
        for q in store.questions.questions():
            store.curation.adjudicate(q.uid, "bench", "accept")
    out = tmp / "v1"
    with open(os.devnull, "w") as sink:
        stdout, sys.stdout = sys.stdout, sink
        try:
            assert main(["--db", str(db), "release", "v1", "-o", str(out)]) == 0
        finally:
            sys.stdout = stdout
    return db, out


def ours(db: Path, url: str, env: dict, model: str, limit: int | None = None) -> tuple[float, float]:
    cmd = CLI + ["--db", str(db), "run", "llm", "--base-url", url, "--model", model,
                       "--questions", "all", "--concurrency", str(CONNECTIONS), "--no-cache"]
    if limit:
        cmd += ["--limit", str(limit)]
    wall, cpu, _ = timed(cmd, env)
    return wall, cpu


def judge(db: Path, url: str, env: dict, run_id: int) -> tuple[float, float]:
    cmd = CLI + ["--db", str(db), "judge", str(run_id), "--base-url", url, "--judge-model", "j",
                       "--concurrency", str(CONNECTIONS), "--no-cache"]
    wall, cpu, _ = timed(cmd, env)
    return wall, cpu


def inspect(release: Path, url: str, env: dict, logs: Path) -> tuple[float, float]:
    inspect_bin = Path(sys.executable).with_name("inspect")
    cmd = [str(inspect_bin), "eval", "inspect_task.py", "--model", "openai-api/local/m", "--model-base-url", url,
           "--max-connections", str(CONNECTIONS), "--display", "none", "--log-dir", str(logs)]
    wall, cpu, _ = timed(cmd, {**env, "LOCAL_API_KEY": "not-a-real-key"}, cwd=release)
    return wall, cpu


def floor_bodies(db: Path, dest: Path) -> Path:
    """The zero-shot chat bodies of every question, as the run sends them, for openai_floor.py."""
    from persian_tui.runs.prompts import render
    from persian_tui.store import Store

    with Store(db) as store:
        bodies = [{"model": "floor", "messages": render("zero-shot", q).messages, "temperature": 0}
                  for q in store.questions.questions()]
    dest.write_text(json.dumps(bodies, ensure_ascii=False), "utf-8")
    return dest


def floor(bodies: Path, url: str, env: dict) -> tuple[float, float]:
    wall, cpu, _ = timed([sys.executable, str(ROOT / "bench" / "openai_floor.py"), url, str(bodies),
                          str(CONNECTIONS)], env)
    return wall, cpu


def last_run(db: Path) -> int:
    """Read with sqlite3 itself: this tree's Store would migrate a baseline tree's database."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT max(id) FROM runs WHERE kind = 'llm'").fetchone()[0])


def setup_tree(dest: Path, n: int, env: dict) -> Path:
    """setup() run by a tree's own code (a fresh process with its PYTHONPATH): each tree gets a
    database of its own schema. Returns the database."""
    code = ("import sys; sys.path.insert(0, sys.argv[3]); import bench_endpoint as b; "
            "sys.path[:] = [p for p in sys.path if p != str(b.ROOT)]; "
            "from pathlib import Path; b.setup(Path(sys.argv[1]), int(sys.argv[2]))")
    dest.mkdir(parents=True)
    timed([sys.executable, "-c", code, str(dest), str(n), str(ROOT / "bench")], env)
    return dest / "bank.db"


def start_up(dbs: dict[str, Path], trees: dict[str, dict], times: int = 7) -> None:
    """(e) CLI start: --help and reading commands, median of `times` fresh processes each,
    against `python -c pass` measured alternately with them."""
    cases = {"--help": ["--help"], "stats": ["--db", "{db}", "stats"], "runs": ["--db", "{db}", "runs"],
             "run llm --help": ["run", "llm", "--help"]}
    base: list[tuple[float, float]] = []
    got: dict[tuple[str, str], list[tuple[float, float]]] = {(t, k): [] for t in trees for k in cases}
    for _ in range(times):
        base.append(timed([sys.executable, "-c", "pass"], next(iter(trees.values())))[:2])
        for t, env in trees.items():
            for name, argv in cases.items():
                got[t, name].append(timed(CLI + [a.format(db=dbs[t]) for a in argv], env)[:2])
    bw, bc = (statistics.median(x[i] for x in base) for i in (0, 1))
    print(f"(e) CLI start, median of {times} (wall, CPU): python -c pass {bw:.3f} s, {bc:.3f} s CPU "
          "[goal < 0.25 s wall on a quiet machine]")
    for t in trees:
        print(f"    {t}: " + "; ".join(
            f"{name} {statistics.median(w for w, _ in got[t, name]):.3f} s "
            f"({statistics.median(w for w, _ in got[t, name]) / bw:.1f}x), "
            f"{statistics.median(c for _, c in got[t, name]):.3f} s CPU" for name in cases))


def fmt(xs: list[float], unit: str = "s") -> str:
    return " / ".join(f"{x:.2f}" for x in xs) + f" {unit}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--questions", type=int, default=567)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--baseline", type=Path, help="another checkout (e.g. `git archive` of an older commit) "
                   "whose persian_tui runs each case too, alternately with this one")
    p.add_argument("--skip", default="", help="comma-separated cases to leave out: a,b,c,d,e")
    args = p.parse_args()
    n, skip, rounds = args.questions, set(args.skip.split(",")), range(args.rounds)
    common = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp"),
              "OPENAI_API_KEY": "not-a-real-key"}
    trees = {"this": {**common, "PYTHONPATH": str(ROOT)}}
    if args.baseline:
        trees["baseline"] = {**common, "PYTHONPATH": str(args.baseline.resolve())}
    has_inspect = shutil.which("inspect", path=str(Path(sys.executable).parent)) is not None
    tmp = Path(tempfile.mkdtemp(prefix="ptui-bench-endpoint-"))
    dbs = {t: setup_tree(tmp / t, n, env) for t, env in trees.items()}  # each tree its own schema
    db, release = dbs["this"], tmp / "this" / "v1"
    print(f"{n} questions, {CONNECTIONS} connections; baseline {args.baseline or 'none'}; "
          f"load average {os.getloadavg()[0]:.1f}")
    if "e" not in skip:
        start_up(dbs, trees)
    limit, sequential = n * 0.1 / CONNECTIONS, n * 0.1

    bodies = floor_bodies(db, tmp / "bodies.json")
    if "a" not in skip:
        walls: dict[str, list[float]] = {t: [] for t in trees}
        bare: list[float] = []
        with Server(0.1) as server:
            for i in rounds:
                for t, env in trees.items():
                    walls[t].append(ours(dbs[t], server.url, env, f"a{t}{i}")[0])
                bare.append(floor(bodies, server.url, trees["this"])[0])
        for t, ws in walls.items():
            print(f"(a) {t}: 100 ms replies: run llm {fmt(ws)}; concurrency limit {limit:.2f} s -> "
                  f"{limit / min(ws):.2f} of it (best); {sequential / min(ws):.1f}x the sequential ideal "
                  f"{sequential:.1f} s [goal >= 0.9, >= 14x]; {min(bare) / min(ws):.2f} of the floor's pace")
        print(f"    floor (openai_floor.py: the bare openai client, same prompts): {fmt(bare)} -> "
              f"{limit / min(bare):.2f} of the limit, {sequential / min(bare):.1f}x the sequential ideal")
        if "d" not in skip:
            jw: dict[str, list[float]] = {t: [] for t in trees}
            with Server(0.1) as server:
                run_ids = {t: last_run(dbs[t]) for t in trees}
                for _ in rounds:
                    for t, env in trees.items():
                        jw[t].append(judge(dbs[t], server.url, env, run_ids[t])[0])
            for t, ws in jw.items():
                print(f"(d) {t}: judge run of {n} replies, 100 ms: {fmt(ws)}; {limit / min(ws):.2f} of the limit, "
                      f"{sequential / min(ws):.1f}x the sequential ideal")

    if "b" not in skip:
        mine: dict[str, list[float]] = {t: [] for t in trees}
        theirs: list[float] = []
        with Server(0.2, busy=10) as server:
            for i in rounds:
                for t, env in trees.items():
                    mine[t].append(ours(dbs[t], server.url, env, f"b{t}{i}")[0])
                if has_inspect:
                    theirs.append(inspect(release, server.url, trees["this"], tmp / f"logs{i}")[0])
        for t, ws in mine.items():
            print(f"(b) {t}: 200 ms, every 10th first attempt 429: run llm {fmt(ws)} (limit "
                  f"{2 * limit:.2f} s without the 429s)"
                  + (f"; inspect eval {fmt(theirs)} -> {min(theirs) / min(ws):.2f}x faster than Inspect "
                     f"(best of each; pairs {', '.join(f'{x / m:.2f}x' for m, x in zip(ws, theirs))}) "
                     "[goal >= 2.5x]" if theirs else ""))
        if not theirs:
            print("    inspect eval: skipped (inspect-ai is not installed: pip install -e '.[inspect]')")

    if "c" not in skip:
        full: dict[str, list[tuple[float, float]]] = {t: [] for t in trees}
        one: dict[str, list[tuple[float, float]]] = {t: [] for t in trees}
        bare_cpu: list[float] = []
        with Server(0.0) as server:
            for i in rounds:
                for t, env in trees.items():
                    full[t].append(ours(dbs[t], server.url, env, f"c{t}{i}"))
                    one[t].append(ours(dbs[t], server.url, env, f"c1{t}{i}", limit=1))
                bare_cpu.append(floor(bodies, server.url, trees["this"])[1])
        for t in trees:
            cpu_full, cpu_one = min(c for _, c in full[t]), min(c for _, c in one[t])
            print(f"(c) {t}: zero-latency endpoint: {n} requests {fmt([w for w, _ in full[t]])} wall, "
                  f"{fmt([c for _, c in full[t]])} CPU; one request {fmt([c for _, c in one[t]])} CPU (start-up); "
                  f"CPU per request {cpu_full / n * 1000:.2f} ms whole process, "
                  f"{(cpu_full - cpu_one) / (n - 1) * 1000:.2f} ms in the run [goal <= 2 ms]")
        print(f"    floor (bare openai client): {fmt(bare_cpu)} CPU for {n} requests, "
              f"{min(bare_cpu) / n * 1000:.2f} ms per request whole process")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
