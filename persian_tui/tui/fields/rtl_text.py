"""Multi-line text that may mix Persian and English, laid out for the bidi mode.

Each logical line is wrapped on its own, then reordered (``bidi.block``): a line whose first
letter is right-to-left is right-aligned and reordered in "app" mode, a Latin line stays on the
left with its Persian runs reordered in place; "terminal" and "off" keep logical, unpadded text.
"""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from ... import bidi
from ...bidi import APP, Mode


def rtl_text_lines(text: str, width: int, mode: Mode) -> list[str]:
    """The display lines of ``text`` at ``width`` cells (``bidi.block``: wrapped, then reordered)."""
    return bidi.block(text, max(width, 1), mode)


class RtlText(Widget):
    """A block of text; its height follows the number of lines at the current width."""

    DEFAULT_CSS = """
    RtlText { height: auto; text-wrap: nowrap; text-overflow: clip; }
    """

    text: reactive[str] = reactive("", layout=True)  # a change lays the block out again
    mode: reactive[Mode] = reactive(APP, layout=True)

    def __init__(self, text: str = "", mode: Mode = APP, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.set_reactive(RtlText.text, text)
        self.set_reactive(RtlText.mode, mode)

    def set_text(self, text: str, mode: Mode | None = None) -> None:
        self.text = text
        if mode is not None:
            self.mode = mode

    def lines(self, width: int | None = None) -> list[str]:
        return rtl_text_lines(self.text, width or self.content_size.width or 80, self.mode)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Content:
        return Content("\n".join(self.lines()))
