"""The acting person's role in the app (``app.access``, persian_tui.access): what each action
needs, so a key a person may not use is not offered (its footer entry, its help line, its
palette entry are left out) and refuses, with one line, if reached anyway.

An action's act is declared where the action is: ``APP_ACTS`` for the app's (``app.report``),
a screen's ``ACTS`` for its own (``edit``). Actions named in neither are everyone's."""

from __future__ import annotations

from typing import Any, ClassVar

from ..access import Access
from ..models.users import Act, refusal, roles_for
from .keys import BROWSER_ONLY, Key

APP_ACTS: dict[str, Act] = {
    "label": "label", "author": "author", "adjudicate": "adjudicate", "agreement": "see_answers",
    "runs": "run", "review": "review", "report": "see_answers", "release": "release", "candidates": "propose",
}
# app actions whose key, pressed by someone whose role does not allow it, still runs to say why
# in one line (the key is kept out of their footer, help and palette all the same): every one
SAYS_WHY: frozenset[str] = frozenset(APP_ACTS)


def access(node: Any) -> Access:
    """The acting person of the app ``node`` is in."""
    found: Access = node.app.access
    return found


def act_of(screen: Any, action: str) -> Act | None:
    """The act a key table's ``action`` needs on ``screen`` (a screen or its class): "app.report"
    the app's, "edit" or "set_key(2)" the screen's; None: everyone's."""
    name = action.split("(", 1)[0].strip()
    if name.startswith("app."):
        return APP_ACTS.get(name.removeprefix("app."))
    if "." in name:
        return None
    acts: dict[str, Act] = getattr(screen, "ACTS", {})
    return acts.get(name)


def allowed(node: Any, action: str) -> bool:
    """Whether the app's person may use ``action`` bound on ``node`` (a screen, or the app for
    its own bindings): what the footer shows."""
    act = APP_ACTS.get(action.split("(", 1)[0].strip()) if node is node.app else act_of(node, action)
    return act is None or access(node).may(act)


def who(screen: Any, key: Key) -> str | None:
    """Who may use a key of ``screen``'s table, in words (None: everyone), for the keys reference."""
    act = act_of(screen, key.action) if key.action else None
    return None if act is None or act == "label" else roles_for(act)


def offered(screen: Any, table: tuple[Key, ...]) -> tuple[Key, ...]:
    """The rows of ``table`` the app's person may use on ``screen`` (help lines without an
    action are kept)."""
    person = access(screen)
    browser = getattr(screen.app, "signed_in_browser", False)
    return tuple(k for k in table
                 if (browser or k.action not in BROWSER_ONLY)
                 and (not k.action or (act := act_of(screen, k.action)) is None or person.may(act)))


def refused(node: Any, act: Act) -> bool:
    """True, after a one-line notice, when the app's person may not do ``act``."""
    person = access(node)
    if person.may(act):
        return False
    node.app.notify(refusal(person.user, person.role, act), severity="warning", timeout=5)
    return True


class Guarded:
    """Mixed into a screen before ``Screen``: the actions in its ``ACTS`` are left out of the
    footer, the help and the palette for a person whose role does not allow them (``offered``);
    their key still reaches the action method, which calls ``refused`` and says why in one line."""

    ACTS: ClassVar[dict[str, Act]] = {}

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # a key the role does not allow still runs its action, which refuses saying why in one
        # line (``refused``): a key that does nothing reads as broken. The footer, the help and
        # the palette leave it out all the same (``offered``).
        return True
