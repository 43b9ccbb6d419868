"""Headless commands over the same core as the TUI: `persian-tui --help`. Each command group is a
module with its `add_commands(sub)`; here: the parser assembled from them and `main`."""

from __future__ import annotations

import argparse
import os
import sys

from .. import __version__, display, settings
from ..files.inputs import InputError
from ..files.outputs import WriteError
from ..files.records import is_text
from ..runs import RunError
from ..store import DatabaseError, StoreError, discard_if_unused, is_there
from ..store.errors import write_error
from . import (
    access,
    app,
    bank,
    candidates,
    corpus,
    curate,
    items,
    labels,
    predictions,
    release,
    report,
    sweep,
    users,
    web,
)
from . import runs as runs_commands
from .app import add_tui_options, tui_options  # app.py builds its options from them
from .common import UserError
from .options import DB_HELP, USER_HELP, Parser, db_everywhere, merge_run

__all__ = ["add_tui_options", "main", "parser", "tui_options"]


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="persian-tui",
                                description="Build and evaluate Persian poetry outlier benchmarks.")
    p.add_argument("--version", action="version", version=f"persian-tui {__version__}")
    p.add_argument("--db", metavar="PATH", help=DB_HELP)
    p.add_argument("--user", metavar="NAME", help=USER_HELP)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    bank.add_commands(sub)
    labels.add_commands(sub)
    runs_commands.add_commands(sub)
    sweep.add_commands(sub)
    predictions.add_commands(sub)
    report.add_commands(sub)
    corpus.add_commands(sub)
    candidates.add_commands(sub)
    curate.add_commands(sub)
    items.add_commands(sub)
    release.add_commands(sub)
    users.add_commands(sub)
    web.add_commands(sub)

    app.add_commands(sub)
    access.declare_acts(p)
    db_everywhere(p)
    return p


def main(argv: list[str] | None = None) -> int:
    # one choke point: everything the CLI prints goes through the display sanitizer
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = display.SafeStream(out), display.SafeStream(err)
    try:
        try:
            return _main(argv)
        finally:
            out.flush()  # output to a pipe is buffered: a closed pipe shows up here at the latest
    except BrokenPipeError:
        return _pipe_closed(out)
    except Exception:  # a bug: its traceback may quote data, so it goes through the sanitizer too
        import traceback

        traceback.print_exc()
        return 1
    finally:
        sys.stdout, sys.stderr = out, err


def _pipe_closed(out) -> int:
    """The reader of our output has gone (`persian-tui stats | head -1`): end quietly with
    status 0, as ripgrep does (git dies of SIGPIPE, 141): the reader chose to stop, which is no
    error. What is still buffered goes nowhere, so Python's own last flush cannot complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture)
        pass
    return 0


PATH_ARGS = frozenset(["file", "path", "paths", "db", "output", "answers"])  # a file name may be any bytes


def _undecodable(args) -> str | None:
    """The first argument (not a file name) that is not valid UTF-8 text: its bytes came from a
    terminal in another encoding and cannot be stored, searched or printed."""
    for name, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        if name not in PATH_ARGS and any(isinstance(v, str) and not is_text(v) for v in values):
            return name
    return None


def _main(argv: list[str] | None) -> int:
    args = parser().parse_args(argv)
    if bad := _undecodable(args):
        flag = bad if bad in ("words", "couplet", "name") else "--" + bad.replace("_", "-")
        print(f"persian-tui: error: {flag}: not valid UTF-8 text (check the terminal's encoding)",
              file=sys.stderr)
        return 2
    db = settings.db_path(args.db)
    existed, folder_existed = is_there(db), is_there(db.parent)
    code = _run(args)
    if code and not existed:  # a failed command leaves no new empty database behind
        discard_if_unused(db, folder=not folder_existed)
    return code


def _run(args) -> int:
    try:
        merge_run(args)
        access.check(args)
        return args.func(args)
    except (InputError, StoreError, UserError, RunError, WriteError, access.AccessDenied) as e:
        for line in str(e).splitlines() or [""]:  # several (one per field of a spec): one line each
            print(f"persian-tui: error: {line}", file=sys.stderr)
        return 1
    except OverflowError as e:  # an id or count beyond SQLite's 64-bit integers
        print(f"persian-tui: error: a number is too large ({e}); ids and counts are at most "
              f"{2**63 - 1}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise  # main ends quietly
    except OSError as e:  # a path given as a file is a folder, unreadable, ...
        where = f"{e.filename}: " if e.filename else ""
        print(f"persian-tui: error: {where}{(e.strerror or str(e)).lower()}", file=sys.stderr)
        return 1
    except DatabaseError as e:  # raised by any query on a damaged file
        why = write_error(e) or f"database error: {e} (the file may be damaged)"
        print(f"persian-tui: error: {settings.db_path(args.db)}: {why}; nothing more was written",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("persian-tui: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
