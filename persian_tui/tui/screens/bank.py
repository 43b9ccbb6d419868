"""The bank screen: searchable, filterable table of questions with a detail pane."""

from __future__ import annotations

from dataclasses import replace
from time import perf_counter

from rich.cells import cell_len
from textual import on
from textual.app import ComposeResult
from textual.containers import Container, Horizontal
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, Static

from ... import bidi, display
from ...access import AccessDenied
from ...bidi import MODES, BidiMode
from ...models import STATUSES, BankCounts
from ...models.limits import limit
from ..base import AppState
from ..fields.persian_input import PersianInput
from ..guard import Guarded, access, refused
from ..keys import Key, bindings, help_key
from ..render import with_derived_poets
from ..widgets.bank_table import BankTable
from ..widgets.couplets import QuestionDetail
from ..widgets.key_bar import KeyBar

STATUS_FILTERS: tuple[str | None, ...] = (None, *STATUSES)


SEARCH_HINT = "/ to search: words, ids, poets (ي/ك = ی/ک)"
BLIND_SEARCH_HINT = "/ to search: words, ids (ي/ك = ی/ک)"  # an annotator's search finds no poet


def status_line(db_label: str, total: int, by_status: dict[str, int], mode: str, width: int) -> str:
    """The bank's status line in ``width`` cells (pure): database, counts by status, bidi
    mode. When narrow, statuses with no question are left out, then the database name is
    cut at its start ("…qs/bench.db"), then the counts by status go (the bidi mode stays),
    then the whole line is cut with "…"."""
    full = " · ".join(f"{s} {by_status.get(s, 0)}" for s in STATUSES) if by_status else ""
    short = " · ".join(f"{s} {by_status[s]}" for s in STATUSES if by_status.get(s))
    for counts in (full, short, ""):
        tail = f" │ {total} questions{': ' + counts if counts else ''} │ bidi {mode}"
        room = width - cell_len(tail)
        if cell_len(db_label) <= room:
            return db_label + tail
        if room >= 12:
            return "…" + db_label[-(room - 1):] + tail
    return bidi.display_line(db_label + tail, max(width, 1), bidi.OFF)


class BankScreen(AppState, Guarded, Screen[None]):
    """The default screen. Blind for an annotator (``app.access.blind``): no key column, no key
    or explanation in the detail pane, and only the keys their role allows."""

    KEYS_TITLE = "bank"
    # every key in the footer (two lines at most; past that "…", and ? lists them all)
    KEY_TABLE = (
        Key("slash", "focus_search", "Search", "search (incremental; Arabic ي/ك find Persian ی/ک)",
            palette="Search"),
        Key("escape", "leave_search", "Clear search", "clear the search, back to the table", footer=False),
        Key("enter", "", "", "from the search: back to the table"),
        Key("up,down,pageup,pagedown", "", "", "move in the table; the detail pane follows",
            shown="↑ ↓ PgUp PgDn"),
        Key("home,end", "", "", "the first / last question (End loads the rest)"),
        Key("tab", "", "", "next pane (search, table, detail)"),
        Key("s", "cycle_status", "Status", "status filter: all, draft, ready, curated, retired"),
        Key("c", "cycle_category", "Category", "category filter: all, then each category"),
        Key("l", "app.label", "Label", "label: the blind labelling queue (your name is asked once)",
            palette="Label"),
        Key("L", "label_this", "Label this", "label the highlighted question first, then the queue",
            palette="Label this question"),
        Key("n", "app.author", "New", "new question", palette="New question"),
        Key("e", "edit", "Edit", "edit the selected question", palette="Edit question"),
        Key("a", "app.adjudicate", "Adjudicate", "adjudicate: disagreements, flags, bulk accept",
            palette="Adjudicate"),
        Key("g", "app.agreement", "Agreement", "agreement: kappas, alpha, accuracy against the key",
            palette="Agreement"),
        Key("m", "app.runs", "Runs", "runs: launch, watch, cancel, resume, retry; Enter reads a run's answers",
            palette="Runs"),
        Key("v", "app.review", "Review", "review the LLM judge's verdicts and error categories",
            palette="Review"),
        Key("p", "app.report", "Report", "report: leaderboard with intervals, paired tests, breakdowns, "
            "position bias", palette="Report"),
        Key("C", "app.candidates", "Candidates", "candidates: vet questions drawn fresh from the corpus "
            "(corpus propose)", footer=False, palette="Candidates"),
        Key("f", "app.release", "Release", "release: freeze the curated set, write its folder (datasheet previewed)",
            footer=False, palette="Release"),
        Key("b", "cycle_bidi", "Bidi", "bidi mode: app (reorder here), terminal (a bidi terminal reorders), off"),
        Key("r", "reload", "Reload", "reload from the database (others may write it)", palette="Reload"),
        help_key(),
        Key("q", "app.quit", "Quit", "quit"),
    )
    BINDINGS = bindings(KEY_TABLE)
    ACTS = {"label_this": "label", "edit": "author", "cycle_status": "see_answers"}

    class FirstLoad(Message):
        """The bank has been read and shown for the first time."""

    def __init__(self) -> None:
        super().__init__(id="bank")
        self.loaded_at: float | None = None  # perf_counter() when first filled
        self.search = ""
        self.status: str | None = None
        self.category: str | None = None
        self.counts = BankCounts(0, {}, [])
        self.matches: list[str] = []  # uids of the questions matching search and filters
        self.last_refresh_ms = 0.0  # time of the last query + table fill (see bench/tui_measure.py)
        self._table_width = 0
        self._refresh_pending = False

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        # shown until the first query has filled the table (a large bank takes a moment)
        yield Static(Content(f"loading {display.line(self.app.db_label)} …"), id="status-line")
        with Horizontal(id="search-bar"):
            yield Label("search ", id="search-label")
            yield PersianInput(placeholder=SEARCH_HINT if access(self).may("see_sources") else BLIND_SEARCH_HINT,
                               max_length=limit("search"), id="search", compact=True, select_on_focus=False)
            yield Static(id="filters")
        with Container(id="body"):
            yield BankTable(id="table", blind=access(self).blind)
            yield QuestionDetail(self.mode, id="detail", blind=access(self).blind)
        yield KeyBar(rows=2)

    def on_mount(self) -> None:
        self._apply_layout()
        self.query_one(BankTable).focus()
        # fill once the layout has given the table its width (no refill at the right width)
        self.call_after_refresh(self._first_load)

    def _first_load(self) -> None:
        self.reload(notify=False)
        self.loaded_at = perf_counter()
        self.post_message(self.FirstLoad())

    def _apply_layout(self) -> None:
        self.query_one("#body").set_class(self.stacked, "-stacked")

    def _screen_resized(self, size: Size) -> None:
        # Textual 8.2.8 lays the screen out at the size its Resize event carries. Resized while
        # starting, the screen has a stale size queued behind the new one: each layout then
        # posts the screen a Resize of the other size, forever, and the first fill never runs
        # ("loading …"). The terminal's current size ends it.
        super()._screen_resized(self.app.size)

    def on_resize(self) -> None:
        self._apply_layout()
        self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        """The couplet column follows the table's width."""
        width = self.query_one(BankTable).size.width
        if self.loaded_at is not None and width and width != self._table_width:
            self.refresh_rows()

    # ------------------------------------------------------------ data

    def reload(self, notify: bool = True) -> None:
        """Re-read counts and rows from the database (others may have written it)."""
        self.counts = access(self).counts(self.store.questions.counts())
        if self.category not in self.counts.categories:
            self.category = None
        self.refresh_rows(reread=True)
        if notify:
            self.notify(f"reloaded: {self.counts.total} question(s)", timeout=2)

    def refresh_rows(self, reread: bool = False, select: str | None = None) -> None:
        """Run the search + filters and refill the table (one SQL query); ``reread``
        also re-reads the question in the detail pane; ``select`` moves the cursor to that
        question when it is listed."""
        start = perf_counter()
        table = self.query_one(BankTable)
        try:
            self.matches = self.app.bank_search.uids(self.search, who=access(self), status=self.status,
                                                     category=self.category)
        except (AccessDenied, ValueError) as e:  # a blind person's poet: facet; a search past its cap
            self.matches = []
            self.notify(str(e), severity="warning", timeout=5)
        self._table_width = table.size.width
        table.fill(self.matches, self._rows, self.mode,
                   self._table_width or self._guess_table_width(), select=select)
        self.last_refresh_ms = (perf_counter() - start) * 1000
        self._update_bars()
        if not self.matches:
            self.query_one(QuestionDetail).show(None, self.mode)
        else:
            self._show(table.current_uid, force=reread)

    def _rows(self, uids: list[str]) -> list:
        """The table's rows of these questions, as the person may see them (no key when blind)."""
        return access(self).rows(self.store.questions.rows_for(uids))

    def _guess_table_width(self) -> int:
        width = self.app.size.width
        return width if self.query_one("#body").has_class("-stacked") else width - 50

    def _show(self, uid: str | None, force: bool = False) -> None:
        detail = self.query_one(QuestionDetail)
        if not force and uid is not None and detail.shows(uid, self.mode):
            return  # e.g. typing in the search kept the same question on top
        q = self.store.questions.get_question(uid) if uid else None
        recall = None
        if uid and q is not None:  # poets derived from corpus links, marked as such
            q = with_derived_poets(access(self).question(q), access(self).option_links(self.store, uid))
            if not access(self).blind:  # which couplets the models remember points at the key
                recall = access(self).couplet_recall(self.store, uid) or None
        detail.show(q, self.mode, recall)

    @on(BankTable.Loaded)
    def _loaded(self) -> None:
        self._update_bars()

    @on(DataTable.RowHighlighted, "#table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(event.row_key.value if event.row_key else None)

    def _update_bars(self) -> None:
        c = self.counts
        line = status_line(display.line(self.app.db_label), c.total, c.by_status, self.mode.name,
                           self.app.size.width - 2)
        self.query_one("#status-line", Static).update(Content(line))
        matching, loaded = len(self.matches), self.query_one(BankTable).loaded
        category = self.category or "all"
        if self.category and self.mode.name == "app":
            category = bidi.visual(category, shape=self.mode.shape)
        self.query_one("#filters", Static).update(Content.assemble(
            (f"{matching} match", "bold"),
            f" ({loaded} listed)  " if loaded < matching else "  ",
            *(() if access(self).blind else ("status ", (self.status or "all", "bold"), " (s)  ")),
            "category ", (category, "bold"), " (c)",
        ))

    # ------------------------------------------------------------ search and filters

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        # The query runs after the next paint, so the typed letter shows at once; keys
        # typed meanwhile are handled first and share one refresh.
        self.search = event.value
        if not self._refresh_pending:
            self._refresh_pending = True
            self.call_after_refresh(self._pending_refresh)

    def _pending_refresh(self) -> None:
        self._refresh_pending = False
        self.refresh_rows()

    @on(Input.Submitted, "#search")
    def _search_submitted(self) -> None:
        self.query_one(BankTable).focus()

    def action_focus_search(self) -> None:
        self.query_one("#search", Input).focus()

    def action_leave_search(self) -> None:
        search = self.query_one("#search", Input)
        if search.value:
            search.value = ""  # posts Input.Changed -> refresh
        if search.has_focus:
            self.query_one(BankTable).focus()

    def set_status(self, status: str | None) -> None:
        if status is not None and refused(self, "see_answers"):  # a status tells an annotator the key
            return
        self.status = status
        self.refresh_rows()

    def set_category(self, category: str | None) -> None:
        self.category = category
        self.refresh_rows()

    def action_cycle_status(self) -> None:
        if refused(self, "see_answers"):  # a status tells an annotator what the key is
            return
        i = STATUS_FILTERS.index(self.status)
        self.set_status(STATUS_FILTERS[(i + 1) % len(STATUS_FILTERS)])

    def action_cycle_category(self) -> None:
        choices = [None, *self.counts.categories]
        if len(choices) == 1:
            self.notify("no categories in this bank", timeout=2)
            return
        i = choices.index(self.category) if self.category in choices else 0
        self.set_category(choices[(i + 1) % len(choices)])

    def action_label_this(self) -> None:
        if refused(self, "label"):
            return
        uid = self.query_one(BankTable).current_uid
        if uid:
            self.app.action_label(uid)

    def action_edit(self) -> None:
        if refused(self, "author"):
            return
        uid = self.query_one(BankTable).current_uid
        if uid:
            self.app.action_author(uid)

    def show_question(self, uid: str | None) -> None:
        """Back from the author form: the table goes to the question just saved (re-read
        with what changed), or says why it is not listed."""
        if not uid or self.loaded_at is None:
            return
        self.counts = access(self).counts(self.store.questions.counts())
        self.refresh_rows(reread=True, select=uid)
        if uid not in self.matches:
            self.notify(f"{uid} is saved but not listed: the search or a filter hides it", timeout=4)

    def on_screen_resume(self) -> None:
        if self.loaded_at is not None:  # back from another screen: show what it changed
            self.reload(notify=False)

    def action_reload(self) -> None:
        self.reload()

    # ------------------------------------------------------------ bidi

    def set_bidi(self, mode: BidiMode) -> None:
        self.app.bidi_mode = replace(self.app.bidi_mode, name=mode)
        self._apply_layout()
        # the table's width changes when the layout does: refill after the new layout
        self.call_after_refresh(self.refresh_rows)
        self.notify(f"bidi mode: {mode}", timeout=2)

    def action_cycle_bidi(self) -> None:
        self.set_bidi(MODES[(MODES.index(self.mode.name) + 1) % len(MODES)])
