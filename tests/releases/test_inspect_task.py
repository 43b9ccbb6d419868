"""The release's Inspect task (releases/inspect_task.py) runs in Inspect against the local
OpenAI-compatible server; its log comes back as a run with Inspect's accuracy
(releases/harness_logs.py), read with or without inspect-ai installed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from factories import HARNESS_REPLIES, top_level_imports
from llm_server import LLMServer, chat

from persian_tui.bank import jsonl
from persian_tui.cli import main
from persian_tui.runs import prompts
from persian_tui.store import Store

# with -n, one worker runs the harness tests: Inspect, datasets and lm-eval are imported once
# (pyproject.toml: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("harnesses")

NO_INSPECT = "inspect-ai is not installed (the inspect extra: pip install -e '.[inspect]')"


def test_inspect_task_imports_only_inspect_and_the_standard_library(release):
    _, out = release
    task = out / "inspect_task.py"
    assert top_level_imports(task) - set(sys.stdlib_module_names) == {"inspect_ai"}
    assert '"outlier_parser"' in task.read_text("utf-8")  # the parser beside it, loaded by path
    copies = sorted((out / "outlier_parser").glob("*.py"))
    assert {p.name for p in copies} >= {"__init__.py", "parse.py", "parse_vocab.py"}
    source = Path(prompts.__file__).parent
    for copy in copies:  # the one parser, copied verbatim; standard library only
        assert not top_level_imports(copy) - set(sys.stdlib_module_names) - {"__future__"}, copy.name
        if copy.name != "__init__.py":
            assert copy.read_text("utf-8") == (source / copy.name).read_text("utf-8"), copy.name


def run_inspect(task: Path, log_dir: Path, fmt: str, monkeypatch):
    inspect_ai = pytest.importorskip("inspect_ai", reason=NO_INSPECT)
    monkeypatch.setenv("LOCAL_API_KEY", "not-a-real-key")
    monkeypatch.chdir(task.parent)  # Inspect takes a task path relative to the working folder
    with LLMServer(lambda body, n: chat(HARNESS_REPLIES[n % len(HARNESS_REPLIES)], tokens=(120, 7))) as server:
        (log,) = inspect_ai.eval(task.name, model="openai-api/local/tiny-model", model_base_url=server.url,
                                 log_dir=str(log_dir), log_format=fmt, display="none", max_connections=1)
    return log, server.requests


def test_inspect_runs_the_release_and_its_log_comes_back(release, tmp_path, monkeypatch, capsys):
    db, out = release
    log, requests = run_inspect(out / "inspect_task.py", tmp_path / "logs", "eval", monkeypatch)
    assert log.status == "success"
    inspect_acc = log.results.scores[0].metrics["accuracy"].value
    records = [json.loads(line) for line in (out / "data" / "test.jsonl").read_text("utf-8").splitlines()]
    assert len(requests) == len(records) == 16
    # the project's prompt, byte for byte
    rendered = [prompts.render("zero-shot", jsonl.from_record(r)).messages for r in records]
    assert sorted(json.dumps(r["messages"], ensure_ascii=False) for r in requests) == \
        sorted(json.dumps(m, ensure_ascii=False) for m in rendered)
    assert all(r["temperature"] == 0 for r in requests)

    capsys.readouterr()
    assert main(["--db", db, "import-predictions", log.location]) == 0
    line = capsys.readouterr().out
    assert f"accuracy {inspect_acc:.1%} against the bank's keys (Inspect's own: {inspect_acc:.1%})" in line
    with Store(db) as s:
        (run,) = [r for r in s.runs.runs() if r.kind == "imported"]
        preds = {p.uid: p for p in s.runs.predictions(run.id)}
        keys = {q.uid: q.key for q in s.questions.questions()}
    assert run.model == "openai-api/local/tiny-model" and run.params["harness"] == "inspect"
    assert run.params["inspect_accuracy"] == inspect_acc
    assert sum(p.usable == keys[u] for u, p in preds.items()) / len(preds) == inspect_acc
    for sample in log.samples:  # every reply, its tokens and Inspect's score kept
        p = preds[sample.id]
        assert p.raw_output == sample.output.completion and (p.tokens_in, p.tokens_out) == (120, 7)
        assert run.params["harness_scores"][sample.id] == sample.scores["outlier_answer"].value
        assert (p.parse_status == "ok" and str(p.predicted) == sample.scores["outlier_answer"].answer) or \
            (p.parse_status != "ok" and sample.scores["outlier_answer"].value == "I")
    assert {p.parse_status for p in preds.values()} >= {"ok", "refusal", "invalid"}
    assert main(["--db", db, "import-predictions", log.location]) == 0  # the same log again
    assert "already imported" in capsys.readouterr().out


def test_inspect_json_log_reads_without_inspect_installed(release, tmp_path, monkeypatch, capsys):
    db, out = release
    log, _ = run_inspect(out / "inspect_task.py", tmp_path / "logs", "json", monkeypatch)
    acc = log.results.scores[0].metrics["accuracy"].value
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # the documented JSON format, read by hand
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    assert main(["--db", db, "import-predictions", log.location]) == 0
    assert f"(Inspect's own: {acc:.1%})" in capsys.readouterr().out
    with Store(db) as s:
        (run,) = [r for r in s.runs.runs() if r.kind == "imported"]
        assert len(s.runs.predictions(run.id)) == 16


@pytest.mark.parametrize("installed", [True, False])
def test_a_broken_log_is_one_line(release, tmp_path, capsys, monkeypatch, installed):
    db, _ = release
    if not installed:
        monkeypatch.setitem(sys.modules, "inspect_ai", None)
        monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    bad = tmp_path / "x.json"
    bad.write_text('{"eval": {"model": "m"}, "status": "error", "samples": []}', "utf-8")
    assert main(["--db", db, "import-predictions", str(bad)]) == 1
    if installed:  # inspect_ai's own check of the shape
        assert "x.json: not an Inspect log" in capsys.readouterr().err
        return
    err = capsys.readouterr().err
    assert "x.json: the log's status is 'error'" in err and len(err.strip().splitlines()) == 1
    bad.write_bytes(b"\x00not json")
    assert main(["--db", db, "import-predictions", str(bad)]) == 1
    assert "not an Inspect log" in capsys.readouterr().err
    zipped = tmp_path / "y.eval"
    zipped.write_bytes(b"PK not a zip")
    assert main(["--db", db, "import-predictions", str(zipped)]) == 1
    assert "not an Inspect log" in capsys.readouterr().err
