"""Secrets out of everything stored, logged or printed: passwords in URLs, API keys, tokens.

API keys come from the environment only; these functions make sure nothing an endpoint echoes
back, and no user-info in a base URL, reaches the database, an export or the terminal."""

from __future__ import annotations

import base64
import os
import re
from urllib.parse import unquote, urlsplit, urlunsplit

# Bearer and Basic credentials, OpenAI/OpenRouter/Anthropic-style keys, and key=... values, in this order
_TOKENS = (
    re.compile(r"(?i)(\b(?:bearer|basic)\s+)[^\s\"',;]+"),
    re.compile(r"\b()(?:sk|pk|rk)-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"(?i)(\b(?:api[_-]?key|token|password|secret)[\"']?\s*[:=]\s*[\"']?)"
               r"(?!\*\*\*)(?!bearer\b)[^\s\"',;&]+"),
)
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@]+@")
MASK = "***"


def url(value: str | None) -> str | None:
    """The URL with any user-info replaced: https://user:pw@host/v1 -> https://***@host/v1."""
    if not value:
        return value
    try:
        parts = urlsplit(value)
    except ValueError:
        return _URL_USERINFO.sub(rf"\1{MASK}@", value)
    if "@" not in parts.netloc:
        return value
    return urlunsplit(parts._replace(netloc=f"{MASK}@{parts.netloc.rsplit('@', 1)[1]}"))


def text(value: str | None, *, keys: tuple[str, ...] = ()) -> str | None:
    """An error text with secrets removed: the given key values, Bearer/sk- tokens,
    key=value pairs, and user-info in any URL it quotes."""
    if not value:
        return value
    for key in keys:
        if key and len(key) >= 4:
            value = value.replace(key, MASK)
    value = _URL_USERINFO.sub(rf"\1{MASK}@", value)
    for pattern in _TOKENS:
        value = pattern.sub(lambda m: m.group(1) + MASK, value)
    return value


def env_keys(*names: str) -> tuple[str, ...]:
    """The values of these environment variables (to redact them wherever they are echoed)."""
    return tuple(v for v in (os.environ.get(n) for n in names if n) if v)


def url_secrets(value: str | None) -> tuple[str, ...]:
    """What a base URL's user-info lets an endpoint echo back: the password, "user:password"
    and its Basic-auth base64 (an HTTP client sends user-info as Basic credentials)."""
    try:
        parts = urlsplit(value or "")
    except ValueError:
        return ()
    if "@" not in parts.netloc:
        return ()
    info = parts.netloc.rsplit("@", 1)[0]
    user, _, password = info.partition(":")
    pairs = {f"{user}:{password}", f"{unquote(user)}:{unquote(password)}"}
    found = [password, unquote(password), *pairs,
             *(base64.b64encode(p.encode()).decode() for p in pairs)]
    return tuple(s for s in found if s and len(s) >= 4 and s != ":")


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


def check_env_name(value: str) -> str:
    """An environment variable's name, never a key itself (the value is not echoed)."""
    if not isinstance(value, str) or not ENV_NAME.fullmatch(value):
        raise ValueError("must be the NAME of an environment variable holding the key "
                         "(letters, digits and _, e.g. OPENROUTER_API_KEY), not the key itself")
    return value
