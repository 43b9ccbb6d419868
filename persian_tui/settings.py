"""Settings: a CLI flag, else an environment variable, else the default; and the shared settings
kept in the database. The one module that reads the environment (tests/project/test_layering.py checks
it). API keys are read from the environment only, by the name the user gives; never stored."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Protocol

DEFAULT_DB = Path("db") / "persian_tui.db"
DB_ENV = "PERSIAN_TUI_DB"
BIDI_ENV = "PERSIAN_TUI_BIDI"
SHAPE_ENV = "PERSIAN_TUI_SHAPE"
SIMILAR_MODEL_ENV = "PERSIAN_TUI_SIMILAR_MODEL"
SIMILAR_BASE_URL_ENV = "PERSIAN_TUI_SIMILAR_BASE_URL"

BIDI_SETTINGS = ("auto", "app", "terminal", "off")  # --bidi; "auto" resolves to one of the others
SHAPE_SETTINGS = ("auto", "on", "off")  # --shape


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def db_path(flag: str | None = None) -> Path:
    """The database file: --db, else $PERSIAN_TUI_DB, else db/persian_tui.db."""
    return Path(flag or os.environ.get(DB_ENV) or DEFAULT_DB)


def sample_bank_path() -> Path:
    return Path(str(resources.files("persian_tui") / "data" / "sample_bank.jsonl"))


def bidi_mode(flag: str | None = None, env: Mapping[str, str] | None = None) -> str:
    """The resolved bidi mode, "app", "terminal" or "off" (see persian_tui.bidi): --bidi, else
    $PERSIAN_TUI_BIDI, else auto: "terminal" when the terminal reorders right-to-left text itself
    (VTE/GNOME Terminal, Konsole, mlterm, Apple Terminal), otherwise "app". ValueError if unknown."""
    env = _env(env)
    value = (flag or env.get(BIDI_ENV) or "auto").strip().lower()
    if value not in BIDI_SETTINGS:
        raise ValueError(f"invalid bidi mode {value!r}: expected one of {', '.join(BIDI_SETTINGS)}")
    if value != "auto":
        return value
    term = env.get("TERM", "")
    bidi_terminal = (
        "VTE_VERSION" in env  # GNOME Terminal and other VTE terminals
        or "KONSOLE_VERSION" in env
        or "mlterm" in term
        or "MLTERM" in env
        or env.get("TERM_PROGRAM") == "Apple_Terminal"
    )
    return "terminal" if bidi_terminal else "app"


def shaping(flag: str | None = None, mode: str = "app", env: Mapping[str, str] | None = None) -> bool:
    """Whether to join Arabic letters: --shape, else $PERSIAN_TUI_SHAPE, else auto: on in `app`
    mode, where the terminal does not reorder right-to-left text and so is taken not to join
    letters either (xterm, kitty, alacritty, Windows Terminal); off where the terminal does bidi
    itself, which also joins. ValueError if unknown."""
    value = (flag or _env(env).get(SHAPE_ENV) or "auto").strip().lower()
    if value not in SHAPE_SETTINGS:
        raise ValueError(f"invalid shape setting {value!r}: expected one of {', '.join(SHAPE_SETTINGS)}")
    return value == "on" or (value == "auto" and mode == "app")


def similar_model(flag: str | None = None) -> str | None:
    """The embedding model for "similar couplets" (e.g. st:/models/tooka or a hub name already in
    the local cache): --model, else $PERSIAN_TUI_SIMILAR_MODEL; None = the built-in TF-IDF baseline."""
    return (flag or os.environ.get(SIMILAR_MODEL_ENV) or "").strip() or None


def similar_base_url() -> str | None:
    """The endpoint of an openai:MODEL similar-couplets model ($PERSIAN_TUI_SIMILAR_BASE_URL)."""
    return os.environ.get(SIMILAR_BASE_URL_ENV) or None


def local_user() -> str | None:
    """The login name of the person at this terminal (None when it cannot be told): who acts when
    no --user or --annotator names someone."""
    import getpass

    try:
        return getpass.getuser() or None
    except (OSError, KeyError, ImportError):  # no login name in the environment nor the password file
        return None


def api_key(env_name: str) -> str | None:
    """The API key in the environment variable ``env_name`` (None when unset or empty)."""
    return os.environ.get(env_name) or None


# How every Python process this tool starts is started: -P (safe path) keeps the working folder
# (and the folder of a script) off the module path, so a `pickle.py` or `json.py` in the folder
# being imported or served is never run. PYTHONPATH is honoured as the parent's was.
PYTHON_FLAGS = ("-P",)


def python_command(*args: str) -> list[str]:
    """This interpreter with PYTHON_FLAGS, then ``args`` (e.g. "-m", "persian_tui.cli")."""
    return [sys.executable, *PYTHON_FLAGS, *args]


WEB_SECRET_ENV = "PERSIAN_TUI_WEB_SECRET"

# what an app process of `persian-tui web` inherits from the server's environment: what Python, the
# locale and a local model cache need, never a key (the server adds --pass-env names for admins)
WEB_CHILD_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH", "SYSTEMROOT",
                 "HF_HOME", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "XDG_CACHE_HOME",
                 SIMILAR_MODEL_ENV, SIMILAR_BASE_URL_ENV)


def web_secret() -> str | None:
    """The key session cookies of `persian-tui web` are signed with ($PERSIAN_TUI_WEB_SECRET;
    None: a new random one each start, so sign-ins end with the server)."""
    return os.environ.get(WEB_SECRET_ENV) or None


def environment_subset(names: tuple[str, ...] | list[str]) -> dict[str, str]:
    """The variables of the environment named in ``names`` that are set: an app process's
    environment is built from these, never from the whole environment."""
    return {name: os.environ[name] for name in names if name in os.environ}


def environment_has(name: str) -> bool:
    return name in os.environ


# ------------------------------------------------------------------ stored in the database


class SettingsStore(Protocol):
    def get_setting(self, name: str, default: str | None = None) -> str | None: ...


@dataclass(frozen=True)
class Shared:
    """A setting kept in the database for every annotator (`persian-tui setting NAME VALUE`)."""

    name: str
    what: str  # one line, shown by `persian-tui setting`
    default: float | int
    parse: Callable[[str], float | int]
    valid: Callable[[float | int], bool]

    def check(self, text: str) -> bool:
        """Whether ``text`` is a value this setting accepts."""
        try:
            return self.valid(self.parse(text))
        except ValueError:
            return False

    def read(self, store: SettingsStore) -> float | int:
        """The stored value; the default when unset or not a valid value."""
        text = store.get_setting(self.name)
        return self.parse(text) if text is not None and self.check(text) else self.default


LABEL_TARGETS = (1, 2, 3, 4, 5)
LABEL_MIN_SECONDS = Shared("label_min_seconds",
                           "answers faster than this many seconds are kept but marked fast (default 1)",
                           1.0, float, lambda v: 0 <= v <= 3600)
LABEL_TARGET = Shared("label_target",
                      "labels wanted per question, 1-5 (default 3; t on the label screen changes it, asking first)",
                      3, int, lambda v: v in LABEL_TARGETS)
SHARED = {s.name: s for s in (LABEL_MIN_SECONDS, LABEL_TARGET)}


def label_min_seconds(store: SettingsStore) -> float:
    """The shortest credible time from an item's display to its answer: faster answers are kept
    but marked fast."""
    return float(LABEL_MIN_SECONDS.read(store))


def label_target(store: SettingsStore) -> int:
    """Labels wanted per question (the labelling queue serves a question until it has them)."""
    return int(LABEL_TARGET.read(store))


WEB_SIGN_OUT_ENV = "PERSIAN_TUI_WEB_SIGN_OUT"  # "1": the app runs for a signed-in browser session
WEB_IDLE_ENV = "PERSIAN_TUI_WEB_IDLE_SECONDS"  # the web front's idle close, for the app's warning


def web_signed_in() -> bool:
    """Whether this app runs for a browser session one signed in to (`persian-tui web` sets it
    for its apps; not a terminal, nor a proxy's user): the app then offers Sign out."""
    return os.environ.get(WEB_SIGN_OUT_ENV) == "1"


def web_idle_seconds() -> float | None:
    """After how long without a key the web front closes this app's tab (None: not in a
    browser, or no idle close)."""
    try:
        value = float(os.environ.get(WEB_IDLE_ENV, ""))
    except ValueError:
        return None
    return value if 0 < value < float("inf") else None
