"""The evaluation report's charts (reports/figures.py): PNG drawn by matplotlib's Agg canvas at
a fixed size and dpi with the PNG metadata stripped (the same bytes for the same report)."""

from __future__ import annotations

import io

from .figures import Report

CHANCE = 0.25
DPI = 100
COLORS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52")  # positions 1..4


def _models(report: Report) -> dict[int, str]:
    return {row.run_id: row.model for row in report.leaderboard}


def _label(text: str, width: int = 38) -> str:
    from ..bidi import has_rtl, visual

    text = text if len(text) <= width else text[:width - 1] + "…"
    return visual(text, shape=True) if has_rtl(text) else text


def _png(fig) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None}, bbox_inches="tight", pad_inches=0.1)
    return buf.getvalue()


def _figure(width: float, height: float):
    from matplotlib.figure import Figure  # drawn on an Agg canvas (_png): no pyplot, no GUI

    return Figure(figsize=(width, height), dpi=DPI, layout="constrained")


def leaderboard_png(report: Report) -> bytes:
    """Horizontal bars of what the table ranks (accuracy on all answered), best on top, Wilson 95 %
    whiskers, the dashed chance line and the dotted majority-key baseline."""
    return _png(leaderboard_figure(report))


def leaderboard_figure(report: Report):
    """The leaderboard chart (``leaderboard_png``) as a matplotlib Figure."""
    rows = report.leaderboard
    fig = _figure(8.0, 1.4 + 0.32 * max(len(rows), 1))
    ax = fig.add_subplot()
    y = list(range(len(rows)))
    whole = report.ranked_by == "whole set"  # plot what the table ranks
    figures = [(r.whole_accuracy, r.whole_low, r.whole_high) if whole else
               (r.answered_accuracy, r.answered_low, r.answered_high) for r in rows]
    acc = [a or 0.0 for a, _, _ in figures]
    err = [[max(0.0, a - (lo if lo is not None else a)) for a, (_, lo, _) in zip(acc, figures)],
           [max(0.0, (hi if hi is not None else a) - a) for a, (_, _, hi) in zip(acc, figures)]]
    ax.barh(y, acc, color="#4c72b0", height=0.65)
    ax.errorbar(acc, y, xerr=err, fmt="none", ecolor="black", elinewidth=1, capsize=3)
    ax.axvline(CHANCE, color="#c44e52", linestyle="--", linewidth=1.2, label="chance (25 %)")
    b = report.baseline
    if b is not None and b.share is not None:
        ax.axvline(b.share, color="#8c613c", linestyle=":", linewidth=1.5,
                   label=f"always key {b.label} ({100 * b.share:.1f} %)")
    ax.set_yticks(y, [_label(f"{r.rank}. #{r.run_id} {r.model}") for r in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(lambda v, _: f"{100 * v:.0f} %")
    # two lines: long model names leave the bars little width, and a label wider than its axes
    # was cut at the picture's edge
    ax.set_xlabel("whole-set accuracy on the common scale\n(whiskers: 95 % prediction interval)" if whole else
                  "accuracy on every keyed question the run answered\n(whiskers: Wilson 95 %)")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return fig


def position_png(report: Report) -> bytes:
    """100 % stacked bars of the chosen positions per run, under the keys' distribution."""
    keys = [0, 0, 0, 0]
    for row in report.confusion.values():  # every run has the same keys: take the first
        keys = [sum(r) for r in row]
        break
    models = _models(report)
    rows = [("keys", keys)] + [
        (_label(f"#{p.run_id} {models.get(p.run_id, '')}")
         + ("" if p.p is None else "  (p < 0.0001)" if p.p < 1e-4 else f"  (p = {p.p:.4f})"), p.chosen)
        for p in report.position]
    fig = _figure(9.0, 1.6 + 0.32 * len(rows))
    ax = fig.add_subplot()
    left = [0.0] * len(rows)
    for pos in range(4):
        shares = [(c[pos] / sum(c)) if sum(c) else 0.0 for _, c in rows]
        ax.barh(range(len(rows)), shares, left=left, color=COLORS[pos], height=0.65, label=f"option {pos + 1}")
        left = [a + b for a, b in zip(left, shares)]
    ax.set_yticks(range(len(rows)), [name for name, _ in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(lambda v, _: f"{100 * v:.0f} %")
    ax.set_xlabel("share of valid answers by option position")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4, fontsize=8, frameon=False)
    return _png(fig)
