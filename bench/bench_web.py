"""`persian-tui web` in headless Chromium: time from page load to the first question ready to
label, memory per signed-in annotator, and N annotators labelling at once with no label lost.

Baseline, measured in the same run: plain textual-serve serving the same app command (no
sign-in, no allow-listed environment), so the ratio is what persian-tui's wrapping costs.
Run: python bench/bench_web.py [--annotators 20] [--labels 3] [--screenshot PNG]
(prints figures; asserts only that no label was lost). Needs the web extra, playwright, pyte
and Debian's chromium (see tests/web)."""

from __future__ import annotations

import argparse
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from web_helpers import CHROMIUM, Screen, Served, cli, sign_in, why_no_browser  # noqa: E402

from persian_tui.passwords import hash_password  # noqa: E402
from persian_tui.store import Store  # noqa: E402

VIEW = {"width": 1200, "height": 800}
SIGN_IN_TO_READY: list[float] = []  # persian-tui web only: from the sign-in POST


def rss_mb(pid: int) -> float:
    """A process's resident memory (0 when it has just ended)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0.0
    return next((int(line.split()[1]) / 1024 for line in lines if line.startswith("VmRSS:")), 0.0)


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry.name))
            except OSError:
                pass
    return out


def descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (textual-serve runs its app through a shell)."""
    out = children(pid)
    for child in list(out):
        out += descendants(child)
    return out


def make_db(folder: Path, annotators: int) -> tuple[Path, list[str]]:
    db = folder / "bench.db"
    cli(db, "sample", user=None)
    names = [f"a{i:02d}" for i in range(1, annotators + 1)]
    with Store(db) as store:
        store.labels.set_setting("label_target", "5")  # 16 questions x 5 labels: work for 20 x 3 labels
        store.users.add("boss", "admin")
        store.users.set_password("boss", hash_password("boss password 1"))
        for name in names:
            store.users.add(name, "annotator")
            store.users.set_password(name, hash_password(f"{name} password!"))
    return db, names


def first_question(browser, url: str, name: str | None, password: str | None) -> tuple[float, float, int, object]:
    """Seconds from page load to the first question ready to label, KB received by then, the
    app's RSS in MB, and the context (still open)."""
    context = browser.new_context(viewport=VIEW)
    page = context.new_page()
    screen = Screen(page)
    signed = time.perf_counter()
    if name:  # signed in as a person does, then the page (the app is pre-started at sign-in)
        done = context.request.post(url + "/login", form={"name": name, "password": password or ""},
                                    headers={"Origin": url}, max_redirects=0)
        assert done.status == 302, done.status
    start = time.perf_counter()
    page.goto(url + "/")
    screen.wait_for("labelling as", timeout=120)
    now = time.perf_counter()
    SIGN_IN_TO_READY.append(now - signed)
    return now - start, screen.received / 1024, 0, (context, page, screen)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def plain_textual_serve(db: Path, name: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    command = f"{sys.executable} -m persian_tui.cli --db {db} tui --bidi app --no-sample --annotator {name}"
    code = (f"from textual_serve.server import Server; Server({command!r}, host='127.0.0.1', port={port})"
            ".serve()")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    return proc, url


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--annotators", type=int, default=20)
    p.add_argument("--labels", type=int, default=3, help="labels each annotator gives (default 3)")
    p.add_argument("--rounds", type=int, default=3, help="first-question timings per server (default 3)")
    p.add_argument("--screenshot", metavar="PNG", help="save the labelling screen here")
    args = p.parse_args()
    if (why := why_no_browser()) is not None:
        print(f"bench_web: {why}")
        return 1
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp())
    db, names = make_db(folder, args.annotators)
    served = Served(db, "--max-sessions", str(max(args.annotators, 2)))
    plain, plain_url = plain_textual_serve(db, names[0])
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM)
            ours, base, ours_rss, base_rss = [], [], [], []
            for _ in range(args.rounds):  # alternate, so both see the same load
                s, kb, _, (context, page, _screen) = first_question(browser, served.url, names[0],
                                                                   f"{names[0]} password!")
                ours.append(s)
                ours_rss += [rss_mb(pid) for pid in served.children()]
                if args.screenshot and len(ours) == 1:
                    page.screenshot(path=args.screenshot)
                context.close()
                s, base_kb, _, (context, _page, _screen) = first_question(browser, plain_url, None, None)
                base.append(s)
                base_rss += [rss_mb(pid) for pid in descendants(plain.pid)]
                context.close()
            time.sleep(2)
            server_rss = rss_mb(served.process.pid)
            print(f"first question ready after page load, persian-tui web: "
                  f"{', '.join(f'{s:.2f}' for s in ours)} s (median {sorted(ours)[len(ours) // 2]:.2f}); "
                  f"plain textual-serve: {', '.join(f'{s:.2f}' for s in base)} s "
                  f"(median {sorted(base)[len(base) // 2]:.2f}); ratio of medians "
                  f"{sorted(ours)[len(ours) // 2] / sorted(base)[len(base) // 2]:.2f}")
            ours_total = SIGN_IN_TO_READY[::2]
            print(f"from the sign-in POST to the first question, persian-tui web: "
                  f"{', '.join(f'{s:.2f}' for s in ours_total)} s "
                  f"(median {sorted(ours_total)[len(ours_total) // 2]:.2f})")
            print(f"received by then: {kb:.0f} KB (plain {base_kb:.0f} KB)")
            print(f"app RSS on the labelling screen: {max(ours_rss):.0f} MB (plain textual-serve's app: "
                  f"{max(base_rss):.0f} MB); the server: {server_rss:.0f} MB")

            # N annotators at once
            start = time.perf_counter()
            tabs = []
            for name in names:
                context = browser.new_context(viewport=VIEW)
                page = context.new_page()
                screen = Screen(page)
                sign_in(page, served.url, name, f"{name} password!")
                tabs.append((name, context, screen))
            for name, _, screen in tabs:
                screen.wait_for(f"labelling as {name}", timeout=600)
            ready = time.perf_counter() - start
            rss = [r for r in (rss_mb(pid) for pid in served.children()) if r > 0]
            for round_ in range(args.labels):
                for _, _, screen in tabs:
                    screen.press(str(1 + round_ % 4))
                for name, _, screen in tabs:
                    end = time.monotonic() + 120
                    while time.monotonic() < end and f" {round_ + 1} answered" not in screen.text():
                        screen.page.wait_for_timeout(100)
                    if f" {round_ + 1} answered" not in screen.text():
                        print(f"{name}: no label {round_ + 1} on the screen after 120 s:\n{screen.text()}")
            total = time.perf_counter() - start
            for _, context, _ in tabs:
                context.close()
            browser.close()
        with sqlite3.connect(db) as conn:
            counts = dict(conn.execute("SELECT annotator, count(*) FROM labels GROUP BY annotator").fetchall())
        lost = {n: args.labels - counts.get(n, 0) for n in names if counts.get(n, 0) != args.labels}
        print(f"{len(names)} annotators at once: all {len(names)} labelling screens ready {ready:.1f} s after the "
              f"first sign-in; {args.labels} labels each in {total:.1f} s; RSS per app {min(rss):.0f}-"
              f"{max(rss):.0f} MB (mean {sum(rss) / len(rss):.0f}), {len(rss)} processes; "
              f"labels stored {sum(counts.get(n, 0) for n in names)} of {len(names) * args.labels}"
              + (f"; LOST {lost}" if lost else "; none lost"))
        return 1 if lost else 0
    finally:
        plain.terminate()
        served.stop()


if __name__ == "__main__":
    sys.exit(main())
