"""The form of one error category (new or edited): name, Persian and English labels and
descriptions, an example. Every field is a ``PersianInput``: Persian typed as it is read."""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from ...models import ErrorCategory
from ...models.limits import limit
from ...text import nfc
from ..base import AppState
from ..fields.persian_input import PersianInput
from ..keys import Key, bindings, help_key
from .common import drop_asking

NAME = re.compile(r"^[A-Za-z0-9_]+$")
# field, label, Persian?, required
FIELDS = [("name", "name (a-z, 0-9, _)", False, True),
          ("label_fa", "Persian label", True, True),
          ("label_en", "English label", False, True),
          ("description_fa", "Persian description", True, False),
          ("description_en", "English description", False, False),
          ("example", "example", True, False)]


def problems(values: dict[str, str], *, new: bool, existing: set[str]) -> list[str]:
    out = []
    name = values["name"]
    if not NAME.match(name):
        out.append("the name takes letters, digits and _ only (e.g. meter_confusion)")
    elif new and name in existing:
        out.append(f"{name} exists already: press e on it to edit it")
    out += [f"the {label} is required" for field, label, _, required in FIELDS
            if required and field != "name" and not values[field]]
    return out


class CategoryForm(AppState, ModalScreen["ErrorCategory | None"]):
    """Enter moves to the next field and saves on the last; Ctrl+S saves; Escape cancels."""

    DEFAULT_CSS = """
    CategoryForm { align: center top; }  /* it does not move as its content changes */
    CategoryForm > Vertical {
        width: 90; max-width: 95%; height: auto; max-height: 95%; margin: 1 0 0 0;
        border: round $accent; background: $surface; padding: 1 2;
    }
    CategoryForm #form-title { text-style: bold; }
    CategoryForm .form-row { height: 1; margin: 1 0 0 0; }
    CategoryForm .form-row Label { width: 22; color: $text-muted; }
    CategoryForm .form-row Input { width: 1fr; height: 1; border: none; padding: 0 1; }
    CategoryForm .form-row Input:focus { background: $boost; }
    CategoryForm #form-error { color: $text-error; height: 2; }  /* kept free: errors move no field */
    CategoryForm .dialog-hint { color: $text-muted; margin: 1 0 0 0; }
    """
    KEYS_TITLE = "error category"
    KEY_TABLE = (
        Key("escape", "cancel", "Cancel", "cancel", palette="Cancel"),
        Key("ctrl+s", "save", "Save", "save the category", palette="Save"),
        help_key("f1"),
    )
    BINDINGS = bindings(KEY_TABLE)

    def __init__(self, category: ErrorCategory | None, existing: set[str]) -> None:
        super().__init__()
        self.category = category
        self.existing = existing

    def compose(self) -> ComposeResult:
        c = self.category
        title = f"Edit error category {c.name}" if c else "New error category"
        with Vertical():
            yield Static(title, id="form-title", markup=False)
            for field, label, _, _ in FIELDS:
                value = getattr(c, field) if c else ""
                with Horizontal(classes="form-row"):
                    yield Label(label)
                    yield PersianInput(value, id=f"f-{field}", disabled=bool(c) and field == "name",
                                       max_length=limit("taxonomy_text" if field.startswith(("description", "example"))
                                                        else "taxonomy_name"))
            yield Static("", id="form-error")
            yield Static("Enter: next field (saves on the last)   Ctrl+S: save   Escape: cancel",
                         classes="dialog-hint")

    def on_mount(self) -> None:
        self._loaded = self.values()
        first = "f-label_fa" if self.category else "f-name"
        self.query_one(f"#{first}", Input).focus()
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        inputs = [i for i in self.query(Input) if not i.disabled]
        index = inputs.index(event.input) if event.input in inputs else len(inputs) - 1
        if index < len(inputs) - 1:
            inputs[index + 1].focus()
        else:
            self.action_save()

    def unsaved_work(self) -> str | None:
        """What quitting would lose: the fields typed here."""
        loaded = getattr(self, "_loaded", None)
        return "the error category form's fields" if loaded is not None and self.values() != loaded else None

    def values(self) -> dict[str, str]:
        return {field: nfc(self.query_one(f"#f-{field}", Input).value) for field, *_ in FIELDS}

    def action_save(self) -> None:
        values = self.values()
        found = problems(values, new=self.category is None, existing=self.existing)
        if found:
            self.query_one("#form-error", Static).update("; ".join(found))
            return
        self.dismiss(ErrorCategory(**values))

    def action_cancel(self) -> None:
        drop_asking(self, self.unsaved_work(), lambda: self.dismiss(None))
