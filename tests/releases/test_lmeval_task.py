"""The release's lm-evaluation-harness task folder (releases/lmeval_task.py) matches lm-eval's
task schema and the project's prompt and parser; lm-eval samples files import as runs
(releases/harness_logs.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from factories import DATA, HARNESS_REPLIES, top_level_imports

from persian_tui.bank import jsonl
from persian_tui.cli import main
from persian_tui.runs import prompts
from persian_tui.store import Store

# with -n, one worker runs the harness tests: Inspect, datasets and lm-eval are imported once
# (pyproject.toml: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("harnesses")

SCHEMA = DATA / "lm_eval_task.schema.json"


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
