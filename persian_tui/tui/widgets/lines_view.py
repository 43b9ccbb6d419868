"""A widget showing laid-out ``render.Line``s; the layout function gets the width, so
RTL text is wrapped and reordered for the widget's current size."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from ..render import Line, plain
from .couplets import line_content

Layout = Callable[[int], "list[Line]"]


class LinesView(Widget):
    DEFAULT_CSS = """
    LinesView { height: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, layout: Layout | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._layout: Layout = layout or (lambda width: [])
        self._cache: tuple[int, list[Line]] | None = None

    def show(self, layout: Layout) -> None:
        old, self._cache = self._cache, None
        self._layout = layout
        width = self.content_size.width
        # same number of lines: a repaint will do (a layout pass of the screen costs more)
        same = old is not None and old[0] == width and len(self.layout_lines(width)) == len(old[1])
        self.refresh(layout=not same)

    def layout_lines(self, width: int) -> list[Line]:
        if self._cache is None or self._cache[0] != width:
            self._cache = (width, self._layout(max(width, 8)))
        return self._cache[1]

    @property
    def text_lines(self) -> list[str]:
        """What the view shows now, as plain strings (for tests)."""
        return plain(self.layout_lines(self.content_size.width))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.layout_lines(width))

    def render(self) -> Content:
        return Content("\n").join(line_content(l) for l in self.layout_lines(self.content_size.width))
