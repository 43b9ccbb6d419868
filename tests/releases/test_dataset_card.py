"""The datasheet's column types (releases/dataset_card.py): the release folder loads with
Hugging Face `datasets` with the declared types."""

from __future__ import annotations

import json

import pytest

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
