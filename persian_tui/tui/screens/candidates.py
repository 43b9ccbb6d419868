"""The candidates queue (admins): candidate questions `corpus propose` drew from the corpus, one at
a time with their four couplets' provenance and the generator's reasons. Accept makes a draft
question (origin fresh) that is then labelled blind like any other; edit accepts and opens the
draft in the editor; reject asks for a reason. The header counts the vetting (acceptance rate)."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option as ListOption

from ... import display
from ...corpus.propose import ProposeError
from ...corpus.vetting import VettingError, accept, provenance, reject
from ...models.candidates import CANDIDATE_STATES, Candidate, CandidateState
from ...models.limits import limit
from ..base import AppState
from ..dialogs.text_prompt import TextPrompt
from ..guard import access
from ..keys import Key, bindings, help_key
from ..messages import CandidatesProposed
from ..render import Line, couplet_lines, label_lines
from ..widgets.key_bar import KeyBar
from ..widgets.lines_view import LinesView

PROPOSE_BATCH = 10  # candidates the screen's "propose" key asks for (TF-IDF, or the similar-couplets model)


def reasons_lines(c: Candidate) -> list[tuple[str, str]]:
    """The generator's reasons as (label, value) lines."""
    r = c.reasons
    out: list[tuple[str, str]] = [("embedder", c.embedder)]
    close, odd, base = r.get("close", {}), r.get("outlier", {}), r.get("baseline", {})
    if close:
        out.append(("close", f"cosine of the three pairs {close.get('pairs')} (mean {close.get('cohesion')})"))
    if odd:
        form = ", ".join(w for w in ("metre", "rhyme") if odd.get(w)) or "no"
        out.append(("outlier", f"cosine to the three {odd.get('to_close')} (gap {odd.get('gap')}); shared words "
                               f"{odd.get('word_overlap')} vs {odd.get('close_word_overlap')} among the three; "
                               f"same form: {form}"))
    if base:
        out.append(("baseline", f"TF-IDF centroid picks {base.get('picks')}, not {c.outlier}"))
    if c.state != "proposed":
        why = f": {c.reason}" if c.reason else (f" → {c.question_uid}" if c.question_uid else "")
        out.append(("decided", f"{c.state} by {c.decided_by or '—'} {c.decided_at or ''}{why}"))
    return out


class CandidatesScreen(AppState, Screen[None]):
    KEYS_TITLE = "candidates"
    KEY_TABLE = (
        Key("a", "accept", "Accept", "accept: a draft question (origin fresh, key the intended outlier), "
            "labelled blind like any other", palette="Accept candidate"),
        Key("e", "edit", "Edit", "accept and open the draft in the editor", palette="Accept and edit"),
        Key("x", "reject", "Reject", "reject, with a reason (counted)", palette="Reject candidate"),
        Key("s", "cycle_state", "State", "show: proposed, accepted, rejected, all", palette="Cycle state"),
        Key("P", "propose", "Propose", f"propose {PROPOSE_BATCH} more from the corpus (in the background)",
            footer=False, palette="Propose candidates"),
        Key("t", "prose", "Text", "what P embeds: the verse, or the prose of a finished corpus paraphrase run "
            "(each in turn)", footer=False, palette="Propose from the verse or a run's prose"),
        Key("up,down", "", "", "move in the queue; the detail follows", shown="↑ ↓"),
        Key("r", "reload", "Reload", "reload from the database", footer=False, palette="Reload"),
        help_key(),
        Key("escape,q", "back", "Back", "back to the bank", palette="Back"),
    )
    BINDINGS = bindings(KEY_TABLE)
    ACTS = {"accept": "propose", "edit": "propose", "reject": "propose", "propose": "propose", "prose": "propose"}

    def __init__(self) -> None:
        super().__init__()
        self.state: CandidateState | None = "proposed"
        self.shown: list[Candidate] = []
        self.proposing = False
        self.prose_run: int | None = None  # P embeds this corpus paraphrase run's prose (None: the verse)

    def compose(self) -> ComposeResult:
        yield Static(id="cand-header")
        yield OptionList(id="cand-list")
        yield LinesView(id="cand-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        self.reload()

    def reload(self, keep: int | None = None) -> None:
        self.shown = self.store.candidates.candidates(self.state)
        counts = self.store.candidates.counts()
        rate = "—" if counts.acceptance is None else display.percent(counts.acceptance)
        showing = self.state or "all"
        prose = f" · P embeds the prose of run {self.prose_run}" if self.prose_run else ""  # first: seen at 80
        head = (f"candidates{prose} · showing {showing} ({len(self.shown)}) · {counts.proposed} proposed, "
                f"{counts.accepted} accepted, {counts.rejected} rejected · acceptance {rate}")
        if counts.reasons:
            head += " · most rejected: " + counts.reasons[0][0]
        self.query_one("#cand-header", Static).update(Content(display.line(head)))
        ol = self.query_one("#cand-list", OptionList)
        ol.clear_options()
        ol.add_options([ListOption(Content(display.line(self._row(c)))) for c in self.shown])
        if self.shown:
            ids = [c.id for c in self.shown]
            ol.highlighted = ids.index(keep) if keep in ids else 0
            ol.focus()
        self._detail()

    def _row(self, c: Candidate) -> str:
        poets = " · ".join(dict.fromkeys(x.poet for x in c.couplets))
        return f"#{c.id}  {c.state}  outlier {c.outlier}  {poets}"

    def _current_id(self) -> int | None:
        c = self.current()
        return c.id if c is not None else None

    def action_reload(self) -> None:
        self.reload(self._current_id())

    def current(self) -> Candidate | None:
        i = self.query_one("#cand-list", OptionList).highlighted
        return self.shown[i] if i is not None and 0 <= i < len(self.shown) else None

    @on(OptionList.OptionHighlighted)
    def _detail(self) -> None:
        c = self.current()
        view = self.query_one("#cand-detail", LinesView)
        if c is None:
            empty = "no candidates here: P proposes some from the corpus (persian-tui corpus propose --count N)"
            view.show(lambda w: [Line(empty, "")])
            return
        mode = self.mode
        places = provenance(c)

        def layout(w: int) -> list[Line]:
            lines: list[Line] = []
            for i, x in enumerate(c.couplets, 1):
                lines += couplet_lines(i, x.mesra1, x.mesra2, w, mode, poet=x.poet, is_key=i == c.outlier)
                lines += label_lines("from", places[i - 1].split(" ", 1)[1], w, mode)
            for label, value in reasons_lines(c):
                lines += label_lines(label, value, w, mode)
            return lines

        view.show(layout)

    # ------------------------------------------------------------ decisions

    def _decided(self, c: Candidate) -> None:
        self.reload(keep=c.id)

    def action_accept(self, edit: bool = False) -> None:
        c = self.current()
        if c is None:
            self.notify("no candidate highlighted", severity="warning")
            return
        try:
            q = accept(self.store, access(self), c.id)
        except VettingError as e:
            self.notify(display.line(str(e)), severity="warning", timeout=5)
            self.reload(keep=c.id)
            return
        self.notify(f"candidate {c.id} accepted: draft {q.uid} (origin fresh)", timeout=4)
        self._decided(c)
        if edit:
            self.app.action_author(q.uid)

    def action_edit(self) -> None:
        self.action_accept(edit=True)

    def action_reject(self) -> None:
        c = self.current()
        if c is None:
            self.notify("no candidate highlighted", severity="warning")
            return

        def done(reason: str | None) -> None:
            if not reason:
                return
            try:
                reject(self.store, access(self), c.id, reason)
            except VettingError as e:
                self.notify(display.line(str(e)), severity="warning", timeout=5)
            else:
                self.notify(f"candidate {c.id} rejected", timeout=3)
            self.reload(keep=c.id)

        self.app.push_screen(TextPrompt(f"Why reject candidate {c.id}?", placeholder="the reason (counted)",
                                        hint="e.g. the three are not close; the outlier is obvious", required=True,
                                        mode=self.mode, max_length=limit("reason")), done)

    def action_cycle_state(self) -> None:
        order: list[CandidateState | None] = [*CANDIDATE_STATES, None]
        self.state = order[(order.index(self.state) + 1) % len(order)]
        self.reload()

    # ------------------------------------------------------------ proposing

    def prose_runs(self) -> list[int]:
        """The finished corpus paraphrase runs, newest first (what `corpus propose --paraphrases` takes)."""
        return [r.id for r in reversed(self.store.runs.runs())
                if r.kind == "paraphrase" and r.params.get("corpus") and r.status == "done"]

    def action_prose(self) -> None:
        """Choose what P embeds: the verse, then each finished corpus paraphrase run's prose."""
        order: list[int | None] = [None, *self.prose_runs()]
        if len(order) == 1:
            self.prose_run = None
            self.notify("no finished corpus paraphrase run: launch one on the runs screen (m, then n: kind "
                        "paraphrase, couplets from the corpus)", severity="warning", timeout=6)
            return
        at = order.index(self.prose_run) if self.prose_run in order else 0
        self.prose_run = order[(at + 1) % len(order)]
        self.notify("P embeds " + (f"the prose of corpus paraphrase run {self.prose_run}" if self.prose_run
                                   else "the verse"), timeout=3)
        self.reload(self._current_id())

    def action_propose(self) -> None:
        if self.proposing:
            self.notify("already proposing", severity="warning")
            return
        self.proposing = True
        what = f" from the prose of run {self.prose_run}" if self.prose_run else ""
        self.notify(f"proposing {PROPOSE_BATCH} candidates{what} …", timeout=3)
        self._propose()

    @work(thread=True, exclusive=True, group="propose")
    def _propose(self) -> None:
        from ... import settings
        from ...corpus.propose import propose
        from ...store import Store

        try:
            with Store(self.store.path) as store:  # one connection per thread
                made = store.candidates.counts()  # a new seed each time: the candidates made so far
                result = propose(store, access(self), PROPOSE_BATCH, embedder_spec=settings.similar_model() or "tfidf",
                                 seed=made.proposed + made.decided, paraphrases=self.prose_run)
            self.post_message(CandidatesProposed(len(result.ids), None,
                                                 result.prose.summary() if result.prose else None))
        except ProposeError as e:
            self.post_message(CandidatesProposed(0, str(e)))

    def on_candidates_proposed(self, message: CandidatesProposed) -> None:
        self.proposing = False
        if message.error:
            self.notify(display.line(message.error), severity="warning", timeout=6)
        else:
            self.notify(f"{message.made} candidate(s) proposed"
                        + (f"; {display.line(message.prose)}" if message.prose else ""),
                        timeout=6 if message.prose else 3)
        self.reload(self._current_id())

    def action_back(self) -> None:
        self.dismiss(None)
