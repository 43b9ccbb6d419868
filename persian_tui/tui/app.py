"""The Textual application: opens the store, seeds a bank that never held a question, shows the
bank screen."""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from textual import events, work
from textual.app import App
from textual.filter import LineFilter
from textual.screen import ModalScreen, Screen

from .. import display, settings
from ..access import Access, AccessDenied, acting, solo
from ..bank.search import BankSearch
from ..bidi import MODES, Mode
from ..models import QueueMode, QueueScope
from ..models.limits import paste_problem
from ..store import DatabaseError, Store, StoreError, discard_if_unused, is_there
from .base import TuiApp
from .commands import ScreenCommands
from .guard import APP_ACTS, SAYS_WHY, offered, refused
from .keys import APP_KEYS, bindings, help_rows, screen_table, screen_title
from .safe_output import SHOW_CONTROLS
from .screens.bank import BankScreen
from .screens.help import HelpScreen
from .typeahead import TypeAhead
from .web_bridge import ask_sign_out, idle_seconds, signed_in_browser, warn_before_idle_close, watch_unsaved

BUSY_MS = 250  # the UI thread waits this long for a write lock, then retries in a worker (Harlequin)


@dataclass
class SampleImported:
    """The sample bank's import into a bank that never held a question: ``added`` questions, or
    an ``error``."""

    added: int = 0
    error: str | None = None


NOTICE_LOG = 200


@runtime_checkable
class HoldsWork(Protocol):
    """A screen or dialog that may hold an unsaved edit: what quitting now would lose, or None."""

    def unsaved_work(self) -> str | None: ...


class PersianTUI(TuiApp):
    """persian-tui. ``bidi_mode`` is a resolved mode (see ``settings.bidi_mode``) and ``shape``
    whether letters are joined: together the app's ``bidi.Mode`` (the bank's `b` changes its
    name); ``db_label`` is how the status line names the database (default: the path)."""

    TITLE = "persian-tui"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {ScreenCommands}
    BINDINGS = bindings(APP_KEYS)

    def __init__(self, db_path: str | Path, bidi_mode: str = "app", *, sample: bool = False,
                 db_label: str | None = None, warm_up: bool = True,
                 annotator: str | None = None, queue_mode: QueueMode = "overlap",
                 queue_scope: QueueScope | None = None, shape: bool = False) -> None:
        if bidi_mode not in MODES:
            raise ValueError(f"invalid bidi mode {bidi_mode!r}: expected one of {', '.join(MODES)}")
        super().__init__()
        # the last NOTICE_LOG notices raised (tests read them here); notify runs on worker
        # threads too, so the log is this app's own and appended under a lock
        self.notices: list[str] = []
        self._notices_lock = threading.Lock()
        self.db_path = Path(db_path)
        self.bidi_mode = Mode(bidi_mode, shape)  # every screen lays right-to-left text out with it
        self.db_label = db_label if db_label is not None else str(db_path)
        self.sample = sample
        self.warm_up = warm_up
        self.annotator = annotator  # who labels, authors and adjudicates (asked when None)
        self.queue_mode = queue_mode  # overlap | spread (see LabelsRepo.claim_next)
        self.queue_scope = queue_scope  # which questions the labelling queue serves
        self.store: Store | None = None
        self.bank: BankScreen | None = None
        # who is acting and what they may do (resolved when the store opens; see tui/guard.py)
        self.access: Access = solo(annotator)
        self.type_ahead = TypeAhead(self, super().on_event)
        self.signed_in_browser = signed_in_browser()  # offers Sign out (F10)
        self.last_input = time.monotonic()

    fatal_error: str | None = None  # a one-line reason the app ended (printed after exit)

    def _handle_exception(self, error: Exception) -> None:
        cause = getattr(error, "error", error)  # a worker's exception comes wrapped
        if isinstance(cause, DatabaseError):  # a damaged file: one line, not a traceback
            self.fatal_error = database_error(self.db_path, cause)
            self.exit(return_code=1)
            return
        super()._handle_exception(error)

    def get_line_filters(self) -> Sequence[LineFilter]:
        return [*super().get_line_filters(), SHOW_CONTROLS]  # no raw control reaches the terminal

    def notify(self, message: str, *, title: str = "", **kwargs: Any) -> None:
        # messages quote data (file names, model names, endpoint errors): show controls
        # visibly, and never read them as markup ("[/x]" would crash, "[@click=...]" act)
        kwargs.setdefault("markup", False)
        text = display.clean(message)
        with self._notices_lock:
            self.notices = [*self.notices[-(NOTICE_LOG - 1):], text]  # what was said, newest last
        super().notify(text, title=display.line(title), **kwargs)

    def push_screen(self, screen: Screen[Any] | str, *args: Any, **kwargs: Any) -> Any:
        # a screen opens clean: a toast about the last one would read as about this one (a
        # dialog keeps them: it is about the screen under it)
        if not isinstance(screen, ModalScreen):
            self.clear_notifications()
        return super().push_screen(screen, *args, **kwargs)

    # ------------------------------------------------------------ keys typed ahead

    async def on_event(self, event: events.Event) -> None:
        """Keys go where they were typed, in order (see ``typeahead``); a paste longer than any
        field takes is refused here, in a notice, before a field sees it."""
        if isinstance(event, (events.InputEvent, events.Paste, events.Resize)):
            self.last_input = time.monotonic()  # the idle warning's clock (web_bridge)
        if isinstance(event, events.Paste) and not event.is_forwarded and (why := paste_problem(event.text)):
            event.stop()
            self.notify(why, severity="warning", timeout=8)
            return
        if not await self.type_ahead.take(event):
            await super().on_event(event)

    def on_load(self) -> None:
        store = self.store = Store(self.db_path, busy_timeout_ms=BUSY_MS)
        try:
            self.access = acting(store, self.annotator)
        except AccessDenied as e:  # not a user of this database: one line, no app
            self.fatal_error = str(e)
            self.exit(return_code=1)
            return
        if not self.access.solo:
            self.annotator = self.access.user  # the user's name as stored; never asked
        self.bank_search = BankSearch(store)
        # A bank that never held a question (a new database, or one a command made empty) gets
        # the sample before the first paint: 16 questions import in ~30 ms (the normalizer
        # ships its table, hazm is not imported), so the bank is filled when it first shows
        # instead of after a worker round trip.
        self._sample_note = self._import_sample(store) if self.sample else None

    def get_default_screen(self) -> BankScreen:
        self.bank = BankScreen()
        return self.bank

    def on_bank_screen_first_load(self) -> None:
        watch_unsaved(self)  # in a browser: the page's leave-page prompt
        if (idle := idle_seconds()) is not None:
            warn_before_idle_close(self, idle)  # in a browser: a countdown before the idle close
        if self.access.role == "annotator":  # an annotator's work is the queue: straight into it
            self.action_label()
        if self.warm_up:  # background work starts once the bank is on screen
            self._warm_up()
        if self._sample_note is not None:
            self._sample_notice(self._sample_note)

    def on_unmount(self) -> None:
        self.type_ahead.stop()
        if self.store is not None:
            self.store.close()
            self.store = None

    # ------------------------------------------------------------ workers

    @work(thread=True, exclusive=True, group="warm-up", exit_on_error=False)
    def _warm_up(self) -> None:
        """Freeze what is loaded at start out of the cyclic garbage collector: Textual's,
        Rich's and the bank's long-lived objects, rescanned by every full collection
        (triggered by a keystroke's allocations) otherwise."""
        from ..text import warm_up

        warm_up()
        gc.freeze()

    def _import_sample(self, store: Store) -> SampleImported | None:
        """Seed a bank that never held a question with the bundled sample bank; the outcome, to
        notify (None: the bank has questions, nothing to say)."""
        from ..bank.importer import apply_import, plan_import
        from ..files.inputs import InputError

        if not store.questions.never_held_a_question():
            return None
        path = settings.sample_bank_path()
        if not path.is_file():
            return SampleImported(error=f"no sample bank at {path}: starting with an empty bank")
        try:
            plan = plan_import(store, path, fmt="jsonl")
            # re-checked under the write lock: another process may have stored questions since
            added = apply_import(store, plan, skip_invalid=True, only_into_empty=True)
        except (InputError, StoreError, OSError) as e:
            return SampleImported(error=f"sample bank not imported: {e}")
        return SampleImported(added) if added else None

    def _sample_notice(self, message: SampleImported) -> None:
        if message.error:
            self.notify(message.error, severity="warning", timeout=8)
            return
        self.notify(f"empty bank: imported {message.added} sample question(s) (--no-sample starts empty)",
                    timeout=4)

    # ------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """An action the person's role does not allow is not offered (tui/guard.py)."""
        act = APP_ACTS.get(action)
        return True if act is None or action in SAYS_WHY else self.access.may(act)

    def with_name(self, then: Callable[[str], object]) -> None:
        """Run then(name) with the user's name, asking for it first when it is not known."""
        if self.annotator:
            then(self.annotator)
            return
        from .screens.name import NameScreen

        def got(name: str | None) -> None:
            if name:
                self.annotator = name
                then(name)

        self.push_screen(NameScreen(), got)

    def action_label(self, uid: str | None = None) -> None:
        """The labelling queue; with ``uid``, that question first, then the queue (a question
        the queue does not serve, e.g. a retired one, is refused with a message)."""
        from .screens.label import LabelScreen

        if refused(self, APP_ACTS["label"]):
            return
        if uid is not None:
            q = self.open_store().questions.get_question(uid)
            why = None if q is None else (self.queue_scope or QueueScope()).refusal(uid, q.status)
            if why:
                self.notify(f"not labelled: {why}", severity="warning", timeout=5)
                return

        self.with_name(lambda name: self.push_screen(
            LabelScreen(name, scope=self.queue_scope, queue_mode=self.queue_mode, first=uid)))

    def action_author(self, uid: str | None = None) -> None:
        from .screens.author import AuthorScreen

        if refused(self, APP_ACTS["author"]):
            return

        def saved(uid: str | None) -> None:  # the table moves to the question just saved
            if self.bank is not None and self.screen is self.bank:
                self.bank.show_question(uid)

        self.with_name(lambda name: self.push_screen(AuthorScreen(name, uid), saved))

    def action_adjudicate(self) -> None:
        from .screens.adjudicate import AdjudicationScreen

        if refused(self, APP_ACTS["adjudicate"]):
            return
        self.with_name(lambda name: self.push_screen(AdjudicationScreen(name)))

    def action_runs(self) -> None:
        from .screens.runs import RunsScreen

        if refused(self, APP_ACTS["runs"]):
            return
        self.push_screen(RunsScreen())

    def action_review(self) -> None:
        from .screens.review import ReviewScreen

        if refused(self, APP_ACTS["review"]):
            return
        self.with_name(lambda name: self.push_screen(ReviewScreen(name)))

    def action_report(self) -> None:
        from .screens.report import ReportScreen

        if refused(self, APP_ACTS["report"]):
            return
        self.push_screen(ReportScreen())

    def action_agreement(self) -> None:
        from .screens.agreement import AgreementScreen

        if refused(self, APP_ACTS["agreement"]):
            return
        self.push_screen(AgreementScreen())

    def action_release(self) -> None:
        """The release screen (admins; anyone else is told why, in one line)."""
        from .screens.release import ReleaseScreen

        if refused(self, APP_ACTS["release"]):
            return
        self.push_screen(ReleaseScreen())

    def action_candidates(self) -> None:
        """The candidates queue (admins): vet what `corpus propose` drew from the corpus."""
        from .screens.candidates import CandidatesScreen

        if refused(self, APP_ACTS["candidates"]):
            return
        self.push_screen(CandidatesScreen())

    # ------------------------------------------------------------ quitting

    def unsaved_work(self) -> list[str]:
        """What quitting now would lose or stop, one line each: a screen's or dialog's unsaved
        edit (its ``unsaved_work()``), and each live run."""
        out = []
        for screen in self.screen_stack:
            text = screen.unsaved_work() if isinstance(screen, HoldsWork) else None
            if text:
                out.append(text)
        from .jobs import live_runs

        out += live_runs(self)
        return out

    async def action_quit(self) -> None:
        """Ctrl+Q: quit, asking first when that would lose an edit or stop a run."""
        self._quit()

    def _quit(self) -> None:
        lost = self.unsaved_work()
        if not lost:
            self.exit()
            return
        if getattr(self.screen, "quit_question", False):
            return  # already asked: y quits, n stays

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        from .dialogs.common import ConfirmDialog

        dialog = ConfirmDialog("Quit persian-tui? Quitting now loses or stops:\n"
                               + "\n".join(f"• {line}" for line in lost))
        dialog.quit_question = True
        self.push_screen(dialog, answered)

    def action_sign_out(self) -> None:
        """F10 in a browser: sign out, asking first when that would lose an edit or stop a run
        (the server ends the session and closes the tab, saying so)."""
        if not self.signed_in_browser:
            self.notify("Sign out is for a browser session (persian-tui web)", timeout=4)
            return
        lost = self.unsaved_work()
        if not lost:
            ask_sign_out(self)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                ask_sign_out(self)

        from .dialogs.common import ConfirmDialog

        self.push_screen(ConfirmDialog("Sign out? Signing out now loses or stops:\n"
                                       + "\n".join(f"• {line}" for line in lost)), answered)

    def action_help_quit(self) -> None:
        """Ctrl+C (when there is no selection to copy): with work that quitting would lose, the
        same question as Ctrl+Q; else how to quit (plain text, never markup)."""
        if self.unsaved_work():
            self._quit()
            return
        self.notify("Ctrl+Q quits persian-tui (it asks first when an edit or a run would be lost)",
                    title="Do you want to quit?", timeout=4)

    def action_help(self) -> None:
        """The help: the keys of the screen on top (its key table), then the app's."""
        screen = self.screen
        if not isinstance(screen, HelpScreen):
            rows = offered(screen, screen_table(screen)) + offered(screen, APP_KEYS)
            self.push_screen(HelpScreen(screen_title(screen), help_rows(rows)))


def make_app(db: str | Path | None = None, bidi: str | None = "app", *, sample: bool = False,
             annotator: str | None = None, queue_mode: QueueMode = "overlap",
             queue_scope: QueueScope | None = None, db_label: str | None = None,
             warm_up: bool = True, shape: bool = False) -> PersianTUI:
    """The one way to build the app (run_app, app.py, the CLI's `tui` and every test use it):
    ``db`` as the CLI resolves it (flag > $PERSIAN_TUI_DB > default), ``bidi`` a mode or "auto".
    Raises ValueError for an unknown bidi mode."""
    return PersianTUI(settings.db_path(None if db is None else str(db)), settings.bidi_mode(bidi),
                      sample=sample, db_label=db_label, warm_up=warm_up, annotator=annotator,
                      queue_mode=queue_mode, queue_scope=queue_scope, shape=shape)


def run_app(db: str | None = None, bidi: str | None = None, sample: bool = True,
            annotator: str | None = None, queue_mode: QueueMode = "overlap",
            queue_scope: QueueScope | None = None, shape: str | None = None) -> int:
    """Open the TUI on ``db`` (flag > $PERSIAN_TUI_DB > default). Returns the exit status."""
    try:
        mode = settings.bidi_mode(bidi)
        shaped = settings.shaping(shape, mode)
    except ValueError as e:
        print(f"persian-tui: error: {e}", file=sys.stderr)
        return 2
    path = settings.db_path(db)
    existed, folder_existed = is_there(path), is_there(path.parent)
    code = _open_and_run(make_app(path, mode, sample=sample, annotator=annotator, queue_mode=queue_mode,
                                  queue_scope=queue_scope, shape=shaped))
    if code and not existed:  # a failed start leaves no new empty database behind
        discard_if_unused(path, folder=not folder_existed)
    return code


def _open_and_run(app: PersianTUI) -> int:
    path = app.db_path
    try:
        # fail here, with one line, rather than inside the app
        with Store(path, create_dir=path == settings.DEFAULT_DB) as store:
            store.questions.counts()  # reads the question pages: a damaged file shows up now
            acting(store, app.annotator)  # a person who is not a user of it: refused here
    except AccessDenied as e:
        print(f"persian-tui: error: {e}", file=sys.stderr)
        return 1
    except StoreError as e:
        print(f"persian-tui: error: {e}", file=sys.stderr)
        return 1
    except DatabaseError as e:
        print(f"persian-tui: error: {database_error(path, e)}", file=sys.stderr)
        return 1
    app.run()
    if app.fatal_error:
        print(f"persian-tui: error: {app.fatal_error}", file=sys.stderr)
    return app.return_code or 0


def database_error(path: str | Path, e: Exception) -> str:
    return (f"{path}: database error: {display.line(str(e))} "
            "(the file may be damaged; restore a backup or run sqlite3's .recover)")
