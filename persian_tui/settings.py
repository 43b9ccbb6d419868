"""Settings: CLI flags > environment variables > defaults."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

DEFAULT_DB = Path("db") / "persian_tui.db"


def db_path(flag: str | None = None) -> Path:
    return Path(flag or os.environ.get("PERSIAN_TUI_DB") or DEFAULT_DB)


def sample_bank_path() -> Path:
    return Path(str(resources.files("persian_tui") / "data" / "sample_bank.jsonl"))


def similar_model(flag: str | None = None) -> str | None:
    """The embedding model for "similar couplets" (e.g. st:/models/tooka or a hub name already in
    the local cache); None = the built-in TF-IDF baseline."""
    return (flag or os.environ.get("PERSIAN_TUI_SIMILAR_MODEL") or "").strip() or None
