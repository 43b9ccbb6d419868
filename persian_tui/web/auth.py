"""Sign-in state of `persian-tui web`, in memory: sessions behind a signed cookie, and the
lock-out after repeated failed sign-ins. No I/O; time is passed in so tests need no clock."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlsplit

COOKIE = "persian_tui_session"
SESSION_SECONDS = 12 * 3600  # a sign-in lasts at most this long
FAILURES = 5  # failed sign-ins of one name from one address (or from one address, times 4) before a lock-out
LOCK_SECONDS = 15 * 60
GLOBAL_FREE = 50  # failed sign-ins server-wide within LOCK_SECONDS before every sign-in is slowed
GLOBAL_STEP = 0.1  # seconds of wait added per failure past GLOBAL_FREE ...
GLOBAL_MAX = 5.0  # ... up to this
SIGNINS = 10  # successful sign-ins of one person within LOCK_SECONDS (each may start an app process)


@dataclass
class Session:
    token: str
    user: str
    started: float
    account: str = ""  # the person's account as it was at sign-in (account_stamp): a change ends it
    address: str = "?"


def account_stamp(name: str, role: str, password_hash: str | None, added: str | None = None) -> str:
    """What a session is valid for: the person's name, role, password and when they were added.
    A new password, a cleared one, a role change, a removal (and adding again) all change it."""
    blob = "\0".join((name, role, password_hash or "", added or ""))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass
class Sessions:
    """Signed-in people: cookie value -> session. The cookie is a random token and its HMAC under
    the server's secret, so a forged or altered cookie is refused before any lookup."""

    secret: bytes
    by_token: dict[str, Session] = field(default_factory=dict)

    def _sign(self, token: str) -> str:
        return hmac.new(self.secret, token.encode("ascii"), hashlib.sha256).hexdigest()

    def start(self, user: str, now: float, account: str = "", address: str = "?") -> tuple[Session, str]:
        """A new session for ``user`` and the cookie value that names it (expired ones are
        dropped now, so abandoned sessions do not pile up)."""
        for old in [t for t, s in self.by_token.items() if now - s.started > SESSION_SECONDS]:
            del self.by_token[old]
        token = secrets.token_urlsafe(32)
        session = self.by_token[token] = Session(token, user, now, account, address)
        return session, f"{token}.{self._sign(token)}"

    def of(self, user: str) -> list[Session]:
        return [s for s in self.by_token.values() if s.user == user]

    @staticmethod
    def short_id(session: Session) -> str:
        """How an admin names a session (never the token itself, which would sign them in)."""
        return hashlib.sha256(session.token.encode("ascii")).hexdigest()[:12]

    def by_short_id(self, short: str) -> Session | None:
        return next((s for s in self.by_token.values() if self.short_id(s) == short), None)

    def find(self, cookie: str | None, now: float) -> Session | None:
        """The live session a cookie names (None: none, forged, ended or expired)."""
        token, _, signature = (cookie or "").partition(".")
        if not token or not hmac.compare_digest(signature, self._sign(token)):
            return None
        session = self.by_token.get(token)
        if session is None:
            return None
        if now - session.started > SESSION_SECONDS:
            del self.by_token[token]
            return None
        return session

    def end(self, token: str) -> None:
        self.by_token.pop(token, None)

    def end_user(self, user: str) -> None:
        for token in [t for t, s in self.by_token.items() if s.user == user]:
            del self.by_token[token]


@dataclass
class Lockout:
    """Failed sign-ins within LOCK_SECONDS. FAILURES of one name from one address lock that
    name out from that address only (a stranger elsewhere cannot lock a person out);
    4 x FAILURES from one address, whatever the names, lock that address out; past GLOBAL_FREE
    failures server-wide every sign-in waits (delay), locking nobody out. Successful sign-ins
    of one person are limited too (SIGNINS: each may start an app process)."""

    failed: dict[str, list[float]] = field(default_factory=dict)

    def _recent(self, key: str, now: float) -> list[float]:
        times = [t for t in self.failed.get(key, []) if now - t < LOCK_SECONDS]
        if times:
            self.failed[key] = times
        else:
            self.failed.pop(key, None)
        return times

    def locked(self, name: str, address: str, now: float) -> bool:
        return (len(self._recent(f"pair:{address}\0{name}", now)) >= FAILURES
                or len(self._recent(f"addr:{address}", now)) >= 4 * FAILURES)

    def delay(self, now: float) -> float:
        """Seconds every sign-in waits now (the global back-off)."""
        over = len(self._recent("all", now)) - GLOBAL_FREE
        return 0.0 if over <= 0 else min(GLOBAL_MAX, GLOBAL_STEP * over)

    def fail(self, name: str, address: str, now: float) -> None:
        for key in (f"pair:{address}\0{name}", f"addr:{address}", "all"):
            self.failed.setdefault(key, []).append(now)

    def succeed(self, name: str, address: str, now: float) -> None:
        self.failed.pop(f"pair:{address}\0{name}", None)
        self.failed.setdefault(f"signin:{name}", []).append(now)

    def too_many_sign_ins(self, name: str, now: float) -> bool:
        return len(self._recent(f"signin:{name}", now)) >= SIGNINS


def is_loopback(address: str | None) -> bool:
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def host_allowed(host: str | None, listen: str, allowed: tuple[str, ...] = ()) -> bool:
    """Whether a request's Host may reach a server listening on ``listen``: on a loopback
    address only a loopback name (127.0.0.1, ::1, localhost) or an --origin's host, so a page
    whose own name was made to resolve to 127.0.0.1 (DNS rebinding) is refused; elsewhere any."""
    if not is_loopback(listen) and listen != "localhost":
        return True
    try:
        name = urlsplit(f"//{host or ''}").hostname or ""
    except ValueError:
        return False
    names = {urlsplit(a).hostname for a in allowed}
    return name == "localhost" or is_loopback(name) or name in names


def same_origin(origin: str | None, host: str | None, allowed: tuple[str, ...] = (),
                scheme: str | None = None) -> bool:
    """Whether a request's Origin header is this server: its host:port is the Host the request
    was sent to, or it is one of ``allowed`` (--origin, e.g. the proxy's public address). No
    Origin: refused (browsers always send one with a WebSocket handshake and a form post)."""
    if not origin or origin == "null":
        return False
    if origin.rstrip("/") in {a.rstrip("/") for a in allowed}:
        return True
    parts = urlsplit(origin)
    schemes = (scheme,) if scheme else ("http", "https")  # the page's own scheme: https under TLS
    return parts.scheme in schemes and bool(host) and parts.netloc.lower() == (host or "").lower()
