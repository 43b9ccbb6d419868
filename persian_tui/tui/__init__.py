"""The Textual front end. Only this package imports textual (lazily: importing this
package does not load textual; ``make_app`` does)."""


def make_app(*args, **kwargs):
    """persian_tui.tui.app.make_app: the app factory (see there)."""
    from .app import make_app as factory

    return factory(*args, **kwargs)
