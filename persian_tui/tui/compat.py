"""Every private name of Textual, textual-serve and aiohttp that persian-tui relies on, in one place.

Why: Textual has no public hook for what some of our features need — the typed-ahead key order
(whether an app still has messages or callbacks queued), Persian fields drawn as they are read
(an Input's and a TextArea's cursor and line drawing), the browser's unsaved-work prompt (the
web driver), a damaged database ending the app in one line (its exception handler), a resize
that arrives while the screen starts, and the web front's own WebSocket loop and listening port.
Those are private and may change in any release, which is why pyproject pins ``textual`` exactly
and ``textual-serve`` to a minor version. ``PRIVATE`` lists each name by its owner;
tests/tui/test_compat.py checks that every one still exists, so an upgrade fails there, in one
place, rather than somewhere in a screen. Reads go through the accessors below; overrides of a
private method stay in their widget, named here.
"""

from __future__ import annotations

from typing import Any

from textual.message_pump import MessagePump

# owner (module:qualname) -> the private attributes used, and where
PRIVATE: dict[str, dict[str, str]] = {
    "textual.message_pump:MessagePump": {
        "_message_queue": "typeahead.busy (accessor below)",
        "_pending_message": "typeahead.busy (accessor below)",
        "_next_callbacks": "typeahead.busy (accessor below)",
    },
    "textual.screen:Screen": {
        "_callbacks": "typeahead.quiet (accessor below)",
        "_screen_resized": "screens/bank.py overrides it (a stale queued size)",
    },
    "textual.app:App": {
        "_driver": "web_bridge.watch_unsaved (accessor below)",
        "_handle_exception": "app.py overrides it (a damaged database in one line)",
    },
    "textual.widgets._input:Input": {
        "_on_key": "fields/persian_input.py overrides it",
        "_watch_value": "fields/persian_input.py overrides it",
        "_cursor_offset": "fields/persian_input.py overrides it (the caret among reordered text)",
        "_cell_offset_to_index": "fields/persian_input.py overrides it (a click among reordered text)",
    },
    "textual.widgets._input:Selection": {
        "__init__": "fields/persian_input.py imports it from the private module",
    },
    "textual.widgets._text_area:TextArea": {
        "_on_key": "fields/persian_textarea.py overrides it",
        "_recompute_cursor_offset": "fields/persian_textarea.py overrides it",
        "_render_line": "fields/persian_textarea.py overrides it (lines drawn reordered)",
        "_cursor_offset": "fields/persian_textarea.py sets it",
        "_theme": "fields/persian_textarea.py reads it",
    },
    "textual.document._wrapped_document:WrappedDocument": {
        "_offset_to_line_info": "fields/persian_textarea.py (accessor below)",
    },
    "textual_serve.app_service:AppService": {
        "_task": "web/child.py reads it",
        "_process": "web/child.py reads it",
    },
    "textual_serve.server:Server": {
        "_process_messages": "web/server.py overrides it (checks every WebSocket message)",
    },
    "aiohttp.web_runner:TCPSite": {
        "_server": "web/server.py reads the port it listens on",
    },
}


def has_queued_work(pump: MessagePump) -> bool:
    """Messages or callbacks still to handle (Textual keeps no public count of either)."""
    return bool(pump._message_queue.qsize() or pump._pending_message is not None or pump._next_callbacks)


def screen_has_callbacks(screen: Any) -> bool:
    """Callbacks a screen still has to run after its refresh (``call_after_refresh``)."""
    return bool(screen._callbacks)


def driver_of(app: Any) -> object | None:
    """The app's driver (the web driver in a browser), or None before it runs."""
    return getattr(app, "_driver", None)


def line_info(wrapped_document: Any) -> list[Any]:
    """A wrapped document's (row, section) for each visual line."""
    info: list[Any] = wrapped_document._offset_to_line_info
    return info
