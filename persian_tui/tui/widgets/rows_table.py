"""The table every screen lists rows in: a row-cursor DataTable where Home and End move to the
first and the last row (Textual's own Home/End only scroll sideways)."""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable


class RowsTable(DataTable[Any]):
    """A DataTable whose Home/End go to the first/last row when its cursor is a row cursor."""

    def last_row(self) -> int:
        """The index of the last row (a table that loads by pages loads the rest first)."""
        return self.row_count - 1

    def action_scroll_home(self) -> None:
        if self.cursor_type != "row":
            return super().action_scroll_home()
        self._set_hover_cursor(False)
        if self.row_count:
            self.move_cursor(row=0, animate=False)

    def action_scroll_end(self) -> None:
        if self.cursor_type != "row":
            return super().action_scroll_end()
        self._set_hover_cursor(False)
        if self.row_count:
            self.move_cursor(row=self.last_row(), animate=False)
