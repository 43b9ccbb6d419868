"""The release's Inspect task (releases/inspect_task.py) runs in Inspect against the local
OpenAI-compatible server (with epochs, `.eval` and `.json` logs, two releases in one eval); its log
comes back as a run with Inspect's accuracy, its reasoning and the release it ran
(releases/harness_logs.py), read with or without inspect-ai installed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from factories import HARNESS_REPLIES, top_level_imports
from harness_runs import THINK, replies
from llm_server import LLMServer

from persian_tui.bank import jsonl
from persian_tui.cli import main
from persian_tui.releases.task_names import task_base
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


def test_running_from_inside_the_release_folder_says_where_the_logs_go(release, monkeypatch, capsys):
    pytest.importorskip("inspect_ai", reason=NO_INSPECT)
    import importlib.util

    _, out = release

    def load():
        spec = importlib.util.spec_from_file_location(f"task_{id(out)}", out / "inspect_task.py")
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
        return capsys.readouterr().err

    monkeypatch.delenv("INSPECT_LOG_DIR", raising=False)
    monkeypatch.setattr(sys, "argv", ["inspect", "eval", "inspect_task.py"])
    monkeypatch.chdir(out)
    assert "inside the release folder; run it from outside the folder or give --log-dir" in load()
    monkeypatch.setattr(sys, "argv", ["inspect", "eval", "inspect_task.py", "--log-dir", "/tmp/x"])
    assert load() == ""
    monkeypatch.setattr(sys, "argv", ["inspect", "eval", "v1/inspect_task.py"])
    monkeypatch.chdir(out.parent)  # from outside: nothing to say
    assert load() == ""


def run_inspect(task: Path, log_dir: Path, fmt: str, monkeypatch, epochs: int = 1,
                more: tuple[Path, ...] = ()):
    """The real `inspect eval` of the task (and `more` tasks in the same eval): its logs and the requests."""
    inspect_ai = pytest.importorskip("inspect_ai", reason=NO_INSPECT)
    monkeypatch.setenv("LOCAL_API_KEY", "not-a-real-key")
    monkeypatch.chdir(task.parent.parent)  # Inspect takes a task path relative to the working folder
    tasks = [str(t.relative_to(task.parent.parent)) for t in (task, *more)]
    with LLMServer(replies(HARNESS_REPLIES)) as server:
        logs = inspect_ai.eval(tasks, model="openai-api/local/tiny-model", model_base_url=server.url, epochs=epochs,
                               log_dir=str(log_dir), log_format=fmt, display="none", max_connections=1)
    return (logs[0] if not more else logs), server.requests


def test_inspect_runs_the_release_and_its_log_comes_back(release, tmp_path, monkeypatch, capsys):
    db, out = release
    log, requests = run_inspect(out / "inspect_task.py", tmp_path / "logs", "eval", monkeypatch, epochs=2)
    assert log.status == "success"
    manifest = json.loads((out / "release.json").read_text("utf-8"))
    assert log.eval.task == task_base("v1", manifest["digest"])  # the task is named for the release
    inspect_acc = log.results.scores[0].metrics["accuracy"].value
    records = [json.loads(line) for line in (out / "data" / "test.jsonl").read_text("utf-8").splitlines()]
    assert len(requests) == 2 * len(records) == 32
    # the project's prompt, byte for byte
    rendered = [prompts.render("zero-shot", jsonl.from_record(r)).messages for r in records]
    assert sorted(json.dumps(r["messages"], ensure_ascii=False) for r in requests) == \
        sorted(json.dumps(m, ensure_ascii=False) for m in rendered * 2)  # each question once per epoch
    assert all(r["temperature"] == 0 for r in requests)

    capsys.readouterr()
    assert main(["--db", db, "import-predictions", log.location]) == 0
    line = capsys.readouterr().out
    assert f"accuracy {inspect_acc:.1%} against the bank's keys (Inspect's own: {inspect_acc:.1%})" in line
    with Store(db) as s:
        (run,) = [r for r in s.runs.runs() if r.kind == "imported"]
        preds = {(p.uid, p.sample + 1): p for p in s.runs.predictions(run.id, samples=True)}
        keys = {q.uid: q.key for q in s.questions.questions()}
    assert run.model == "tiny-model" and run.params["harness_model"] == "openai-api/local/tiny-model"
    assert (run.params["harness"], run.params["task"]) == ("inspect", log.eval.task)
    assert (run.params["release"], run.params["release_digest"]) == ("v1", manifest["digest"])
    assert run.params["inspect_accuracy"] == inspect_acc and run.params["samples"] == 2
    assert sum(p.usable == keys[u] for (u, _), p in preds.items()) / len(preds) == inspect_acc
    thought = 0
    for sample in log.samples:  # every reply, its reasoning, its tokens and Inspect's score kept
        p = preds[sample.id, sample.epoch]
        assert p.raw_output == sample.output.completion and (p.tokens_in, p.tokens_out) == (120, 7)
        key = sample.id if sample.epoch == 1 else f"{sample.id}#{sample.epoch}"
        assert run.params["harness_scores"][key] == sample.scores["outlier_answer"].value
        assert (p.parse_status == "ok" and str(p.predicted) == sample.scores["outlier_answer"].answer) or \
            (p.parse_status != "ok" and sample.scores["outlier_answer"].value == "I")
        if p.reasoning is not None:
            thought += 1
            assert p.reasoning == THINK.removeprefix("<think>").removesuffix("</think>")
            assert "<think>" not in p.raw_output
    assert thought == len(requests[::3])  # every third reply thought aloud first
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
        preds = s.runs.predictions(run.id)
    assert len(preds) == 16 and run.params["release"] == "v1" and run.model == "tiny-model"
    assert sum(p.reasoning is not None for p in preds) == len(range(0, 16, 3))


def test_two_releases_in_one_eval_each_score_with_their_own_parser(release, tmp_path, monkeypatch, capsys):
    """`inspect eval A/inspect_task.py B/inspect_task.py`: one process, two tasks, two parsers."""
    db, out = release
    other = out.parent / "نسخه-۱"
    assert main(["--db", db, "release", "نسخه-۱", "-o", str(other)]) == 0
    with (other / "outlier_parser" / "parse.py").open("a", encoding="utf-8") as f:  # B's parser reads "1" always
        f.write("\n\n_parse_answer = parse_answer\n\n\ndef parse_answer(text):\n    return _parse_answer('1')\n")
    logs, _ = run_inspect(out / "inspect_task.py", tmp_path / "logs", "eval", monkeypatch,
                          more=(other / "inspect_task.py",))
    by_task = {log.eval.task: log for log in logs}
    manifests = [json.loads((f / "release.json").read_text("utf-8")) for f in (out, other)]
    names = {m["name"]: task_base(m["name"], m["digest"]) for m in manifests}
    assert set(by_task) == set(names.values()) and len(by_task) == 2
    mine = [s.scores["outlier_answer"].answer for s in by_task[names["v1"]].samples]
    theirs = [s.scores["outlier_answer"].answer for s in by_task[names["نسخه-۱"]].samples]
    assert set(theirs) == {"1"} and set(mine) != {"1"}
    for log in logs:  # each log comes back as a run on its own release
        assert main(["--db", db, "import-predictions", log.location]) == 0
    with Store(db) as s:
        runs = [r for r in s.runs.runs() if r.kind == "imported"]
    assert sorted(r.params["release"] for r in runs) == sorted(names)


@pytest.mark.parametrize("installed", [True, False])
def test_a_broken_log_is_one_line(release, tmp_path, capsys, monkeypatch, installed):
    db, _ = release
    if installed:
        pytest.importorskip("inspect_ai", reason=NO_INSPECT)
    else:
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
