"""A question as an annotator sees it: the stem and the four numbered couplets only.

Blind by construction: the key, the explanation, category, poets, other people's
labels and model predictions are never laid out here.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll

from ... import bidi
from ...bidi import Mode
from ...models import Question
from ..render import Line, couplet_lines
from .couplets import QuestionView

DEFAULT_STEM = "کدام بیت از نظر معنا با سه بیت دیگر متفاوت است؟"


def blind_lines(q: Question | None, width: int, mode: Mode) -> list[Line]:
    """Stem, then each couplet (hemistich 1 over hemistich 2, numbered ۱–۴), pure."""
    width = max(width, 8)
    if q is None:
        return []
    out = [Line(t, "bold") for t in bidi.display_lines(q.stem or DEFAULT_STEM, width, mode)]
    for o in sorted(q.options, key=lambda o: o.position):
        out.append(Line(""))
        out += couplet_lines(o.position, o.mesra1, o.mesra2, width, mode)
    return out


class BlindQuestionView(QuestionView):
    def layout_lines(self, width: int) -> list[Line]:
        key = (width, self.mode, id(self.question))
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, blind_lines(self.question, width, self.mode))
        return self._cache[1]


class BlindQuestion(VerticalScroll):
    """Scrollable frame around a BlindQuestionView."""

    def __init__(self, mode: Mode, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = BlindQuestionView(mode, id="blind-view")

    def compose(self) -> ComposeResult:
        yield self.view

    def show(self, question: Question | None, mode: Mode | None = None) -> None:
        self.view.show(question, mode)
        self.scroll_home(animate=False)
