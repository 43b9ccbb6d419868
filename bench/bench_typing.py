"""Typing in the question editor: keystroke-to-screen latency for a 40-character hemistich.

Keys are posted to the app as the terminal driver posts them; a key's latency is the time from
its post to the first frame the app sends to the terminal (the frame's escape sequences are
built, as a terminal would be sent them) with the letter in the field. Three ways of typing:
  typist  one key, its frame, a pause (30 ms), the next key
  burst   all 40 keys at once (typed ahead while the app is busy): each key's post -> its frame
  enter   hemistich 1 typed, then Enter and hemistich 2 in one burst: Enter -> the whole second
          hemistich on screen in hemistich 2 (keys held behind Enter until focus has moved)
The baseline, measured in the same run: a bare Textual app holding one Input, typed the same way.
Run: python bench/bench_typing.py [ROUNDS]   (prints figures; asserts nothing)"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual import events  # noqa: E402
from textual._compositor import CompositorUpdate  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Input  # noqa: E402

from persian_tui.tui.app import PersianTUI  # noqa: E402

HEMISTICH = "چو حافظ در قناعت کوش و از دنیای دون بگذر"  # 40 characters (sample bank, Hafez)
SECOND = "که یک جو منت دونان دو صد من زر نمی ارزد"
SIZE = (120, 40)
PAUSE = 0.03  # the typist's pause after a key is on screen
TIMEOUT = 10.0


class Frames:
    """What each frame showed of the watched field: (time, its value)."""

    watched: Input | None = None

    def record(self, renderable) -> None:
        if isinstance(renderable, CompositorUpdate):
            renderable.render_segments(self.console)  # type: ignore[attr-defined]  # the terminal's bytes
        if self.watched is not None:
            self.frames.append((time.perf_counter(), self.watched.value))

    @property
    def frames(self) -> list[tuple[float, str]]:
        if "_frames" not in self.__dict__:
            self.__dict__["_frames"] = []
        return self.__dict__["_frames"]


class TimedEditor(Frames, PersianTUI):
    CSS_PATH = str(Path(sys.modules[PersianTUI.__module__].__file__).parent / "app.tcss")

    def _display(self, screen, renderable) -> None:
        super()._display(screen, renderable)
        self.record(renderable)


class Bare(Frames, App[None]):
    """The baseline: Textual's own Input, nothing else on screen."""

    def compose(self) -> ComposeResult:
        yield Input(id="field", compact=True)

    def _display(self, screen, renderable) -> None:
        super()._display(screen, renderable)
        self.record(renderable)


def post(app: App, text: str) -> list[float]:
    """Post each character as a key event; the time of each post."""
    times = []
    for ch in text:
        times.append(time.perf_counter())
        key = "enter" if ch == "\n" else "space" if ch == " " else ch
        app.post_message(events.Key(key, "\r" if ch == "\n" else ch))
    return times


async def shown(app: Frames, value: str, since: int = 0) -> float:
    """The time of the first frame (from index ``since``) whose field holds ``value``."""
    deadline = time.perf_counter() + TIMEOUT
    while time.perf_counter() < deadline:
        for t, v in app.frames[since:]:
            if v == value:
                return t
        await asyncio.sleep(0)
    raise TimeoutError(f"{value!r} never shown")


async def typist(app, field: Input, text: str) -> list[float]:
    app.watched = field
    out = []
    for i in range(len(text)):
        since = len(app.frames)
        (t0,) = post(app, text[i])
        out.append((await shown(app, text[: i + 1], since) - t0) * 1000)
        await asyncio.sleep(PAUSE)
    return out


async def burst(app, field: Input, text: str) -> list[float]:
    app.watched = field
    since = len(app.frames)
    posted = post(app, text)
    await shown(app, text, since)
    out = []
    for i, t0 in enumerate(posted):
        first = next(t for t, v in app.frames[since:] if len(v) > i and v.startswith(text[: i + 1]))
        out.append((first - t0) * 1000)
    return out


async def clear(app, field: Input) -> None:
    field.value = ""
    await asyncio.sleep(0.2)


async def editor_round(db: Path) -> dict[str, list[float]]:
    from persian_tui.tui.screens.author import AuthorScreen

    app = TimedEditor(db, "app", warm_up=False, db_label="bench.db")
    async with app.run_test(size=SIZE) as pilot:
        while app.bank is None or app.bank.loaded_at is None:  # noqa: ASYNC110 (polls the first paint)
            await asyncio.sleep(0.001)
        await app.push_screen(AuthorScreen("bench"))
        await pilot.pause(0.2)
        m1, m2 = app.screen.query_one("#m1-1", Input), app.screen.query_one("#m2-1", Input)
        m1.focus()
        await pilot.pause(0.2)
        out = {"typist": await typist(app, m1, HEMISTICH)}
        await clear(app, m1)
        out["burst"] = await burst(app, m1, HEMISTICH)
        await pilot.pause(0.5)  # the near-duplicate check once typing pauses
        app.watched = m2
        since = len(app.frames)
        t0 = post(app, "\n" + SECOND)[0]
        out["enter"] = [(await shown(app, SECOND, since) - t0) * 1000]
        assert (m1.value, m2.value) == (HEMISTICH, SECOND), (m1.value, m2.value)
    return out


async def bare_round() -> dict[str, list[float]]:
    app = Bare()
    async with app.run_test(size=SIZE) as pilot:
        field = app.query_one("#field", Input)
        field.focus()
        await pilot.pause(0.2)
        out = {"typist": await typist(app, field, HEMISTICH)}
        await clear(app, field)
        out["burst"] = await burst(app, field, HEMISTICH)
    return out


def figures(ms: list[float]) -> str:
    ms = sorted(ms)
    p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
    return f"median {median(ms):5.1f} ms, p90 {p90:5.1f}, max {ms[-1]:5.1f}"


def main(rounds: int = 3) -> None:
    from persian_tui.store import Store

    tmp = Path(tempfile.mkdtemp(prefix="ptui-typing-"))
    db = tmp / "bench.db"
    with Store(db):
        pass
    editor: dict[str, list[float]] = {"typist": [], "burst": [], "enter": []}
    bare: dict[str, list[float]] = {"typist": [], "burst": []}
    load = os.getloadavg()
    for _ in range(rounds):  # alternated: both see the same machine
        for k, v in asyncio.run(bare_round()).items():
            bare[k] += v
        for k, v in asyncio.run(editor_round(db)).items():
            editor[k] += v
    print(f"typing a {len(HEMISTICH)}-character hemistich, {rounds} round(s); load average "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores   [goal: under 50 ms]")
    for how in ("typist", "burst"):
        ratio = median(editor[how]) / max(median(bare[how]), 0.01)
        print(f"  {how:6}  editor (hemistich 1): {figures(editor[how])}")
        print(f"  {'':6}  baseline (bare Input): {figures(bare[how])}   editor/baseline {ratio:.2f}x")
    print(f"  enter   Enter + {len(SECOND)} keys in one burst -> hemistich 2 complete on screen: "
          f"{figures(editor['enter'])} (all keys in the right field)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
