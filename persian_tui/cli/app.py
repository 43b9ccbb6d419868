"""`persian-tui tui`: the terminal app, and the options it shares with `python app.py`."""

from __future__ import annotations

import argparse

from .. import settings
from ..models import LABELLED_STATUSES, QUEUE_MODES


def cmd_tui(args: argparse.Namespace) -> int:
    from ..tui.app import run_app

    return run_app(**tui_options(args))


def tui_options(args: argparse.Namespace) -> dict:
    """run_app's arguments from the options add_tui_options declares (app.py and `tui`)."""
    from ..models import QueueScope

    scope = QueueScope(tag=args.queue_tag, category=args.queue_category, source=args.queue_source,
                       status=args.queue_status)
    annotator = args.annotator or getattr(args, "user", None)  # `tui --user NAME` names you too
    return dict(db=args.db, bidi=args.bidi, sample=not args.no_sample, annotator=annotator,
                queue_mode=args.queue, queue_scope=scope if scope != QueueScope() else None,
                shape=args.shape)


def add_tui_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bidi", choices=settings.BIDI_SETTINGS, default=None,
                   help="right-to-left display: app reorders, terminal leaves it to a bidi "
                        "terminal, auto picks (default: $PERSIAN_TUI_BIDI or auto)")
    p.add_argument("--shape", choices=settings.SHAPE_SETTINGS, default=None,
                   help="join Arabic letters for terminals that do not (auto: on in app bidi mode; "
                        "default: $PERSIAN_TUI_SHAPE or auto)")
    p.add_argument("--no-sample", action="store_true",
                   help="do not seed a new database with the bundled sample bank")
    p.add_argument("--annotator", metavar="NAME",
                   help="your name for labels, edits and decisions (asked when needed)")
    q = p.add_argument_group("labelling queue")
    q.add_argument("--queue", choices=QUEUE_MODES, default="overlap",
                   help="overlap: questions others have started first, so annotators share items "
                        "and agreement can be measured (default); spread: fewest labels first")
    q.add_argument("--queue-tag", metavar="TAG", help="only questions with this tag")
    q.add_argument("--queue-category", metavar="NAME", help="only questions of this category")
    q.add_argument("--queue-source", metavar="NAME", help="only questions from this source")
    q.add_argument("--queue-status", choices=LABELLED_STATUSES,
                   help="only questions with this status (default: all three)")


def add_commands(sub) -> None:
    """The commands `tui`."""
    tui = sub.add_parser("tui", help="open the terminal app")
    add_tui_options(tui)
    tui.set_defaults(func=cmd_tui)
