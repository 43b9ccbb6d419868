"""The release's lm-evaluation-harness task folder (releases/lmeval_task.py) matches lm-eval's
task schema and the project's prompt and parser, under the release's own names and two tags apart.
(Real lm-eval runs of it, imported back: tests/releases/test_harness_logs.py.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from factories import DATA, HARNESS_REPLIES, top_level_imports

from persian_tui.bank import jsonl
from persian_tui.releases.task_names import task_base
from persian_tui.runs import prompts

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


def base_of(out: Path) -> str:
    manifest = json.loads((out / "release.json").read_text("utf-8"))
    return task_base(manifest["name"], manifest["digest"])


def test_lm_eval_task_yaml_matches_its_schema(release):
    import jsonschema

    _, out = release
    folder = out / "lm_eval"
    yamls = sorted(folder.glob("*.yaml"))
    base = base_of(out)
    assert base.startswith("persian_outlier_v1_")
    assert [p.name for p in yamls] == [f"{base}_gen.yaml", f"{base}_mc.yaml"]
    # two tags: a chat endpoint asked for the chat tag never meets a loglikelihood task
    assert [lm_yaml(p)["tag"] for p in yamls] == ["persian_outlier_chat", "persian_outlier_loglik"]
    assert [lm_yaml(p)["metadata"]["release"] for p in yamls] == ["v1", "v1"]
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
    gen = lm_yaml(out / "lm_eval" / f"{base_of(out)}_gen.yaml")
    assert "description" not in lm_yaml(out / "lm_eval" / f"{base_of(out)}_mc.yaml")
    records = [json.loads(line) for line in (out / "data" / "test.jsonl").read_text("utf-8").splitlines()]
    for r in records:
        system, user = prompts.render("zero-shot", jsonl.from_record(r)).messages
        # the system text ends in a blank line: without a chat template it is not glued to the question
        assert gen["description"] == system["content"] + "\n\n" and utils.doc_to_text(r) == user["content"]
        assert utils.doc_to_text_mc(r) == system["content"] + "\n\n" + user["content"] + "\n\nAnswer:"
        assert utils.doc_to_target(r) == str(r["key"]) and utils.doc_to_index(r) == r["key"] - 1
    assert utils.parse_filter([[r] for r in HARNESS_REPLIES], records[:len(HARNESS_REPLIES)]) == \
        [[str(parse_answer(r).answer) if parse_answer(r).status == "ok" else ""] for r in HARNESS_REPLIES]
    pytest.importorskip("datasets", reason="datasets is not installed (the test extra installs it)")
    ds = utils.load_release(version=1.0)
    assert ds["test"].num_rows == len(records) and ds["test"][0]["uid"] == records[0]["uid"]
