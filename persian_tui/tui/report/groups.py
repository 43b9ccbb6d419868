"""Groups of runs that cannot be told apart, wrapped so that no run name is split."""

from __future__ import annotations

import textwrap

from rich.cells import cell_len
from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

INDENT = 5  # "  1. " before the first run of a group


def group_lines(title: str, groups: list[list[str]], width: int, labels: list[str] | None = None) -> list[str]:
    """The title, then one numbered (or labelled) paragraph per group; items are joined with ", "
    and a line breaks only between items (an item wider than the line gets a line of its own)."""
    width = max(width, INDENT + 8)
    out = textwrap.wrap(title, width) if title else []
    for number, items in enumerate(groups, 1):
        label = labels[number - 1] if labels and number <= len(labels) else str(number)
        line = f"  {label}.".ljust(INDENT)
        start = True
        for i, item in enumerate(items):
            piece = item + ("," if i < len(items) - 1 else "")
            if not start and cell_len(line) + 1 + cell_len(piece) > width:
                out.append(line)
                line = " " * INDENT
                start = True
            line += piece if start else " " + piece
            start = False
        out.append(line)
    return out


class RunGroups(Widget):
    """A title and numbered groups of run names; height follows the wrapped lines."""

    DEFAULT_CSS = """
    RunGroups { height: auto; text-wrap: nowrap; text-overflow: clip; }
    """

    # what is shown: a change lays the widget out again
    title: reactive[str] = reactive("", layout=True)
    groups: reactive[list[list[str]]] = reactive(list, layout=True)
    labels: reactive[list[str] | None] = reactive(None, layout=True)

    def show(self, title: str, groups: list[list[str]], labels: list[str] | None = None) -> None:
        self.title = title
        self.groups = [list(g) for g in groups]
        self.labels = labels

    def lines(self, width: int) -> list[str]:
        return group_lines(self.title, self.groups, width, self.labels)

    @property
    def text(self) -> str:
        return "\n".join(self.lines(self.content_size.width or 80))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Content:
        lines = self.lines(self.content_size.width)
        if not lines:
            return Content("")
        n_title = len(textwrap.wrap(self.title, max(self.content_size.width, INDENT + 8))) if self.title else 0
        parts = [Content.styled(line, "$text-muted") if i < n_title else Content(line)
                 for i, line in enumerate(lines)]
        return Content("\n").join(parts)
