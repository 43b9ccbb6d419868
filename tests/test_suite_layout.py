"""The test suite's own layout: what test modules share lives in conftest.py and helper
modules (factories.py, tui_helpers.py, llm_server.py), never in another test module."""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_no_test_module_imports_another():
    offenders = {path.name: sorted(n for n in imported_modules(path) if n.startswith("test_"))
                 for path in sorted(TESTS.glob("test_*.py"))}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_no_test_module_imports_conftest():
    """conftest.py holds fixtures (pytest finds them); plain builders are imported from factories.py."""
    assert [p.name for p in sorted(TESTS.glob("test_*.py")) if "conftest" in imported_modules(p)] == []
