"""The footer of every screen: its keys on one line (or a few), cut with "…" when the terminal is too
narrow (Textual's Footer cuts mid-word without a sign). The help and quit keys stay at the
end, so a narrow terminal still shows where the other keys are listed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from textual import events
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from ...display import line
from ..guard import allowed

KEEP = ("question_mark", "escape", "q")  # keys kept when others must be left out: help, back, quit
GAP = "  "
MORE = "…"


@dataclass(frozen=True)
class KeyItem:
    key: str  # as shown, e.g. "/" or "esc"
    description: str
    action: str
    keep: bool = False  # shown even when others are left out


ELLIPSIS_ITEM = KeyItem(MORE, "", "", keep=True)


def item_cells(item: KeyItem) -> int:
    return cell_len(f"{item.key} {item.description}".strip())


def _lines(items: list[KeyItem], width: int) -> list[list[KeyItem]]:
    """Greedy: items on lines of ``width`` cells, GAP between items."""
    lines: list[list[KeyItem]] = [[]]
    used = 0
    for item in items:
        cells = item_cells(item)
        need = cells + (cell_len(GAP) if lines[-1] else 0)
        if lines[-1] and used + need > width:
            lines.append([])
            used, need = 0, cells
        lines[-1].append(item)
        used += need
    return lines


def fit_keys(items: list[KeyItem], width: int, rows: int = 1,
             tail: str = "") -> tuple[list[list[KeyItem]], bool, bool]:
    """The items laid out on at most ``rows`` lines of ``width`` cells (the padding
    excluded; pure): (lines, some left out, tail shown). Items are left out from the end,
    except the kept ones (help, back, quit), which stay last after one "…" marking the
    left-out ones. The tail (the palette key) goes on the last line when there is room."""
    width = max(width, 1)
    lines = _lines(items, width)
    if len(lines) <= rows:
        last = sum(item_cells(i) for i in lines[-1]) + cell_len(GAP) * max(len(lines[-1]) - 1, 0)
        return lines, False, bool(tail) and last + cell_len(GAP + tail) <= width
    kept = [i for i in items if i.keep]
    others = [i for i in items if not i.keep]
    while others and len(_lines(others + [ELLIPSIS_ITEM] + kept, width)) > rows:
        others.pop()
    return _lines(others + [ELLIPSIS_ITEM] + kept, width)[:rows], True, False


class KeyBar(Static):
    """The screen's keys (bindings with show=True, in order) on up to ``rows`` lines; a key
    is clicked like a footer key. ``palette=False`` leaves out the command palette's key."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        width: 1fr;
        background: $footer-background;
        color: $footer-description-foreground;
        padding: 0 1;
    }
    """

    def __init__(self, *, palette: bool = True, rows: int = 1, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.palette = palette
        self.rows = rows
        self._spans: list[tuple[int, int, int, str]] = []  # (line, start, end, action)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.call_after_refresh(self.refresh_keys)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def on_resize(self, _event: events.Resize) -> None:
        self.refresh_keys()

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self.refresh_keys)

    def items(self) -> list[KeyItem]:
        out: list[KeyItem] = []
        seen: set[str] = set()
        for node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if not binding.show or not enabled or binding.action in seen or not allowed(node, binding.action):
                continue  # a key the role does not allow is not offered (it refuses if pressed)
            seen.add(binding.action)
            keep = any(k.strip() in KEEP for k in binding.key.split(","))
            out.append(KeyItem(self.app.get_key_display(binding), line(binding.description), binding.action, keep))
        return out

    def refresh_keys(self) -> None:
        if not self.is_attached:
            return
        tail = ""
        palette = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        if self.palette and self.app.ENABLE_COMMAND_PALETTE and palette is not None:
            tail = f"{self.app.get_key_display(palette[1])} palette"
        width = self.size.width or max(self.app.size.width - 2, 1)
        lines, _more, with_tail = fit_keys(self.items(), width, self.rows, tail)
        self.styles.height = len(lines)
        self._spans = []
        out: list[Content] = []
        for y, items in enumerate(lines):
            parts: list[tuple[str, str] | str] = []
            x = 0
            for n, item in enumerate(items):
                if n:
                    parts.append(GAP)
                    x += cell_len(GAP)
                if item is ELLIPSIS_ITEM:
                    parts.append(MORE)
                else:
                    parts += [(item.key, "bold $footer-key-foreground"), " " + item.description]
                    self._spans.append((y, x, x + item_cells(item), item.action))
                x += item_cells(item)
            if with_tail and y == len(lines) - 1:
                parts += [" " * (width - x - cell_len(tail)), (tail, "$footer-key-foreground")]
            out.append(Content.assemble(*parts))
        self.update(Content("\n").join(out))

    async def on_click(self, event: events.Click) -> None:
        x = event.x - 1  # the left padding
        for y, start, end, action in self._spans:
            if y == event.y and start <= x < end:
                await self.screen.run_action(action)
                return
