"""`persian-tui web`: the app for browsers, behind a sign-in (persian_tui.web; the web extra)."""

from __future__ import annotations

import argparse
import ipaddress
import re

from .. import settings
from .common import UserError, open_store

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def cmd_web(args: argparse.Namespace) -> int:
    try:
        from ..web.server import Options, WebServer
    except ImportError as e:
        raise UserError(f"persian-tui web needs the web extra: pip install 'persian-tui[web]' ({e.name} is "
                        "missing)") from None
    if bool(args.certfile) != bool(args.keyfile):
        raise UserError("--certfile and --keyfile go together (the certificate and its private key)")
    for name in args.pass_env:
        if not ENV_NAME.fullmatch(name):
            raise UserError(f"--pass-env {name}: not an environment variable name")
        if not settings.environment_has(name):
            print(f"warning: --pass-env {name}: the variable is not set; admins' runs will not find it")
    if args.trust_user_header and not _loopback(args.host):
        raise UserError(f"--trust-user-header with --host {args.host}: anyone who reaches the port could claim any "
                        "name; listen on 127.0.0.1 behind the proxy that sets the header")
    path = settings.db_path(args.db)
    with open_store(args, read=True) as store:
        users = store.users.users()
        signable = [u.name for u in users if store.users.password_hash(u.name)]
    if not users:
        raise UserError(f"{path} has no users: add them first (persian-tui users add NAME --role admin, "
                        "then users passwd NAME)")
    if not signable:
        raise UserError("no user has a password yet: set one with persian-tui users passwd NAME")
    options = Options(db=path.resolve(), host=args.host, port=args.port, certfile=args.certfile,
                      keyfile=args.keyfile, max_sessions=args.max_sessions, idle_minutes=args.idle_minutes,
                      pass_env=tuple(args.pass_env), trust_user_header=args.trust_user_header,
                      origins=tuple(o.rstrip("/") for o in args.origin), max_per_person=args.max_per_person,
                      trust_forwarded_for=args.trust_forwarded_for)
    try:
        server = WebServer(options, settings.web_secret())
    except (OSError, ValueError) as e:  # an unreadable certificate or key
        raise UserError(f"cannot load the TLS certificate {args.certfile}: {e}") from None
    print(f"{len(signable)} of {len(users)} user(s) can sign in: {', '.join(signable)}")
    try:
        server.serve()
    except OSError as e:
        raise UserError(f"cannot serve on {args.host}:{args.port}: {e.strerror or e}") from None
    return 0


def _loopback(host: str) -> bool:
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 7 * 24 * 60:  # inf and nan too
        raise argparse.ArgumentTypeError("must be more than 0 and at most a week (10080)")
    return value


def port_number(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535; 0: any free port)")
    return int(text)


def session_count(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 1000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of sessions (1 to 1000)")
    return int(text)


def add_commands(sub: argparse._SubParsersAction) -> None:
    web = sub.add_parser("web", help="serve the app to browsers, with sign-in (the web extra)",
                         description="Serve the app to browsers: each signed-in person gets their own app "
                         "process, run as them (their role from this database's users), always in app "
                         "bidi mode. Passwords: persian-tui users passwd NAME. The app's environment is an "
                         "allow-list; API keys reach admins' runs only through --pass-env. Cookies are "
                         f"signed with ${settings.WEB_SECRET_ENV} (else a random key per start).")
    web.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    web.add_argument("--port", type=port_number, default=8000, help="port (default: 8000; 0: any free port)")
    web.add_argument("--certfile", metavar="PEM", help="TLS certificate: serve https (with --keyfile)")
    web.add_argument("--keyfile", metavar="PEM", help="the certificate's private key")
    web.add_argument("--max-sessions", type=session_count, default=20, metavar="N",
                     help="app processes running at once, at most (default: 20)")
    web.add_argument("--max-per-person", type=session_count, default=3, metavar="N",
                     help="app processes of one person at once, at most (tabs and the one started at "
                          "sign-in; default: 3)")
    web.add_argument("--idle-minutes", type=positive_float, default=30.0, metavar="M",
                     help="close a tab nobody typed in for this long, saying so (default: 30)")
    web.add_argument("--pass-env", action="append", default=[], metavar="NAME",
                     help="pass this environment variable (an API key) to admins' app processes; "
                          "repeatable (default: none). Nothing else of the server's environment but locale and "
                          "paths passes")
    web.add_argument("--trust-user-header", metavar="HEADER",
                     help="behind a reverse proxy that signs people in: take the user from this header, "
                          "only on connections from loopback (e.g. X-Remote-User)")
    web.add_argument("--trust-forwarded-for", action="store_true",
                     help="behind a reverse proxy: take the client's address (for sign-in lock-outs and the "
                          "log) from the last X-Forwarded-For entry, only on connections from loopback")
    web.add_argument("--origin", action="append", default=[], metavar="URL",
                     help="another origin the page is served from (a proxy's https://host); repeatable "
                          "(default: none: only the address it listens on)")
    web.set_defaults(func=cmd_web)
