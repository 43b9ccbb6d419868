"""The private framework names persian-tui relies on (persian_tui/tui/compat.py) all still exist in
the installed Textual, textual-serve and aiohttp: an upgrade that drops one fails here, by name."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from persian_tui.tui.compat import PRIVATE

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("owner", sorted(PRIVATE))
def test_every_private_name_still_exists(owner):
    module_name, qualname = owner.split(":")
    if module_name.startswith("textual_serve"):
        pytest.importorskip("textual_serve", reason="textual-serve is not installed (the web extra)")
    cls = getattr(importlib.import_module(module_name), qualname)
    names = set(dir(cls))
    # attributes set in __init__ (not on the class) are found in its source
    import inspect

    source = inspect.getsource(cls)
    missing = [n for n in PRIVATE[owner] if n not in names and f"self.{n}" not in source]
    assert missing == [], f"{owner} no longer has {missing}: see persian_tui/tui/compat.py"


def test_textual_is_pinned_exactly():
    """The private names hold for one Textual release: pyproject pins it (compat.py says why)."""
    text = (ROOT / "pyproject.toml").read_text("utf-8")
    assert re.search(r'"textual==\d+\.\d+\.\d+"', text)
    assert re.search(r'"textual-serve>=[\d.]+,<[\d.]+"', text)


def test_private_reads_go_through_compat():
    """Outside compat.py, no module reads Textual's private queues, callbacks or driver."""
    reads = re.compile(r"\._(message_queue|pending_message|next_callbacks|driver|offset_to_line_info)\b"
                       r"|screen\._callbacks")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "persian_tui").rglob("*.py")
                 if p.name != "compat.py" and reads.search(p.read_text("utf-8"))]
    assert offenders == []
