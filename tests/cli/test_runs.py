"""`run llm|paraphrase|embed`, `judge` and `runs` (cli/runs.py): --limit for every run kind,
resumes that report the run as stored, signals, archive and delete, secrets never printed."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys

import pytest
from factories import COUPLETS, ROOT, couplets, llm_run, llm_run_at, make_question, stored_sql
from llm_server import Gate, LLMServer, Reply, chat
from processes import cli_process, wait_until

from persian_tui.cli import main
from persian_tui.judging.run import create_judge_run, execute_judge_run
from persian_tui.models import Prediction
from persian_tui.runs import LLMRunSpec, create_llm_run
from persian_tui.store import Store


def test_a_limited_resume_of_failed_items_reports_the_run_as_stored(bank6, capsys):
    """`--resume N --retry-errors --limit 1` asks one failed item again: the closing line
    counts the run as it is (the other failed items are still errors), not only that one."""
    r, p = llm_run_at(bank6, lambda body, n: Reply(500, {"error": {"message": "down"}}), max_failures=100)
    assert p.status == "failed" and p.errors == 6
    with LLMServer(lambda body, n: chat("Answer: 1")) as server:
        code = main(["--db", str(bank6.path), "run", "llm", "--resume", str(r.id), "--base-url", server.url,
                     "--retry-errors", "--limit", "1"])
    out, err = capsys.readouterr()
    summary = bank6.runs.run_summaries()[0]
    assert (summary.done, summary.errors) == (6, 5)
    assert "6/6 predictions" in out and "api errors 5" in out, out
    assert code == 0 and "--retry-errors asks them again" in err


def test_resuming_a_failed_run_without_retry_errors_keeps_its_reason_and_says_how(bank6, capsys):
    r, p = llm_run_at(bank6, lambda body, n: Reply(500, {"error": {"message": "down"}}), max_failures=100)
    reason = bank6.runs.get_run(r.id).reason
    assert "last: q-" in reason and "down" in reason
    with LLMServer(lambda body, n: chat("Answer: 1")) as server:
        code = main(["--db", str(bank6.path), "run", "llm", "--resume", str(r.id), "--base-url", server.url])
    out, err = capsys.readouterr()
    assert code == 1
    assert "down" in bank6.runs.get_run(r.id).reason and "last: )" not in bank6.runs.get_run(r.id).reason
    assert "--retry-errors" in err


def test_a_limited_resume_of_failed_judgments_reports_the_run_as_stored(store, capsys):

    store.questions.add_questions([make_question(f"j-{i}", couplets=couplets(i), key=1) for i in range(5)])
    target = store.runs.create_run("llm", "x", {}, status="done",
                                   predictions=[Prediction(f"j-{i}", 2, "ok", raw_output="2") for i in range(5)])
    with LLMServer(lambda body, n: Reply(500, {"error": {"message": "down"}})) as server:
        jrun = create_judge_run(store, LLMRunSpec(base_url=server.url, model="j", max_retries=0), target.id)
        p = asyncio.run(execute_judge_run(store.path, jrun.id))
    assert p.status == "failed" and p.errors == 5
    verdict = '{"verdict": "flawed", "error_category": "other", "rationale": "r"}'
    with LLMServer(lambda body, n: chat(verdict)) as server:
        code = main(["--db", str(store.path), "judge", "--resume", str(jrun.id), "--base-url", server.url,
                     "--retry-errors", "--limit", "2"])
    out, err = capsys.readouterr()
    assert code == 0 and "5/5 judged" in out and "api errors 3" in out, out


def test_a_run_being_worked_on_cannot_be_deleted_from_under_it(bank6, capsys):
    """Another process works on the run (it holds the lease): `runs delete` names it and deletes
    nothing (the worker died on a FOREIGN KEY error, reported as a damaged file); once the lease
    is released the delete goes through."""
    import socket
    import subprocess
    import sys

    from persian_tui.store import LeaseHeld

    r, p = llm_run_at(bank6, lambda body, n: chat("Answer: 1"), limit=2)
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])  # killed below
    try:
        holder = f"{worker.pid}@{socket.gethostname()}"
        bank6.runs.take_lease(r.id, 3600, holder=holder)  # held for the whole test, however slow the machine
        assert main(["--db", str(bank6.path), "runs", "delete", str(r.id), "--yes"]) == 1
        assert f"being worked on by process {holder}" in capsys.readouterr().err
        with pytest.raises(LeaseHeld):
            bank6.runs.delete_run(r.id)
        assert bank6.runs.get_run(r.id) is not None and len(bank6.runs.predictions(r.id)) == 2
        bank6.runs.release_lease(r.id, holder=holder)
        assert main(["--db", str(bank6.path), "runs", "delete", str(r.id), "--yes"]) == 0
        assert bank6.runs.get_run(r.id) is None
    finally:
        worker.kill()
        worker.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_cancel_and_resume_finishes(bank10, sig):
    gate = Gate(lambda b, n: chat("Answer: 1"), free=2)  # 2 replies, the 3rd held: the signal comes mid-run
    with LLMServer(gate) as server:
        r = create_llm_run(bank10, LLMRunSpec(base_url=server.url, model="m", concurrency=1, max_retries=0))
        proc = subprocess.Popen([sys.executable, "-m", "persian_tui.cli", "--db", str(bank10.path), "run", "llm",
                                 "--resume", str(r.id)], env={**os.environ, "PYTHONPATH": str(ROOT)},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_until(lambda: len(bank10.runs.predictions(r.id)) == 2 and len(server.requests) == 3,
                   "2 answers stored, the 3rd asked")
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=300)
        gate.open()
        assert proc.returncode == 1 and "cancelled" in out
        assert bank10.runs.get_run(r.id).status == "cancelled"
        assert 2 <= len(bank10.runs.predictions(r.id)) < 10
        done = cli_process(bank10.path, "run", "llm", "--resume", str(r.id), timeout=120)
        assert done.returncode == 0, done.stderr
    assert bank10.runs.get_run(r.id).status == "done" and len(bank10.runs.predictions(r.id)) == 10


def test_archive_hides_and_delete_removes_in_one_go(bank10, capsys):
    with LLMServer(lambda b, n: chat('{"verdict": "flawed", "error_category": "other", "rationale": "x"}'
                                     if "judge" in json.dumps(b) or "verdict" in json.dumps(b)
                                     else "Answer: 2")) as server:
        r, p, _ = llm_run(bank10, lambda b, n: chat("Answer: 2"), limit=4)
        assert main(["--db", str(bank10.path), "judge", "--run", str(r.id), "--judge-model", "j",
                     "--base-url", server.url]) == 0
    judge = bank10.runs.runs()[-1]
    assert judge.kind == "judge"
    assert main(["--db", str(bank10.path), "runs", "archive", str(r.id)]) == 0
    assert r.id not in [x.id for x in bank10.runs.runs()] and r.id in [x.id for x in bank10.runs.runs(archived=True)]
    capsys.readouterr()
    main(["--db", str(bank10.path), "runs"])
    assert "archived" not in capsys.readouterr().out
    main(["--db", str(bank10.path), "runs", "--all"])
    assert "(archived)" in capsys.readouterr().out
    assert main(["--db", str(bank10.path), "runs", "delete", str(r.id)]) == 1  # no terminal to ask: --yes
    assert main(["--db", str(bank10.path), "runs", "delete", str(r.id), "--yes"]) == 0
    assert bank10.runs.runs(archived=True) == []
    assert bank10.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] == 0
    assert bank10.conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == 0
    assert [h["event"] for h in bank10.runs.run_history(r.id)][-1] == "delete"
    assert main(["--db", str(bank10.path), "runs", "delete", "99", "--yes"]) == 1


# ---------------------------------------------------------------- --limit, every run kind


@pytest.fixture
def bank5(tmp_path):
    s = Store(tmp_path / "b.db")
    s.questions.add_questions([make_question(f"q-{i}", couplets=[(f"{a} م{i}", b) for a, b in COUPLETS], key=1)
                               for i in range(5)])
    yield s
    s.close()


def _reply(body, n):
    if '"verdict"' in body["messages"][0]["content"]:
        return chat('{"verdict": "flawed", "error_category": "other", "rationale": "x"}')
    return chat("نثر" if "paraphrase" in json.dumps(body) else "Answer: 2")


@pytest.mark.parametrize("kind", ["llm", "paraphrase", "embed", "judge"])
def test_limit_is_honoured_by_every_run_kind(bank5, kind, capsys):
    db = str(bank5.path)
    with LLMServer(_reply) as server:
        common = ["--base-url", server.url, "--max-retries", "0", "--limit", "2"]
        if kind == "embed":
            args = ["run", "embed", "--model", "tfidf", "--limit", "2"]
        elif kind == "judge":
            assert main(["--db", db, "run", "llm", "--model", "m", *common[:-1], "5"]) == 0
            args = ["judge", "--run", "1", "--judge-model", "j", *common]
        else:
            args = ["run", kind, "--model", "m", *common]
        assert main(["--db", db, *args]) == 0, capsys.readouterr().err
        asked = len(server.requests)
    run = max(bank5.runs.runs(), key=lambda r: r.id)  # the newest
    assert run.params.get("limit") == 2 and run.total == 2, run.params
    if kind == "judge":
        assert len(bank5.judging.judgments(run_id=run.id)) == 2 and asked == 5 + 2
    elif kind == "paraphrase":
        assert asked == 2 * 4  # four couplets per question
    elif kind == "llm":
        assert len(bank5.runs.predictions(run.id)) == 2 and asked == 2
    else:
        assert len(bank5.runs.predictions(run.id)) == 2


SECRET = "qs-SECRET-9f8e7d6c5b4a3210"


@pytest.mark.parametrize("param", ["key", "api_key", "access_token", "sig", "token", "X-Api-Key", "whatever"])
def test_a_key_in_the_query_string_is_never_stored_or_printed(bank5, param, capsys):
    from llm_server import Reply

    def script(body, n):  # a hostile endpoint echoing the secret (as some gateways do in a 401)
        return Reply(401, {"error": {"message": f"bad key {SECRET} for {param}={SECRET}"}})

    with LLMServer(script) as server:
        url = f"{server.url}?{param}={SECRET}&v=1"
        code = main(["--db", str(bank5.path), "run", "llm", "--base-url", url, "--model", "m",
                     "--limit", "2", "--max-retries", "0"])
        main(["--db", str(bank5.path), "runs"])
    out, err = capsys.readouterr()
    assert code == 1
    assert SECRET not in out + err and SECRET not in stored_sql(bank5.path), (out, err)
    assert f"{param}=***" in stored_sql(bank5.path)
    # the stored URL lost its key: a resume asks for it again
    assert main(["--db", str(bank5.path), "run", "llm", "--resume", "1"]) == 1
    assert "give --base-url again" in capsys.readouterr().err


def test_run_questions_are_a_set_name(sample_db, capsys):
    with pytest.raises(SystemExit):
        main(["--db", sample_db, "run", "embed", "--questions", "sample"])
    assert "invalid choice: 'sample'" in capsys.readouterr().err


def test_st_model_without_the_extra_creates_no_run(sample_db, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as if not installed
    for model, says in (("st:some/model", "needs the embed extra"),
                        ("some-model", "unknown embedding model 'some-model'")):
        assert main(["--db", sample_db, "run", "embed", "--model", model, "--questions", "all"]) == 1
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1, err
    with Store(sample_db) as s:
        assert s.runs.runs() == []
