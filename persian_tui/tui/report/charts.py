"""The report's charts (textual-plotext): the leaderboard's accuracy bars with their
95 % interval whiskers, the chance line and the majority-key baseline, and a run's
position-bias bars.

Each chart keeps plain data and redraws the whole figure at the widget's current size, so
the tick labels can follow the width and the same data always gives the same picture."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from textual.app import RenderResult
from textual_plotext import PlotextPlot

CHANCE = 25.0  # % correct by guessing one of four options
BAR = "blue+"
WHISKER = "orange+"
LINE = "gray"
BASELINE = "red"
Y_TICKS: list[float] = [0, 25, 50, 75, 100]


@dataclass(frozen=True)
class Bar:
    """One run on the chart: accuracy and its interval, in %."""

    rank: int
    label: str
    value: float
    low: float | None
    high: float | None


def short_model(model: str) -> str:
    """'google/gemma-3-27b-it' -> 'gemma-3-27b-it' (the provider prefix is noise on a chart)."""
    return model.rsplit("/", 1)[-1] or model


def tick_labels(bars: list[Bar], width: int) -> list[str]:
    """The bars' names when they all fit under their bars, else their ranks (as in the table)."""
    if not bars:
        return []
    room = (width - 8) // len(bars) - 1  # 8 cells of y axis; one cell between labels
    names = [b.label for b in bars]
    if all(cell_len(n) <= room for n in names):
        return names
    return [str(b.rank) for b in bars]


class LeaderChart(PlotextPlot):
    """Accuracy per run (bars) with interval whiskers, the 25 % chance line and the
    majority-key baseline (always answering the most common key), in %."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bars: list[Bar] = []
        self.interval_name = "Wilson 95 %"
        self.baseline: float | None = None

    def show(self, bars: list[Bar], interval_name: str = "Wilson 95 %", baseline: float | None = None) -> None:
        self.bars = list(bars)
        self.interval_name = interval_name
        self.baseline = baseline
        self.refresh()

    def _draw(self, width: int) -> None:
        plt = self.plt
        plt.clear_figure()
        bars = self.bars
        if not bars:
            plt.title("no runs to chart")
            return
        x: list[float] = list(range(1, len(bars) + 1))
        plt.bar(x, [b.value for b in bars], width=0.5, color=BAR, marker="▒")
        for xi, b in zip(x, bars):
            if b.low is not None and b.high is not None:
                plt.plot([xi, xi], [b.low, b.high], color=WHISKER, marker="┃")
        plt.scatter(x, [b.value for b in bars], color=WHISKER, marker="◆")
        plt.hline(CHANCE, color=LINE)
        if self.baseline is not None:
            plt.hline(self.baseline, color=BASELINE)
        plt.ylim(0, 100)
        plt.yticks(Y_TICKS, [f"{t}%" for t in Y_TICKS])
        plt.xlim(0.4, len(bars) + 0.6)
        plt.xticks(x, tick_labels(bars, width))
        base = "" if self.baseline is None else f", majority key {self.baseline:.1f} % ──"
        plt.title(f"accuracy ◆ with {self.interval_name} ┃, chance 25 % ──{base}")

    def render(self) -> RenderResult:
        self._draw(self.size.width)
        return super().render()


class PositionChart(PlotextPlot):
    """How often a run chose each position, beside how often each position is the key."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chosen: list[int] = []
        self.keys: list[int] = []
        self.caption = ""

    def show(self, chosen: list[int], keys: list[int], caption: str = "") -> None:
        self.chosen, self.keys, self.caption = list(chosen), list(keys), caption
        self.refresh()

    def _draw(self) -> None:
        plt = self.plt
        plt.clear_figure()
        if not self.chosen and not self.keys:
            plt.title("no run selected")
            return
        positions = [str(i) for i in range(1, len(self.chosen or self.keys) + 1)]
        # textual-plotext's stub is wrong here: plotext's multiple_bar takes labels=, and a
        # colour and a marker per series
        plt.multiple_bar(positions, [self.chosen, self.keys], labels=["chosen", "key"],  # type: ignore[call-arg]
                         color=[BAR, WHISKER], marker=["▒", "█"], width=0.8)  # type: ignore[arg-type]
        top = max([*self.chosen, *self.keys, 1]) * 1.3  # room for the legend
        step = max(1, math.ceil(top / 5))
        plt.ylim(0, top)
        ticks: list[float] = list(range(0, int(top) + 1, step))
        plt.yticks(ticks)
        plt.title(self.caption)
        plt.xlabel("position")

    def render(self) -> RenderResult:
        self._draw()
        return super().render()
