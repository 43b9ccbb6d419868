"""`persian-tui web` in a real browser: Debian's Chromium driven by Playwright (never its own
browser download), the screen read from the WebSocket stream with pyte. Two people label at
once, each in their own process as themselves; no secret reaches an app; an annotator cannot
open runs; a closed tab ends its process and keeps its labels; idle and full sessions say why;
the page asks before leaving unsaved work; nothing is fetched from outside the server.
Without Chromium, Playwright or pyte these tests skip, saying why; CI (.ci/run) installs them."""

import time

import pytest
from web_helpers import CHROMIUM, SECRET_VALUE, Screen, Served, people_db, process_info, sign_in, why_no_browser

REASON = why_no_browser()
pytestmark = [pytest.mark.skipif(REASON is not None, reason=f"browser tests: {REASON}"),
              pytest.mark.xdist_group("web")]
VIEW = {"width": 1200, "height": 800}


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    chromium = playwright.chromium.launch(executable_path=CHROMIUM)
    yield chromium
    chromium.close()
    playwright.stop()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return people_db(tmp_path_factory.mktemp("web"))


@pytest.fixture(scope="module")
def served(db):
    server = Served(db, "--pass-env", "OPENAI_API_KEY")
    yield server
    server.stop()


def labels(db):
    import sqlite3

    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT q.uid, l.annotator, l.answer FROM labels l JOIN questions q ON q.id = "
                            "l.question_id ORDER BY l.id").fetchall()


def open_app(browser, served, name, requests=None):
    context = browser.new_context(viewport=VIEW)
    page = context.new_page()
    if requests is not None:
        page.on("request", lambda r: requests.append(r.url))
    screen = Screen(page)
    sign_in(page, served.url, name)
    return context, page, screen


def child_of(served, name, timeout=30.0):
    """The pid of ``name``'s app process."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for pid in served.children():
            try:
                argv, _ = process_info(pid)
            except OSError:
                continue
            if argv[argv.index("--annotator") + 1] == name:
                return pid
        time.sleep(0.2)
    raise AssertionError(f"no app process for {name}")


def wait_until(check, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.2)
    return False


def test_two_annotators_label_at_once_each_as_themselves(browser, served, db, tmp_path):
    requests: list[str] = []
    ali, ali_page, ali_screen = open_app(browser, served, "ali", requests)
    sara, sara_page, sara_screen = open_app(browser, served, "sara", requests)
    try:
        ali_screen.wait_for("labelling as ali")
        sara_screen.wait_for("labelling as sara")
        ali_page.screenshot(path=str(tmp_path / "labelling.png"))
        ali_screen.press("2")
        sara_screen.press("3")
        ali_screen.wait_for("labelled")
        sara_screen.wait_for("labelled")
        got = {(who, answer) for _, who, answer in labels(db)}
        assert {("ali", 2), ("sara", 3)} <= got
        pids = {child_of(served, "ali"), child_of(served, "sara")}
        assert len(pids) == 2  # one process each
        for pid in pids:
            argv, env = process_info(pid)
            assert argv[argv.index("--bidi") + 1] == "app"
            assert SECRET_VALUE not in env.values()  # neither the key nor any other server secret
            assert not {"OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY"} & set(env)
    finally:
        ali.close()
        sara.close()
    assert (tmp_path / "labelling.png").stat().st_size > 10_000
    assert requests and all(url.startswith(served.url + "/") for url in requests), requests  # no CDN


def test_an_annotator_cannot_open_runs(browser, served):
    context, _, screen = open_app(browser, served, "ali")
    try:
        screen.wait_for("labelling as ali")
        screen.press("Escape")
        bank = screen.wait_for("/ Search")
        assert "m Runs" not in bank and "n New" not in bank  # not offered to an annotator
        screen.press("m")
        screen.page.wait_for_timeout(1500)
        assert "/ Search" in screen.text()  # still the bank: the runs screen did not open
    finally:
        context.close()


def test_a_closed_tab_ends_its_process_and_keeps_its_label(browser, served, db):
    context, page, screen = open_app(browser, served, "reza")  # a reviewer labels too
    screen.wait_for("Label")
    pid = child_of(served, "reza")
    screen.press("l")
    screen.wait_for("labelling as reza")
    screen.press("4")
    screen.wait_for("labelled")
    page.close()
    context.close()
    assert wait_until(lambda: pid not in served.children()), "the app process outlived its tab"
    assert any(who == "reza" and answer == 4 for _, who, answer in labels(db))


def test_an_admin_gets_passed_keys_and_the_page_asks_before_losing_an_edit(browser, served):
    context, page, screen = open_app(browser, served, "boss")
    try:
        screen.wait_for("Label")
        _, env = process_info(child_of(served, "boss"))
        assert env["OPENAI_API_KEY"] == SECRET_VALUE  # --pass-env, admins only
        assert "AWS_SECRET_ACCESS_KEY" not in env
        assert page.evaluate("window.persianTuiUnsaved()") is False
        screen.press("n")
        screen.wait_for("new question")  # the editor, its stem field focused
        screen.press("x", "y", "z")
        assert wait_until(lambda: page.evaluate("window.persianTuiUnsaved()"), 15), "the page never heard"
        with page.expect_event("dialog") as asked:
            page.close(run_before_unload=True)  # as closing the tab does
        assert asked.value.type == "beforeunload"
        asked.value.dismiss()  # stay: the edit is still there
    finally:
        context.close()


def test_idle_and_full_sessions_say_why(browser, db):
    server = Served(db, "--max-sessions", "1", "--idle-minutes", "0.1")
    first = second = None
    try:
        first, first_page, first_screen = open_app(browser, server, "ali")
        first_screen.wait_for("labelling as ali")
        second, second_page, _ = open_app(browser, server, "sara")
        second_page.wait_for_selector("text=The server is full (1 sessions)", timeout=30_000)
        first_page.wait_for_selector("text=Closed after 0.1 minutes without a key", timeout=60_000)
    finally:
        for context in (first, second):
            if context is not None:
                context.close()
        server.stop()


def test_the_browser_meets_the_sign_in_first_and_a_wrong_password_is_refused(browser, served):
    context = browser.new_context(viewport=VIEW)
    page = context.new_page()
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws))
    try:
        page.goto(served.url + "/")
        assert page.url == served.url + "/login"
        sign_in(page, served.url, "ali", "not his password")
        page.wait_for_selector("text=Wrong name or password.")
        assert page.url == served.url + "/login" and not sockets  # no app, no WebSocket
    finally:
        context.close()


def test_a_reviewer_adjudicates_and_the_decision_is_theirs(browser, tmp_path):
    import sqlite3

    from persian_tui.store import Store

    db = people_db(tmp_path)
    with sqlite3.connect(db) as conn:
        uid, key = conn.execute("SELECT uid, key FROM questions WHERE key IS NOT NULL ORDER BY id LIMIT 1").fetchone()
    with Store(db) as store:  # two annotators disagree: the question needs a decision
        store.labels.add_label(uid, "ali", key)
        store.labels.add_label(uid, "sara", key % 4 + 1)
    server = Served(db)
    context = None
    try:
        context, _, screen = open_app(browser, server, "reza")
        screen.wait_for("a Adjudicate")  # a reviewer starts on the bank
        screen.press("a")
        screen.wait_for("Accept key")  # the adjudication screen, on the question the two disagree on
        screen.press("k")
        screen.wait_for("Reason")
        screen.press("Enter")
        assert wait_until(lambda: adjudications(db)), f"no decision stored; the screen:\n{screen.text()}"
    finally:
        if context is not None:
            context.close()
        server.stop()
    assert adjudications(db) == [(uid, "reza", "accept", key)]


def adjudications(db):
    import sqlite3

    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT q.uid, a.adjudicator, a.decision, a.key FROM adjudications a "
                            "JOIN questions q ON q.id = a.question_id").fetchall()


def paste(page, text: str) -> None:
    """Paste ``text`` into the terminal as a browser does (a paste event on xterm's textarea)."""
    page.focus(".xterm-helper-textarea")
    page.evaluate("""(text) => {
        const data = new DataTransfer();
        data.setData("text/plain", text);
        document.querySelector(".xterm-helper-textarea").dispatchEvent(
            new ClipboardEvent("paste", {clipboardData: data, bubbles: true, cancelable: true}));
    }""", text)


def test_an_oversized_paste_is_refused_with_a_notice_and_the_unsaved_edit_survives(browser, served):
    """A paste over the WebSocket's message cap ended the session ("Session ended.", no reason)
    and lost the edit: the page refuses it before sending, saying so; a paste under that cap
    but over the app's is refused by the app, in a notice. The session and the edit go on."""
    context, page, screen = open_app(browser, served, "boss")
    try:
        screen.wait_for("Label")
        screen.press("n")
        screen.wait_for("new question")
        screen.press("x", "y", "z")
        assert wait_until(lambda: page.evaluate("window.persianTuiUnsaved()"), 15)
        paste(page, "ب" * 1_200_000)  # 2.4 MB of UTF-8
        page.wait_for_selector("text=not pasted", timeout=15_000)
        assert page.locator(".closed-dialog").is_hidden()
        paste(page, "پ" * 200_000)
        screen.wait_for("not pasted")
        screen.press("q")  # still the app, still the edit
        screen.wait_for("new question")
        assert screen.closed is None and page.evaluate("window.persianTuiUnsaved()")
    finally:
        context.close()


def test_an_app_that_ends_says_so_on_the_end_card(browser, served):
    """An app quit (q) or a crash used to leave "Session ended." and no reason."""
    context, page, screen = open_app(browser, served, "sara")
    try:
        screen.wait_for("labelling as sara")
        screen.press("Control+q")
        page.wait_for_selector("text=The app was closed. Saved labels are kept.", timeout=30_000)
    finally:
        context.close()


def test_sign_out_from_inside_the_app_ends_the_session_on_the_server(browser, served):
    """F10 (in the help and the palette in a browser only: tests/tui/test_roles.py) signs out: the server ends the
    session, the tab's card says so, and the cookie opens nothing any more."""
    context, page, screen = open_app(browser, served, "ali")
    try:
        screen.wait_for("labelling as ali")
        screen.press("F10")
        page.wait_for_selector("text=Signed out.", timeout=30_000)
        assert page.request.get(served.url + "/", max_redirects=0).status == 302  # to the sign-in
    finally:
        context.close()


def test_an_idle_tab_is_warned_first_and_its_card_names_what_was_not_saved(browser, db):
    """Idle close dropped unsaved text without a word: the app counts down in a notice first
    (any key stays), and the end card names the unsaved work it dropped."""
    server = Served(db, "--idle-minutes", "0.1")
    context = None
    try:
        context, page, screen = open_app(browser, server, "boss")
        screen.wait_for("Label")
        screen.press("n")
        screen.wait_for("new question")
        screen.press("x", "y", "z")
        screen.wait_for("this tab closes in", timeout=30)
        page.wait_for_selector("text=Closed after 0.1 minutes without a key. Not saved:", timeout=60_000)
    finally:
        if context is not None:
            context.close()
        server.stop()
