"""What every command module of the CLI shares: the one error a command ends with, the
database opener, the bounded-integer and run-ids argument types and capped report lines
(below the command modules, so none of them imports the package's `__init__`)."""

from __future__ import annotations

import argparse
import sys
import time

from .. import settings
from ..store import Store

MAX_ID = 2**63 - 1  # SQLite's largest integer


class UserError(Exception):
    """Ends the command with a one-line message and exit status 1 (caught by cli.main)."""


def bounded_int(low: int, high: int = MAX_ID):
    """An argparse type: an integer in [low, high], else a one-line usage error naming the value."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {text}")
        return value
    return parse


def run_ids(text: str | None) -> list[int] | None:
    """A --runs value: run ids separated by commas (None when not given)."""
    if not text:
        return None
    try:
        return [bounded_int(1)(x) for x in text.replace(" ", "").split(",") if x]
    except argparse.ArgumentTypeError:
        raise UserError(f"--runs takes run ids (1 to {MAX_ID}) separated by commas, e.g. 1,2,5 "
                        f"(got {text!r})") from None


def open_store(args, *, read: bool = False) -> Store:
    """The database; reading commands (``read``) open it read-only and never create one (a
    mistyped --db is an error, not a new empty database; a first `stats` in a new folder makes
    no empty file the app would then open on "0 questions"). Only the default folder (db/) is
    created: a --db in a missing folder is an error."""
    path = settings.db_path(args.db)
    default = path == settings.DEFAULT_DB
    if read and default and not path.exists():
        raise UserError(f"{path}: no database yet (a reading command never creates one): `persian-tui "
                        "sample` imports the bundled sample bank, `persian-tui import FILE` your questions, "
                        "`persian-tui tui` opens the app on the sample bank")
    return Store(path, create_dir=default, read_only=None if read else False)


def link_summary(counts, *, up_to_date: bool = True) -> str:
    """What linking questions to the corpus did, in one line (an import's new questions are
    never `up to date`: it leaves that count out)."""
    fresh = f", up to date {counts.get('up to date', 0)}" if up_to_date else ""
    released = f" ({counts['released']} in a release kept as they are)" if counts.get("released") else ""
    return (f"linked {counts.get('linked', 0)}, ambiguous {counts.get('ambiguous', 0)}, "
            f"unlinked {counts.get('unlinked', 0)}{fresh}; {counts.get('reordered', 0)} option(s) put in the "
            f"poet's hemistich order{released}")


MAX_SHOWN = 20  # lines of one kind (rejected, unmatched, ...) an import prints before a count


def print_capped(kind: str, lines) -> None:
    """The first MAX_SHOWN lines as "kind: line", then how many more there were."""
    n = 0
    for line in lines:
        n += 1
        if n <= MAX_SHOWN:
            print(f"{kind}: {line}")
    if n > MAX_SHOWN:
        print(f"{kind}: ... and {n - MAX_SHOWN} more")


class ProgressBar:
    """A progress line on stderr, redrawn at most every 0.2 s (a new line every 5 s when not a TTY)."""

    def __init__(self, what: str):
        self.what, self.last, self.tty = what, 0.0, sys.stderr.isatty()
        self.shown: tuple[int, int] | None = None

    def __call__(self, done: int, total: int, extra: str = "", *, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self.last < (0.2 if self.tty else 5):
            return
        if final and not self.tty and self.shown == (done, total):
            return  # that line is on the log already
        self.last, self.shown = now, (done, total)
        width = 24
        filled = int(width * done / total) if total else width
        line = f"{self.what} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {extra}"
        print(("\r" + line + "\033[K") if self.tty else line, end="" if self.tty else "\n",
              file=sys.stderr, flush=True)
        if final and self.tty:
            print(file=sys.stderr)
