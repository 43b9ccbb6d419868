"""Review of the LLM judge's verdicts: a queue of judgments (filters: judge run, judged run,
model, verdict, category, review state) and, side by side, the question with the key and the
model's choice marked, its raw output and reasoning, and the judge's verdict, category and
rationale with the review in force. Reviews are append-only; ``u`` retracts your latest."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from rich.cells import cell_len
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Container, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ... import bidi, display
from ...judging.distribution import judge_agreement
from ...judging.verdicts import DEFAULT_TAXONOMY
from ...models import ErrorCategory, JudgmentRow, Run
from ...store import StoreError
from ..base import STACK_BELOW, AppState
from ..dialogs.common import ReasonDialog
from ..dialogs.review import CategoryPicker
from ..keys import Key, bindings, help_key
from ..messages import KappaReady
from ..render import Line
from ..widgets.key_bar import KeyBar
from ..widgets.lines_view import LinesView
from ..widgets.review_filters import KEYS, ReviewFilters, bar_parts, is_todo, model_alias
from ..widgets.review_lines import category_text, judge_lines, question_lines, queue_entry, review_state, verdict_text

SHORT_BELOW = 30  # lines: a shorter screen gives the panes the room the queue had


def kappa_text(rows: list[JudgmentRow]) -> str:
    """Judge-vs-reviewer agreement (Cohen's kappa) on verdicts, and on categories where both
    said flawed."""
    a = judge_agreement(rows)
    if not a.reviewed:
        return "judge vs human: no reviews yet"
    text = "judge vs human κ " + ("—" if a.verdict_kappa is None else f"{a.verdict_kappa:.2f}")
    text += f" ({a.verdict_agree}/{a.compared} agree)"
    if a.category_items:
        kappa = "—" if a.category_kappa is None else f"{a.category_kappa:.2f}"
        text += f" · category κ {kappa} ({a.category_agree}/{a.category_items})"
    return text


def empty_lines(filters: ReviewFilters, any_rows: bool, width: int = 80) -> list[Line]:
    """What the answer pane says when nothing is shown, wrapped to ``width``."""
    if not any_rows:
        out = [("No judgments yet.", "bold"),
               ("Judge a run first:  persian-tui judge --run RUN --judge-model M --base-url URL", ""),
               ("", ""), ("Press r to reload, Escape to go back.", "dim")]
    else:
        what = {"todo": "Nothing left to review", "reviewed": "No reviewed judgment",
                "flagged": "No flagged judgment", "all": "No judgment"}[filters.show]
        out = [(what + (" under these filters." if filters.active else "."), "bold"), ("", ""),
               ("a cycles what is shown (to review, reviewed, flagged, all); j g m v c cycle the filters.", "dim"),
               ("u undoes your latest review, Escape goes back.", "dim")]
    return [Line(part, style) for text, style in out for part in (bidi.wrap(text, width) or [""])]


FILTER_HELP = {"judge_run": "judge run", "target_run": "judged run", "model": "model", "verdict": "verdict",
               "category": "category in force (the reviewer's where reviewed)",
               "show": "what is shown (to review, reviewed, flagged, all, the reviewer agreed, overrode)"}


class ReviewScreen(AppState, Screen[None]):
    KEYS_TITLE = "judge review"
    KEY_TABLE = (
        Key("enter", "accept", "Accept", display="y", priority=True, footer=False, help=False),
        Key("y", "accept", "Accept judge", "accept the judge", palette="Accept judge", shown="y / Enter"),
        Key("1,۱,١", "verdict('sound')", "Sound", "override: sound", palette="Verdict: sound"),
        Key("2,۲,٢", "verdict('flawed')", "Flawed", "override: flawed (then pick the category)",
            palette="Verdict: flawed"),
        Key("3,۳,٣", "verdict('key_problem')", "Key problem",
            "override: key problem (the question goes to adjudication, as with f)", palette="Verdict: key problem"),
        Key("f,x", "flag", "Flag key", "flag a key problem: the question goes to adjudication (reason required; "
            "counted as a review)",
            display="f", palette="Flag key problem"),
        Key("n", "note", "Note", "a note", palette="Note"),
        Key("u", "undo", "Undo", "undo your latest review (back to that item)", palette="Undo"),
        Key("b", "blind", "Blind", "blind mode: the judged model's name hidden", footer=False, palette="Blind mode"),
        Key("t", "taxonomy", "Taxonomy", "the error taxonomy", palette="Taxonomy"),
        Key("space", "page", "Page", "page down the model's answer", footer=False),
        *(Key(key, f"cycle('{name}')", label, f"filter: the next {FILTER_HELP[name]} (Shift: the previous)",
              footer=False, palette=f"Filter: {FILTER_HELP[name]}") for name, (key, label) in KEYS.items()),
        *(Key(key.upper(), f"cycle('{name}', -1)", label, footer=False, help=False)
          for name, (key, label) in KEYS.items()),
        Key("r", "reload", "Reload", "reload the judgments", footer=False, palette="Reload"),
        help_key(),
        Key("escape,q", "back", "Back", "back to the bank", palette="Back"),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, reviewer: str) -> None:
        super().__init__()
        self.reviewer = reviewer
        self.filters = ReviewFilters()
        self.blind = False
        self.all: list[JudgmentRow] = []  # every judgment, in the store's order
        self.rows: list[JudgmentRow] = []  # in view
        self.runs: dict[int, Run] = {}
        self.cats: dict[str, ErrorCategory] = {}
        self.current: JudgmentRow | None = None
        self.one_pane = False  # the judge's lines shown in the answer's pane (a short, stacked screen)
        self.head = f"review · {reviewer}"
        self.kappa = "judge vs human κ …"
        self.generation = 0  # of the header's kappa

    def compose(self) -> ComposeResult:
        yield Static(id="rv-header", markup=False)
        yield Static(id="rv-filters")
        with Container(id="rv-body"):
            yield OptionList(id="rv-queue")
            with Container(id="rv-panes"):
                with VerticalScroll(id="rv-answer"):
                    yield LinesView(id="rv-answer-view")
                with VerticalScroll(id="rv-judge"):
                    yield LinesView(id="rv-judge-view")
        yield KeyBar(rows=2)  # at 80 columns the verdict keys take two lines, none hidden

    @property
    def view_setting(self) -> str:
        """The setting that keeps this reviewer's filters and blind mode between visits."""
        return f"review.view.{self.reviewer}"

    def _save_view(self) -> None:
        try:
            self.store.labels.set_setting(self.view_setting, self.filters.saved(self.blind))
        except StoreError as e:  # the view still changes; only remembering it failed
            self.notify(f"filters not remembered: {e}", severity="warning", timeout=3)

    def on_mount(self) -> None:
        self.filters, self.blind = ReviewFilters.from_saved(self.store.labels.get_setting(self.view_setting))
        self.store.judging.ensure_error_categories(DEFAULT_TAXONOMY)
        self._apply_layout()
        self.reload()
        self.query_one("#rv-queue").focus()

    def _apply_layout(self) -> None:
        short = self.app.size.height < SHORT_BELOW
        # a short screen keeps the panes side by side (stacked, each would get 5 lines)
        stacked = self.mode.name == "terminal" or (self.app.size.width < STACK_BELOW and not short)
        # short and stacked (a bidi terminal at 80x24): one pane, the judge's lines on top of the
        # question and the model's answer, so the queue keeps 8 rows and nothing is out of reach
        one_pane = stacked and short
        self.query_one("#rv-body").set_class(stacked, "-stacked").set_class(short, "-short").set_class(
            one_pane, "-one-pane")
        if one_pane != self.one_pane:
            self.one_pane = one_pane
            if self.current is not None:
                self._show(self.current)

    def on_resize(self) -> None:
        self._apply_layout()
        if self.kappa:
            self._set_header(self.kappa)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("accept", "verdict", "flag", "note", "page"):
            return self.current is not None
        return True

    # ------------------------------------------------------------ data

    @property
    def ids(self) -> list[int]:
        return [j.id for j in self.rows]

    def model_name(self, j: JudgmentRow) -> str:
        return model_alias(j.model, self.all) if self.blind else j.model

    def reload(self, select: int | None = None, index: int = 0) -> None:
        """Re-read everything; select judgment ``select`` if in view, else position ``index``."""
        self.cats = {c.name: c for c in self.store.judging.error_categories()}
        self.runs = {r.id: r for r in self.store.runs.runs()}
        self.all = self.store.judging.judgments()
        self.rows = [j for j in self.all if self.filters.keeps(j)]
        self._fill(select, index)

    def _fill(self, select: int | None, index: int) -> None:
        queue = self.query_one("#rv-queue", OptionList)
        ids = self.store.questions.source_ids()
        names = [display.question_id(j.uid, ids.get(j.uid)) for j in self.rows]
        uid_w = max((len(n) for n in names), default=4)
        model_w = max((len(self.model_name(j)) for j in self.rows), default=5)
        queue.clear_options()
        queue.add_options([Option(queue_entry(j, self.cats, self.model_name(j), min(uid_w, 24),
                                              min(model_w, 28), name), id=str(j.id))
                           for j, name in zip(self.rows, names)])
        self.query_one("#rv-body").set_class(not self.rows, "-empty")
        if self.rows:
            pos = self.ids.index(select) if select in self.ids else min(index, len(self.rows) - 1)
            queue.highlighted = pos
            self._show(self.rows[pos])
        else:
            self.current = None
            filters, any_rows = self.filters, bool(self.all)
            self.query_one("#rv-answer-view", LinesView).show(lambda w: empty_lines(filters, any_rows, w))
        self._update_bars()
        self.refresh_bindings()

    def _update_bars(self) -> None:
        scope = [j for j in self.all if self.filters.in_scope(j)]
        reviewed = sum(j.reviewed for j in scope)
        flagged = sum(j.flagged for j in scope)
        todo = sum(is_todo(j) for j in scope)
        self.head = (f"review · {self.reviewer} │ {reviewed}/{len(scope)} reviewed · {flagged} flagged · "
                     f"{todo} to review")
        self._set_header(self.kappa)
        self.generation += 1
        self._compute_kappa(scope, self.generation)
        parts: list[str | tuple[str, str]] = []
        for key, label, value, active in bar_parts(self.filters, self.all, self.runs, self.blind):
            parts += [(key, "bold $text-accent"), f" {label} ", (value, "bold reverse" if active else "$text"), "  "]
        queue = self.query_one("#rv-queue", OptionList)
        queue.border_title = f"{len(self.rows)} shown"
        if self.current is None:
            queue.border_subtitle = ""
        self.query_one("#rv-filters", Static).update(Content.assemble(*parts))

    def _set_header(self, kappa: str) -> None:
        """The counts, then judge–human agreement; when both do not fit, agreement first (the
        counts are cut, not κ: the queue's border says how many are shown)."""
        self.kappa = kappa
        fits = cell_len(self.head) + 3 + cell_len(kappa) <= max(self.app.size.width - 2, 1)
        self.query_one("#rv-header", Static).update(f"{self.head} │ {kappa}" if fits else f"{kappa} │ {self.head}")

    @work(thread=True, exclusive=True, group="rv-kappa", exit_on_error=False)
    def _compute_kappa(self, scope: list[JudgmentRow], generation: int) -> None:
        """Off the UI thread: the first kappa imports scikit-learn (~0.7 s)."""
        self.post_message(KappaReady(kappa_text(scope), generation))

    def on_kappa_ready(self, message: KappaReady) -> None:
        if message.generation == self.generation:  # an older count arriving late is dropped
            self._set_header(message.text)

    def _show(self, j: JudgmentRow) -> None:
        self.current = j
        if j.id in self.ids:
            self.query_one("#rv-queue").border_subtitle = f"{self.ids.index(j.id) + 1} of {len(self.rows)}"
        q = self.store.questions.get_question(j.uid)
        preds = self.store.runs.predictions(j.target_run, uid=j.uid, sample=j.sample)
        p = preds[0] if preds else None
        model, mode, cats = self.model_name(j), self.mode, self.cats
        judge_run = self.runs.get(j.run_id)
        judge_model = judge_run.model if judge_run else None
        if self.one_pane:
            self.query_one("#rv-answer-view", LinesView).show(
                lambda w: [*judge_lines(j, cats, judge_model, w, mode), Line(""), Line("─" * w, "dim"),
                           *question_lines(j, q, p, model, w, mode, self.blind)])
        else:
            self.query_one("#rv-answer-view", LinesView).show(
                lambda w: question_lines(j, q, p, model, w, mode, self.blind))
        self.query_one("#rv-judge-view", LinesView).show(lambda w: judge_lines(j, cats, judge_model, w, mode))
        self.query_one("#rv-answer").scroll_home(animate=False)
        self.query_one("#rv-judge").scroll_home(animate=False)

    @on(OptionList.OptionHighlighted, "#rv-queue")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is None:
            return
        jid = int(event.option.id)
        if jid in self.ids and (self.current is None or self.current.id != jid):
            self._show(self.rows[self.ids.index(jid)])

    def _refresh_one(self, jid: int) -> None:
        """Re-read judgment ``jid`` after a decision on it (not every judgment: r reloads all)."""
        fresh = {j.id: j for j in self.store.judging.judgments(ids=[jid])}
        self.all = [fresh.get(j.id, j) for j in self.all]
        self.rows = [j for j in self.all if self.filters.keeps(j)]

    def _next_todo(self, jid: int) -> None:
        """After a decision on ``jid``: re-read it and select the next item still to review."""
        self._refresh_one(jid)
        order = {j.id: i for i, j in enumerate(self.all)}
        here = order.get(jid, -1)
        todo = [j for j in self.rows if is_todo(j)]
        after = [j for j in todo if order[j.id] > here]
        if after or todo:
            self._fill((after or todo)[0].id, 0)
            return
        earlier = sum(order[j.id] < here for j in self.rows)
        self._fill(jid, earlier)
        self.notify("nothing left to review in this view", timeout=3)

    # ------------------------------------------------------------ decisions

    def _record(self, j: JudgmentRow, action: str, message: str, *, advance: bool = True, **kw: Any) -> None:
        try:
            self.store.judging.add_review(j.id, self.reviewer, action, **kw)
        except (KeyError, ValueError) as e:
            self.notify(f"not recorded: {e}", severity="error", timeout=6)
            return
        self.notify(f"{j.uid}: {message}", timeout=3)
        if advance:
            self._next_todo(j.id)
        else:
            index = self.ids.index(j.id) if j.id in self.ids else 0
            self._refresh_one(j.id)
            self._fill(j.id, index)

    def _ask(self, title: str, required: bool, then: Callable[[str], None], what: str = "reason") -> None:
        def answered(reason: str | None) -> None:
            if reason is not None:
                then(reason)

        self.app.push_screen(ReasonDialog(title, required=required, what=what), answered)

    def action_accept(self) -> None:
        j = self.current
        if j is None:
            return
        if j.verdict is None:
            self.notify(f"{j.uid}: the judge gave no verdict ({j.status}): press 1, 2 or 3",
                        severity="warning", timeout=4)
            return
        self._record(j, "accept", f"accepted {verdict_text(j.verdict)}")

    def action_verdict(self, verdict: str) -> None:
        j = self.current
        if j is None:
            return
        if verdict != "flawed":
            category = "item_defect" if verdict == "key_problem" and "item_defect" in self.cats else None
            self._override(j, verdict, category)
            return
        current = j.review_category if j.review_verdict == "flawed" else j.error_category
        def picked(name: str | None) -> None:
            if name:
                self._override(j, "flawed", name)

        self.app.push_screen(
            CategoryPicker(f"{j.uid}: flawed — which error?", list(self.cats.values()), current, self.mode), picked)

    def _override(self, j: JudgmentRow, verdict: str, category: str | None) -> None:
        if j.verdict == verdict and j.error_category == category:
            self._record(j, "accept", f"accepted {verdict_text(verdict)}")
            return
        new = verdict_text(verdict) + (f" · {category}" if verdict == "flawed" else "")
        judge = verdict_text(j.verdict)
        if j.verdict == "flawed":
            judge += f" · {category_text(j.error_category, self.cats)}"
        self._ask(f"{j.uid}: the judge said {judge if j.verdict else j.status}; you say {new}.\n"
                  "Reason (optional):", False,
                  lambda reason: self._record(j, "override", f"overridden: {new}", verdict=verdict,
                                              error_category=category, note=reason or None))

    def action_flag(self) -> None:
        j = self.current
        if j is None:
            return
        if j.flagged:
            self.notify(f"{j.uid} is flagged already (u undoes your latest review)", timeout=3)
            return
        self._ask(f"Send {j.uid} to the adjudication queue as a key problem. Why?", True,
                  lambda note: self._record(j, "flag", "sent to adjudication", note=note))

    def action_note(self) -> None:
        j = self.current
        if j is not None:
            self._ask(f"Note on {j.uid} (kept with the reviews):", True,
                      lambda note: self._record(j, "note", "note added", advance=False, note=note), "note")

    def action_undo(self) -> None:
        jid = self.store.judging.undo_review(self.reviewer)
        if jid is None:
            self.notify(f"nothing to undo: {self.reviewer} has no review in force", timeout=3)
            return
        self._refresh_one(jid)
        self._fill(jid, 0)
        j = next((x for x in self.all if x.id == jid), None)
        if j is None:
            return
        if jid not in self.ids:  # go back to it: show what it is now
            show = "todo" if is_todo(j) else "all"
            keep = self.filters.in_scope(j)
            self.filters = replace(self.filters, show=show) if keep else ReviewFilters(show=show)
            self.rows = [x for x in self.all if self.filters.keeps(x)]
            self._fill(jid, 0)
            if not keep:
                self.notify("filters cleared to show the undone item", timeout=3)
        self.notify(f"undone: {j.uid} is {review_state(j)} now", timeout=3)

    # ------------------------------------------------------------ view

    def action_cycle(self, name: str, step: int = 1) -> None:
        self.filters = self.filters.cycled(name, self.all, step)
        self._save_view()
        self.reload(select=self.current.id if self.current else None)

    def action_blind(self) -> None:
        self.blind = not self.blind
        self._save_view()
        self.reload(select=self.current.id if self.current else None)
        self.notify("blind: the judged model's name is hidden" if self.blind else "blind mode off", timeout=2)

    def action_page(self) -> None:
        self.query_one("#rv-answer", VerticalScroll).scroll_page_down(animate=False)

    def action_taxonomy(self) -> None:
        from .taxonomy import TaxonomyScreen

        jid = self.current.id if self.current else None
        self.app.push_screen(TaxonomyScreen(), lambda _: self.reload(select=jid))

    def action_reload(self) -> None:
        self.reload(select=self.current.id if self.current else None)
        self.notify(f"reloaded: {len(self.rows)} shown", timeout=2)

    def action_back(self) -> None:
        self.dismiss(None)
