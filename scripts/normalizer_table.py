"""Write persian_tui/data/normalizer.json: the normalizer's translate tables, built with hazm.

Run after upgrading hazm: python scripts/normalizer_table.py
(tests/foundation/test_text.py fails while the shipped file differs from what hazm produces)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from persian_tui.text import TABLE_FILE, table_json  # noqa: E402

if __name__ == "__main__":
    TABLE_FILE.write_text(table_json(), "utf-8")
    print(f"wrote {TABLE_FILE}")
