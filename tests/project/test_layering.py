"""Architecture rules (docs/architecture.md, CONTRIBUTING.md), enforced: textual only in tui/, SQL only in
store/, the environment read only in settings.py, the import-linter layers (naming every top-level
module and package), no import cycle, ruff, mypy."""

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())  # the checkout
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


ENVIRONMENT = {"environ", "environb", "getenv", "getenvb"}


def reads_environment(source: str) -> bool:
    """Whether Python source reads the environment: os.environ / os.getenv (under any name of
    the module) or those names imported from os."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT:
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "os" and {a.name for a in node.names} & ENVIRONMENT:
            return True
    return False


def test_the_environment_finder_finds_reads():
    assert reads_environment("import os\nx = os.environ.get('A')")
    assert reads_environment("import os as o\nx = o.getenv('A')")
    assert reads_environment("from os import environ")
    assert not reads_environment("import os\nos.walk('.')")


def test_only_settings_reads_the_environment():
    """Flags, environment variables and stored settings are read in one place (settings.py)."""
    paths = [*PACKAGE.rglob("*.py"), ROOT / "app.py"]
    offenders = [str(p) for p in paths if p != PACKAGE / "settings.py" and reads_environment(p.read_text("utf-8"))]
    assert offenders == []


def test_layer_contract_holds():
    """The layers declared in pyproject.toml, top to bottom: tui > cli > releases > reports >
    judging | corpus > runs | annotation > bank > files | access > store > models > stats | text | bidi |
    redact > settings > display. A layer imports only the layers below it; `a | b` are siblings that
    do not import each other."""

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


def test_mypy_is_clean():
    """The types hold as pyproject [tool.mypy] asks: the whole package at check_untyped_defs, the
    core (models, store, statistics, the answer parser, settings, the text foundation) strict."""
    mypy = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if mypy is None:
        pytest.skip("mypy is not installed (it comes with the test extra)")
    done = subprocess.run([mypy], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]


def test_layers_name_every_top_level_module():
    """A module or package missing from the layers is checked by nothing (specs.py imported upward
    unnoticed): every top-level module and package of persian_tui is named (data/ holds no code)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    layers = config["tool"]["importlinter"]["contracts"][0]["layers"]
    named = {m.strip().removeprefix("persian_tui.") for layer in layers for m in layer.split("|")}
    top = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    top |= {p.parent.name for p in PACKAGE.glob("*/__init__.py") if p.parent.name != "data"}
    assert top - named == set()


def import_cycles(package: str = "persian_tui") -> list[list[str]]:
    """The strongly connected components (more than one module) of the import graph, built by
    grimp: every import counts, one inside a function too (deferring an import hides a cycle,
    it does not remove the dependency), and a package's `__init__` is a module like any other."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph(package, cache_dir=None)

    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    # Tarjan's algorithm, iterative
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        cycles.append(sorted(component))
    return sorted(cycles)


def test_the_cycle_finder_finds_a_cycle(tmp_path, monkeypatch):
    """The finder itself: two modules importing each other are a cycle (the one inside a function
    too); a one-way import is not."""
    pkg = tmp_path / "cyclepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n")
    (pkg / "c.py").write_text("from . import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("cyclepkg") == [["cyclepkg.a", "cyclepkg.b"]]


def test_no_import_cycles():
    """No import cycle anywhere in persian_tui (a package's __init__ included)."""
    assert import_cycles() == []


def test_no_test_module_imports_another():
    """What test modules share lives in conftest.py (fixtures) and helper modules (factories.py,
    processes.py, tui_helpers.py, llm_server.py), never in another test module nor imported from conftest."""
    tests = ROOT / "tests"
    shared = ("test_", "tests", "conftest")
    found = {str(p.relative_to(tests)): sorted(n for n in imports(p) if n.startswith(shared))
             for p in sorted(tests.rglob("test_*.py"))}
    assert {name: names for name, names in found.items() if names} == {}


def test_workers_report_to_the_ui_only_through_messages():
    """A worker never runs code on the UI thread itself (`call_from_thread`): it posts a message
    from tui/messages.py, and the screen's handler touches the widgets."""
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sorted((PACKAGE / "tui").rglob("*.py"))
             for n, line in enumerate(p.read_text("utf-8").splitlines(), 1) if "call_from_thread(" in line]
    assert found == []
