"""`persian-tui users add NAME --role ROLE`, `users list`, `users role NAME ROLE`, `users history
[NAME]`, `users remove NAME`: the people of a database, their roles and their history (models/users.py says what each
role may do). Admins only once a user exists; before that, whoever runs persian-tui is admin, and
the first user added is an admin."""

from __future__ import annotations

import argparse
import getpass
import sys

from .. import settings
from ..models.users import ROLES, RULES, article, check_role, roles_for
from ..passwords import MAX_LENGTH, check_password, hash_password
from .common import UserError, open_store


def cmd_users_add(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        first = not store.users.any()
        user = store.users.add(args.name, check_role(args.role))
    print(f"added {user.name} as {user.role} ({'everything' if user.role == 'admin' else can(user.role)})")
    local = settings.local_user()
    if first and local != user.name:
        print(f"users are defined now: act as {user.name} with --user {user.name} (the app: --annotator "
              f"{user.name}); your login name{f' ({local})' if local else ''} is not a user")
    return 0


def cmd_users_list(args: argparse.Namespace) -> int:
    with open_store(args, read=True) as store:
        users = store.users.users(removed=args.all)
    if not users:
        print("no users: whoever runs persian-tui is admin (persian-tui users add NAME --role admin "
              "adds the first)")
        return 0
    width = max(len(u.name) for u in users)
    for u in users:
        gone = f"  removed {u.disabled_at}" if u.disabled_at else ""
        print(f"{u.name:<{width}}  {u.role:<9}  added {u.created_at}{gone}")
    return 0


def cmd_users_history(args: argparse.Namespace) -> int:
    with open_store(args, read=True) as store:
        events = store.users.history(args.name)
    if not events:
        print(f"no history for {args.name}" if args.name else "no users were ever added")
        return 0
    width = max(len(e.name) for e in events)
    for e in events:
        print(f"{e.at}  {e.name:<{width}}  {e.event:<7}  {e.role}")
    return 0


def cmd_users_role(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        before = store.users.set_role(args.name, check_role(args.role))
    role = check_role(args.role)
    print(f"{before.name} is {article(role)} now (was {article(before.role)}): "
          f"{'everything' if role == 'admin' else can(role)}; their browser sessions have ended")
    return 0


def cmd_users_remove(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        user = store.users.remove(args.name)
    print(f"removed {user.name} ({user.role}): the name can no longer act; their labels, edits and "
          "decisions stay")
    return 0


def cmd_users_passwd(args: argparse.Namespace) -> int:
    if args.clear:
        with open_store(args) as store:
            user = store.users.set_password(args.name, None)
        print(f"{user.name} has no password now: they cannot sign in to persian-tui web")
        return 0
    password = read_password(args.stdin)
    try:
        check_password(password)
    except ValueError as e:
        raise UserError(str(e)) from None
    with open_store(args) as store:
        if store.users.get(args.name) is None:
            raise UserError(f"{args.name} is not a user (users list shows them)")
        user = store.users.set_password(args.name, hash_password(password))
    print(f"password set for {user.name} ({user.role}): they sign in to persian-tui web with it")
    return 0


def stdin_line(stream) -> str:
    """The first line of ``stream``, read through a cap (at most MAX_LENGTH characters of UTF-8
    and its line end: `< /dev/zero` stops there) and decoded strictly: UserError, in one line,
    for a longer line or bytes that are not UTF-8."""
    limit = 4 * MAX_LENGTH + 2
    raw = getattr(stream, "buffer", None)
    line = raw.readline(limit + 1) if raw is not None else stream.readline(limit + 1).encode("utf-8", "replace")
    if len(line) > limit:
        raise UserError(f"the password on standard input is longer than {MAX_LENGTH} characters")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"standard input is not UTF-8 (byte {e.start + 1} of its first line)") from None
    return text.rstrip("\r\n")


def read_password(from_stdin: bool) -> str:
    """The new password: the first line of standard input with --stdin, else typed twice
    (not echoed). Never from a flag (it would show in the process list and shell history)."""
    if from_stdin:
        return stdin_line(sys.stdin)
    if not sys.stdin.isatty():
        raise UserError("no terminal to type the password in: pipe it with --stdin")
    first = getpass.getpass("new password: ")
    if getpass.getpass("again: ") != first:
        raise UserError("the two passwords differ; nothing was changed")
    return first


def can(role: str) -> str:
    """What a role may do, in words, from the one table of rules."""
    return "; ".join(what for act, (roles, what) in RULES.items() if role in roles)


def add_commands(sub: argparse._SubParsersAction) -> None:
    us = sub.add_parser("users", help="the people of this database and their roles (admins only once "
                        "users exist)",
                        description="Users with a role: annotators label, blind (no key, model answer, "
                        f"judge verdict or other annotator's label); {roles_for('adjudicate')} also "
                        f"adjudicate and review; {roles_for('author')} also author, run, release and change "
                        "shared settings. With no user defined, whoever runs persian-tui is admin. The "
                        "acting person is --user NAME (the app: --annotator NAME), else the login name.")
    us_sub = us.add_subparsers(dest="users_command", required=True, metavar="ACTION")
    add = us_sub.add_parser("add", help="add a user with a role (the first user is an admin)")
    add.add_argument("name", metavar="NAME", help="the name labels and decisions are recorded under")
    add.add_argument("--role", required=True, choices=ROLES, help="what the user may do")
    add.set_defaults(func=cmd_users_add)
    ls = us_sub.add_parser("list", help="the users and their roles")
    ls.add_argument("--all", action="store_true", help="include removed users")
    ls.set_defaults(func=cmd_users_list)
    ro = us_sub.add_parser("role", help="give a user another role (their sessions end; the last admin stays)",
                           description="Give a user another role, in place: their name, password and "
                           "labels stay, their browser sessions end (they sign in again), the change "
                           "goes into `users history`. The last admin cannot be demoted.")
    ro.add_argument("name", metavar="NAME", help="the user")
    ro.add_argument("role", metavar="ROLE", choices=ROLES, help=f"the new role: {', '.join(ROLES)}")
    ro.set_defaults(func=cmd_users_role)
    hi = us_sub.add_parser("history", help="every addition (with its role), role change and removal, oldest first",
                           description="Every addition of a user, with the role given, every role change "
                           "(`users role`) and every removal, oldest first.")
    hi.add_argument("name", metavar="NAME", nargs="?", help="only this user (default: everyone)")
    hi.set_defaults(func=cmd_users_history)
    rm = us_sub.add_parser("remove", help="remove a user (their labels stay; the last admin stays)")
    rm.add_argument("name", metavar="NAME", help="the user")
    rm.set_defaults(func=cmd_users_remove)
    pw = us_sub.add_parser("passwd", help="set a user's password for persian-tui web (stored as a "
                           "salted scrypt hash)",
                           description="Set the password a user signs in to `persian-tui web` with: "
                           "typed twice, or the first line of standard input with --stdin. Only its "
                           "salted scrypt hash is stored.")
    pw.add_argument("name", metavar="NAME", help="the user")
    pw.add_argument("--stdin", action="store_true", help="read the password from standard input's first line")
    pw.add_argument("--clear", action="store_true", help="remove the password (no web sign-in)")
    pw.set_defaults(func=cmd_users_passwd)
