"""A sweep at the endpoint's pace: `persian-tui sweep` of 6 models × the release's questions × 3
samples against one local OpenAI-compatible server (its own process, 127.0.0.1) answering in 200 ms,
429 on every 10th first attempt and a reported cost per reply, 16 connections per model (96 on the
endpoint); beside `inspect eval` of the release's own Inspect task with the same six models,
`--epochs 3 --max-connections 16`, timed in turn, each `--rounds` times.

Prints: the sweep's whole-process wall time against the limit (3 × n × 0.2 s / 16, all models at
once) and against Inspect's; CPU per request (whole process); the sweep process's resident memory
sampled over the sweep (start, middle, end: flat or not). Asserts nothing.

`--refuse-at-once`: the 429s are answered at once, as rate limiters do, rather than after the
200 ms of a reply (the limit stays the same; the 429s then cost no connection time).

`--retry-after S`: each 429 carries `Retry-After: S`, as real rate limiters' do.

`--floor` also times, alternately with the sweep, a bare aiohttp client posting the sweep's own
bodies the same way (bench/sweep_floor.py): the floor this machine and endpoint allow any Python
client, so that the sweep's ratio to it is what the tool costs, whatever the machine.

`--hold S`: another connection holds the database's write lock for S seconds, 5 s into each
sweep (the baseline's too), as an import's long transaction would: what it costs the sweep.

`--baseline DIR` also times the sweep of another checkout's persian_tui (e.g. `git archive` of an
older commit), alternately with this one's, on a database of its own made by its own code: a
before/after figure from the same run.

Run: python bench/bench_sweep.py [--questions 567] [--rounds 2] [--no-inspect] [--refuse-at-once]
     [--retry-after S] [--floor] [--hold S] [--baseline DIR]"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_endpoint import CLI, Server, setup, setup_tree  # noqa: E402

MODELS = 6
SAMPLES = 3
CONNECTIONS = 16
DELAY = 0.2
COST = 0.0001  # USD the server reports per reply


class Sampled:
    """A whole process, timed (wall, CPU of it and its children) with its resident memory
    sampled every 0.25 s from /proc."""

    def __init__(self, cmd: list[str], env: dict, cwd: Path, hold: tuple[Path, float] | None = None):
        self.cmd, self.env, self.cwd, self.hold = cmd, env, cwd, hold
        self.rss: list[tuple[float, int]] = []  # (seconds since start, kB)

    def run(self) -> tuple[float, float]:
        import resource

        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.Popen(self.cmd, env=self.env, cwd=self.cwd, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.25):
                try:
                    with open(f"/proc/{proc.pid}/status") as f:
                        kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
                    self.rss.append((time.perf_counter() - t0, kb))
                except (OSError, StopIteration):
                    pass
        t = threading.Thread(target=sample, daemon=True)
        t.start()
        holder = threading.Thread(target=hold_lock, args=self.hold, daemon=True) if self.hold else None
        if holder:
            holder.start()
        out, err = proc.communicate()
        if holder:
            holder.join()
        wall = time.perf_counter() - t0
        done.set()
        t.join()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(self.cmd[:6])} failed ({proc.returncode}): {err[-1500:]}")
        self.output = out + err
        return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    def memory(self) -> str:
        if len(self.rss) < 3:
            return "too short to sample"
        kb = [k for _, k in self.rss]
        third = len(kb) // 3
        parts = [max(kb[:third]), max(kb[third:2 * third]), max(kb[2 * third:])]
        return " → ".join(f"{k / 1024:.0f}" for k in parts) + " MB (peak of each third)"


HOLD_AT = 5.0  # --hold: seconds into the sweep when another connection takes the write lock


def hold_lock(db: Path, seconds: float) -> None:
    """Another process's long write (an import's transaction, say): the database's write lock
    held for `seconds`, from HOLD_AT seconds in."""
    import sqlite3

    time.sleep(HOLD_AT)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    time.sleep(seconds)
    conn.execute("COMMIT")
    conn.close()


def spec(url: str, name: str, judge: bool = False) -> str:
    """The sweep's spec. The answers keep the replies' cache on, as a spec that does not name it
    does (each round gets a fresh database: nothing is cached before it). A judge sweep turns it
    off: its six runs judge alike answers, and the cache would spare it most of its requests."""
    models = "".join(f'\n[[model]]\nname = "m{i}"\nconnections = {CONNECTIONS}\n' for i in range(MODELS))
    if judge:  # one judge over the six runs, as many connections as the answers had
        models += f'\n[judge]\nmodel = "j"\nconnections = {MODELS * CONNECTIONS}\n'
    cache = "cache = false\n" if judge else ""
    return (f'[sweep]\nname = "{name}"\nrelease = "v1"\nstrategies = ["zero-shot"]\nsamples = {SAMPLES}\n'
            f'{cache}max_cost = 100.0\n\n[[endpoint]]\nname = "local"\n'
            f'base_url = "{url}"\napi_key_env = "OPENAI_API_KEY"\nconnections = {MODELS * CONNECTIONS}\n' + models)


def fresh(db: Path, name: str) -> Path:
    """A copy of the bank's database for one round (closed, so the file is all of it)."""
    copy = db.with_name(name)
    shutil.copyfile(db, copy)
    return copy


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--questions", type=int, default=567)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--no-inspect", action="store_true")
    p.add_argument("--refuse-at-once", action="store_true", help="429s answered at once, not after 200 ms")
    p.add_argument("--retry-after", metavar="S", help="each 429 with this Retry-After header")
    p.add_argument("--floor", action="store_true", help="also time a bare aiohttp client posting the same bodies")
    p.add_argument("--hold", type=float, metavar="S", help=f"another connection holds the database's write "
                   f"lock for S seconds, {HOLD_AT:g} s into each sweep (an import's transaction, say)")
    p.add_argument("--baseline", type=Path, help="another checkout whose sweep is timed alternately with this one's")
    p.add_argument("--judge", action="store_true", help="instead: a sweep with a judge over its six runs "
                   "(no Inspect counterpart), timed against the answers' limit plus the judge's")
    args = p.parse_args()
    if args.judge and (args.floor or args.hold or args.baseline):
        p.error("--floor, --hold and --baseline time the answers' sweep: give them without --judge")
    n = args.questions
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp"),
           "OPENAI_API_KEY": "not-a-real-key", "PYTHONPATH": str(ROOT)}
    inspect_bin = Path(sys.executable).with_name("inspect")
    has_inspect = inspect_bin.exists() and not args.no_inspect
    tmp = Path(tempfile.mkdtemp(prefix="ptui-bench-sweep-"))
    db, release = setup(tmp, n)
    requests = MODELS * n * SAMPLES
    limit = SAMPLES * n * DELAY / CONNECTIONS
    print(f"{MODELS} models × {n} questions × {SAMPLES} samples = {requests} requests, {DELAY * 1000:.0f} ms "
          f"replies, every 10th first attempt 429{' (at once)' if args.refuse_at_once else ''}"
          f"{f' with Retry-After {args.retry_after}' if args.retry_after else ''}, "
          f"{f'the write lock held {args.hold:g} s from {HOLD_AT:g} s in, ' if args.hold else ''}"
          f"{CONNECTIONS} connections per model; limit {limit:.1f} s; "
          f"load average {os.getloadavg()[0]:.1f} (2 cores, shared)")
    if args.judge:
        judged(db, tmp, env, n, args.rounds, limit, args)
        shutil.rmtree(tmp, ignore_errors=True)
        return
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    before: list[tuple[float, float]] = []
    floors: list[tuple[float, float]] = []
    memory = []
    if args.floor:
        bodies = floor_bodies(db, tmp)
    if args.baseline:
        old_env = {**env, "PYTHONPATH": str(args.baseline.resolve())}
        old_db = setup_tree(tmp / "baseline", n, old_env)
    for i in range(args.rounds):
        if args.baseline:
            with endpoint(args) as server:
                path = tmp / f"baseline{i}.toml"
                path.write_text(spec(server.url, f"bench-{i}"), "utf-8")
                copy = fresh(old_db, f"baseline{i}.db")
                before.append(Sampled(CLI + ["--db", str(copy), "sweep", str(path)], old_env, tmp,
                                      hold=(copy, args.hold) if args.hold else None).run())
                print(f"  baseline round {i + 1}: {before[-1][0]:.2f} s wall, {before[-1][1]:.2f} s CPU")
        if args.floor:
            with endpoint(args) as server:
                cmd = [sys.executable, str(ROOT / "bench" / "sweep_floor.py"), server.url, str(bodies),
                       str(CONNECTIONS), str(SAMPLES)]
                floors.append(Sampled(cmd, env, tmp).run())
                print(f"  floor round {i + 1}: {floors[-1][0]:.2f} s wall, {floors[-1][1]:.2f} s CPU")
        with endpoint(args) as server:
            url = server.url
            path = tmp / f"sweep{i}.toml"
            path.write_text(spec(url, f"bench-{i}"), "utf-8")
            copy = fresh(db, f"sweep{i}.db")
            run = Sampled(CLI + ["--db", str(copy), "sweep", str(path)], env, tmp,
                          hold=(copy, args.hold) if args.hold else None)
            ours.append(run.run())
            memory.append(run.memory())
            tail = [line for line in run.output.splitlines() if line.startswith(f"sweep bench-{i} ")]
            print(f"  sweep round {i + 1}: {ours[-1][0]:.2f} s wall, {ours[-1][1]:.2f} s CPU; "
                  f"{tail[-1] if tail else ''}; memory {memory[-1]}")
            if has_inspect:
                models = ",".join(f"openai-api/local/m{k}" for k in range(MODELS))
                cmd = [str(inspect_bin), "eval", "inspect_task.py", "--model", models, "--model-base-url", url,
                       "--epochs", str(SAMPLES), "--max-connections", str(CONNECTIONS), "--display", "none",
                       "--log-dir", str(tmp / f"logs{i}")]
                theirs.append(Sampled(cmd, {**env, "LOCAL_API_KEY": "not-a-real-key"}, release).run())
                print(f"  inspect round {i + 1}: {theirs[-1][0]:.2f} s wall, {theirs[-1][1]:.2f} s CPU")
    best = min(w for w, _ in ours)
    print(f"sweep: {' / '.join(f'{w:.2f}' for w, _ in ours)} s -> {best / limit:.2f}× the limit {limit:.1f} s "
          f"(best) [goal <= 1.1×]; CPU per request {min(c for _, c in ours) / requests * 1000:.2f} ms "
          f"whole process [goal <= 1 ms]")
    if before:
        old = min(w for w, _ in before)
        print(f"baseline {args.baseline}: {' / '.join(f'{w:.2f}' for w, _ in before)} s -> {old / limit:.2f}× "
              f"the limit (best); CPU per request {min(c for _, c in before) / requests * 1000:.2f} ms; "
              f"this tree takes {best / old:.3f}× the baseline's wall time")
    if floors:
        low = min(w for w, _ in floors)
        cpu = min(c for _, c in floors) / requests * 1000
        print(f"floor (a bare aiohttp client, the same bodies): {' / '.join(f'{w:.2f}' for w, _ in floors)} s "
              f"-> {low / limit:.2f}× the limit (best); CPU per request {cpu:.2f} ms; "
              f"the sweep takes {best / low:.3f}× the floor's wall time (best of each)")
    if theirs:
        pairs = ", ".join(f"{t / o:.2f}×" for (o, _), (t, _) in zip(ours, theirs, strict=True))
        print(f"inspect eval: {' / '.join(f'{w:.2f}' for w, _ in theirs)} s; the sweep is "
              f"{min(w for w, _ in theirs) / best:.2f}× faster (best of each; rounds {pairs}) [goal >= 2×]; "
              f"Inspect's CPU per request {min(c for _, c in theirs) / requests * 1000:.2f} ms")
    else:
        print("inspect eval: skipped (--no-inspect, or inspect-ai is not installed: pip install -e '.[inspect]')")
    shutil.rmtree(tmp, ignore_errors=True)


def floor_bodies(db: Path, tmp: Path) -> Path:
    """The chat bodies the sweep posts (its plan, its prompts, its parameters), a list per model."""
    import tomllib

    from persian_tui.runs.prompts import render
    from persian_tui.runs.sweep import plan_sweep
    from persian_tui.runs.sweep_spec import parse_sweep_spec
    from persian_tui.store import Store

    os.environ.setdefault("OPENAI_API_KEY", "not-a-real-key")  # the spec names it; nothing is sent here
    with Store(db) as store:
        plan = plan_sweep(store, parse_sweep_spec(tomllib.loads(spec("http://127.0.0.1:9/v1", "floor"))))
    models = [[{"model": r.spec.model, "messages": render(r.spec.strategy, q).messages, **r.spec.request_params(0)}
               for q in plan.questions] for r in plan.runs]
    path = tmp / "floor_bodies.json"
    path.write_text(json.dumps(models, ensure_ascii=False), "utf-8")
    return path


def endpoint(args: argparse.Namespace) -> Server:
    """The local endpoint: 200 ms replies, every 10th first attempt 429 (as the options say)."""
    return Server(DELAY, busy=10, cost=COST, busy_delay=0.0 if args.refuse_at_once else None,
                  retry_after=args.retry_after)


def judged(db: Path, tmp: Path, env: dict, n: int, rounds: int, limit: float, args: argparse.Namespace) -> None:
    """A sweep with a judge: the answers, then one judge request per question of each run (every
    answer judged) on 96 connections; the limit is the answers' plus the judge's."""
    judge_limit = MODELS * n * DELAY / (MODELS * CONNECTIONS)
    walls = []
    for i in range(rounds):
        with endpoint(args) as server:
            path = tmp / f"judged{i}.toml"
            path.write_text(spec(server.url, f"judged-{i}", judge=True), "utf-8")
            run = Sampled(CLI + ["--db", str(db), "sweep", str(path)], env, tmp)
            wall, cpu = run.run()
            walls.append(wall)
            requests = MODELS * n * SAMPLES + MODELS * n
            rows = [line for line in run.output.splitlines() if line.strip().startswith("total")]
            print(f"  sweep with judge round {i + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU "
                  f"({cpu / requests * 1000:.2f} ms a request); memory {run.memory()}; "
                  f"{' '.join(rows[-1].split()[:2]) if rows else ''} rows")
    total = limit + judge_limit
    print(f"sweep with judge: best {min(walls):.2f} s -> {min(walls) / total:.2f}× the limit {total:.1f} s "
          f"(answers {limit:.1f} s + judge {judge_limit:.1f} s)")


if __name__ == "__main__":
    main()
