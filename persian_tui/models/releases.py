"""Releases' data: a frozen question and a release, the rule for a release's name
(`check_release_name`: it names a folder) and its content digest (`release_digest`)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

RELEASE_NAME = re.compile(r"[^\W_][\w.\-]{0,99}")  # letters of any script (v1.0, نسخه-۱), digits, . _ -


def check_release_name(value: str | None) -> str | None:
    """A release's name: letters, digits, '.', '_' and '-', starting with a letter or digit
    (it names a folder: no '/', no '..', nothing hidden)."""
    if value is None:
        return None
    if not isinstance(value, str) or not RELEASE_NAME.fullmatch(value) or ".." in value \
            or unicodedata.normalize("NFC", value) != value:
        raise ValueError("must be letters, digits, '.', '_' or '-' (at most 100, starting with a "
                         "letter or digit), e.g. v1.0")
    return value


@dataclass(frozen=True)
class ReleaseItem:
    """One frozen question of a release: its record (a JSONL line) and that line's sha256."""
    uid: str
    sha256: str
    key: int | None
    record: str


@dataclass(frozen=True)
class Release:
    name: str
    digest: str  # release_digest of its items
    questions: int
    created_by: str | None
    created_at: str
    items: tuple[ReleaseItem, ...] = ()


def release_digest(items: Iterable[ReleaseItem]) -> str:
    """sha256 over the items' (uid, content hash, key) in release order: names the content."""
    blob = "".join(f"{i.uid}\t{i.sha256}\t{i.key if i.key is not None else ''}\n" for i in items)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
