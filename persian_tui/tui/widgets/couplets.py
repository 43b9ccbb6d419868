"""The detail pane: a question's stem, its four couplets and its fields, laid out for
the pane's current width and the bidi mode (re-laid out on every resize)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from ...bidi import Mode
from ...display import clean
from ...models import Question
from ..render import Line, detail_lines, padded, plain


def line_content(line: Line) -> Content:
    """A laid-out line as Textual content: its label dimmed, its marked span styled, all cleaned."""
    parts: list[tuple[str, str]] = []
    if line.label:
        parts.append((padded(line.label) if line.text else line.label, "dim"))
    text = line.text
    if line.mark:
        a, b, style = line.mark
        parts += [(text[:a], line.style), (text[a:b], style), (text[b:], line.style)]
    else:
        parts.append((text, line.style))
    # laid-out text is normally clean already (bidi cleans); this covers every Line's label too
    return Content.assemble(*[(clean(t), st) for t, st in parts if t])


class QuestionView(Widget):
    """The laid-out question; height follows the number of lines at the current width."""

    DEFAULT_CSS = """
    QuestionView { height: auto; text-wrap: nowrap; text-overflow: clip; }
    """

    def __init__(self, mode: Mode, *, blind: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mode = mode
        self.blind = blind  # no key, no explanation (an annotator's view)
        self.question: Question | None = None
        self.recall: dict[int, tuple[int, int]] | None = None  # couplet -> (recalled, probed) models
        self._cache: tuple[tuple[int, Mode, int], list[Line]] | None = None

    def show(self, question: Question | None, mode: Mode | None = None,
             recall: dict[int, tuple[int, int]] | None = None) -> None:
        self.question, self.recall = question, recall
        if mode is not None:
            self.mode = mode
        self._cache = None
        self.refresh(layout=True)

    def layout_lines(self, width: int) -> list[Line]:
        key = (width, self.mode, id(self.question))
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, detail_lines(self.question, width, self.mode, blind=self.blind,
                                                 recall=self.recall))
        return self._cache[1]

    @property
    def text_lines(self) -> list[str]:
        """What the pane shows now, as plain strings (for tests and the bench)."""
        return plain(self.layout_lines(self.content_size.width))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.layout_lines(width))

    def render(self) -> Content:
        lines = self.layout_lines(self.content_size.width)
        return Content("\n").join(line_content(l) for l in lines)


class QuestionDetail(VerticalScroll):
    """Scrollable frame around a QuestionView."""

    def __init__(self, mode: Mode, *, blind: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = QuestionView(mode, blind=blind, id="question-view")

    def compose(self) -> ComposeResult:
        yield self.view

    def show(self, question: Question | None, mode: Mode | None = None,
             recall: dict[int, tuple[int, int]] | None = None) -> None:
        self.view.show(question, mode, recall)
        self.scroll_home(animate=False)

    def shows(self, uid: str, mode: Mode) -> bool:
        """Whether the pane already shows question ``uid`` in ``mode``."""
        q = self.view.question
        return q is not None and q.uid == uid and self.view.mode == mode
