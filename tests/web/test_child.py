"""The app process of a web session: run as its person, always in app bidi mode, with an
environment built from an allow-list (no server secret), API keys for admins via --pass-env only."""

import pytest

pytest.importorskip("textual_serve", reason="textual-serve is not installed (the web extra)")

from persian_tui.tui.web_bridge import UNSAVED as SENT  # noqa: E402
from persian_tui.web.child import UNSAVED, command, environment  # noqa: E402


def test_the_app_runs_as_its_person_in_app_bidi_mode(tmp_path):
    argv = command(tmp_path / "a.db", "علی رضایی")
    assert argv[argv.index("--annotator") + 1] == "علی رضایی"  # one argument: no shell
    assert argv[argv.index("--bidi") + 1] == "app"
    assert argv[argv.index("--db") + 1] == str(tmp_path / "a.db")


def test_no_server_secret_reaches_an_app(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("PERSIAN_TUI_WEB_SECRET", "cookie key")
    monkeypatch.setenv("LANG", "C.UTF-8")
    for role in ("annotator", "reviewer", "admin"):
        env = environment(role, (), 100, 30)
        assert "sk-secret" not in env.values() and "secret" not in env.values()
        assert not {"OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "PERSIAN_TUI_WEB_SECRET"} & set(env)
        assert env["LANG"] == "C.UTF-8"
        assert env["TEXTUAL_DRIVER"].endswith("WebDriver")
        assert (env["COLUMNS"], env["ROWS"]) == ("100", "30")


def test_passed_keys_reach_admins_only(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.delenv("UNSET_KEY", raising=False)
    assert environment("admin", ("OPENAI_API_KEY", "UNSET_KEY"), 80, 24)["OPENAI_API_KEY"] == "sk-secret"
    assert "UNSET_KEY" not in environment("admin", ("UNSET_KEY",), 80, 24)
    for role in ("annotator", "reviewer"):
        assert "OPENAI_API_KEY" not in environment(role, ("OPENAI_API_KEY",), 80, 24)


def test_the_app_and_the_server_name_the_unsaved_meta_alike():
    assert SENT == UNSAVED
