"""No import cycle among the store's modules (function-level imports included)."""

import sys
from pathlib import Path

import grimp
import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())  # the checkout


@pytest.fixture(scope="module")
def graph():
    sys.path.insert(0, str(ROOT))  # this checkout, not an installed copy
    try:
        return grimp.build_graph("persian_tui", include_external_packages=False, cache_dir=None)
    finally:
        sys.path.remove(str(ROOT))


def test_no_import_cycle_inside_the_store(graph):
    store = sorted(m for m in graph.modules if m.startswith("persian_tui.store."))
    cycles = []
    for i, a in enumerate(store):
        for b in store[i + 1:]:
            there = graph.find_shortest_chain(importer=a, imported=b)
            back = graph.find_shortest_chain(importer=b, imported=a)
            if there and back and all(m.startswith("persian_tui.store.") for m in there + back):
                cycles.append(" -> ".join(there + back[1:]))
    assert cycles == []
