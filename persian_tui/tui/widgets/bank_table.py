"""The bank table: one row per question, keyed by uid.

Only the first ``PAGE`` matching rows are put in the table; more are appended when the
cursor or the scroll position gets near the end of what is loaded. Rendering a row (bidi
reordering, DataTable bookkeeping) costs ~0.1 ms, so refilling 10,000 rows on every
keystroke would take a second; a page keeps a keystroke well under 100 ms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.console import JustifyMethod
from rich.text import Text
from textual.coordinate import Coordinate
from textual.message import Message

from ...bidi import APP, Mode
from ...models import QuestionRow
from ..render import couplet_cell, fa, row_id
from .rows_table import RowsTable

PAGE = 100  # rows added at a time
NEAR_END = 10  # load the next page when the cursor is this close to the end
PADDING = 1  # cell padding on each side
SCROLLBAR = 1
STATUS_W, KEY_W, LABELS_W = 7, 3, 6
ID_MAX, CATEGORY_MAX, COUPLET_MIN = 16, 14, 12


class BankTable(RowsTable):
    """Questions of the bank; ``fill`` replaces the rows and keeps the cursor's question."""

    @dataclass
    class Loaded(Message):
        """Rows were added: ``loaded`` of ``total`` matching rows are in the table."""

        loaded: int
        total: int

    def __init__(self, *, blind: bool = False, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, cell_padding=PADDING, **kwargs)
        self.blind = blind  # no key column (an annotator's bank)
        self.all_uids: list[str] = []  # every matching question; the table holds a prefix
        self.uids: list[str] = []  # uids of the loaded rows, in table order
        self.fetch: Callable[[list[str]], list[QuestionRow]] = lambda uids: []
        self.mode = APP
        self.couplet_width = self.category_width = 0
        self._layout: tuple[int, int, int, Mode] | None = None

    def last_row(self) -> int:
        """End: every matching row loaded, the last one."""
        while self.loaded < len(self.all_uids) and self.load_more(len(self.all_uids)):
            pass
        return self.row_count - 1

    @property
    def loaded(self) -> int:
        return len(self.uids)

    def widths(self, sample: list[QuestionRow], total: int) -> tuple[int, int, int]:
        """(id, couplet, category) widths that fill ``total`` cells."""
        id_w = min(ID_MAX, max([2, *(cell_len(row_id(r)) for r in sample)]))
        cat_w = min(CATEGORY_MAX, max([8, *(cell_len(r.category or "") for r in sample)]))
        columns = 3 if self.blind else 6  # blind: no status, key or label count (access.Access.rows)
        fixed = id_w + cat_w + (0 if self.blind else STATUS_W + KEY_W + LABELS_W) + columns * 2 * PADDING + SCROLLBAR
        return id_w, max(COUPLET_MIN, total - fixed), cat_w

    def fill(self, uids: list[str], fetch: Callable[[list[str]], list[QuestionRow]],
             mode: Mode, total_width: int, select: str | None = None) -> None:
        """Show the questions ``uids`` (rows read a page at a time with ``fetch``);
        the cursor stays on its question, or goes to ``select`` when it is listed."""
        current = select if select in uids else self.current_uid
        position = uids.index(current) if current in uids else None
        self.fetch = fetch
        first = fetch(uids[:max(PAGE, (position or 0) + PAGE)])
        id_w, self.couplet_width, self.category_width = self.widths(first[:PAGE], total_width)
        layout = (id_w, self.couplet_width, self.category_width, mode)
        self.mode = mode
        if layout != self._layout:  # new columns only when their widths change
            self._layout = layout
            justify: JustifyMethod = "right" if mode.name == "app" else "left"
            self.clear(columns=True)
            self.add_column("id", width=id_w, key="id")
            self.add_column(Text("first couplet", justify=justify), width=self.couplet_width, key="couplet")
            self.add_column("category", width=self.category_width, key="category")
            if not self.blind:
                self.add_column("status", width=STATUS_W, key="status")
                self.add_column("key", width=KEY_W, key="key")
                self.add_column("labels", width=LABELS_W, key="labels")
        else:
            self.clear()
        self.all_uids = uids
        self.uids = []
        self._add(first)
        if position:
            self.move_cursor(row=position, animate=False, scroll=True)
        elif position == 0 and self.cursor_row:
            self.move_cursor(row=0, animate=False, scroll=True)

    def load_more(self, count: int = PAGE) -> int:
        """Append up to ``count`` of the rows not loaded yet; returns how many."""
        start = self.loaded
        return self._add(self.fetch(self.all_uids[start:start + count]))

    def _add(self, batch: list[QuestionRow]) -> int:
        justify: JustifyMethod = "right" if self.mode.name == "app" else "left"
        couplet_w, cat_w, mode = self.couplet_width, self.category_width, self.mode
        add_row = self.add_row
        for r in batch:
            cells = [
                Text(id_cell(r, self._layout[0] if self._layout else ID_MAX), no_wrap=True, overflow="ellipsis"),
                Text(couplet_cell(r.first_couplet, couplet_w, mode), justify=justify),
                Text(couplet_cell(r.category or "", cat_w, mode), justify=justify),
                *([] if self.blind else [Text(r.status), Text(fa(r.key), justify="center"),
                                         Text(str(r.labels) if r.labels else "", justify="right")]),
            ]
            add_row(*cells, key=r.uid)
        self.uids += [r.uid for r in batch]
        self.post_message(self.Loaded(self.loaded, len(self.all_uids)))
        return len(batch)

    def _cursor_near_end(self) -> None:
        if self.loaded < len(self.all_uids) and self.cursor_row >= self.loaded - NEAR_END:
            self.load_more()

    def _scrolled_near_end(self) -> None:
        if self.loaded < len(self.all_uids) and 0 < self.max_scroll_y <= self.scroll_y + NEAR_END:
            self.load_more()

    def watch_cursor_coordinate(self, old: Coordinate, new: Coordinate) -> None:
        super().watch_cursor_coordinate(old, new)
        if self.loaded and new.row >= self.loaded - NEAR_END:
            self.call_later(self._cursor_near_end)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if new > old:  # the user scrolled down (mouse wheel, scrollbar)
            self.call_later(self._scrolled_near_end)

    @property
    def current_uid(self) -> str | None:
        if not self.uids or not (0 <= self.cursor_row < len(self.uids)):
            return None
        return self.uids[self.cursor_row]


def id_cell(row: QuestionRow, width: int) -> str:
    """The id column's text in ``width`` cells: a long uid is cut ("…"), the book's number
    beside it never is (it is how a book's question is known)."""
    full = row_id(row)
    if cell_len(full) <= width or not row.source_id or row.source_id == row.uid:
        return full
    tail = f" ({row.source_id})"
    room = width - cell_len(tail)
    return row.uid[:room - 1] + "…" + tail if room >= 3 else full
