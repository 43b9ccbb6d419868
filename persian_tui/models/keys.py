"""Derived keys of a question: content fingerprint, deterministic import uid, search text."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime

from ..text import couplet_key, match_key, normalize
from .bank import Question


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def couplet_keys(q: Question) -> list[str]:
    return [couplet_key(o.mesra1, o.mesra2) for o in sorted(q.options, key=lambda o: o.position)]


def repeated_couplets(q: Question) -> list[str]:
    """The same couplet twice in one question (normalized, either hemistich order): a dirty
    question, whose outlier cannot be meant."""
    out: list[str] = []
    seen: dict[str, int] = {}
    for o in sorted(q.options, key=lambda o: o.position):
        if not ((o.mesra1 or "").strip() and (o.mesra2 or "").strip()):
            continue
        k = couplet_key(o.mesra1, o.mesra2)
        if k in seen:
            out.append(f"couplets {seen[k]} and {o.position} are the same")
        else:
            seen[k] = o.position
    return out


def fingerprint(q: Question) -> str:
    """Same normalized stem and couplets in the same order -> same fingerprint."""
    text = "\n".join([match_key(q.stem), *couplet_keys(q)])
    return hashlib.sha256(text.encode()).hexdigest()


def import_uid(source_name: str, source_id: str | None, fp: str) -> str:
    """Deterministic uid for an imported record: the same file gives the same uids in any DB."""
    h = hashlib.sha256(f"{source_name}\0{source_id}\0{fp}".encode()).hexdigest()
    return f"q-{h[:10]}"


def new_uid() -> str:
    return f"q-{uuid.uuid4().hex[:10]}"


def search_text(q: Question) -> str:
    """Normalized text the bank's incremental search runs over."""
    parts = [q.uid, q.source_id or "", q.stem, q.category or "", q.poet or "", *q.tags]
    for o in q.options:
        parts += [o.mesra1, o.mesra2, o.poet or ""]
    return search_body(parts)


def search_body(parts: list[str]) -> str:
    """The normalized search text of these parts; a blind person's search runs over one made
    of only what they see (``QuestionsRepo.blind_search_entries``): no poet, page or status."""
    return normalize(" ".join(p for p in parts if p)).lower()
