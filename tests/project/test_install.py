"""The default and test installs are light (no torch, no CUDA); `.[embed]` brings the models and CI\ninstalls it."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from persian_tui.runs.embedders import EmbedderError, make_embedder

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())  # the checkout
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
HEAVY = ("torch", "sentence-transformers", "transformers", "nvidia")


def names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_default_requirements_have_no_torch():
    default = names(PYPROJECT["project"]["dependencies"])
    assert not [n for n in default if n.startswith(HEAVY)]


def test_embed_extra_brings_it_and_ci_installs_it():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {"torch", "sentence-transformers"} <= names(extras["embed"])
    assert "inspect-ai" in names(extras["inspect"])
    assert "mkdocs-material" in names(extras["docs"])
    assert "textual-serve" in names(extras["web"])
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    torch_line = ci.index("pip install --quiet torch==")
    install = re.search(r'pip install --quiet -e "\.\[([a-z,]+)\]"', ci)
    assert torch_line < install.start()
    assert set(install[1].split(",")) == {"test", "embed", "inspect", "lmeval", "docs", "web"}
    assert "apt-get install" in ci and "chromium" in ci  # tests/web drive Debian's Chromium


def test_lmeval_extra_installs_beside_the_project():
    """lm-eval with what its API and hf models need, and pyarrow capped: pyarrow 26 needs NumPy 2,
    which the project's NumPy pin rules out (then `import datasets`, so lm-eval, fails)."""
    lmeval = PYPROJECT["project"]["optional-dependencies"]["lmeval"]
    assert {"lm-eval", "datasets", "pyarrow", "tenacity", "accelerate"} <= names(lmeval)
    assert any(r.startswith("lm-eval[api,hf]") for r in lmeval)
    assert any(r.replace(" ", "").startswith("pyarrow") and "<26" in r for r in lmeval)


def test_st_model_without_the_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as if not installed
    with pytest.raises(EmbedderError, match=r"persian-tui\[embed\]"):
        make_embedder("st:some-model")


def test_the_app_and_cli_do_not_import_torch():
    import subprocess

    code = ("import sys, persian_tui.cli, persian_tui.runs, persian_tui.tui.app, persian_tui.runs.embedders; "
            "heavy = [m for m in sys.modules if m.split('.')[0] in ('torch', 'sentence_transformers')]; "
            "print(heavy)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_start_up_paths_do_not_import_hazm():
    """hazm costs ~1 s to import: the app, search and normalizer start without it (the
    normalizer's table ships as data; tests/foundation/test_text.py checks it against hazm)."""
    import subprocess

    code = ("import sys, persian_tui.cli, persian_tui.tui.app, persian_tui.bank.search; "
            "from persian_tui.text import normalize, match_key; normalize('كتاب يك ۱'); match_key('a'); "
            "print([m for m in sys.modules if m.split('.')[0] == 'hazm'])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_test_extra_pulls_no_torch():
    """`pip install -e ".[test]"` stays light: no embed extra, nothing that needs torch."""
    test = PYPROJECT["project"]["optional-dependencies"]["test"]
    torch_pulling = ("torch", "sentence-transformers", "nvidia", "triton")  # transformers alone needs no torch
    assert not [n for n in names(test) if n.startswith(torch_pulling) or n == "persian-tui"]


def test_st_tests_skip_with_a_reason_without_the_extra(tmp_path):
    """Without sentence-transformers (and torch, and the hub client it brings) the model tests
    skip, saying why, and every other test of the file still runs."""
    blocked = ("sentence_transformers", "torch", "transformers")
    code = (f"import sys\nfor m in {blocked!r}: sys.modules[m] = None\n"
            "import pytest\nsys.exit(pytest.main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT / "tests" / "runs" / "test_embedders.py"), "-rs", "-p",
                           "no:cacheprovider", "-p", "no:xdist", "--rootdir", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    skips = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skips and all("embed extra" in line for line in skips), done.stdout[-3000:]
    assert re.search(r"\d+ passed", done.stdout)


def test_harness_tests_skip_with_a_reason_without_the_harnesses(tmp_path):
    """`pip install -e ".[test]" && pytest` (the README's command): without inspect-ai and lm-eval
    the harness tests skip, naming the extra, and the rest of their files pass. (torch is not
    blocked so: `datasets` imports it whenever sys.modules names it.)"""
    blocked = ("inspect_ai", "inspect_ai.log", "lm_eval")
    code = (f"import sys\nfor m in {blocked!r}: sys.modules[m] = None\n"
            "import pytest\nsys.exit(pytest.main(sys.argv[1:]))")
    files = [str(ROOT / "tests" / "releases" / f) for f in ("test_inspect_task.py", "test_lmeval_task.py",
                                                            "test_harness_logs.py")]
    done = subprocess.run([sys.executable, "-c", code, *files, "-rs", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "--rootdir", str(tmp_path)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    skips = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skips and all("extra" in line for line in skips), done.stdout[-3000:]
    assert re.search(r"\d+ passed", done.stdout) and "failed" not in done.stdout


FRESH = "PERSIAN_TUI_FRESH_VENV"
SMOKE = ["tests/releases/test_inspect_task.py", "tests/releases/test_lmeval_task.py",
         "tests/releases/test_harness_logs.py", "tests/runs/test_embedders.py", "tests/runs/test_parse.py"]


@pytest.mark.xdist_group("fresh-venv")
@pytest.mark.skipif(not os.environ.get(FRESH), reason=f"installs .[test] into a new virtualenv (minutes, from "
                                                      f"the package index): set {FRESH}=1 (opt-in; CI does not)")
def test_the_readme_test_command_in_a_fresh_venv(tmp_path):
    """As a fresh clone with `pip install -e ".[test]"` alone (CI's way: a new venv, the checkout
    copied): a smoke subset passes, the tests needing the extras skipping and naming them."""
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".ci", "site", "__pycache__", "*.egg-info",
                                                             "exports", "db", "venv", ".venv", "*.db"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PERSIAN_TUI_DB")}
    python = str(venv / "bin" / "python")
    done = subprocess.run([python, "-m", "pip", "install", "--quiet", "-e", ".[test]"], cwd=src, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    done = subprocess.run([python, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-rs", *SMOKE], cwd=src,
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    skips = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skips and all("extra" in line for line in skips), done.stdout[-3000:]
    assert re.search(r"\d+ passed", done.stdout) and "failed" not in done.stdout
