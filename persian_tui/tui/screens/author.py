"""Authoring: a form for a new question or an edit of an existing one, with a live
rendered preview, validation and a near-duplicate warning."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, cast

from textual import on
from textual.app import ComposeResult
from textual.containers import Container, Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static, TextArea

from ... import bidi, display
from ...models import CorpusCouplet, Option, Question, QuestionStatus
from ...models.keys import repeated_couplets
from ...models.limits import TextKind, limit
from ...models.merge import fields
from ...store import EditConflict, Store, StoreError
from ...text import DuplicateIndex, couplet_key, nfc
from ..base import AppState
from ..dialogs.common import ConfirmDialog
from ..fields.persian_input import PersianInput
from ..fields.persian_textarea import PersianTextArea
from ..keys import Key, bindings, help_key
from ..render import detail_lines
from ..widgets.key_bar import KeyBar
from ..widgets.lines_view import LinesView

DUPLICATE_DELAY = 0.4  # seconds of no typing before the near-duplicate check runs
_KEY_DIGITS = {d: i % 4 + 1 for i, d in enumerate("1234۱۲۳۴١٢٣٤")}
_TAG_SPLIT = re.compile(r"[,،]")


# ------------------------------------------------------------------ pure helpers


def parse_key(text: str) -> int | None:
    """"1".."4" (also Persian and Arabic-Indic digits) -> 1..4; anything else -> None."""
    return _KEY_DIGITS.get(text.strip())


def parse_tags(text: str) -> list[str]:
    """Comma separated (Latin or Persian comma), each tag as typed, empties dropped."""
    return [t for t in (nfc(p) for p in _TAG_SPLIT.split(text)) if t]


def form_problems(q: Question) -> list[str]:
    """What stops ``q`` from being saved: Question.problems() plus repeated couplets."""
    out = q.problems()
    if q.status == "ready" and q.key is None:
        out = [p + " (type 1-4 in key)" if p.endswith("needs a key") else p for p in out]
    return out + repeated_couplets(q)


def named(uids: list[str], source_ids: dict[str, str] | None) -> str:
    """Questions as every view names them (display.question_id)."""
    return ", ".join(display.question_id(u, (source_ids or {}).get(u)) for u in uids)


def duplicate_warnings(index: DuplicateIndex, options: list[Option], exclude: str | None,
                       shared: dict[int, set[str]] | None = None,
                       source_ids: dict[str, str] | None = None) -> list[str]:
    """Near-duplicates of the whole question, then other questions sharing a couplet (their
    uids by position are added to ``shared``: the corpus check names them no second time)."""
    keys = [couplet_key(o.mesra1, o.mesra2) for o in options]
    whole = [m for m in index.query(keys, min_score=90, exclude=exclude) if m.score >= 90]
    out = [f"near-duplicate of {named([m.uid], source_ids)}, score {m.score:g}" for m in whole]
    known = {m.uid for m in whole}
    for o, key in zip(options, keys):
        if not (o.mesra1.strip() and o.mesra2.strip()):
            continue
        uids = [m.uid for m in index.query([key], min_score=90, exclude=exclude)
                if m.shared and m.uid not in known]
        if shared is not None:
            shared.setdefault(o.position, set()).update(uids)
        if uids:
            more = f" and {len(uids) - 3} more" if len(uids) > 3 else ""
            out.append(f"couplet {o.position} also in {named(uids[:3], source_ids)}{more}")
    return out


def corpus_warnings(store: Store, options: list[Option], chosen: dict[int, CorpusCouplet], exclude: str | None,
                    warned: dict[int, set[str]] | None = None,
                    source_ids: dict[str, str] | None = None) -> list[str]:
    """Options taken from one poem, and couplets already used by other questions (found
    through their corpus links; those ``warned`` about for that position already left out);
    ``chosen``: position -> CorpusCouplet inserted from the corpus."""
    if not store.corpus.has_corpus():
        return []
    refs: dict[int, tuple[str, int]] = {}
    for o in options:
        if not (o.mesra1.strip() and o.mesra2.strip()):
            continue
        c = chosen.get(o.position)
        if c is not None and (c.mesra1, c.mesra2) == (o.mesra1, o.mesra2):
            refs[o.position] = (c.poem, c.couplet)
            continue
        d = store.links.link_option(o.mesra1, o.mesra2, own_poet=o.poet)
        path = store.corpus.poem_path(d.candidate.poem_id) if d.status == "linked" and d.candidate else None
        if d.candidate is not None and path is not None:  # a linked option's poem
            refs[o.position] = (path, d.candidate.index)
    out = []
    by_poem: dict[str, list[int]] = {}
    for pos, (poem, _) in sorted(refs.items()):
        by_poem.setdefault(poem, []).append(pos)
    for poem, positions in by_poem.items():
        if len(positions) > 1:
            out.append(f"options {', '.join(map(str, positions))} come from the same poem {poem}")
    for pos, (poem, idx) in sorted(refs.items()):
        uses = [u for u in store.links.couplet_uses(poem, idx, exclude=exclude) if u not in (warned or {}).get(pos, ())]
        if uses:
            more = f" and {len(uses) - 3} more" if len(uses) > 3 else ""
            out.append(f"couplet {pos} ({poem}#{idx + 1}) is already used in {named(uses[:3], source_ids)}{more}")
    return out


# ------------------------------------------------------------------ screen


class KeyField(Input):
    """The key: one digit 1–4 (Persian digits too); anything else is refused with a word why."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(placeholder="1-4 (the outlier)", max_length=1, restrict=r"[1-4۱-۴١-٤]?",
                         compact=True, **kw)
        self._typed = ""

    def replace(self, text: str, start: int, end: int) -> None:
        self._typed = text
        super().replace(text, start, end)

    def restricted(self) -> None:
        typed = display.line(self._typed)
        if len(self._typed) == 1 and self._typed.isdigit():
            why = f"key: {typed} is not an option: only 1–4 (۱–۴), the couplet that does not belong"
        elif self.value:
            why = f"key: one digit, 1–4 (۱–۴); {display.line(self.value)} is set (Backspace clears it)"
        else:
            why = f"key: only 1–4 (۱–۴), not “{typed}”"
        self.notify(why, severity="warning", timeout=4)


def _row(label: str, widget: Widget, classes: str = "") -> Horizontal:
    return Horizontal(Label(label, classes="field-label"), widget, classes=f"field-row {classes}")


def _text(id: str, placeholder: str = "", classes: str = "") -> PersianInput:
    """A Persian text field; focusing it keeps the text (no select-all to type over), capped
    as the store caps what it holds (models/limits.py)."""
    kind = FIELD_KINDS.get(id.split("-", 1)[0], "line")
    return PersianInput(id=id, placeholder=placeholder, compact=True, select_on_focus=False,
                        classes=classes, max_length=limit(kind))


FIELD_KINDS: dict[str, TextKind] = {"stem": "stem", "m1": "hemistich", "m2": "hemistich", "poet": "poet",
                                    "category": "category"}


class AuthorScreen(AppState, Screen["str | None"]):
    """``uid`` None: a new question; otherwise edit that question. Dismisses with the
    question's uid (None when nothing was ever saved)."""

    KEYS_TITLE = "question editor"
    KEY_TABLE = (
        Key("ctrl+s", "save", "Save", "save with the status in the form (a second press saves past a warning)",
            priority=True, palette="Save"),
        Key("ctrl+r", "save('ready')", "Save as ready", "save as ready", priority=True, palette="Save as ready"),
        Key("ctrl+o", "corpus", "Corpus", "the corpus pane: search the corpus, put a couplet into an option",
            priority=True, palette="Corpus"),
        Key("tab", "", "", "next field"),
        help_key(),
        Key("escape,q", "leave", "Back", "leave (asks first when there are unsaved changes)", palette="Back"),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, author: str, uid: str | None = None) -> None:
        super().__init__()
        self.author = author
        self.uid = uid
        self.original: Question | None = None
        self.index: DuplicateIndex | None = None
        self.problems: list[str] = []
        self.warnings: list[str] = []
        self._saved_values: tuple[object, ...] = ()
        self._tried = False  # a save failed: problems are shown as errors
        # (values, status) of a save warned about once (duplicate, changed elsewhere):
        # the same save again goes ahead
        self._confirmed: tuple[tuple[object, ...], str] | None = None
        self._dup_timer: Timer | None = None
        self._update_pending = False
        self._messages: Content | None = None
        self._note: tuple[tuple[object, ...], str] | None = None  # (form values, what to tell while they last)
        self.chosen: dict[int, CorpusCouplet] = {}  # position -> the couplet inserted from the corpus pane

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="author-header")
        with Container(id="author-body"):
            with Vertical(id="author-left"):
                with VerticalScroll(id="author-form"):
                    yield _row("stem", _text("stem"))
                    for i in range(1, 5):
                        yield _row(f"{i} hemistich 1", _text(f"m1-{i}"), "-couplet")
                        yield _row("  hemistich 2", _text(f"m2-{i}"))
                        yield _row("  poet", _text(f"poet-{i}", "optional", "-poet"))
                    yield _row("key", KeyField(id="key"), "-gap")
                    yield _row("status", Select([("draft", "draft"), ("ready", "ready")], id="status",
                                                allow_blank=False, value="draft", compact=True))
                    yield _row("category", _text("category"), "-gap")
                    yield _row("source", _text("source-name", "book / exam"))
                    yield _row("source id", _text("source-id"))
                    yield _row("tags", _text("tags", "comma separated"))
                    yield Label("explanation", classes="field-label")
                    explanation = PersianTextArea(id="explanation", compact=True)
                    explanation.max_length = limit("explanation")
                    yield explanation
                yield Static(id="author-messages")
            with VerticalScroll(id="author-preview"):
                yield LinesView(id="author-preview-view")
        yield KeyBar()

    def on_mount(self) -> None:
        self._apply_layout()
        if self.uid is not None:
            self.original = self.store.questions.get_question(self.uid)
            if self.original is None:
                self.notify(f"no question {self.uid}", severity="error")
                self.uid = None
            else:
                self._fill(self.original)
        self.index = self.store.questions.duplicate_index()
        self._saved_values = self.values()
        self._update_header()
        self._update()
        self.query_one("#stem").focus()
        self.call_after_refresh(self._check_duplicates)

    def _apply_layout(self) -> None:
        self.query_one("#author-body").set_class(self.stacked, "-stacked")

    def on_resize(self) -> None:
        self._apply_layout()

    def _fill(self, q: Question) -> None:
        by_pos = {o.position: o for o in q.options}
        self._set("stem", q.stem or "")
        for i in range(1, 5):
            o = by_pos.get(i)
            self._set(f"m1-{i}", o.mesra1 if o else "")
            self._set(f"m2-{i}", o.mesra2 if o else "")
            self._set(f"poet-{i}", (o.poet or "") if o else "")
        self._set("key", str(q.key) if q.key else "")
        status = self.query_one("#status", Select)
        if q.status not in ("draft", "ready"):  # curated / retired stay as they are
            status.set_options([("draft", "draft"), ("ready", "ready"), (q.status, q.status)])
        status.value = q.status
        self._set("category", q.category or "")
        self._set("source-name", q.source_name or "")
        self._set("source-id", q.source_id or "")
        self._set("tags", ", ".join(q.tags))
        self.query_one("#explanation", TextArea).load_text(q.explanation or "")

    def _set(self, field: str, value: str) -> None:
        self.query_one(f"#{field}", Input).value = value

    def _get(self, field: str) -> str:
        return self.query_one(f"#{field}", Input).value

    # ------------------------------------------------------------ form -> question

    def values(self) -> tuple[object, ...]:
        """Everything typed, raw (to tell unsaved changes)."""
        inputs = tuple(i.value for i in self.query(Input))
        return inputs + (self.query_one("#status", Select).value,
                         self.query_one("#explanation", TextArea).text)

    def question(self, status: QuestionStatus | None = None) -> Question:
        """The question as the form says (stored form: NFC, outer spaces trimmed)."""
        options = [Option(i, nfc(self._get(f"m1-{i}")), nfc(self._get(f"m2-{i}")),
                          nfc(self._get(f"poet-{i}")) or None) for i in range(1, 5)]
        base = self.original or Question(uid="", options=[])
        return dataclasses.replace(
            base, options=options, stem=nfc(self._get("stem")), key=parse_key(self._get("key")),
            status=status or cast(QuestionStatus, self.query_one("#status", Select).value),  # offers STATUSES
            explanation=nfc(self.query_one("#explanation", TextArea).text) or None,
            category=nfc(self._get("category")) or None,
            source_name=nfc(self._get("source-name")) or None,
            source_id=nfc(self._get("source-id")) or None,
            tags=parse_tags(self._get("tags")),
        )

    @property
    def dirty(self) -> bool:
        return self.values() != self._saved_values

    def unsaved_work(self) -> str | None:
        """What quitting would lose (the app asks before it does)."""
        if not self.is_mounted or not self.dirty:
            return None
        return f"the question editor's unsaved changes to {self.uid or 'a new question'}"

    # ------------------------------------------------------------ live updates

    @on(Input.Changed)
    @on(TextArea.Changed)
    @on(Select.Changed)
    def _changed(self) -> None:
        # preview and validation after the next paint (keys typed meanwhile share it);
        # the duplicate check once typing pauses
        if not self._update_pending:
            self._update_pending = True
            self.call_after_refresh(self._update)
        if self._dup_timer is not None:
            self._dup_timer.stop()
        self._dup_timer = self.set_timer(DUPLICATE_DELAY, self._check_duplicates)

    @on(Input.Submitted)
    def _next_field(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    def _update(self) -> None:
        self._update_pending = False
        q = self.question()
        self.problems = form_problems(q)
        shown = dataclasses.replace(q, uid=q.uid or "(new)")
        mode = self.mode
        self.query_one("#author-preview-view", LinesView).show(lambda w: detail_lines(shown, w, mode))
        self._show_messages()

    def _check_duplicates(self) -> None:
        self._dup_timer = None
        if self.index is not None and self.is_mounted:
            options = self.question().options
            shared: dict[int, set[str]] = {}  # one warning per couplet and question
            ids = self.store.questions.source_ids()
            self.warnings = (duplicate_warnings(self.index, options, self.uid, shared, ids)
                             + corpus_warnings(self.store, options, self.chosen, self.uid, shared, ids))
            self._show_messages()

    def _show_messages(self) -> None:
        note = self._note[1] if self._note and self._note[0] == self.values() else ""
        parts: list[tuple[str, str]] = []
        if self.problems:
            style = "$text-error" if self._tried else "$text-muted"
            head = "cannot save:" if self._tried else "to do before saving:"
            parts.append((head + "\n", f"bold {style}"))
            parts += [(f"  ✗ {p}\n", style) for p in self.problems]
        elif self.dirty or self.uid is None:
            parts.append(("✓ can be saved (unsaved changes)\n", "$text-success"))
        else:
            parts.append(("✓ no unsaved changes\n", "$text-success"))
        parts += [(f"⚠ {w}\n", "$text-warning") for w in self.warnings]
        if note:
            parts.append((note + "\n", "bold $text-warning"))
        content = Content.assemble(*parts).rstrip()
        if content != self._messages:  # Static.update costs a layout pass
            self._messages = content
            self.query_one("#author-messages", Static).update(content)

    def _update_header(self) -> None:
        if self.uid is None:
            text = f"new question · author {self.author}"
        else:
            revisions = self.store.curation.revisions(self.uid)
            last = revisions[-1] if revisions else None
            history = (f"{len(revisions)} revision(s), last by {last.author or '?'} at {last.created_at}"
                       if last else "no revisions")
            status = self.original.status if self.original else ""
            text = f"editing {self.uid} ({status}) · {history} · you: {self.author}"
        self.query_one("#author-header", Static).update(Content(text))

    # ------------------------------------------------------------ save and leave

    def action_save(self, status: QuestionStatus | None = None) -> None:
        """ctrl+s: save with the status in the form; ctrl+r: save as ready."""
        q = self.question(status)
        self.problems = form_problems(q)
        if self.problems:
            self._tried = True
            self._show_messages()
            self.notify("not saved: " + "; ".join(self.problems), severity="error", timeout=6)
            return
        self._check_duplicates()
        attempt = (self.values(), q.status)
        key = "ctrl+r" if status == "ready" else "ctrl+s"
        if self.warnings and self._confirmed != attempt:
            self._confirmed = attempt  # the same save once more goes ahead
            self._note = (attempt[0], f"press {key} again to save anyway")
            self._show_messages()
            self.notify(f"{self.warnings[0]}: press {key} again to save anyway", severity="warning", timeout=6)
            return
        self._store_edit(q, status, self.original)

    def _store_edit(self, q: Question, status: str | None, base: Question | None) -> None:
        """Save ``q``; an edit is merged with what others saved since ``base`` (the version
        this editor loaded): their changes to other fields are kept, a field both changed is
        chosen in the conflict dialog."""
        kept: list[str] = []
        who = self._last_author()  # before this save adds a revision of its own
        try:
            if self.uid is None:
                q = self.store.curation.create_question(q, self.author)
                self.uid = q.uid
                message = f"saved {q.uid}: new question ({q.status})"
            else:
                q, changes, kept = self.store.curation.save_edit(q, self.author, base)
                message = (f"saved {q.uid}: {', '.join(changes)}" if changes
                           else f"{q.uid}: nothing changed")
        except EditConflict as e:
            self._resolve(e, status)
            return
        except (ValueError, KeyError, StoreError) as e:
            self.notify(f"not saved: {e}", severity="error", timeout=8)
            return
        self._record_provenance(q)
        self.original = self.store.questions.get_question(self.uid)
        if self.original is not None and fields(self.original) != fields(self.question()):
            self._fill(self.original)  # the form shows what is saved: their values included
        if kept:
            message += f"; kept what {who} saved meanwhile: {', '.join(kept)}"
        if status:
            self.query_one("#status", Select).value = status
        self._tried = False
        self._confirmed = self._note = None
        self._saved_values = self.values()
        self._update_header()
        self._update()
        self.notify(message, timeout=6 if kept else 4)

    def _last_author(self) -> str:
        """Who saved the question last (an adjudication logs no revision: "someone")."""
        revisions = self.store.curation.revisions(self.uid) if self.uid else []
        name = revisions[-1].author if revisions else None
        return name if name and name != self.author else "someone"

    def _resolve(self, conflict: EditConflict, status: str | None) -> None:
        """Both changed some field: show both values per field; save the choices, merged again
        against the version stored now (a third save meanwhile is caught the same way)."""
        from ...models.merge import with_fields
        from ..dialogs.merge import THEIRS, MergeDialog

        def chosen(choices: dict[str, str] | None) -> None:
            if choices is None:
                self.notify("not saved: your edit is still in the form (Ctrl+S tries again)",
                            severity="warning", timeout=6)
                return
            theirs = {c.field: c.theirs for c in conflict.conflicts if choices.get(c.field) == THEIRS}
            self._store_edit(with_fields(conflict.merged, theirs), status, conflict.theirs)

        who = self._last_author()
        self.app.push_screen(MergeDialog(conflict.theirs.uid, who, conflict.conflicts, self.mode), chosen)

    def _record_provenance(self, q: Question) -> None:
        """Options inserted from the corpus (and unchanged since) link to that couplet."""
        for o in q.options:
            c = self.chosen.get(o.position)
            if c is not None and (c.mesra1, c.mesra2) == (o.mesra1, o.mesra2):
                self.store.links.choose_link(q.uid, o.position, c.poem, c.couplet)

    # ------------------------------------------------------------ corpus pane

    def _focused_option(self) -> int | None:
        wid = getattr(self.focused, "id", None) or ""
        head, _, tail = wid.rpartition("-")
        return int(tail) if head in ("m1", "m2", "poet") and tail in "1234" and tail else None

    def action_corpus(self) -> None:
        from .corpus import CorpusScreen

        pos = self._focused_option()
        seed = (self._get(f"m1-{pos}"), self._get(f"m2-{pos}")) if pos else None
        self.app.push_screen(CorpusScreen(self._insert_couplet, seed))

    def _insert_couplet(self, position: int, couplet: CorpusCouplet) -> bool:
        """One key in the corpus pane: the couplet's text and poet into option ``position``.
        Over text the author typed there, it asks first (False: asked, not placed yet)."""
        typed = [self._get(f"{f}-{position}").strip() for f in ("m1", "m2", "poet")]
        if not any(typed[:2]) or (typed[0], typed[1]) == (couplet.mesra1.strip(), couplet.mesra2.strip()):
            self._place(position, couplet)
            return True

        def answered(yes: bool | None) -> None:
            if yes:
                self._place(position, couplet)
                self.notify(f"option {position} ← {couplet.poem}#{couplet.couplet + 1} ({couplet.poet})",
                            timeout=3)

        shown = bidi.cut(" / ".join(t for t in typed[:2] if t), 240)  # logical: the dialog lays it out
        self.app.push_screen(ConfirmDialog(
            f"Option {position} holds text you typed:\n  {shown}\n"
            f"Replace it with {couplet.poem}#{couplet.couplet + 1} ({couplet.poet})?"), answered)
        return False

    def _place(self, position: int, couplet: CorpusCouplet) -> None:
        self._set(f"m1-{position}", couplet.mesra1)
        self._set(f"m2-{position}", couplet.mesra2)
        self._set(f"poet-{position}", couplet.poet)
        self.chosen[position] = couplet

    def action_leave(self) -> None:
        if not self.dirty:
            self.dismiss(self.uid)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(self.uid)

        self.app.push_screen(ConfirmDialog("Leave without saving? Your unsaved changes are lost."), answered)
