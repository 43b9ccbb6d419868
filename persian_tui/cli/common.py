"""What every command module of the CLI shares: the one error a command ends with, the
database opener and the bounded-integer argument type (below the command modules, so none of
them imports the package's `__init__`)."""

from __future__ import annotations

import argparse

from .. import config
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


def open_store(args, *, read: bool = False) -> Store:
    """The database; reading commands (``read``) also open a read-only file or folder.
    Only the default folder (db/) is created: a --db in a missing folder is an error."""
    path = config.db_path(args.db)
    return Store(path, create_dir=path == config.DEFAULT_DB, read_only=None if read else False)
