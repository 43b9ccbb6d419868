"""The corpus pane of the author screen: search the Ganjoor corpus by words, poet, form and
metre; list couplets similar to one; insert a couplet into an option with its provenance."""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option as ListOption

from ... import display
from ...bidi import Mode
from ...models import CorpusCouplet
from ..base import AppState
from ..fields.persian_input import PersianInput
from ..keys import Key, bindings, help_key
from ..messages import SimilarFound  # noqa: F401 (re-exported)
from ..render import Line, couplet_cell, couplet_lines, fa, label_lines
from ..widgets.key_bar import KeyBar
from ..widgets.lines_view import LinesView

Insert = Callable[[int, CorpusCouplet], "bool | None"]  # False: the editor asks first


def result_row(c: CorpusCouplet, poet_w: int, text_w: int, mode: Mode) -> str:
    """One result in two columns: in app mode right-aligned, the poet on the right (read
    first, right to left); otherwise in logical order, the poet first. A "│" between."""
    poet = couplet_cell(c.poet, poet_w, mode)
    verse = couplet_cell(f"{c.mesra1} / {c.mesra2}", text_w, mode)
    if mode.name == "app":
        return " " * (text_w - cell_len(verse)) + verse + " │ " + " " * (poet_w - cell_len(poet)) + poet
    return poet + " " * (poet_w - cell_len(poet)) + " │ " + verse


class CorpusScreen(AppState, Screen[None]):
    """``seed``: the (mesra1, mesra2) in focus in the author form, for "similar"."""


    KEYS_TITLE = "corpus"
    KEY_TABLE = (
        Key("1", "insert(1)", "Into option", "put the highlighted couplet into option 1 (2, 3, 4 likewise)",
            shown="1–4", display="1-4", palette="Into option 1"),
        Key("2", "insert(2)", footer=False, help=False, palette="Into option 2"),
        Key("3", "insert(3)", footer=False, help=False, palette="Into option 3"),
        Key("4", "insert(4)", footer=False, help=False, palette="Into option 4"),
        Key("ctrl+t", "similar", "Similar", "couplets similar to the highlighted one", priority=True,
            palette="Similar couplets"),
        Key("ctrl+f", "focus_search", "Search", "back to the search fields", priority=True, palette="Search"),
        Key("enter", "", "", "in a search field: search"),
        help_key(),
        Key("escape,q", "back", "Back", "back to the editor", palette="Back"),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, on_insert: Insert, seed: tuple[str, str] | None = None, limit: int = 200) -> None:
        super().__init__()
        self.on_insert = on_insert
        self.seed = seed
        self.limit = limit
        self.results: list[CorpusCouplet] = []
        self.scores: list[float] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="corpus-header")
        with Horizontal(id="corpus-filters"):
            yield PersianInput(id="corpus-words", placeholder="words", compact=True, select_on_focus=False)
            yield PersianInput(id="corpus-poet", placeholder="poet", compact=True, select_on_focus=False)
            yield PersianInput(id="corpus-form", placeholder="form", compact=True, select_on_focus=False)
            yield PersianInput(id="corpus-metre", placeholder="metre", compact=True, select_on_focus=False)
        yield Static(id="corpus-status")
        yield OptionList(id="corpus-results")
        yield LinesView(id="corpus-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        stats = self.store.corpus.corpus_stats()
        self.loaded = stats["poems"] > 0
        head = (f"corpus · {stats['poets']} poets, {stats['poems']} poems, {stats['couplets']} couplets"
                if self.loaded else "corpus · none loaded: persian-tui corpus import PATH")
        self.query_one("#corpus-header", Static).update(Content(head))
        self._status("enter: search · ctrl+t: similar to the couplet in focus · 1-4: insert into option")
        self.query_one("#corpus-words").focus()

    def _status(self, text: str) -> None:
        self.query_one("#corpus-status", Static).update(Content(display.line(text)))

    # ------------------------------------------------------------ search

    @on(Input.Submitted)
    def _search(self, event: Input.Submitted) -> None:
        event.stop()
        self.search()

    def search(self) -> None:
        def val(name: str) -> str | None:
            return self.query_one(f"#corpus-{name}", Input).value.strip() or None

        found = self.store.corpus.search_couplets(val("words") or "", poet=val("poet"), form=val("form"),
                                                  metre=val("metre"), limit=self.limit)
        more = " (first ones)" if len(found) == self.limit else ""
        self._show(found, None, f"{len(found)} couplet(s){more}")

    def action_focus_search(self) -> None:
        self.query_one("#corpus-words").focus()

    def action_similar(self) -> None:
        current = self.current()
        if current is not None:
            source, m1, m2 = f"{current.poem}#{current.couplet + 1}", current.mesra1, current.mesra2
        elif self.seed and any(self.seed):
            source, (m1, m2) = "the couplet in focus", self.seed
        else:
            self.notify("nothing to compare: pick a couplet or focus a couplet in the form", severity="warning")
            return
        self._status(f"finding couplets similar to {source} …")
        self._similar(m1, m2, source)

    @work(thread=True, exclusive=True, group="similar")
    def _similar(self, m1: str, m2: str, source: str) -> None:
        from ... import settings
        from ...corpus.similar import similar_couplets, similar_embedder
        from ...runs.embedders import EmbedderError
        from ...store import Store

        spec, how = settings.similar_model(), "TF-IDF"
        embedder = None
        if spec:
            try:  # loaded once per app: a model takes seconds
                cache = self.app.__dict__.setdefault("_similar_models", {})
                embedder = cache.get(spec) or cache.setdefault(spec, similar_embedder(spec))
                how = spec
            except EmbedderError as e:
                how = f"TF-IDF ({spec} unavailable: {e})"
        with Store(self.store.path) as store:  # one connection per thread
            found = similar_couplets(store, m1, m2, limit=50, embedder=embedder)
        self.post_message(SimilarFound(found, source, how))

    def on_similar_found(self, message: SimilarFound) -> None:
        self._show([c for _, c in message.found], [s for s, _ in message.found],
                   f"{len(message.found)} couplet(s) similar to {message.source} ({message.how} cosine)")

    def _show(self, found: list[CorpusCouplet], scores: list[float] | None, status: str) -> None:
        self.results, self.scores = found, scores
        ol = self.query_one("#corpus-results", OptionList)
        width = max(ol.size.width or self.app.size.width, 40) - 2
        poet_w = 12
        text_w = max(width - poet_w - 3, 10)
        ol.clear_options()
        ol.add_options([ListOption(Content(result_row(c, poet_w, text_w, self.mode))) for c in found])
        self._status(status)
        if found:
            ol.highlighted = 0
            ol.focus()
        self._detail()

    # ------------------------------------------------------------ detail and insert

    def current(self) -> CorpusCouplet | None:
        i = self.query_one("#corpus-results", OptionList).highlighted
        return self.results[i] if i is not None and 0 <= i < len(self.results) else None

    @on(OptionList.OptionHighlighted)
    def _detail(self) -> None:
        c = self.current()
        view = self.query_one("#corpus-detail", LinesView)
        if c is None:
            view.show(lambda w: [])
            return
        uses = self.store.links.couplet_uses(c.poem, c.couplet)
        facts = [("poem", f"{c.poem} #{c.couplet + 1}"), ("form", c.form or "—"),
                 ("metre", c.metre or "—"), ("rhyme", c.rhyme or "—")]
        if uses:
            facts.append(("used in", ", ".join(uses[:3]) + (" …" if len(uses) > 3 else "")))
        mode = self.mode
        number = (self.query_one("#corpus-results", OptionList).highlighted or 0) + 1  # c's, never None

        def layout(w: int) -> list[Line]:
            lines = couplet_lines(number, c.mesra1, c.mesra2, w, mode, poet=c.poet)
            for label, value in facts:
                lines += label_lines(label, value, w, mode)
            return lines

        view.show(layout)

    def action_insert(self, position: int) -> None:
        c = self.current()
        if c is None:
            self.notify("no couplet highlighted", severity="warning")
            return
        if self.on_insert(position, c) is False:  # the editor asks first (typed text there)
            return
        self.notify(f"option {fa(position)} ← {c.poem}#{c.couplet + 1} ({c.poet})", timeout=3)

    def action_back(self) -> None:
        self.dismiss(None)
