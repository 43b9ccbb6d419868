"""Password hashes for the web front (`persian-tui web`): scrypt, salted, slow; the hash is
stored, never the password. Pure functions over hashlib (no I/O but the random salt)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

# scrypt's cost: n=2**15, r=8, p=1 takes ~32 MB and ~60 ms a try on one core; stored with the hash
# so a later, costlier setting still verifies old hashes
N, R, P = 2**15, 8, 1
MIN_LENGTH = 10
MAX_LENGTH = 1024
_MAXMEM = 64 * 1024 * 1024


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=_MAXMEM, dklen=32)


def check_password(password: str) -> str:
    """A password a person may set: MIN_LENGTH to MAX_LENGTH characters; ValueError otherwise."""
    if len(password) < MIN_LENGTH:
        raise ValueError(f"a password has at least {MIN_LENGTH} characters")
    if len(password) > MAX_LENGTH:
        raise ValueError(f"a password has at most {MAX_LENGTH} characters")
    return password


def hash_password(password: str, *, n: int = N) -> str:
    """The stored form: "scrypt$n$r$p$salt$hash" (base64), with a new random 16-byte salt."""
    salt = os.urandom(16)
    return f"scrypt${n}${R}${P}${_b64(salt)}${_b64(_scrypt(password, salt, n, R, P))}"


def verify_password(password: str, stored: str | None) -> bool:
    """Whether ``password`` matches ``stored``; False for no hash or a malformed one. With no
    hash the same work is done, so a missing user takes as long as a wrong password."""
    try:
        scheme, n, r, p, salt, digest = (stored or "").split("$")
        if scheme != "scrypt":
            raise ValueError(scheme)
        expected = base64.b64decode(digest, validate=True)
        got = _scrypt(password, base64.b64decode(salt, validate=True), int(n), int(r), int(p))
    except (ValueError, TypeError):
        _scrypt(password, b"\0" * 16, N, R, P)
        return False
    return hmac.compare_digest(got, expected)
