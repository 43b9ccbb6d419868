"""What the report's tabs share: their base (``ReportTab``), cells, run names, the cursor kept
across a refill."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widget import Widget
from textual.widgets import DataTable, TabPane

from ... import display
from ..base import AppState
from .charts import short_model

if TYPE_CHECKING:
    from ...reports.figures import Report


def cut(text: str, width: int) -> str:
    text = display.line(text)  # model names and ids come from data
    return text if len(text) <= width else text[: width - 1] + "…"


def right(value: object) -> Text:
    return Text(str(value), justify="right", no_wrap=True)


@dataclass
class RunNames:
    """The report's runs: their models and leaderboard ranks (1 = best)."""

    models: dict[int, str] = field(default_factory=dict)
    ranks: dict[int, int] = field(default_factory=dict)

    def name(self, run_id: int, width: int = 22) -> str:
        return cut(f"{run_id} {short_model(self.models.get(run_id, '?'))}", width)

    def ranked(self) -> list[int]:
        return [r for r, _ in sorted(self.ranks.items(), key=lambda kv: kv[1])]


class ReportTab(AppState, TabPane):
    """One tab of the report screen: ``fill`` shows a new report (``report``: the one shown)."""

    report: Report | None = None

    def fill(self, report: Report, runs: RunNames) -> None:
        raise NotImplementedError


def theme_color(widget: Widget, name: str) -> str:
    """A theme colour for a Rich style (Rich does not know Textual's $variables)."""
    return widget.app.theme_variables.get(name, "green")


def cursor_key(table: DataTable[Any]) -> str | None:
    if not table.row_count:
        return None
    return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value


def restore_cursor(table: DataTable[Any], key: str | None) -> None:
    if key is None:
        return
    try:
        table.move_cursor(row=table.get_row_index(key), animate=False)
    except Exception:  # noqa: BLE001 -- that row is gone
        pass
