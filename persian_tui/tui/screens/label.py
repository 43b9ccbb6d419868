"""The label screen: an annotator answers the queue blind, one key per item.

The queue comes from ``store.labels.claim_next`` (a lease in one transaction). Every act is one
``add_label`` (answer, skip or flag, with the confidence, the note and the seconds the
item was on screen); ``u`` retracts the latest one and shows that item again.
"""

from __future__ import annotations

from time import monotonic
from typing import Any

from textual import events, work
from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from ... import bidi, display, settings
from ...annotation.agreement import is_fast
from ...models import Label, Progress, Question, QueueScope
from ...models.labels import check_note
from ...models.limits import limit
from ...store import Store, StoreBusy, StoreError
from ..base import AppState
from ..dialogs.setting import SettingDialog
from ..dialogs.text_prompt import TextPrompt
from ..guard import Guarded, access, refused
from ..keys import Key, bindings, help_key
from ..messages import LabelSaved  # noqa: F401 (re-exported)
from ..render import fa
from ..widgets.blind_question import BlindQuestion
from ..widgets.key_bar import KeyBar
from ..widgets.label_progress import LabelProgress
from .guidelines import GuidelinesScreen

TARGETS = settings.LABEL_TARGETS
LEVELS = (None, "low", "medium", "high")
BUSY_RETRY_MS = 250  # the save worker's wait per try (it tries until the lock is free)
RENEW_AFTER = 300  # seconds on one item before the lease is renewed (it lasts 900)
DB_ERRORS = (StoreError, KeyError, ValueError)  # see the store: sqlite3 stays in there

# Characters that act like the keys above them, whatever the keyboard layout:
# Persian and Arabic-Indic digits answer; Persian-layout letters (ISIRI 9147) do what
# the Latin letter on the same key does, so the annotator need not switch layouts.
DIGITS = {c: i for s in ("۱۲۳۴", "١٢٣٤") for i, c in enumerate(s, 1)}
HIGH = {"٬": 2, "٫": 3, "﷼": 4}  # Shift+2..4 on the Persian layout (Shift+1 is "!")
LAYOUT = {"س": "skip", "ب": "flag", "د": "note", "ز": "confidence", "ع": "undo",
          "ف": "target", "ل": "guidelines", "ض": "back"}


def clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


class LabelScreen(AppState, Guarded, Screen[None]):
    KEYS_TITLE = "labelling"
    KEY_TABLE = (
        Key("1", "answer(1)", "answer", "answer and move on (Persian digits too)", display="1-4", shown="1–4"),
        Key("2", "answer(2)", footer=False, help=False),
        Key("3", "answer(3)", footer=False, help=False),
        Key("4", "answer(4)", footer=False, help=False),
        Key("exclamation_mark,shift+1", "answer(1, True)", "sure", "answer with high confidence",
            display="⇧1-4", shown="Shift+1–4"),
        Key("at,shift+2", "answer(2, True)", footer=False, help=False),
        Key("number_sign,shift+3", "answer(3, True)", footer=False, help=False),
        Key("dollar_sign,shift+4", "answer(4, True)", footer=False, help=False),
        Key("s", "skip", "skip", "skip this item", palette="Skip"),
        Key("f", "flag", "flag", "flag the item as defective (asks the reason)", palette="Flag"),
        Key("n", "note", "note", "a note for this item", palette="Note"),
        # the head line shows c and t
        Key("c", "confidence", "confidence", "confidence of this item: none, low, medium, high",
            footer=False),
        Key("u", "undo", "undo", "undo, several steps back: the item comes back to be answered", palette="Undo"),
        Key("t", "target", "target", "labels wanted per question (1-5), for everyone: asks first",
            footer=False, palette="Target"),
        Key("g", "guidelines", "guidelines", "the labelling guidelines (e there edits them)",
            palette="Guidelines"),
        help_key(),
        Key("escape,q", "back", "bank", "back to the bank", display="esc", palette="Back"),
    )
    BINDINGS = bindings(KEY_TABLE)
    ACTS = {"target": "settings"}

    def __init__(self, annotator: str, *, scope: QueueScope | None = None,
                 queue_mode: str = "overlap", first: str | None = None) -> None:
        super().__init__(id="label")
        self.annotator = annotator
        self.scope = scope  # which questions the queue serves (None: the whole bank)
        self.queue_mode = queue_mode
        self.first = first  # "label this question" from the bank: shown before the queue
        self.target = int(settings.LABEL_TARGET.default)
        self.current: Question | None = None
        self.from_queue = False  # the current item is my claim (not an undone item shown again)
        self.chosen = False  # the current item was chosen in the bank (L), not undone
        self.replaces: Label | None = None  # the chosen item's own earlier label, which a new one replaces
        self.back: list[str] = []  # undone items still to answer again, the next one last
        self.note: str | None = None
        self.confidence: str | None = None
        self.shown_at = monotonic()  # when the item on screen was first shown (t keeps it)
        self.renewed_at = monotonic()
        self.paused_at: float | None = None  # the guidelines were opened then: the clock stands still
        self.min_seconds = 1.0  # answers faster than this are marked fast (a setting)
        self.saving: str | None = None  # uid whose label a worker is saving (database busy)
        self.seen_version: tuple[int, int] | None = None  # the database state the screen shows
        self.left_seen = 0  # what was left for me then

    def compose(self) -> ComposeResult:
        yield Static(id="label-head")
        yield BlindQuestion(self.mode, id="label-question")
        yield Static(id="label-empty")
        yield Static(id="label-note")
        yield LabelProgress(id="label-progress")
        yield Static(id="label-last")
        yield KeyBar(palette=False)

    def on_mount(self) -> None:
        self.read_settings()
        self.say(f"labelling as {self.annotator}: 1-4 answers, g shows the guidelines, ? the keys")
        self.next_item()
        self.seen_version = self._version()
        self.set_interval(1, self._tick)

    def on_unmount(self) -> None:
        # leaving by Escape has released already; this covers quitting the app from here
        if self.app.store is not None:
            try:
                self.store.labels.release(self.annotator)
            except StoreError:  # busy or read-only: the hold expires by itself (its lease)
                pass

    # ------------------------------------------------------------ the item on screen

    def next_item(self) -> None:
        """The next undone item to answer again, else the next item of the queue."""
        try:
            if self.first:  # chosen in the bank: shown even if I labelled it (a new label supersedes)
                uid, self.first = self.first, None
                q = self.store.questions.get_question(uid)
                if q is not None:
                    mine = self.store.labels.labels(uid, annotator=self.annotator)
                    if mine:  # answered before: said, and the head line keeps saying it
                        self.notify(f"{uid}: you answered {given(mine[0])} before; a new answer replaces it "
                                    "(Escape keeps it)", severity="warning")
                    elif not self.store.labels.claim(self.annotator, uid, target=self.target):
                        self.notify(f"{uid} has {self.target} label(s) already; your label is extra",
                                    severity="warning")
                    self.show(q, from_queue=False, chosen=True, replaces=mine[0] if mine else None)
                    return
            while self.back:
                uid = self.back.pop()
                if not self.store.labels.labels(uid, annotator=self.annotator):
                    if not self.store.labels.claim(self.annotator, uid, target=self.target):
                        self.notify(f"{uid} reached its label target meanwhile; answer it anyway "
                                    "or press Escape", severity="warning")
                    self.show(self.store.questions.get_question(uid), from_queue=False)
                    return
            self.show(self.store.labels.claim_next(self.annotator, target=self.target, scope=self.scope,
                                                   mode=self.queue_mode), from_queue=True)
        except StoreBusy:  # the lease is a write: wait for the lock without freezing the screen
            self.saving = "your place in the queue"
            self.say("database busy (another program is writing): the next item comes when it is free …")
            self.set_timer(0.5, self._retry_next)
        except DB_ERRORS as e:
            self.fail("cannot read the next item", e)

    def _retry_next(self) -> None:
        self.saving = None
        self.next_item()

    def show(self, q: Question | None, *, from_queue: bool, chosen: bool = False,
             replaces: Label | None = None) -> None:
        same = q is not None and self.current is not None and q.uid == self.current.uid
        self.current = q
        self.from_queue = from_queue and q is not None
        self.chosen = chosen and q is not None
        self.replaces = replaces if q is not None else None  # this annotator's own earlier label
        if not same:  # the same item again (t re-reads the queue): its clock, note and confidence go on
            self.note = None
            self.confidence = None
            self.shown_at = self.renewed_at = monotonic()
        self.query_one(BlindQuestion).show(q, self.mode)
        self.query_one(BlindQuestion).display = q is not None
        empty = self.query_one("#label-empty", Static)
        empty.display = q is None
        if q is None:
            empty.update(Content.assemble(
                ("Nothing left for you to label.", "bold"),
                f"\n\nEvery open question has your label, or already has {self.target} label(s) "
                "(the target).\n\n",
                *((("t", "bold $text-accent"), " raises the target · ") if self.sets_target else ()),
                ("u", "bold $text-accent"), " takes back your last label · ",
                ("Escape", "bold $text-accent"), " back to the bank"))
        self.refresh_bars()

    def refresh_bars(self) -> None:
        self._head()
        note = self.query_one("#label-note", Static)
        note.display = bool(self.note)
        if self.note:
            note.update(Content.assemble(("note  ", "bold"), self.shown(self.note), ("  (n edits)", "dim")))
        try:
            self.query_one(LabelProgress).show(self._progress())
        except DB_ERRORS as e:
            self.fail("cannot read the progress", e)

    def _progress(self) -> Progress:
        return self.store.labels.progress(self.annotator, target=self.target, scope=self.scope)

    def _head(self) -> None:
        q = self.current
        parts: list[str | tuple[str, str]] = [("✎ ", "dim"), (self.annotator, "bold")]
        if q is not None:
            mark = (" ◆ chosen", "bold $text-accent") if self.chosen else (" ↶ undone", "bold $text-warning")
            if self.chosen and self.replaces is not None:
                mark = (f" ◆ chosen: replaces your answer {given(self.replaces)}", "bold $text-warning")
            parts += [" │ ", (display.question_id(q.uid, q.source_id), "bold"), mark if not self.from_queue else "",
                      " │ ⏱ ", (clock(self.elapsed()), "bold"),
                      " │ confidence ", (self.confidence or "—", "bold $text-accent"), (" (c)", "dim")]
        parts += [" │ target ", (str(self.target), "bold"), (" (t)" if self.sets_target else "", "dim")]
        if self.scope is not None:
            parts += [" │ ", (self.scope.describe(), "italic")]
        self.query_one("#label-head", Static).update(Content.assemble(*parts))

    @property
    def sets_target(self) -> bool:
        """Whether this person may change the shared target (an admin)."""
        return access(self).may("settings")

    # ------------------------------------------------------------ what others change

    def read_settings(self) -> bool:
        """Re-read the shared settings (target, fast minimum); whether the target changed."""
        target = settings.label_target(self.store.labels)
        self.min_seconds = settings.label_min_seconds(self.store.labels)
        changed, self.target = target != self.target, target
        return changed

    def _version(self) -> tuple[int, int] | None:
        try:
            return self.store.data_version()
        except DB_ERRORS:
            return None

    def follow_database(self) -> None:
        """When the database changed (anyone's write: a label, a setting an admin changed), the
        screen re-reads the settings and its counts, so every annotator's screen shows the same
        target and the same figures; with nothing on screen, an item the change opened comes."""
        version = self._version()
        if version is None or version == self.seen_version or self.saving:
            return
        try:
            changed = self.read_settings()
            if changed:
                self.say(f"the target is now {self.target} label(s) per question (changed for everyone)")
            left, self.left_seen = self.left_seen, self._progress().queue_left
            if self.current is None and (changed or self.left_seen > left):  # not each write: a claim is one
                self.next_item()
            else:
                self.refresh_bars()
        except DB_ERRORS as e:
            self.fail("cannot read the database", e)
        self.seen_version = self._version()  # after my own reads and writes

    def elapsed(self) -> float:
        """Seconds on the item on screen, the guidelines' time left out (as it is stored)."""
        return (self.paused_at or monotonic()) - self.shown_at

    def _tick(self) -> None:
        self.follow_database()
        if self.current is None:
            return
        self._head()
        if self.from_queue and monotonic() - self.renewed_at > RENEW_AFTER:
            self.renewed_at = monotonic()
            try:  # renews my lease on the item I hold (a coffee break must not lose it)
                self.store.labels.renew(self.annotator)
            except StoreError:  # busy: tried again after RENEW_AFTER, well within the lease
                self.renewed_at -= RENEW_AFTER / 2

    def shown(self, text: str) -> str:
        """One line of user text as it should be printed in the current bidi mode."""
        return bidi.display_line(text, 200, self.mode)

    def say(self, text: str) -> None:
        """Feedback on the last action, in the status line."""
        self.query_one("#label-last", Static).update(text)

    def fail(self, what: str, error: Exception) -> None:
        self.say(f"{what}: {error}")
        self.notify(f"{what}: {error}", severity="error", timeout=6)

    def _item(self) -> Question | None:
        """The item on screen; None (and the screen says so) when there is none."""
        if self.current is None:
            self.say(f"nothing to label here: {'t raises the target, ' if self.sets_target else ''}"
                     "u takes back your last label")
        return self.current

    # ------------------------------------------------------------ acts that move on

    def _record(self, q: Question, done: str, **label: Any) -> None:
        """Append one label for the current item ``q``, then show the next item. When another
        program holds the database, the save goes on in a worker and the screen says so."""
        seconds = round(monotonic() - self.shown_at, 2)
        label = dict(note=self.note, seconds=seconds, **label)
        done = f"{done} ({seconds:.1f} s)"
        if label.get("answer") is not None and is_fast(seconds, self.min_seconds):
            done += f" — fast: under {self.min_seconds:g} s, kept and marked fast"
        try:
            self.store.labels.add_label(q.uid, self.annotator, **label)
        except StoreBusy:
            self.saving = q.uid
            self.say(f"database busy (another program is writing): saving {q.uid} in the background …")
            self.notify("database busy: your label is saved as soon as it is free", severity="warning",
                        timeout=4)
            self._save_later(q.uid, label, done)
            return
        except DB_ERRORS as e:
            self.fail(f"not saved ({q.uid})", e)
            return
        self.say(done)
        self.next_item()

    @work(thread=True, group="label-save", exit_on_error=False)
    def _save_later(self, uid: str, label: dict[str, Any], done: str) -> None:
        """Retry the save on a connection of this thread until the lock is free (the UI
        thread never waits); the outcome comes back as a message."""
        worker = get_current_worker()
        error = None
        try:
            with Store(self.app.db_path, busy_timeout_ms=BUSY_RETRY_MS) as store:
                while not worker.is_cancelled:
                    try:
                        store.labels.add_label(uid, self.annotator, **label)
                        break
                    except StoreBusy:
                        continue
        except DB_ERRORS as e:
            error = str(e)
        if not worker.is_cancelled:
            self.post_message(LabelSaved(uid, done, error))

    def on_label_saved(self, message: LabelSaved) -> None:
        self.saving = None
        if message.error:
            self.fail(f"not saved ({message.uid})", StoreError(message.error))
            return
        self.say(message.done)
        self.next_item()

    def _still_saving(self) -> bool:
        if self.saving:
            self.say(f"still saving {self.saving}: the database is busy (another program is writing) …")
        return bool(self.saving)

    def action_answer(self, n: int, sure: bool = False) -> None:
        if self._still_saving() or (q := self._item()) is None:
            return
        confidence = "high" if sure else self.confidence
        shown = fa(n) + (f" ({confidence})" if confidence else "")
        self._record(q, f"labelled {q.uid} as {shown}", answer=n, confidence=confidence)

    def action_skip(self) -> None:
        if not self._still_saving() and (q := self._item()) is not None:
            self._record(q, f"skipped {q.uid}", skipped=True)

    def action_flag(self) -> None:
        if self._still_saving() or (q := self._item()) is None:
            return
        uid = q.uid

        def got(reason: str | None) -> None:
            if reason is None or self.current is None or self.current.uid != uid:
                self.say("flag cancelled")
                return
            self._record(self.current, f"flagged {uid} as defective: {self.shown(reason)}", flag=reason,
                         confidence=self.confidence)

        self.app.push_screen(TextPrompt(
            f"Flag {uid} as defective: why?", placeholder="the reason, in Persian or English",
            hint="two defensible answers · no outlier · a repeated couplet · broken text · …",
            required=True, mode=self.mode, max_length=limit("reason")), got)

    # ------------------------------------------------------------ acts on the current item

    def action_note(self) -> None:
        if self._still_saving() or (q := self._item()) is None:
            return
        uid = q.uid

        def got(text: str | None) -> None:
            if text is None or self.current is None or self.current.uid != uid:
                return
            try:
                text = check_note(text)
            except ValueError as e:  # the note already kept stays; the prompt said nothing was saved
                self.fail("note not kept", e)
                return
            self.note = text
            self.say(f"note kept for {uid}'s answer" if text else "note cleared")
            self.refresh_bars()

        self.app.push_screen(TextPrompt(
            f"Note for {uid} (saved with your answer, skip or flag)", self.note or "",
            placeholder="a short remark", hint="an empty note clears it", mode=self.mode,
            max_length=limit("note")), got)

    def action_confidence(self) -> None:
        if self._still_saving() or self._item() is None:
            return
        self.confidence = LEVELS[(LEVELS.index(self.confidence) + 1) % len(LEVELS)]
        self.say(f"confidence: {self.confidence or 'none'}")
        self._head()

    def action_undo(self) -> None:
        if self._still_saving():
            return
        try:
            uid = self.store.labels.undo_label(self.annotator)
            q = self.store.questions.get_question(uid) if uid else None
            still = self.store.labels.labels(uid, annotator=self.annotator) if q else []
        except DB_ERRORS as e:
            self.fail("cannot undo", e)
            return
        if uid is None:
            self.say("nothing to undo")
            return
        if self.current is not None and not self.from_queue and self.current.uid != uid:
            self.back.append(self.current.uid)  # answer it again after this one
        if q is None:
            self.say(f"undone: {uid} (the question is gone)")
            self.next_item()
            return
        self.show(q, from_queue=False)
        self.say(f"undone: {uid}" + (f"; your earlier label ({self._describe(still[0])}) is in force again"
                                      if still else ": answer it again"))

    def _describe(self, label: Label) -> str:
        if label.skipped:
            return "skipped"
        if label.answer is not None:
            return fa(label.answer)
        return f"flag: {self.shown(label.flag or '')}"

    def action_target(self) -> None:
        """The shared target, changed for everyone after a confirmation (admins only)."""
        if refused(self, "settings"):
            return
        try:
            self.read_settings()  # the value now, as another screen may have set it
        except DB_ERRORS as e:
            self.fail("cannot read the target", e)
            return
        self._head()

        def chosen(value: int | None) -> None:
            if value is None:
                self.say(f"target kept: {self.target} label(s) per question")
                return
            try:
                self.store.labels.set_setting(settings.LABEL_TARGET.name, str(value))
            except DB_ERRORS as e:
                self.fail("target not saved", e)
                return
            self.target = value
            self.say(f"target: {self.target} label(s) per question, for everyone")
            if self.current is None or self.from_queue:  # a lowered target may close the current item
                self.next_item()
            else:
                self.refresh_bars()
            self.seen_version = self._version()

        self.app.push_screen(SettingDialog(
            "Labels wanted per question", self.target, TARGETS,
            "The queue serves a question until it has that many answers."), chosen)

    def action_guidelines(self) -> None:
        """The guidelines over the item; the item's clock stops while they are open (reading
        them is not time on the item, and is not saved with its label)."""
        opened = self.paused_at = monotonic()

        def closed(_: None) -> None:
            self.shown_at += monotonic() - opened
            self.paused_at = None
            self._head()

        self.app.push_screen(GuidelinesScreen(), closed)

    def action_back(self) -> None:
        try:
            self.store.labels.release(self.annotator)
        except StoreError:  # busy or read-only: the hold expires by itself (its lease)
            pass
        self.app.pop_screen()

    # ------------------------------------------------------------ other keyboards

    def on_key(self, event: events.Key) -> None:
        """Persian / Arabic digits, Shift+digit on other layouts, Persian-layout letters."""
        char = event.character  # ASCII digits and !@#$ are bindings
        action = None
        if char in DIGITS:
            action = lambda: self.action_answer(DIGITS[char])  # noqa: E731
        elif char in HIGH:
            action = lambda: self.action_answer(HIGH[char], True)  # noqa: E731
        elif char == "؟":  # ? on the Persian layout
            action = self.app.action_help
        elif char in LAYOUT:
            action = getattr(self, f"action_{LAYOUT[char]}")
        if action is not None:
            event.stop()
            event.prevent_default()
            action()


def given(label: Label) -> str:
    """An annotator's own earlier label in a few words: "۳", "۲ (high)", "a skip", "a flag"."""
    if label.flag:
        return "a flag"
    if label.skipped or label.answer is None:
        return "a skip"
    return fa(label.answer) + (f" ({label.confidence})" if label.confidence else "")
