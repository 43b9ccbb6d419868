"""What every screen reads from the app."""

from __future__ import annotations

from ...bidi import Mode


class AppState:
    """Mixed into screens: the app's store and its resolved bidi mode."""

    @property
    def store(self):
        return self.app.store

    @property
    def mode(self) -> Mode:
        return self.app.bidi_mode
