"""Open the persian-tui terminal app: python app.py [--db PATH] [--bidi MODE] [--no-sample]."""

from __future__ import annotations

import argparse
import sys

from persian_tui import display, settings
from persian_tui.cli import add_tui_options, tui_options


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="app.py", description="Open the persian-tui terminal app.")
    p.add_argument("--db", metavar="PATH",
                   help=f"SQLite file (default: $PERSIAN_TUI_DB or {settings.DEFAULT_DB})")
    add_tui_options(p)
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = display.SafeStream(out), display.SafeStream(err)  # as the CLI does
    try:
        args = p.parse_args(argv)
        from persian_tui.tui.app import run_app

        return run_app(**tui_options(args))
    finally:
        sys.stdout, sys.stderr = out, err


if __name__ == "__main__":
    sys.exit(main())
