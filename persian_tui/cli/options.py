"""Command-line habits shared by every command: `--db` accepted after the command too, "did you
mean" for a mistyped command, one way to name a run (a `RUN` positional; `--run` kept as a
hidden alias)."""

from __future__ import annotations

import argparse
import difflib
import re

from .common import UserError

DB_HELP = "SQLite file (default: $PERSIAN_TUI_DB or db/persian_tui.db); before or after the command"
USER_HELP = ("who is acting, once the database has users (default: your login name); before or after "
             "the command")


class Parser(argparse.ArgumentParser):
    """argparse with a suggestion when a command is mistyped ("did you mean 'stats'?")."""

    def error(self, message: str):
        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            choices = [c.strip().strip("'\"") for c in m[2].split(",")]
            close = difflib.get_close_matches(m[1], choices, n=1, cutoff=0.6)
            if close:
                message = f"invalid choice: {m[1]!r}; did you mean {close[0]!r}?"
        super().error(message)


def db_everywhere(p: argparse.ArgumentParser) -> None:
    """Give every (sub)command its own --db and --user that leave the global ones alone when not
    given, and its one-line help as a description where it has none."""
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                if sub.description is None and (text := helps.get(name)):
                    sub.description = text[0].upper() + text[1:] + "."
            for sub in dict.fromkeys(action.choices.values()):  # aliases map to the same parser
                if not any("--db" in a.option_strings for a in sub._actions):
                    sub.add_argument("--db", metavar="PATH", default=argparse.SUPPRESS, help=DB_HELP)
                if not any("--user" in a.option_strings for a in sub._actions):
                    sub.add_argument("--user", metavar="NAME", default=argparse.SUPPRESS, help=USER_HELP)
                db_everywhere(sub)


def one_run(p: argparse.ArgumentParser, type_, *, help: str) -> None:
    """A run named by the `RUN` positional (optional); `--run RUN`, the old spelling, still works."""
    p.add_argument("run", nargs="?", type=type_, metavar="RUN", help=help)
    p.add_argument("--run", dest="run_option", type=type_, help=argparse.SUPPRESS)


def merge_run(args: argparse.Namespace) -> None:
    """args.run from the positional or the old --run (both given and different: an error)."""
    if not hasattr(args, "run_option"):
        return
    given = args.run_option
    if given is not None and args.run is not None and given != args.run:
        raise UserError(f"run {args.run} or --run {given}? name one run")
    if args.run is None:
        args.run = given
