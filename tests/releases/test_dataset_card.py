"""The datasheet's column types (releases/dataset_card.py): the release folder loads with
Hugging Face `datasets` with the declared types."""

from __future__ import annotations

import json

import pytest

# ---------------------------------------------------------------- Hugging Face datasets


def test_release_folder_loads_with_datasets_with_declared_types(release, tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets", reason="datasets is not installed (the test extra installs it)")
    import re

    import yaml

    _, out = release
    data = out / "data" / "test.jsonl"
    lines = data.read_text("utf-8").splitlines()
    size = data.stat().st_size
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
    assert header["dataset_info"]["splits"] == [{"name": "test", "num_bytes": size, "num_examples": len(lines)}]
    # what datasets reads without "The `splits` field in YAML is malformed" (it ignores the block then)
    assert datasets.splits.SplitDict._from_yaml_list(header["dataset_info"]["splits"])["test"].num_bytes == size
    snippet = re.search(r"```python\n(.*?)```", readme, re.S)[1]
    assert f'split="{split["split"]}"' in snippet
    # the snippet as pasted, run from the folder holding the release (as the datasheet says)
    monkeypatch.chdir(out.parent)
    scope = {"__builtins__": __builtins__}
    real = datasets.load_dataset
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: real(*a, **k, cache_dir=str(tmp_path / "hf")))
    exec(snippet, scope)  # noqa: S102
    assert scope["ds"].num_rows == len(lines)


def test_the_datasheet_runs_as_pasted(release, tmp_path, monkeypatch):
    """Its `load_dataset` line, run from the folder holding the release, loads it; the fields it
    names are a record's; it tells how to run the release's own Inspect and lm-eval tasks."""
    datasets = pytest.importorskip("datasets", reason="datasets is not installed (the test extra installs it)")
    from persian_tui.releases.dataset_card import field_names
    from persian_tui.releases.task_names import task_base

    _, out = release
    readme = (out / "README.md").read_text("utf-8")
    (line,) = [x for x in readme.splitlines() if x.startswith("ds = load_dataset(")]
    assert line == 'ds = load_dataset("v1", split="test")'
    monkeypatch.chdir(out.parent)
    ds = eval(line.removeprefix("ds = "), {"load_dataset": lambda *a, **k: datasets.load_dataset(  # noqa: S307
        *a, **k, cache_dir=str(tmp_path / "hf"))})
    assert ds.num_rows == 16
    record = json.loads((out / "data" / "test.jsonl").read_text("utf-8").splitlines()[0])
    assert set(record) <= set(field_names())
    fields = readme.split("fields ", 1)[1].split(" (an option")[0]
    assert fields == ", ".join(f"`{f}`" for f in field_names()) and "`source`" not in fields
    manifest = json.loads((out / "release.json").read_text("utf-8"))
    base = task_base("v1", manifest["digest"])
    assert "inspect eval v1/inspect_task.py --model openai-api/local/<model> --log-dir logs" in readme
    assert f"--include_path v1/lm_eval --tasks {base}_gen" in readme and f"--tasks {base}_mc" in readme
    assert "inspect-ai 0.3.285" in readme and "lm-eval 0.4.13" in readme


def test_frozen_rewrite_keeps_the_licence(release, capsys):
    from persian_tui.cli import main

    db, out = release
    assert main(["--db", db, "release", "v1", "--frozen", "-o", str(out), "--license", "cc-by-4.0"]) == 0
    assert main(["--db", db, "release", "v1", "--frozen", "-o", str(out)]) == 0  # no --license: kept
    assert "\nlicense: cc-by-4.0\n" in (out / "README.md").read_text("utf-8")
    assert main(["--db", db, "release", "v1", "--frozen", "-o", str(out), "--license", "mit"]) == 0
    assert "\nlicense: mit\n" in (out / "README.md").read_text("utf-8")
