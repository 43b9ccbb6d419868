"""Repeated samples (runs/llm.py, `run llm --samples K`) against the local OpenAI-compatible
test server: stored per (run, question, sample), voted, resumed, judged on a picked sample, reported."""

import asyncio
import threading

import pytest
from factories import keyed_bank
from llm_server import LLMServer, chat

from persian_tui.cli import main
from persian_tui.judging.run import create_judge_run, execute_judge_run
from persian_tui.reports.figures import build_report
from persian_tui.runs import JudgeRunSpec, LLMRunSpec, create_llm_run, execute_llm_run
from persian_tui.runs.llm_client import cache_key


@pytest.fixture
def bank(store):
    return keyed_bank(store, 6)


def shown_key(body):
    """The key's DISPLAYED position: the server reads the question number from the prompt and
    finds where the key's couplet was shown (options may be shuffled)."""
    text = body["messages"][-1]["content"]
    i = int(text.split("مصراع اول ")[1].split()[0])
    k = i % 4  # the key couplet is "مصراع اول i k"
    lines = [line for line in text.splitlines() if "مصراع اول" in line]
    return next(n for n, line in enumerate(lines, 1) if f"مصراع اول {i} {k}" in line)


def by_seed(wrong_seeds):
    """Answer the key, except for requests whose seed is in wrong_seeds (then the next option)."""
    def script(body, n):
        k = shown_key(body)
        return chat(str(k % 4 + 1 if body.get("seed") in wrong_seeds else k))
    return script


def ask(store, script, cancel_after=None, **kw):
    """Run it one request at a time; `cancel_after` N: cancelled (as by Ctrl-C) as the N-th reply
    leaves the server, so N requests are answered."""
    cancel = threading.Event()

    def counted(body, n):
        if cancel_after is not None and n + 1 >= cancel_after:
            cancel.set()
        return script(body, n)

    with LLMServer(counted) as server:
        spec = LLMRunSpec(base_url=server.url, model="m", max_retries=0, **kw)
        run = create_llm_run(store, spec)
        p = asyncio.run(execute_llm_run(store.path, run.id, cancel=cancel, overrides={"concurrency": 1}))
        return run, p, server


def test_every_sample_is_stored_and_voted(bank):
    run, p, server = ask(bank, by_seed({12}), samples=3, seed=10, temperature=0.7)
    assert p.status == "done" and run.total == 18 and p.done == 18
    assert sorted(r["seed"] for r in server.requests) == [10] * 6 + [11] * 6 + [12] * 6
    rows = bank.runs.predictions(run.id, samples=True)
    assert len(rows) == 18 and {r.sample for r in rows} == {0, 1, 2}
    reps = bank.runs.predictions(run.id)  # the representative: the majority's first
    assert len(reps) == 6 and all(r.sample == 0 for r in reps)
    keys = {q.uid: q.key for q in bank.questions.questions()}
    assert all(r.predicted == keys[r.uid] for r in reps)
    assert [r.predicted != keys[r.uid] for r in bank.runs.predictions(run.id, sample=2)] == [True] * 6
    report = build_report(bank, n_boot=50)
    (s,) = report.samples
    assert (s.samples, s.questions, s.majority_correct) == (3, 6, 6)
    assert s.majority_accuracy == 1.0 and s.mean_accuracy == pytest.approx(2 / 3)
    assert s.mean_agreement == pytest.approx(2 / 3) and s.unanimous == 0
    assert s.agreement_label == "agreement among samples"
    assert report.leaderboard[0].accuracy == 1.0  # the run takes part with its majority vote
    assert bank.runs.run_summaries()[0].done == 18


def test_a_single_sample_asks_and_caches_as_before(bank):
    run, p, server = ask(bank, by_seed(set()), seed=5)
    assert run.total == 6 and p.done == 6 and all(r["seed"] == 5 for r in server.requests)
    assert all(r.sample == 0 for r in bank.runs.predictions(run.id, samples=True))
    spec = LLMRunSpec(base_url="http://x/v1", model="m", seed=5)
    assert spec.request_params() == {"temperature": 0.0, "seed": 5}
    # sample 0's cache entry is the one a single run always used (repeat 0)
    msgs = [{"role": "user", "content": "x"}]
    assert cache_key("http://x/v1", "m", msgs, spec.request_params(0), None, repeat=0) == \
        cache_key("http://x/v1", "m", msgs, {"temperature": 0.0, "seed": 5}, None)


def test_samples_are_asked_round_by_round_so_a_stopped_run_covers_every_question(bank):
    """Sample 0 of every question before any sample 1: a run stopped early (a budget, Ctrl-C)
    holds one sample of the whole set, not every sample of a few questions."""
    run, p, server = ask(bank, by_seed(set()), cancel_after=6, samples=3, seed=1)
    assert p.status == "cancelled"
    assert [r["seed"] for r in server.requests[:6]] == [1] * 6  # sample k is asked with seed 1 + k
    rows = bank.runs.predictions(run.id, samples=True)
    assert {r.uid for r in rows if r.sample == 0} == {q.uid for q in bank.questions.questions()}


def test_a_killed_run_resumes_with_the_missing_samples_only(bank):
    run, p, server = ask(bank, by_seed(set()), cancel_after=7, samples=3, seed=1)
    assert p.status == "cancelled"
    first = len(server.requests)
    stored = bank.runs.predicted_samples(run.id)
    assert 7 <= len(stored) < 18
    with LLMServer(by_seed(set())) as server2:
        p2 = asyncio.run(execute_llm_run(bank.path, run.id, overrides={"base_url": server2.url}))
        asked = {(r["messages"][-1]["content"], r["seed"]) for r in server2.requests}
    assert p2.status == "done" and p2.done == 18
    assert len(server2.requests) == 18 - len(stored) == len(asked)  # nothing asked twice
    assert first + len(server2.requests) >= 18
    assert len(bank.runs.predictions(run.id, samples=True)) == 18


def test_shuffled_samples_measure_consistency_across_option_orders(bank):
    run, p, _ = ask(bank, by_seed(set()), samples=4, shuffle_seed=3, temperature=1.0)
    rows = bank.runs.predictions(run.id, samples=True)
    perms = {}
    for r in rows:
        perms.setdefault(r.uid, set()).add(tuple(r.permutation))
    assert all(len(v) >= 2 for v in perms.values())  # each sample its own order
    (s,) = build_report(bank, n_boot=20).samples
    assert s.shuffled and s.agreement_label == "consistency across option orders"
    assert s.mean_agreement == 1.0 and s.unanimous == 6  # always the key couplet, whatever the order


def test_judge_works_on_the_majoritys_first_sample_or_the_one_picked(bank):
    run, *_ = ask(bank, by_seed({20}), samples=3, seed=20, temperature=0.5)  # sample 0 wrong
    assert all(r.sample == 1 for r in bank.runs.predictions(run.id))

    def judge_script(body, n):
        return chat('{"verdict": "flawed", "error_category": "surface_lexical", "rationale": "x"}')

    with LLMServer(judge_script) as server:
        for pick, expect in ((None, 1), (0, 0)):
            spec = JudgeRunSpec(base_url=server.url, model="judge", target_run=run.id, sample=pick)
            j = create_judge_run(bank, spec, run.id)
            asyncio.run(execute_judge_run(bank.path, j.id))
            rows = bank.judging.judgments(run_id=j.id)
            assert len(rows) == 6 and {r.sample for r in rows} == {expect}
            # what review shows: the judged sample's reply
            (shown,) = bank.runs.predictions(run.id, uid=rows[0].uid, sample=rows[0].sample)
            assert shown.sample == expect
            judged = [m["content"] for r in server.requests[-6:] for m in r["messages"]]
            assert judged


def test_cli_samples_and_report_files(bank, tmp_path, capsys):
    db = str(bank.path)
    with LLMServer(by_seed({31})) as server:
        assert main(["--db", db, "run", "llm", "--base-url", server.url, "--model", "m", "--samples", "2",
                     "--seed", "30", "--questions", "all"]) == 0
    capsys.readouterr()
    run_id = bank.runs.runs()[-1].id
    assert main(["--db", db, "samples", str(run_id)]) == 0
    out = capsys.readouterr().out
    # every question a 1-1 tie: half credit each, not the first sample's answer (100 %)
    assert "2 sample(s) per question" in out and "majority vote 50.0%" in out and "mean 50.0%" in out
    assert "ties 6" in out and "(chance 62.5%)" in out  # K = 2: (1/4 · 2 + 3/4 · 1) / 2
    assert main(["--db", db, "samples", str(run_id), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("run_id,uid,key,answers") and len(lines) == 7
    assert main(["--db", db, "report", "--format", "csv", "-o", str(tmp_path / "rep")]) == 0
    assert (tmp_path / "rep" / "sample_items.csv").read_text().count("\n") == 7
    assert main(["--db", db, "run", "llm", "--base-url", server.url, "--model", "m", "--samples", "0"]) == 1
    assert "--samples" in capsys.readouterr().err
    assert main(["--db", db, "run", "llm", "--resume", str(run_id), "--samples", "3"]) == 1
    assert "samples" in capsys.readouterr().err


def test_kill_9_then_resume_asks_only_the_missing_samples(bank):
    import os
    import signal
    import subprocess
    import sys

    from llm_server import Gate
    from processes import wait_until

    # 5 replies, then the rest held: killed with 5 rows committed and 2 requests in flight
    gate = Gate(lambda body, n: chat(str(shown_key(body))), free=5)
    with LLMServer(gate) as server:
        env = {**os.environ, "PERSIAN_TUI_DB": str(bank.path)}
        proc = subprocess.Popen([sys.executable, "-m", "persian_tui.cli", "run", "llm", "--base-url", server.url,
                                 "--model", "m", "--samples", "3", "--seed", "1", "--concurrency", "2",
                                 "--questions", "all"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_until(lambda: bank.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] >= 5
                   and len(server.requests) >= 7, "5 rows committed, 2 more requests in flight")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        gate.open()
        run_id = bank.runs.runs()[0].id
        before = bank.runs.predicted_samples(run_id)
        assert len(before) == 5
        asked_before = len(server.requests)
        resumed = subprocess.run([sys.executable, "-m", "persian_tui.cli", "run", "llm", "--resume", str(run_id)],
                                 env=env, capture_output=True, text=True)
        assert resumed.returncode == 0, resumed.stderr
        again = server.requests[asked_before:]
    assert len(again) == 18 - len(before)  # only the missing (question, sample) pairs
    assert len(bank.runs.predictions(run_id, samples=True)) == 18 and bank.runs.get_run(run_id).status == "done"
    seeds = sorted(r["seed"] for r in again)
    missing = sorted(1 + k for _, k in {(f"q-{i:03d}", k) for i in range(6) for k in range(3)} - before)
    assert seeds == missing


def test_retry_errors_asks_the_failed_samples_only(bank):
    from llm_server import Reply

    def flaky(body, n):
        if body.get("seed") == 11:
            return Reply(status=400, body={"error": {"message": "bad"}})
        return chat(str(shown_key(body)))

    run, p, _ = ask(bank, flaky, samples=3, seed=10, temperature=0.5)
    assert p.errors == 6 and p.done == 18
    with LLMServer(by_seed(set())) as server:
        p2 = asyncio.run(execute_llm_run(bank.path, run.id, retry_errors=True,
                                         overrides={"base_url": server.url}))
        assert sorted(r["seed"] for r in server.requests) == [11] * 6
    assert p2.status == "done" and (p2.done, p2.total, p2.errors, p2.correct) == (18, 18, 0, 18)
    assert all(r.parse_status == "ok" for r in bank.runs.predictions(run.id, samples=True))


def test_a_run_stopped_early_is_voted_on_the_samples_it_has(bank):
    run, p, _ = ask(bank, by_seed({41}), cancel_after=8, samples=3, seed=40, temperature=0.5)
    assert p.status == "cancelled"
    (s,) = build_report(bank, run_ids=[run.id], n_boot=10).samples
    stored = {u: k for u, k in bank.runs.predicted_samples(run.id)}
    assert s.questions == len(stored)
    for item in s.items:
        right = [a == item.key for a in item.answers]
        assert item.mean_right == pytest.approx(sum(right) / len(right))  # missing samples are not wrong
