"""In a browser the app tells the page when it starts and stops holding unsaved work (the page's
leave-page prompt); in a terminal nothing is sent."""

from persian_tui.tui.web_bridge import UNSAVED, WHAT_CHARS, watch_unsaved


class FakeApp:
    def __init__(self, driver):
        self._driver = driver
        self.work: list[str] = []
        self.timers = []

    def unsaved_work(self):
        return self.work

    def set_interval(self, seconds, callback):
        self.timers.append(callback)


class WebDriver:
    def __init__(self):
        self.sent = []

    def write_meta(self, data):
        self.sent.append(data)


def test_changes_of_unsaved_work_reach_the_page_once_each():
    driver = WebDriver()
    app = FakeApp(driver)
    watch_unsaved(app)
    (tick,) = app.timers
    tick()
    tick()
    app.work = ["the question editor's unsaved changes to a new question"]
    tick()
    tick()
    app.work = []
    tick()
    what = "the question editor's unsaved changes to a new question"[:WHAT_CHARS]  # named in an idle close
    assert driver.sent == [{"type": UNSAVED, "unsaved": False, "what": ""},
                           {"type": UNSAVED, "unsaved": True, "what": what},
                           {"type": UNSAVED, "unsaved": False, "what": ""}]


def test_nothing_in_a_terminal():
    app = FakeApp(object())  # a terminal driver has no write_meta
    watch_unsaved(app)
    assert app.timers == []
