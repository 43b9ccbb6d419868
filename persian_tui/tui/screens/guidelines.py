"""The labelling guidelines: shown from the label screen (g), editable (e), kept in the DB."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from ...models.limits import limit
from ...store import Store
from ..base import AppState
from ..dialogs.common import ConfirmDialog
from ..fields.persian_textarea import PersianTextArea
from ..fields.rtl_text import RtlText
from ..guard import Guarded, access, refused
from ..keys import Key, bindings, help_key

SETTING = "guidelines"

DEFAULT_GUIDELINES = """\
راهنمای برچسب‌گذاری: قرابت معنایی
Labelling guidelines: the couplet that differs in meaning

۱. هر چهار بیت را کامل بخوانید. سه بیت در معنا با هم قرابت دارند و یک بیت متفاوت است؛ شمارهٔ آن بیت را بزنید.
1. Read all four couplets. Three share one meaning; press the number of the one that differs (1-4 or ۱-۴).

۲. معنا و مفهوم را بسنجید، نه واژه‌های مشترک، قافیه، تصویر یا نام شاعر را.
2. Judge the meaning, not shared words, rhyme, imagery or the poet.

۳. اگر مطمئن نیستید، بهترین حدس خود را بزنید و اطمینان را کم بگذارید؛ اگر کاملاً مطمئن هستید، رقم را با Shift بزنید.
3. Unsure? Give your best guess and set the confidence with c. Shift+digit (! @ # $) answers with high confidence.

۴. پرسش معیوب را گزارش کنید: دو پاسخ درست، بی‌پاسخ، بیت تکراری، متن نادرست.
4. Flag a defective item (f) with a reason: two defensible answers, no outlier, a repeated couplet, broken text.

۵. اگر نمی‌توانید داوری کنید، رد شوید؛ تصادفی حدس نزنید.
5. Skip (s) what you cannot judge; never guess at random.

۶. پاسخ‌نامه، منابع و مدل‌های زبانی را نگاه نکنید. برای توضیح کوتاه یادداشت بگذارید.
6. Do not look up the key, the sources or a language model. A note (n) keeps a short remark with your answer.

۷. اشتباه کردید؟ با u پاسخ قبلی پس گرفته می‌شود و همان پرسش دوباره می‌آید.
7. A mistake? u takes back your last answer and shows that question again.
"""


def guidelines_text(store: Store) -> str:
    """The guidelines stored in the database, or the default ones."""
    text = store.labels.get_setting(SETTING)
    return text if text and text.strip() else DEFAULT_GUIDELINES


class GuidelinesScreen(AppState, Guarded, ModalScreen[None]):
    """Read mode: Escape or q closes, e edits, ? lists the keys. Edit mode: Ctrl+S saves, Escape cancels."""

    KEYS_TITLE = "guidelines"
    KEY_TABLE = (
        Key("escape,q", "close", "Close", "close (while editing: drop the changes, asked first)", palette="Close"),
        Key("e", "edit", "Edit", "edit the guidelines", palette="Edit guidelines"),
        Key("ctrl+s", "save", "Save", "save the edited guidelines", priority=True, palette="Save"),
        help_key(),
    )
    BINDINGS = bindings(KEY_TABLE)
    ACTS = {"edit": "author", "save": "author"}

    def __init__(self) -> None:
        super().__init__()
        self.editing = False

    def compose(self) -> ComposeResult:
        text = guidelines_text(self.store)
        with Vertical(id="guide-box"):
            yield Static(Content.assemble(("Guidelines", "bold"),
                                         ("  (kept in the database, shared by all annotators)", "dim")),
                         id="guide-title")
            with VerticalScroll(id="guide-scroll"):
                yield RtlText(text, self.mode, id="guide-text")
            editor = PersianTextArea(text, id="guide-editor", soft_wrap=True)
            editor.max_length = limit("setting")
            yield editor
            with VerticalScroll(id="guide-preview-scroll"):
                yield RtlText(text, self.mode, id="guide-preview")
            yield Static(id="guide-hint")

    def on_mount(self) -> None:
        self._set_editing(False)

    def _set_editing(self, editing: bool) -> None:
        self.editing = editing
        self.query_one("#guide-scroll").display = not editing
        self.query_one("#guide-editor").display = editing
        # the preview shows the display order (app mode); a bidi terminal shows the editor as is
        self.query_one("#guide-preview-scroll").display = editing and self.mode.name == "app"
        hint = ("editing (the preview below: as annotators will read it) · "
                "Ctrl+S saves · Escape cancels" if editing else
                f"{'e edits · ' if access(self).may('author') else ''}Escape or q closes · ? keys")
        self.query_one("#guide-hint", Static).update(hint)
        if editing:
            self.query_one("#guide-editor", TextArea).focus()
        else:
            self.query_one("#guide-scroll").focus()

    @on(TextArea.Changed, "#guide-editor")
    def _changed(self, event: TextArea.Changed) -> None:
        self.query_one("#guide-preview", RtlText).set_text(event.text_area.text)

    def unsaved_work(self) -> str | None:
        """What quitting would lose: the guidelines being edited, changed."""
        if not self.editing:
            return None
        changed = self.query_one("#guide-editor", TextArea).text != self.query_one("#guide-text", RtlText).text
        return "the guidelines being edited" if changed else None

    def action_edit(self) -> None:
        if refused(self, "author"):
            return
        if not self.editing:
            self._set_editing(True)

    def action_save(self) -> None:
        if not self.editing or refused(self, "author"):
            return
        text = self.query_one("#guide-editor", TextArea).text
        if not text.strip():
            self.notify("the guidelines are empty: not saved", severity="warning", timeout=3)
            return
        try:
            self.store.labels.set_setting(SETTING, text)
        except ValueError as e:  # a control character pasted in: one line, the edit stays
            self.notify(f"not saved: {e}", severity="warning", timeout=5)
            return
        self.query_one("#guide-text", RtlText).set_text(text)
        self._set_editing(False)
        self.notify("guidelines saved", timeout=2)

    def action_close(self) -> None:
        if not self.editing:
            self.dismiss(None)
        elif not self.unsaved_work():  # nothing typed: leave edit mode at once
            self._set_editing(False)
        else:  # Escape with changes: asked, as the question editor asks

            def answered(yes: bool | None) -> None:
                if yes:
                    self._drop_edit()

            self.app.push_screen(ConfirmDialog("Drop your changes to the guidelines?"), answered)

    def _drop_edit(self) -> None:
        self.query_one("#guide-editor", TextArea).text = self.query_one("#guide-text", RtlText).text
        self._set_editing(False)
        self.notify("edit cancelled", timeout=2)
