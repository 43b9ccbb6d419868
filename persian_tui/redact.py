"""Secrets out of everything stored, logged or printed: passwords in URLs, API keys, tokens.

API keys come from the environment only; these functions make sure nothing an endpoint echoes
back, and no user-info in a base URL, reaches the database, an export or the terminal."""

from __future__ import annotations

import base64
import re
from urllib.parse import unquote, urlsplit, urlunsplit

from . import settings

# Bearer and Basic credentials, OpenAI/OpenRouter/Anthropic-style keys, and key=... values, in this order
_TOKENS = (
    re.compile(r"(?i)(\b(?:bearer|basic)\s+)[^\s\"',;]+"),
    re.compile(r"\b()(?:sk|pk|rk)-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"(?<![A-Za-z0-9])()(?:hf|hf_oauth)_[A-Za-z0-9]{8,}"),  # Hugging Face tokens
    re.compile(r"(?i)((?<![A-Za-z0-9])(?:api[_-]?key|(?:access|refresh|id|auth)[_-]?token|token|key|sig|signature|"
               r"password|passwd|pwd|secret|client[_-]?secret|auth|code)[\"']?\s*[:=]\s*[\"']?)"
               r"(?!\*\*\*)(?!bearer\b)[^\s\"',;&]+"),
)
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@]+@")
MASK = "***"
# query parameters that carry a credential (compared lower-case, without - and _)
SECRET_PARAMS = frozenset(["apikey", "key", "token", "accesstoken", "refreshtoken", "idtoken", "authtoken",
                           "auth", "sig", "signature", "secret", "clientsecret", "password", "passwd", "pwd",
                           "code", "session", "sessionid", "credential", "credentials", "xapikey", "jwt"])
_KEYLIKE = re.compile(r"(?=[A-Za-z0-9_\-+/=.%]*[0-9])(?=[A-Za-z0-9_\-+/=.%]*[A-Za-z])[A-Za-z0-9_\-+/=.%]{20,}")


def _secret_param(name: str, value: str) -> bool:
    """A credential by its name (api_key, key, token, sig, ...) or by its look (a long mix of
    letters and digits, or an sk-... key)."""
    plain = unquote(name).lower().replace("-", "").replace("_", "")
    return bool(value) and (plain in SECRET_PARAMS or bool(_KEYLIKE.fullmatch(value))
                            or any(p.search(unquote(value)) for p in _TOKENS[1:3]))


def _query_secrets(query: str) -> list[str]:
    return [v for name, _, v in (part.partition("=") for part in query.split("&")) if _secret_param(name, v)]


def url(value: str | None) -> str | None:
    """The URL with any user-info and query credential replaced (the fragment dropped):
    https://user:pw@host/v1?key=abc&x=1 -> https://***@host/v1?key=***&x=1."""
    if not value:
        return value
    try:
        parts = urlsplit(value)
    except ValueError:
        return text(value)
    if "@" in parts.netloc:
        parts = parts._replace(netloc=f"{MASK}@{parts.netloc.rsplit('@', 1)[1]}")
    if parts.query or parts.fragment:
        query = "&".join(f"{name}={MASK}" if sep and _secret_param(name, v) else name + sep + v
                         for name, sep, v in (p.partition("=") for p in parts.query.split("&")))
        parts = parts._replace(query=query if parts.query else "", fragment="")
    return urlunsplit(parts)


def was_redacted(value: str | None) -> bool:
    """Whether a stored URL lost a secret (user-info or a query credential): it cannot be used."""
    if not value:
        return False
    return f"{MASK}@" in value or f"={MASK}" in value


def text(value: str | None, *, keys: tuple[str, ...] = ()) -> str | None:
    """Text with secrets removed: the given key values, Bearer/sk-/hf_ tokens, key=value pairs
    (api_key=..., token=..., also in a URL's query), and user-info in any URL it quotes. The one
    choke point for error messages and for names taken from files (a model name from a log)."""
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
    """The API keys in these environment variables (to redact them wherever they are echoed)."""
    return tuple(v for v in (settings.api_key(n) for n in names if n) if v)


def url_secrets(value: str | None) -> tuple[str, ...]:
    """What a base URL lets an endpoint echo back: the password, "user:password" and its
    Basic-auth base64 (an HTTP client sends user-info as Basic credentials), and the values of
    credentials in its query string (raw and decoded)."""
    try:
        parts = urlsplit(value or "")
    except ValueError:
        return ()
    query = [q for v in _query_secrets(parts.query) for q in (v, unquote(v)) if len(q) >= 4]
    if "@" not in parts.netloc:
        return tuple(query)
    info = parts.netloc.rsplit("@", 1)[0]
    user, _, password = info.partition(":")
    pairs = {f"{user}:{password}", f"{unquote(user)}:{unquote(password)}"}
    found = [password, unquote(password), *pairs,
             *(base64.b64encode(p.encode()).decode() for p in pairs)]
    return tuple(s for s in found + query if s and len(s) >= 4 and s != ":")


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


def check_env_name(value: str) -> str:
    """An environment variable's name, never a key itself (the value is not echoed)."""
    if not isinstance(value, str) or not ENV_NAME.fullmatch(value):
        raise ValueError("must be the NAME of an environment variable holding the key "
                         "(letters, digits and _, e.g. OPENROUTER_API_KEY), not the key itself")
    return value
