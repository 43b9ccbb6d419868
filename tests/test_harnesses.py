"""Other harnesses, both ways: the release's Inspect task runs in Inspect against the tests' local
OpenAI-compatible server and its log comes back as a run with Inspect's accuracy; the release's
lm-eval task folder matches lm-eval's task schema; lm-eval samples files import as runs."""

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

NO_INSPECT = "inspect-ai is not installed (the inspect extra: pip install -e '.[inspect]')"
# the replies the fake endpoint gives in turn: digits, words, Persian, a refusal, a hedge


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


# ---------------------------------------------------------------- Hugging Face datasets


def test_release_folder_loads_with_datasets_with_declared_types(release):
    datasets = pytest.importorskip("datasets", reason="datasets is not installed (the test extra installs it)")
    import re

    import yaml

    _, out = release
    data = out / "data" / "test.jsonl"
    lines = data.read_text("utf-8").splitlines()
    # one option linked to the corpus, every other corpus field null: the types must not depend on it
    rec = json.loads(lines[1])
    rec["options"][0]["corpus"] = {"status": "linked", "poem": "hafez/ghazal/sh1", "couplet": 3, "poet": "حافظ",
                                   "metre": "مفعول", "method": "exact", "score": 100,
                                   "also_in": [{"poem": "naraghi/meraj/sh2", "couplet": 7}]}
    rec["options"][0]["order"] = "poet"
    rec["options"][1]["corpus"] = {"status": "ambiguous", "method": "exact", "score": 97.5,
                                   "candidates": [{"poem": "a/b", "couplet": 1}, {"poem": "c/d", "couplet": 2}]}
    rec["options"][2]["corpus"] = {"status": "unlinked"}
    data.write_text("\n".join([lines[0], json.dumps(rec, ensure_ascii=False), *lines[2:]]) + "\n", "utf-8")
    readme = (out / "README.md").read_text("utf-8")
    header = yaml.safe_load(readme.split("---\n")[1])
    declared = datasets.Features._from_yaml_list(header["dataset_info"]["features"])
    ds = datasets.load_dataset(str(out), cache_dir=str(out.parent / "hf-cache"))  # not a stale cache
    (split,) = header["configs"][0]["data_files"]
    assert list(ds) == [split["split"]] == ["test"] and ds["test"].num_rows == len(lines)
    assert ds["test"].features == declared
    assert ds["test"][1]["options"][0]["corpus"]["couplet"] == 3 and ds["test"][0]["options"][0]["corpus"] is None
    assert ds["test"][1]["options"][0]["corpus"]["also_in"] == [{"poem": "naraghi/meraj/sh2", "couplet": 7}]
    assert ds["test"][1]["options"][1]["corpus"]["candidates"][1] == {"poem": "c/d", "couplet": 2}
    assert ds["test"][1]["options"][0]["order"] == "poet"
    assert ds["test"][0]["source_page"] == json.loads(lines[0])["source_page"]
    # text, as declared (pyarrow reads ISO times as timestamps first: the same instant, space-separated)
    assert ds["test"][0]["created_at"].replace(" ", "T") + "Z" == json.loads(lines[0])["created_at"]
    assert header["dataset_info"]["splits"] == [{"name": "test", "num_examples": len(lines)}]
    snippet = re.search(r"```python\n(.*?)```", readme, re.S)[1]
    assert f'split="{split["split"]}"' in snippet
    scope = {}
    exec(snippet.replace('"<this folder or its hub repository>"', repr(str(out))), scope)  # noqa: S102
    assert scope["ds"].num_rows == len(lines)


# ---------------------------------------------------------------- lm-evaluation-harness

SCHEMA = Path(__file__).parent / "data" / "lm_eval_task.schema.json"


def lm_yaml(path: Path) -> dict:
    """A task YAML as lm-eval reads it, `!function utils.x` kept as the string "!function utils.x"."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: "!function " + loader.construct_scalar(node))
    return yaml.load(path.read_text("utf-8"), Loader=Loader)  # noqa: S506 (a SafeLoader subclass)


def lm_utils(folder: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"lm_utils_{id(folder)}", folder / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def functions_in(value) -> list[str]:
    if isinstance(value, str):
        return [value.removeprefix("!function ")] if value.startswith("!function ") else []
    if isinstance(value, dict):
        return [f for v in value.values() for f in functions_in(v)]
    if isinstance(value, list):
        return [f for v in value for f in functions_in(v)]
    return []


def test_lm_eval_task_yaml_matches_its_schema(release):
    import jsonschema

    _, out = release
    folder = out / "lm_eval"
    yamls = sorted(folder.glob("*.yaml"))
    assert [p.name for p in yamls] == ["persian_outlier_v1_gen.yaml", "persian_outlier_v1_mc.yaml"]
    schema = json.loads(SCHEMA.read_text("utf-8"))
    utils = lm_utils(folder)
    for path in yamls:
        config = lm_yaml(path)
        jsonschema.validate(config, schema)
        for fn in functions_in(config):
            module, name = fn.split(".")
            assert module == "utils" and callable(getattr(utils, name)), fn
    assert top_level_imports(folder / "utils.py") - set(sys.stdlib_module_names) == {"datasets"}
    bad = lm_yaml(yamls[0]) | {"output_type": "generate"}  # the schema can fail
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_lm_eval_prompt_and_filter_are_the_projects(release):
    from persian_tui.runs.parse import parse_answer

    _, out = release
    utils = lm_utils(out / "lm_eval")
    gen = lm_yaml(out / "lm_eval" / "persian_outlier_v1_gen.yaml")
    records = [json.loads(line) for line in (out / "data" / "test.jsonl").read_text("utf-8").splitlines()]
    for r in records:
        system, user = prompts.render("zero-shot", jsonl.from_record(r)).messages
        assert gen["description"] == system["content"] and utils.doc_to_text(r) == user["content"]
        assert utils.doc_to_target(r) == str(r["key"]) and utils.doc_to_index(r) == r["key"] - 1
    assert utils.parse_filter([[r] for r in HARNESS_REPLIES], records[:len(HARNESS_REPLIES)]) == \
        [[str(parse_answer(r).answer) if parse_answer(r).status == "ok" else ""] for r in HARNESS_REPLIES]
    pytest.importorskip("datasets", reason="datasets is not installed (the test extra installs it)")
    ds = utils.load_release(version=1.0)
    assert ds["test"].num_rows == len(records) and ds["test"][0]["uid"] == records[0]["uid"]


def test_lm_eval_runs_the_task_when_installed(release):
    lm_eval = pytest.importorskip("lm_eval", reason="lm-eval is not installed (it pulls torch; CI does not "
                                                    "install it: the YAML is checked against its task schema)")
    from lm_eval.tasks import TaskManager

    _, out = release
    tasks = TaskManager(include_path=str(out / "lm_eval")).load_task_or_group(["persian_outlier_v1_gen"])
    assert tasks and lm_eval


def write_samples(folder: Path, records: list[dict], kind: str) -> Path:
    """An lm-eval --log_samples file as lm-eval 0.4 writes it (and its results file)."""
    lines = []
    for i, r in enumerate(records):
        if kind == "gen":
            reply = HARNESS_REPLIES[i % len(HARNESS_REPLIES)]
            from persian_tui.runs.parse import parse_answer

            p = parse_answer(reply)
            got = str(p.answer) if p.status == "ok" else ""
            lines.append({"doc_id": i, "doc": r, "target": str(r["key"]), "arguments": {}, "resps": [[reply]],
                          "filtered_resps": [got], "filter": "parsed", "metrics": ["exact_match"],
                          "exact_match": float(got == str(r["key"])), "doc_hash": "x", "prompt_hash": "y"})
        else:
            lls = [-3.0 - ((j + i) % 4) * 0.5 for j in range(4)]
            lines.append({"doc_id": i, "doc": r, "target": r["key"] - 1, "arguments": {},
                          "resps": [[[ll, False]] for ll in lls], "filtered_resps": [[ll, False] for ll in lls],
                          "filter": "none", "metrics": ["acc", "acc_norm"],
                          "acc": float(max(range(4), key=lambda j: lls[j]) == r["key"] - 1), "acc_norm": 0.0})
    path = folder / f"samples_persian_outlier_v1_{kind}_2026-11-25T16-00-00.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    (folder / "results_2026-11-25T16-00-00.json").write_text(json.dumps({"model_name": "local/tiny"}), "utf-8")
    return path


@pytest.mark.parametrize("kind", ["gen", "mc"])
def test_lm_eval_samples_import_as_a_run(release, tmp_path, capsys, kind):
    db, out = release
    records = [json.loads(line) for line in (out / "data" / "test.jsonl").read_text("utf-8").splitlines()]
    (tmp_path / "lm").mkdir()
    path = write_samples(tmp_path / "lm", records, kind)
    metric = "exact_match" if kind == "gen" else "acc"
    expected = sum(json.loads(line)[metric] for line in path.read_text("utf-8").splitlines()) / len(records)
    capsys.readouterr()
    assert main(["--db", db, "import-predictions", str(path)]) == 0
    assert f"accuracy {expected:.1%} against the bank's keys (lm-eval's own: {expected:.1%})" in capsys.readouterr().out
    with Store(db) as s:
        (run,) = [r for r in s.runs.runs() if r.kind == "imported"]
        preds = s.runs.predictions(run.id)
    assert run.model == "local/tiny" and run.params["harness"] == "lm-eval" and len(preds) == len(records)
    if kind == "mc":
        assert all(len(p.scores) == 4 and p.predicted == p.scores.index(max(p.scores)) + 1 for p in preds)
    else:
        assert {p.raw_output for p in preds} <= set(HARNESS_REPLIES)


# ---------------------------------------------------------------- --push (no network in tests)


def test_push_refuses_without_a_token_or_the_library_and_keeps_the_folder(release, tmp_path, monkeypatch, capsys):
    db, _ = release
    pytest.importorskip("huggingface_hub", reason="huggingface_hub is not installed (datasets brings it)")
    import huggingface_hub.constants as hub_constants
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setattr(hub_constants, "HF_TOKEN_PATH", str(tmp_path / "hf" / "token"))  # no stored login
    monkeypatch.setattr(hub_constants, "HF_STORED_TOKENS_PATH", str(tmp_path / "hf" / "stored_tokens"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "p"
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "someone/outlier"]) == 1
    err = capsys.readouterr().err
    assert "--push needs a Hugging Face token" in err and len(err.strip().splitlines()) == 1
    assert (out / "release.json").is_file()  # written before the upload was refused
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "not a repo"]) == 1
    assert "--push takes a repository id" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    assert main(["--db", db, "release", "v1", "-o", str(out), "--push", "someone/outlier"]) == 1
    assert "--push needs huggingface_hub" in capsys.readouterr().err
