"""Every release has its own names in the harnesses (releases/task_names.py), and one model has
one name from either harness (releases/harness_logs.plain_model)."""

import keyword
import re

from persian_tui.releases.harness_logs import plain_model
from persian_tui.releases.task_names import task_base

DIGEST = "ab" * 32


def test_distinct_releases_never_share_a_task_name():
    names = ["نسخه-۱", "نسخه-۲", "ن", "v1.0", "V1-0", "v1_0", "v1 0", "V1.0", "نسخه ۱", "نسخهٔ ۱"]
    bases = [task_base(n, DIGEST) for n in names]
    assert len(set(bases)) == len(names)
    for base in bases:  # an lm-eval task name and a Python identifier (Inspect's @task function)
        assert re.fullmatch(r"[a-z][a-z0-9_]*", base) and base.isidentifier() and not keyword.iskeyword(base)
        assert base.startswith("persian_outlier_") and "__" not in base
    assert task_base("v1.0", DIGEST).startswith("persian_outlier_v1_0_")
    assert re.fullmatch(r"persian_outlier_[0-9a-f]{8}", task_base("نسخه-۱", DIGEST))


def test_a_release_keeps_its_names():
    assert task_base("نسخه-۱", DIGEST) == task_base("نسخه-۱", DIGEST)
    assert task_base("v1", DIGEST) != task_base("v1", "cd" * 32)  # same name, other content: another task
    assert len(task_base("a" * 200, DIGEST)) < 70


def test_one_model_one_name_from_either_harness():
    assert plain_model("inspect", "openai-api/fake/fake-answerer") == "fake-answerer"
    assert plain_model("lm-eval", "fake-answerer") == "fake-answerer"
    assert plain_model("inspect", "openai/gpt-4o") == plain_model("lm-eval", "gpt-4o") == "gpt-4o"
    assert plain_model("inspect", "hf/google/gemma-2b") == plain_model("lm-eval", "google/gemma-2b") == \
        "google/gemma-2b"
    assert plain_model("lm-eval", "/tmp/models/tiny-gpt2") == "tiny-gpt2"


def test_a_log_finds_its_release_by_its_task_name_or_is_refused(release):
    """The task's metadata names the release, else its task name does; another release of the same
    name (another digest) or a task that is no release's is refused, one line."""
    import pytest

    from persian_tui.files.inputs import InputError
    from persian_tui.releases.harness_logs import _release_of
    from persian_tui.store import Store

    db, _ = release
    with Store(db) as s:
        digest = s.releases.get_release("v1").digest
        facts = {"harness": "lm-eval", "task": task_base("v1", digest) + "_mc"}
        _release_of(s, "x.jsonl", facts)
        assert (facts["release"], facts["release_digest"]) == ("v1", digest)
        facts = {"harness": "inspect", "task": task_base("v1", digest)}
        _release_of(s, "x.eval", facts)
        assert facts["release"] == "v1"
        with pytest.raises(InputError, match="another release of the same name"):
            _release_of(s, "x.eval", {"harness": "inspect", "task": "t", "release": "v1", "release_digest": "0" * 64})
        with pytest.raises(InputError, match="task 'gsm8k' is not the task of a persian-tui release"):
            _release_of(s, "x.eval", {"harness": "inspect", "task": "gsm8k"})
        facts = {"harness": "inspect", "task": "persian_outlier"}  # a folder written before names were its own
        _release_of(s, "x.eval", facts)
        assert facts.get("release") is None
