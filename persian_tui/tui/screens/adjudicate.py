"""Adjudication: the queue of questions whose labels disagree (with each other or with
the key) or were flagged; each decision is logged with who, when and why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.containers import Container, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ... import bidi, display
from ...annotation.consensus import BULK_REASON, ItemVotes, adjudication_queue, bulk_acceptable, item_votes
from ...bidi import Mode
from ...models import Question
from ..base import AppState
from ..dialogs.common import ConfirmDialog, ReasonDialog
from ..guard import Guarded, refused
from ..keys import Key, bindings, help_key
from ..render import GUTTER, LABEL, Line, couplet_lines, fa
from ..widgets.key_bar import KeyBar
from ..widgets.lines_view import LinesView

ITEM_MARKS = {"suspect_key": "key?", "low_agreement": "agree?", "too_hard": "hard"}  # queue-line marks
# what each mark means, said in the header when a queued line carries it
MARK_MEANINGS = {"⚑": "flagged", "key?": "the runs prefer another option to the key",
                 "agree?": "the annotators' answers are split", "hard": "fewer runs right than chance"}


def book_order(uid: str, source_id: str | None) -> tuple[int, int, str, str]:
    """Queue order: by the book's number (9 before 10), then other source ids, then uids."""
    if source_id and source_id.isdigit():
        return (0, int(source_id), "", uid)
    return (1, 0, source_id or "\uffff", uid)


def marks_legend(entries: list[str]) -> str:
    """What the marks on these queue lines mean, in one phrase ("" when none has a mark)."""
    used = [m for m in MARK_MEANINGS if any(e.startswith(m) or f" {m} " in f" {e.split('  ')[0]} " for e in entries)]
    return "; ".join(f"{m} {MARK_MEANINGS[m]}" for m in used)


# ------------------------------------------------------------------ pure layout


def why(item: ItemVotes) -> list[str]:
    """Why the item is in the queue."""
    answers = set(item.votes.values())
    out = []
    if len(answers) > 1:
        out.append("annotators disagree")
    if item.key is not None and answers and answers != {item.key}:
        out.append("labels differ from the key")
    if item.flags:
        out.append("flagged")
    if item.key is None and answers:
        out.append("labelled but no key yet")
    for reviewer in item.review_flags:
        out.append(f"key problem flagged by {reviewer} in judge review")
    for flag, evidence in item.item_flags.items():
        out.append(f"item analysis {flag}: {evidence}")
    return out


VERDICTS = {"sound": "sound", "flawed": "flawed", "key_problem": "key problem"}


def review_flag_lines(item: ItemVotes, width: int, mode: Mode) -> list[Line]:
    """Each key problem flagged in judge review: who, their reason, and the judgment it was
    about (the judged model and its answer, the judge's verdict and rationale)."""
    out: list[Line] = []
    for flag in item.review_flags.values():
        answer = fa(flag.predicted) if flag.predicted else "no answer"
        verdict = VERDICTS.get(flag.verdict or "", flag.verdict or "unscored")
        if flag.error_category:
            verdict += f" · {flag.error_category.replace('_', ' ')}"
        out += [Line(""), Line(f"key problem flagged by {flag.reviewer}", "bold $text-error", "judge review")]
        out += _indented("reason", flag.note or "(none given)", width, mode, "$text-error")
        out += _indented("answer", f"{flag.model} chose {answer}", width, mode)
        out += _indented("judge", f"{flag.judge_model} (run {flag.judge_run}): {verdict}", width, mode)
        if flag.rationale:
            out += _indented("why", flag.rationale, width, mode, "dim")
    return out


def queue_entry(item: ItemVotes, source_id: str | None = None) -> str:
    """One line of the queue list: the question (uid, source id), key, votes, flag mark (LTR;
    the key and the votes are option numbers, in Persian digits: ``render.fa``'s rule)."""
    votes = " ".join(fa(v) for v in sorted(item.votes.values())) or "-"
    key = fa(item.key) if item.key is not None else "-"
    # the marks first: a long line is cut at its votes ("…"), never wrapped, never its marks
    marks = ["⚑"] if item.flags or item.review_flags else []
    marks += ["/".join(ITEM_MARKS[f] for f in item.item_flags if f in ITEM_MARKS)] if item.item_flags else []
    head = " ".join(m for m in marks if m)
    return f"{head + ' ' if head else ''}{display.question_id(item.uid, source_id)}  key {key} · {votes}"


def _indented(tag: str, text: str, width: int, mode: Mode, style: str = "") -> list[Line]:
    """``tag  text`` under an annotator's row; RTL text wrapped after the tag."""
    head = f"{tag}  "
    lines = bidi.display_lines(text, max(width - LABEL - len(head), 1), mode, align="none")
    return [Line((head if i == 0 else " " * len(head)) + t, style, " ")
            for i, t in enumerate(lines)]


def item_lines(q: Question, item: ItemVotes, width: int, mode: Mode) -> list[Line]:
    """The couplets (key marked, votes under each), key and majority, every vote."""
    out = [Line(f"{display.question_id(q.uid, q.source_id)}  {q.status}"
                + (f"  {q.source_name}" if q.source_name else ""), "dim")]
    if q.stem:
        out += [Line(t, "bold") for t in bidi.display_lines(q.stem, width, mode)]
    voters: dict[int, list[str]] = {}
    for annotator, answer in item.votes.items():
        voters.setdefault(answer, []).append(annotator)
    for o in sorted(q.options, key=lambda o: o.position):
        out.append(Line(""))
        out += couplet_lines(o.position, o.mesra1, o.mesra2, width, mode, poet=o.poet,
                             is_key=q.key == o.position)
        names = voters.get(o.position, [])
        marks = (["key"] if o.position == q.key else []) + (
            [f"{len(names)} vote(s): {', '.join(names)}"] if names else [])
        if marks:  # in words too, not only in colour
            style = "$text-success" if o.position == q.key else "$text-warning"
            text = "◆ " + " · ".join(marks)
            pad = "" if mode.name == "app" else " " * GUTTER
            out += [Line(pad + t, style) for t in bidi.display_lines(text, max(width - GUTTER, 1), mode)]
    out += [Line(""), Line("─" * width, "dim")]
    counts = Counter(item.votes.values())
    majority = item.majority
    key_text = fa(q.key) if q.key else "none"
    if majority is not None:
        n = len(item.votes)
        maj_text = f"{fa(majority)} ({counts[majority]} of {n} vote{'s' if n != 1 else ''})"
    else:
        maj_text = "tie" if item.votes else "no votes"
    maj_style = "bold $text-success" if majority is not None and majority == q.key else "bold $text-warning"
    if mode.name == "terminal":  # a bidi terminal reorders whole rows: one value per row
        out += [Line(key_text, "bold $text-success", "key"), Line(maj_text, maj_style, "majority")]
    else:
        gap = " " * 6
        text = key_text + gap + "majority  " + maj_text
        out.append(Line(text, "bold", "key", (len(key_text) + len(gap) + 10, len(text), maj_style)))
    import textwrap

    reasons = why(item)  # one line each (item-analysis evidence is long), wrapped to the pane
    wrapped = [t for r in reasons for t in textwrap.wrap(r, max(width - LABEL, 20))] or [""]
    out += [Line(t, "$text-warning", "why" if i == 0 else " ") for i, t in enumerate(wrapped)]
    out += [Line(""), Line("", "", "votes")]
    for label in item.labels:
        if label.answer is not None:
            given = fa(label.answer)
            style = "bold $text-success" if label.answer == q.key else "bold $text-warning"
        else:
            given = "skipped" if label.skipped else "flagged" if label.flag else "no answer"
            style = "dim"
        text = given + (f"  {label.confidence}" if label.confidence else "")
        out.append(Line(text, "", label.annotator[:LABEL - 1], (0, len(given), style)))
        if label.flag:
            out += _indented("flag", label.flag, width, mode, "$text-error")
        if label.note:
            out += _indented("note", label.note, width, mode)
    if not item.labels:
        out.append(Line("no labels", "dim", " "))
    out += review_flag_lines(item, width, mode)
    if q.explanation:
        out += [Line(""), Line("", "", "explanation")]
        out += [Line(t) for t in bidi.display_lines(q.explanation, width, mode)]
    return out


def empty_lines(bulk: int) -> list[Line]:
    out = [Line("Nothing to adjudicate.", "bold"),
           Line("No open question has annotators who disagree (with each other or with the key)"),
           Line("or a flag."),
           Line("")]
    if bulk:
        out.append(Line(f"{bulk} question(s) have labels that all agree with the key: "
                        "press A to accept them in bulk.", "$text-success"))
    else:
        out.append(Line("No question waits for bulk acceptance either.", "dim"))
    out.append(Line("Press r to reload, Escape to go back.", "dim"))
    return out


# ------------------------------------------------------------------ screen


class AdjudicationScreen(AppState, Guarded, Screen[None]):
    KEYS_TITLE = "adjudication"
    KEY_TABLE = (
        Key("1,۱,١", "set_key(1)", "Set key", "set the final key (asks the reason)", display="1-4", shown="1–4"),
        Key("2,۲,٢", "set_key(2)", "Key 2", footer=False, help=False),
        Key("3,۳,٣", "set_key(3)", "Key 3", footer=False, help=False),
        Key("4,۴,٤", "set_key(4)", "Key 4", footer=False, help=False),
        Key("k", "accept", "Accept key", "accept the current key", palette="Accept key"),
        Key("x", "retire", "Retire", "retire the question (asks the reason)", palette="Retire question"),
        Key("e", "edit", "Edit", "edit the question", palette="Edit question"),
        Key("A", "bulk_accept", "Accept all agreeing", "accept in bulk every open question whose labels all "
            "agree with the key (after a confirm)", display="A", palette="Accept all agreeing"),
        Key("r", "reload", "Reload", "reload the queue and the item analysis", palette="Reload"),
        help_key(),
        Key("escape,q", "back", "Back", "back to the bank", palette="Back"),
    )
    BINDINGS = bindings(KEY_TABLE)
    ACTS = {"edit": "author"}

    def __init__(self, adjudicator: str) -> None:
        super().__init__()
        self.adjudicator = adjudicator
        self.items: list[ItemVotes] = []
        self.bulk = 0  # questions bulk_acceptable() would accept
        self.legend = ""  # what the marks on the queued lines mean
        self.current: Question | None = None
        self.current_item: ItemVotes | None = None
        self.item_flags: dict[str, dict[str, str]] | None = None  # uid -> flag -> evidence (reports/items.py)

    def compose(self) -> ComposeResult:
        yield Static(id="adj-header")
        with Container(id="adj-body"):
            yield OptionList(id="adj-queue")
            with VerticalScroll(id="adj-detail"):
                yield LinesView(id="adj-view")
        yield KeyBar()

    def on_mount(self) -> None:
        self._apply_layout()
        self.reload()
        self.query_one("#adj-queue").focus()

    def _apply_layout(self) -> None:
        self.query_one("#adj-body").set_class(self.stacked, "-stacked")

    def on_resize(self) -> None:
        self._apply_layout()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not super().check_action(action, parameters):  # the role's (editing is for admins)
            return False
        if action in ("set_key", "accept", "retire", "edit"):
            return self.current is not None  # hidden from the footer when the queue is empty
        return True

    # ------------------------------------------------------------ data

    @property
    def uids(self) -> list[str]:
        return [i.uid for i in self.items]

    def reload(self, select: str | None = None, index: int = 0, flags: bool = False) -> None:
        """Re-read the queue; select ``select`` if it is still queued, else position ``index``.
        The item-analysis flags (every run's answers read) are computed on opening and with
        ``flags`` (r), not after each decision (a decision changes no run)."""
        from ...reports.items import queue_flags

        if flags or self.item_flags is None:
            self.item_flags = queue_flags(self.store)
        votes = item_votes(self.store, item_flags=self.item_flags)  # read once for both lists
        ids = self.store.questions.source_ids()
        self.items = sorted(adjudication_queue(self.store, votes=votes),
                            key=lambda i: book_order(i.uid, ids.get(i.uid)))
        self.bulk = len(bulk_acceptable(self.store, votes=votes))
        queue = self.query_one("#adj-queue", OptionList)
        queue.clear_options()
        entries = [queue_entry(i, ids.get(i.uid)) for i in self.items]
        self.legend = marks_legend(entries)
        queue.add_options([Option(e, id=i.uid) for e, i in zip(entries, self.items)])
        queue.display = bool(self.items)
        self.query_one("#adj-body").set_class(not self.items, "-empty")
        if self.items:
            pos = self.uids.index(select) if select in self.uids else min(index, len(self.items) - 1)
            queue.highlighted = pos
            self._show(self.items[pos])
        else:
            self.current = self.current_item = None
            bulk = self.bulk
            self.query_one("#adj-view", LinesView).show(lambda w: empty_lines(bulk))
        self._update_header()
        self.refresh_bindings()

    def _update_header(self) -> None:
        text = f"adjudication · {self.adjudicator} · {len(self.items)} in queue"
        if self.bulk:
            text += f" · {self.bulk} agree with their key (A accepts them)"
        if self.legend:
            text += f" · {self.legend}"
        self.query_one("#adj-header", Static).update(Content(text))

    def _show(self, item: ItemVotes) -> None:
        q = self.store.questions.get_question(item.uid)
        if q is None:
            return
        # labels and review flags read now (others may decide meanwhile); item flags from the queue
        item = ItemVotes(q.uid, q.category, q.key, q.status, self.store.labels.labels(q.uid),
                         self.store.judging.review_flags(q.uid).get(q.uid, {}), item.item_flags)
        self.current, self.current_item = q, item
        mode = self.mode
        self.query_one("#adj-view", LinesView).show(lambda w: item_lines(q, item, w, mode))
        self.query_one("#adj-detail").scroll_home(animate=False)

    @on(OptionList.OptionHighlighted, "#adj-queue")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        uid = event.option.id
        if uid in self.uids and (self.current is None or self.current.uid != uid):
            self._show(self.items[self.uids.index(uid)])

    # ------------------------------------------------------------ decisions

    def _open(self) -> Question | None:
        """The selected question, re-read; None (and dropped) if someone decided it meanwhile."""
        if self.current is None:
            self.notify("nothing selected", severity="warning", timeout=3)
            return None
        q = self.store.questions.get_question(self.current.uid)
        if q is None or q.status in ("curated", "retired"):
            self.notify(f"{self.current.uid} was decided meanwhile ({q.status if q else 'deleted'})",
                        severity="warning")
            self._drop(self.current.uid)
            return None
        return q

    def _drop(self, uid: str) -> None:
        """The item leaves the queue; the next one is selected."""
        index = self.uids.index(uid) if uid in self.uids else 0
        self.reload(index=index)

    def _decide(self, uid: str, decision: str, key: int | None, reason: str | None) -> None:
        try:
            self.store.curation.adjudicate(uid, self.adjudicator, decision, key=key, reason=reason or None)
        except (KeyError, ValueError) as e:
            self.notify(f"not recorded: {e}", severity="error", timeout=6)
            return
        what = {"accept": f"key {key} accepted", "key": f"key set to {key}", "retire": "retired"}[decision]
        self.notify(f"{uid}: {what}", timeout=3)
        self._drop(uid)

    def _ask(self, title: str, required: bool, then: Callable[[str], None]) -> None:
        def answered(reason: str | None) -> None:
            if reason is not None:
                then(reason)

        self.app.push_screen(ReasonDialog(title, required=required), answered)

    def action_set_key(self, key: int) -> None:
        q = self._open()
        if q is None:
            return
        if q.key == key:
            self.action_accept()
            return
        was = q.key if q.key is not None else "none"
        self._ask(f"Set the key of {q.uid} to {key} (was {was}). Why?", True,
                  lambda reason: self._decide(q.uid, "key", key, reason))

    def action_accept(self) -> None:
        q = self._open()
        if q is None:
            return
        if q.key is None:
            self.notify(f"{q.uid} has no key: press 1-4 to set one", severity="warning")
            return
        self._ask(f"Accept key {q.key} for {q.uid}. Reason (optional):", False,
                  lambda reason: self._decide(q.uid, "accept", q.key, reason))

    def action_retire(self) -> None:
        q = self._open()
        if q is not None:
            self._ask(f"Retire {q.uid} (it leaves the benchmark). Why?", True,
                      lambda reason: self._decide(q.uid, "retire", None, reason))

    def action_bulk_accept(self) -> None:
        items = bulk_acceptable(self.store, self.item_flags)  # flagged questions are never bulk-accepted
        if not items:
            self.notify("no question has labels that all agree with its key", timeout=3)
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            done = 0
            for item in items:
                try:
                    self.store.curation.adjudicate(item.uid, self.adjudicator, "accept", reason=BULK_REASON)
                    done += 1
                except (KeyError, ValueError) as e:
                    self.notify(f"{item.uid} not accepted: {e}", severity="error")
            self.notify(f"accepted the key of {done} question(s)", timeout=4)
            self.reload(select=self.current.uid if self.current else None)

        self.app.push_screen(ConfirmDialog(
            f"Accept the key of {len(items)} question(s) whose labels all agree with it?\n"
            f"Each is curated, with the reason “{BULK_REASON}”."), answered)

    def action_edit(self) -> None:
        if self.current is None or refused(self, "author"):
            return
        from .author import AuthorScreen

        uid = self.current.uid
        index = self.uids.index(uid) if uid in self.uids else 0
        self.app.push_screen(AuthorScreen(self.adjudicator, uid),
                             lambda _: self.reload(select=uid, index=index))

    def action_reload(self) -> None:
        uid = self.current.uid if self.current else None
        self.reload(select=uid, flags=True)
        self.notify(f"reloaded: {len(self.items)} in queue", timeout=2)

    def action_back(self) -> None:
        self.dismiss(None)
