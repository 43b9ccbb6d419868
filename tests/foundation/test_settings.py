"""persian_tui.settings: a flag, else the environment, else the default; the shared settings
stored in the database."""

from pathlib import Path

import pytest

from persian_tui import settings
from persian_tui.bidi import MODES
from persian_tui.settings import BIDI_SETTINGS, bidi_mode, shaping
from persian_tui.store import Store


def test_bidi_settings():
    assert BIDI_SETTINGS == ("auto", *MODES)


@pytest.mark.parametrize(
    "env",
    [
        {"VTE_VERSION": "7200", "TERM": "xterm-256color"},
        {"KONSOLE_VERSION": "230804"},
        {"TERM": "mlterm"},
        {"TERM": "mlterm-256color"},
        {"MLTERM": "3.9.3"},
        {"TERM_PROGRAM": "Apple_Terminal"},
    ],
)
def test_auto_detects_bidi_terminals(env):
    assert bidi_mode("auto", env) == "terminal"
    assert bidi_mode(None, env) == "terminal"


@pytest.mark.parametrize(
    "env",
    [{}, {"TERM": "xterm-256color"}, {"TERM_PROGRAM": "iTerm.app"}, {"TERM_PROGRAM": "WezTerm"}],
)
def test_auto_falls_back_to_app(env):
    assert bidi_mode("auto", env) == "app"
    assert bidi_mode("", env) == "app"


def test_explicit_setting_wins_over_terminal():
    env = {"VTE_VERSION": "7200", "PERSIAN_TUI_BIDI": "off"}
    assert bidi_mode("app", env) == "app"
    assert bidi_mode("terminal", {}) == "terminal"
    assert bidi_mode(" OFF ", {}) == "off"


def test_env_var_used_when_setting_empty():
    assert bidi_mode(None, {"PERSIAN_TUI_BIDI": "off"}) == "off"
    assert bidi_mode("", {"PERSIAN_TUI_BIDI": "terminal"}) == "terminal"
    assert bidi_mode(None, {"PERSIAN_TUI_BIDI": "auto", "KONSOLE_VERSION": "1"}) == "terminal"


def test_env_defaults_to_os_environ(monkeypatch):
    for name in ("VTE_VERSION", "KONSOLE_VERSION", "MLTERM", "TERM_PROGRAM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("PERSIAN_TUI_BIDI", "off")
    assert bidi_mode() == "off"
    monkeypatch.delenv("PERSIAN_TUI_BIDI")
    assert bidi_mode() == "app"


@pytest.mark.parametrize("bad", ["rtl", "yes", "application"])
def test_invalid_mode_raises(bad):
    with pytest.raises(ValueError) as err:
        bidi_mode(bad, {})
    for mode in BIDI_SETTINGS:
        assert mode in str(err.value)
    with pytest.raises(ValueError):
        bidi_mode(None, {"PERSIAN_TUI_BIDI": bad})


def test_shaping_setting():
    assert shaping(None, "app", env={}) is True  # auto: a terminal that does no bidi joins nothing
    assert shaping(None, "terminal", env={}) is False
    assert shaping(None, "app", env={"PERSIAN_TUI_SHAPE": "off"}) is False
    assert shaping("on", "terminal", env={"PERSIAN_TUI_SHAPE": "off"}) is True  # flag first
    with pytest.raises(ValueError, match="shape"):
        shaping("sometimes", "app", env={})


def test_paths_and_models_from_flag_then_environment(monkeypatch):
    for name in ("PERSIAN_TUI_DB", "PERSIAN_TUI_SIMILAR_MODEL", "PERSIAN_TUI_SIMILAR_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    assert settings.db_path() == Path("db") / "persian_tui.db" == settings.DEFAULT_DB
    monkeypatch.setenv("PERSIAN_TUI_DB", "/tmp/env.db")
    assert settings.db_path() == Path("/tmp/env.db") and settings.db_path("x.db") == Path("x.db")
    assert settings.similar_model() is None and settings.similar_base_url() is None
    monkeypatch.setenv("PERSIAN_TUI_SIMILAR_MODEL", " st:/models/tooka ")
    monkeypatch.setenv("PERSIAN_TUI_SIMILAR_BASE_URL", "http://localhost:8000/v1")
    assert settings.similar_model() == "st:/models/tooka" and settings.similar_model("tfidf") == "tfidf"
    assert settings.similar_base_url() == "http://localhost:8000/v1"
    assert settings.sample_bank_path().name == "sample_bank.jsonl"


def test_api_key_by_variable_name(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-test-123456")
    monkeypatch.setenv("EMPTY_KEY", "")
    monkeypatch.delenv("NO_KEY", raising=False)
    assert settings.api_key("MY_KEY") == "sk-test-123456"
    assert settings.api_key("EMPTY_KEY") is None and settings.api_key("NO_KEY") is None


def test_shared_settings_read_through_the_store(tmp_path):
    with Store(tmp_path / "s.db") as store:
        assert settings.label_target(store.labels) == 3 and settings.label_min_seconds(store.labels) == 1.0
        store.labels.set_setting("label_target", "5")
        store.labels.set_setting("label_min_seconds", "2.5")
        assert settings.label_target(store.labels) == 5 and settings.label_min_seconds(store.labels) == 2.5
        for bad in ("9", "two", ""):  # a value out of range or not a number: the default
            store.labels.set_setting("label_target", bad)
            assert settings.label_target(store.labels) == 3
        store.labels.set_setting("label_min_seconds", "nan")
        assert settings.label_min_seconds(store.labels) == 1.0
    assert set(settings.SHARED) == {"label_target", "label_min_seconds"}
    assert settings.LABEL_TARGET.check("4") and not settings.LABEL_TARGET.check("0")
    assert settings.LABEL_MIN_SECONDS.check("0") and not settings.LABEL_MIN_SECONDS.check("soon")
