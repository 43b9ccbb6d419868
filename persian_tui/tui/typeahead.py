"""Keys typed ahead land where they were typed, in order.

Textual routes each key to the widget focused when the app takes it from its queue, while what a
key does often happens several messages later: Enter in a field reaches the app's bindings after
bubbling up, the field's action posts ``Input.Submitted``, which bubbles up again to the form
that moves focus; ``n`` pushes a screen that focuses its first field once mounted. Keys taken
meanwhile went to the old field (``abcdefghij⏎xyz`` saved ``abcdefghijx`` and ``yz``).

So a key that may move focus (any key but a character typed into a text field) is held behind:
the keys after it wait until the app is quiet — every queue of the app, its screens and the top
screen's widgets empty, no callback pending (after a refresh included), the top screen mounted —
then go on, one by one, in the order typed. A character typed into a text field waits for
nothing (unless keys before it are held), so typing is not slowed.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.app import App
from textual.message_pump import MessagePump
from textual.widgets import Input, TextArea

from .compat import has_queued_work, screen_has_callbacks

HOLD_MAX = 30.0  # seconds: only a screen that is never quiet holds keys this long; a loaded machine
# took over 5 s to mount the editor, and the first letter typed ahead then went to the bank
UNHELD = ("ctrl+q", "ctrl+c")  # quitting is never queued behind anything


def types_text(event: events.Key, focused: object) -> bool:
    """A character into a text field: the field inserts it and nothing else happens."""
    if not event.is_printable:
        return False
    if isinstance(focused, Input):
        return True
    return isinstance(focused, TextArea) and not focused.read_only


def busy(pump: MessagePump) -> bool:
    """Messages or callbacks still to handle (Textual keeps no public count of either)."""
    return has_queued_work(pump)


def quiet(app: App[Any]) -> bool:
    """Nothing left to handle: a key's effects (focus moved, screen pushed) have all happened."""
    screen = app.screen
    if not screen.is_mounted or screen_has_callbacks(screen):
        return False
    pumps: list[MessagePump] = [app, *app.screen_stack, *screen.walk_children()]
    return not any(busy(p) for p in pumps)


class TypeAhead:
    """The app's key order. ``route`` is how the app routes an input event (Textual's own)."""

    def __init__(self, app: App[Any], route: Callable[[events.Event], Awaitable[None]]) -> None:
        self.app = app
        self.route = route
        self.held: deque[events.Event] | None = None  # None: no key in flight
        self.task: asyncio.Task[None] | None = None

    async def take(self, event: events.Event) -> bool:
        """Handle a key (or paste) from the terminal; False: not ours, the app handles it."""
        if isinstance(event, events.Paste):
            if event.is_forwarded or self.held is None:
                return False
            self.held.append(event)  # a paste after Enter goes to the next field too
            return True
        if not isinstance(event, events.Key) or event.is_forwarded or event.key in UNHELD:
            return False
        if self.held is not None:
            self.held.append(event)
            return True
        await self._send(event)
        return True

    async def _send(self, event: events.Event) -> None:
        """Route one event; after a key that may move focus, hold what follows."""
        holds = isinstance(event, events.Key) and not types_text(event, self.app.focused)
        await self.route(event)
        if holds:
            if self.held is None:
                self.held = deque()
            self.task = asyncio.create_task(self._wait())

    async def _wait(self) -> None:
        """Until the app is quiet three times in a row (a loop turn, then a few ms apart: a
        key's handler may be awaiting between two queues), or HOLD_MAX has passed."""
        deadline = time.monotonic() + HOLD_MAX
        calm = 0
        try:
            while calm < 3 and time.monotonic() < deadline:
                if quiet(self.app):
                    calm += 1
                    await asyncio.sleep(0 if calm < 2 else 0.002)
                else:
                    calm = 0
                    # queues drain within a turn or two; a pending repaint takes a frame
                    queued = any(busy(p) for p in (self.app, *self.app.screen.walk_children(with_self=True)))
                    await asyncio.sleep(0 if queued else 0.002)
        finally:  # whatever happened, the held keys go on
            self.app.call_later(self._release)

    def stop(self) -> None:
        """The app is closing: nothing more to wait for."""
        if self.task is not None:
            self.task.cancel()

    async def _release(self) -> None:
        """The held keys, in order, until one holds again."""
        self.task = None
        while self.held:
            await self._send(self.held.popleft())
            if self.task is not None:
                return
        self.held = None
