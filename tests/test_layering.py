"""Architecture rules from design.md, enforced."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "persian_tui"


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def modules_outside(folder: str):
    for path in PACKAGE.rglob("*.py"):
        if folder not in path.relative_to(PACKAGE).parts[:1]:
            yield path


def test_only_tui_imports_textual():
    offenders = [str(p) for p in modules_outside("tui") if "textual" in imports(p)]
    assert offenders == []


def test_only_store_speaks_sql():
    offenders = [str(p) for p in modules_outside("store") if {"sqlite3", "sqlite_utils"} & imports(p)]
    assert offenders == []


def test_layer_contract_holds():
    """tui > cli > runs > io > eval > store > models/text, as declared in pyproject.toml."""

    root = PACKAGE.parent
    done = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                           "lint_imports_command()"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_ruff_is_clean():
    """The code style the project configured (pyproject [tool.ruff]) holds everywhere."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (it comes with the test extra)")
    done = subprocess.run([ruff, "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]


def test_no_test_module_imports_another():
    """What test modules share lives in conftest.py (fixtures) and helper modules (factories.py,
    tui_helpers.py, llm_server.py), never in another test module nor imported from conftest."""
    tests = ROOT / "tests"
    found = {p.name: sorted(n for n in imports(p) if n.startswith("test_") or n == "conftest")
             for p in sorted(tests.glob("test_*.py"))}
    assert {name: names for name, names in found.items() if names} == {}
