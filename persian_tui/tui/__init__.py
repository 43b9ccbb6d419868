"""The Textual front end. Only this package imports textual (lazily: importing this
package does not load textual; ``make_app`` does)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import PersianTUI


def make_app(*args: Any, **kwargs: Any) -> PersianTUI:
    """persian_tui.tui.app.make_app: the app factory (see there)."""
    from .app import make_app as factory

    return factory(*args, **kwargs)
