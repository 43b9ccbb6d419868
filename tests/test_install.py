"""The default install is light (no torch, no CUDA); `.[embed]` and `.[test]` bring the models."""

import re
import sys
import tomllib
from pathlib import Path

import pytest

from persian_tui.eval.embed import EmbedderError, make_embedder

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text("utf-8"))
HEAVY = ("torch", "sentence-transformers", "transformers", "nvidia")


def names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_default_requirements_have_no_torch():
    default = names(PYPROJECT["project"]["dependencies"])
    assert not [n for n in default if n.startswith(HEAVY)]


def test_embed_extra_and_test_extra_bring_it_back():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {"torch", "sentence-transformers"} <= names(extras["embed"])
    assert any(r.replace(" ", "") == "persian-tui[embed]" for r in extras["test"])


def test_st_model_without_the_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as if not installed
    with pytest.raises(EmbedderError, match=r"persian-tui\[embed\]"):
        make_embedder("st:some-model")


def test_the_app_and_cli_do_not_import_torch():
    import subprocess

    code = ("import sys, persian_tui.cli, persian_tui.runs, persian_tui.tui.app, persian_tui.eval.embed; "
            "heavy = [m for m in sys.modules if m.split('.')[0] in ('torch', 'sentence_transformers')]; "
            "print(heavy)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_start_up_paths_do_not_import_hazm():
    """hazm costs ~1 s to import: the app, search and normalizer start without it (the
    normalizer's table ships as data; tests/test_text.py checks it against hazm)."""
    import subprocess

    code = ("import sys, persian_tui.cli, persian_tui.tui.app, persian_tui.search; "
            "from persian_tui.text import normalize, match_key; normalize('كتاب يك ۱'); match_key('a'); "
            "print([m for m in sys.modules if m.split('.')[0] == 'hazm'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
