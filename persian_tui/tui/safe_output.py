"""The TUI's last line of defence against control characters from data.

Widgets show text through ``display.clean`` (visible placeholders such as ␛); this line
filter runs on every rendered line of every widget (inputs, tables, notifications, ...)
and drops any raw control character that still got through, so nothing from data can
drive the terminal. Dropping, not replacing, keeps the laid-out width (controls are 0 cells).
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from ..display import RAW_CONTROL_RE, strip_raw


class DropControls(LineFilter):
    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(RAW_CONTROL_RE.search(s.text) for s in segments if not s.control):
            return segments
        return [s if s.control else Segment(strip_raw(s.text), s.style, s.control) for s in segments]


DROP_CONTROLS = DropControls()
