"""An Input that accepts the invisible characters Persian typing needs.

Textual's Input inserts only ``str.isprintable()`` characters, which drops ZWNJ
(U+200C, Shift+Space on Persian keyboards: نیم‌فاصله) and ZWJ. Its placeholder follows
the box's width, cut with "…" rather than silently.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.widgets import Input

from ...bidi import OFF, display_line

# by key name too: Textual's test pilot sends these keys without their character
JOINERS = {"zero_width_non_joiner": "\u200c", "zero_width_joiner": "\u200d"}


class FitInput(Input):
    """An Input whose placeholder fits the box, cut with "…" when the box is narrow."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.hint = self.placeholder  # the whole placeholder; the shown one fits the width

    def on_resize(self, event: events.Resize) -> None:
        if self.hint and event.size.width > 1:  # the cursor's cell kept free
            self.placeholder = display_line(self.hint, event.size.width - 1, OFF)


class PersianInput(FitInput):
    async def _on_key(self, event: events.Key) -> None:
        char = event.character if event.character in JOINERS.values() else JOINERS.get(event.key)
        if char:
            event.stop()
            event.prevent_default()
            selection = self.selection
            if selection.is_empty:
                self.insert_text_at_cursor(char)
            else:
                self.replace(char, *selection)
            return
        await super()._on_key(event)
