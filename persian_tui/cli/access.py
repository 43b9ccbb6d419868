"""What each command needs the acting person's role to allow (models/users.py's acts), and the
check every command passes before it runs: one line, exit status 1, when refused.

Every command and subcommand is named in COMMAND_ACTS (a test builds the parser and checks it):
a new command must say who may run it. None: anyone (nothing in it shows a key, a model's
answer, a judge's verdict or another annotator's label, and it changes nothing shared)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from .. import settings
from ..access import AccessDenied, acting
from ..models.users import Act, roles_for
from ..store import DatabaseError, Store, StoreError, is_there
from .common import UserError

ActOf = Act | None | Callable[[argparse.Namespace], Act | None]


def _setting(args: argparse.Namespace) -> Act | None:
    """showing a setting: anyone; setting one: admins"""
    return "settings" if getattr(args, "value", None) is not None else None


def _runs(args: argparse.Namespace) -> Act | None:
    """listing runs and a run's history: reviewers and admins; archive, unarchive, delete: admins"""
    return "run" if getattr(args, "action", None) in ("archive", "unarchive", "delete") else "see_answers"


def _release(args: argparse.Namespace) -> Act | None:
    """listing releases: reviewers and admins; freezing or writing one: admins"""
    return "see_answers" if getattr(args, "list", False) else "release"


# command path (as typed after persian-tui) -> the act it needs
COMMAND_ACTS: dict[str, ActOf] = {
    "import": "author", "sample": "author", "import-labels": "author",
    "export": "see_answers", "agreement": "see_answers", "errors": "see_answers", "report": "see_answers",
    "shortcuts": "see_answers", "samples": "see_answers", "items": "see_answers",
    "setting": _setting, "stats": None, "tui": None,  # the app enforces the same policy itself
    "run": "run", "run llm": "run", "run paraphrase": "run", "run recall": "run", "run embed": "run",
    "judge": "run", "sweep": "run",
    "import-reasoning": "run", "import-predictions": "run",
    "runs": _runs, "runs archive": _runs, "runs unarchive": _runs, "runs delete": _runs, "runs history": _runs,
    "corpus": None, "corpus import": "author", "corpus stats": None, "corpus search": "see_sources",
    "corpus similar": "see_sources", "corpus link": "author", "corpus reorder": "author", "corpus propose": "propose",
    "candidates": "see_answers", "candidates list": "see_answers", "candidates accept": "propose",
    "candidates reject": "propose",
    "curate": "adjudicate", "release": _release,
    "users": "users", "users add": "users", "users list": "users", "users history": "users", "users role": "users",
    "users remove": "users",
    "users passwd": "users", "web": "users",  # serving the app to everyone is an admin's
}


def command_paths(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[str]:
    """Every command and subcommand of ``parser`` as typed: "runs", "runs delete", ..."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out.append(" ".join((*path, name)))
                out += command_paths(sub, (*path, name))
    return out


def declare_acts(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> None:
    """Give each (sub)command's parsed arguments its ``act`` from COMMAND_ACTS (KeyError for a
    command not named there)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                sub.set_defaults(act=COMMAND_ACTS[" ".join((*path, name))])
                declare_acts(sub, (*path, name))


def who_may(act: ActOf) -> str | None:
    """Who may run a command, in words (None: anyone), for its help and the reference."""
    if act is None:
        return None
    if callable(act):
        return (act.__doc__ or "").strip()
    return roles_for(act)


def acting_name(args: argparse.Namespace) -> str | None:
    """Who acts: --user, else a command's --annotator (curate's), else the login name."""
    user, annotator = getattr(args, "user", None), getattr(args, "annotator", None)
    if user and annotator and user.strip() != annotator.strip():
        raise UserError(f"--user {user} or --annotator {annotator}? name one person")
    return (user or annotator or "").strip() or None


def check(args: argparse.Namespace) -> None:
    """Refuse the command (AccessDenied) unless the acting person may do what it needs. A
    database that is not there yet has no users (its creator is admin). Fails closed: a
    database whose users cannot be read (busy past the lock wait, unreadable, not a database)
    refuses the command in one line saying why, before it runs."""
    act = getattr(args, "act", None)
    if callable(act):
        act = act(args)
    if act is None:
        return
    path = settings.db_path(args.db)
    try:
        if not is_there(path):
            return
        if not path.is_file():
            raise UserError(f"{path}: not a database file; nothing was done")
    except OSError as e:
        raise UserError(f"{path}: cannot check who may run this ({(e.strerror or str(e)).lower()}); "
                        "nothing was done") from None
    try:
        with Store(path, create_dir=False, read_only=None) as store:
            access = acting(store, acting_name(args))
    except (StoreError, DatabaseError, OSError) as e:
        reason = " ".join(str(e).split())[:300] or type(e).__name__
        raise UserError(f"cannot check who may run this command ({reason}); nothing was done") from None
    access.require(act)


__all__ = ["AccessDenied", "COMMAND_ACTS", "check", "declare_acts", "who_may"]
