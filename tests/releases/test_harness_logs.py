"""Real lm-eval runs of a release come back (releases/harness_logs.py): `multiple_choice` on a tiny
GPT-2 built offline, `generate_until` against the local test endpoint, each imported with lm-eval's
own accuracy and per-sample answers, knowing the release, the model and the task it ran. The files
read here are the ones lm-eval wrote in this test run (tests/harness_runs.py)."""

from __future__ import annotations

import csv
import json
import shutil
from importlib.util import find_spec
from pathlib import Path

import pytest
from harness_runs import NO_LM_EVAL, lm_eval_gen, lm_eval_mc, release_lines, replies, tiny_gpt2
from llm_server import LLMServer

from persian_tui.bank import jsonl
from persian_tui.cli import main
from persian_tui.releases.task_names import task_base
from persian_tui.runs import prompts
from persian_tui.runs.parse import parse_answer
from persian_tui.store import Store

# lm-eval's runs are slow to start (torch, transformers, datasets): one worker runs them all, once
pytestmark = [pytest.mark.xdist_group("lm-eval"), pytest.mark.skipif(find_spec("lm_eval") is None, reason=NO_LM_EVAL)]

NAME = "نسخه-۱"  # a Persian release name: its task names are its own all the same
ANSWERS = ["3", "Answer: 2", "گزینه ۴", "I cannot decide.", "**4**", "1 or 2"]


@pytest.fixture(scope="module")
def lm_release(tmp_path_factory):
    """The sample bank, every question accepted, released as نسخه-۱: (db, folder, digest)."""
    root = tmp_path_factory.mktemp("lm")
    db = str(root / "h.db")
    assert main(["--db", db, "sample"]) == 0
    with Store(db) as s:
        for q in s.questions.questions():
            s.curation.adjudicate(q.uid, "mina", "accept")
    out = root / "rel"
    assert main(["--db", db, "release", NAME, "-o", str(out)]) == 0
    with Store(db) as s:
        digest = s.releases.get_release(NAME).digest
    return db, out, digest


@pytest.fixture(scope="module")
def mc_run(lm_release, tmp_path_factory):
    pytest.importorskip("torch", reason="torch is not installed (the embed extra brings it)")
    _, out, _ = lm_release
    root = tmp_path_factory.mktemp("mc")
    model = tiny_gpt2(root / "tiny-gpt2", release_lines(out))
    return lm_eval_mc(out, model, root / "out")


@pytest.fixture(scope="module")
def gen_run(lm_release, tmp_path_factory):
    _, out, _ = lm_release
    with LLMServer(replies(ANSWERS)) as server:
        samples, results = lm_eval_gen(out, server.url, tmp_path_factory.mktemp("gen") / "out")
    return samples, results, server.requests


def fresh_db(lm_release, tmp_path) -> str:
    db = tmp_path / "h.db"
    shutil.copy(lm_release[0], db)
    return str(db)


def imported(db: str):
    with Store(db) as s:
        (run,) = [r for r in s.runs.runs() if r.kind == "imported"]
        return run, {p.uid: p for p in s.runs.predictions(run.id)}


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_multiple_choice_on_a_tiny_model_comes_back(lm_release, mc_run, tmp_path, capsys):
    _, out, digest = lm_release
    samples, results = mc_run
    task = task_base(NAME, digest) + "_mc"
    assert samples.name.startswith(f"samples_{task}_")  # the tag ran the loglikelihood task, and only it
    acc = json.loads(results.read_text("utf-8"))["results"][task]["acc,none"]
    db = fresh_db(lm_release, tmp_path)
    capsys.readouterr()
    assert main(["--db", db, "import-predictions", str(samples)]) == 0
    assert f"accuracy {acc:.1%} against the bank's keys (lm-eval's own: {acc:.1%})" in capsys.readouterr().out
    run, preds = imported(db)
    rows = lines_of(samples)
    assert len(preds) == len(rows) == 16
    for row in rows:  # lm-eval 0.4 writes each loglikelihood as a string: read as numbers
        lls = [float(r[0][0]) for r in row["resps"]]
        p = preds[row["doc"]["uid"]]
        assert p.scores == lls and p.predicted == lls.index(max(lls)) + 1
        assert (p.predicted == row["doc"]["key"]) == bool(row["acc"])
    assert run.params["release"] == NAME and run.params["release_digest"] == digest
    assert run.params["task"] == task and run.params["harness"] == "lm-eval"
    assert run.model == "tiny-gpt2" and run.params["harness_model"].endswith("/tiny-gpt2")


def test_generate_until_against_an_endpoint_comes_back(lm_release, gen_run, tmp_path, capsys):
    _, out, digest = lm_release
    samples, results, requests = gen_run
    task = task_base(NAME, digest) + "_gen"
    assert samples.name.startswith(f"samples_{task}_")
    records = lines_of(out / "data" / "test.jsonl")
    assert len(requests) == len(records)  # the chat tag pulled no loglikelihood task in
    for r in records:  # the project's prompt; the system text ends in the blank line lm-eval needs without
        system, user = prompts.render("zero-shot", jsonl.from_record(r)).messages  # a chat template
        assert [system["content"] + "\n\n", user["content"]] in [[m["content"] for m in q["messages"]]
                                                                 for q in requests]
    em = json.loads(results.read_text("utf-8"))["results"][task]["exact_match,parsed"]
    db = fresh_db(lm_release, tmp_path)
    capsys.readouterr()
    assert main(["--db", db, "import-predictions", str(samples)]) == 0
    assert f"accuracy {em:.1%} against the bank's keys (lm-eval's own: {em:.1%})" in capsys.readouterr().out
    run, preds = imported(db)
    for row in lines_of(samples):
        p = preds[row["doc"]["uid"]]
        (reply,) = row["resps"][0]
        assert p.raw_output == reply and p.parse_status == parse_answer(reply).status
        assert (p.parse_status == "ok" and str(p.predicted) == row["filtered_resps"][0]) or \
            (p.parse_status != "ok" and row["filtered_resps"][0] == "")
    assert {p.parse_status for p in preds.values()} >= {"ok", "refusal", "invalid"}
    assert run.model == "fake-answerer" == run.params["harness_model"]
    assert (run.params["release"], run.params["release_digest"], run.params["task"]) == (NAME, digest, task)

    # the datasheet and leaderboard.csv know the run was on this release
    again = tmp_path / "again"
    assert main(["--db", db, "release", NAME, "--frozen", "-o", str(again), "--runs", str(run.id)]) == 0
    (board,) = csv.DictReader((again / "leaderboard.csv").read_text("utf-8").splitlines())
    assert board["run_on_release"] == "1" and board["model"] == "fake-answerer"
    assert f"| #{run.id} " not in (again / "README.md").read_text("utf-8") or "| yes |" in \
        (again / "README.md").read_text("utf-8")


def test_a_log_of_another_task_is_refused(lm_release, gen_run, tmp_path, capsys):
    samples, _, _ = gen_run
    other = tmp_path / samples.name.replace(task_base(NAME, lm_release[2]) + "_gen", "gsm8k")
    shutil.copy(samples, other)
    db = fresh_db(lm_release, tmp_path)
    capsys.readouterr()
    assert main(["--db", db, "import-predictions", str(other)]) == 1
    err = capsys.readouterr().err.strip()
    assert "task 'gsm8k' is not the task of a persian-tui release" in err and len(err.splitlines()) == 1
