"""One key table per screen: each screen (and dialog) declares its keys once as a tuple of ``Key``;
its Textual bindings, its footer (which reads the bindings), the help screen (``?``) and the command
palette's entries are all made from that table, and so is the keys reference page
(docs/reference/keys.md); a test checks the user guide's key tables against it."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType

# how the help and the documentation name Textual's key names
NAMES = {
    "question_mark": "?", "slash": "/", "escape": "Escape", "enter": "Enter", "space": "Space",
    "tab": "Tab", "up": "↑", "down": "↓", "pageup": "PgUp", "pagedown": "PgDn", "home": "Home",
    "end": "End", "exclamation_mark": "!", "at": "@", "number_sign": "#", "dollar_sign": "$",
}


@dataclass(frozen=True)
class Key:
    """One key of a screen. ``keys``: Textual key names, comma-separated (the first one is the
    one shown); ``action``: the binding's action ("" for a key a widget handles, listed in the
    help only); ``label``: the footer's word; ``description``: the help's line (the label when
    empty); ``footer``: shown in the footer; ``palette``: the command palette's title (None: not
    in the palette); ``shown``: how the help names the key when not derived from ``keys``;
    ``display``: the footer's key display; ``help``: listed in the help (False for the 2nd-4th
    of a range the first one's line covers)."""

    keys: str
    action: str
    label: str = ""
    description: str = ""
    footer: bool = True
    palette: str | None = None
    shown: str | None = None
    display: str | None = None
    priority: bool = False
    help: bool = True

    @property
    def names(self) -> str:
        """The key as the help shows it: "f / x", "Ctrl+S", "1–4"."""
        if self.shown is not None:
            return self.shown
        return " / ".join(key_name(k) for k in self.keys.split(",") if not _alternate_digit(k))

    @property
    def what(self) -> str:
        return self.description or self.label


def _alternate_digit(key: str) -> bool:
    """Persian and Arabic-Indic digits bound beside 1-9: the help names the ASCII one."""
    return len(key) == 1 and key.isdigit() and not key.isascii()


def key_name(key: str) -> str:
    """A Textual key name as people write it: "ctrl+s" -> "Ctrl+S", "question_mark" -> "?"."""
    key = key.strip()
    if key in NAMES:
        return NAMES[key]
    if "+" in key and len(key) > 1:
        *mods, last = key.split("+")
        return "+".join([*(m.capitalize() for m in mods), NAMES.get(last, last.upper() if len(last) == 1 else last)])
    if len(key) > 1 and key[0] == "f" and key[1:].isdigit():
        return key.upper()
    return key


def bindings(table: tuple[Key, ...]) -> list[BindingType]:
    """The Textual bindings of a key table (its help-only rows left out)."""
    return [Binding(k.keys, k.action, k.label, show=k.footer, key_display=k.display,
                    priority=k.priority) for k in table if k.action]


def help_rows(table: tuple[Key, ...]) -> list[tuple[str, str]]:
    """(key, what it does) for each row of a table the help lists, in the table's order."""
    return [(k.names, k.what) for k in table if k.help]


def key_tokens(table: tuple[Key, ...]) -> set[str]:
    """Every key name the help shows for a table ("f / x" counts as "f" and "x")."""
    return {part.strip() for k in table if k.help for part in k.names.split(" / ")}


def palette_entries(table: tuple[Key, ...]) -> list[tuple[str, str, str]]:
    """(title, hint, action) for the rows of a table the command palette offers."""
    return [(k.palette, f"{k.what} ({k.names})", k.action) for k in table if k.palette and k.action]


def help_key(keys: str = "question_mark,f1", footer: bool = True) -> Key:
    """The help key every screen's table has; its footer keeps it when other keys must be left
    out (after a "…"), so a narrow footer always says where every key is listed."""
    return Key(keys, "app.help", "Help", "the keys of this screen", footer=footer, palette="Help")


# Every screen's help ends with these; the app binds Ctrl+Q (Ctrl+P is Textual's own). Ctrl+Q is a
# priority key (dialogs too) and asks first when an edit, typed text or a live run would be lost.
APP_KEYS: tuple[Key, ...] = (
    Key("ctrl+p", "", "Palette", "command palette: this screen's actions and the app's"),
    Key("ctrl+q", "app.quit", "Quit", "quit persian-tui (asks first when an unsaved edit or a live run "
        "would be lost)", footer=False, palette="Quit", priority=True),
    Key("f10", "app.sign_out", "Sign out", "in a browser: sign out (ends the session on the server; asks "
        "first when an unsaved edit would be lost)", footer=False, palette="Sign out"),
)
BROWSER_ONLY = frozenset({"app.sign_out"})  # offered only in a browser session one signed in to


def screen_table(screen: object) -> tuple[Key, ...]:
    """The key table a screen declares (``KEY_TABLE``); empty for Textual's own screens."""
    return getattr(screen, "KEY_TABLE", ())


def screen_title(screen: object) -> str:
    """The name the help's title gives a screen (``KEYS_TITLE``)."""
    return getattr(screen, "KEYS_TITLE", "") or type(screen).__name__
