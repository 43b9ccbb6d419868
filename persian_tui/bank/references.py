"""Finding questions by a source id through any of their references (question_sources): the one
lookup behind import-labels, import-predictions and import-reasoning."""

from __future__ import annotations

from collections import defaultdict

from ..store import Store


class References:
    """source id -> the questions known by it, per source name."""

    def __init__(self, store: Store, source: str | None = None):
        self.source = source
        self._by_id: dict[str, dict[str | None, list[str]]] = defaultdict(dict)
        for name, sid, uid in store.sources.reference_rows(source):
            uids = self._by_id[sid].setdefault(name, [])
            if uid not in uids:
                uids.append(uid)

    def __contains__(self, sid: str) -> bool:
        return sid in self._by_id

    def find(self, sid: str, source: str | None = None) -> list[str]:
        """The distinct questions with reference (source, sid); any source when None."""
        names = self._by_id.get(sid, {})
        groups = [names.get(source, [])] if source is not None else list(names.values())
        return list(dict.fromkeys(uid for uids in groups for uid in uids))

    def sources_of(self, sid: str) -> list[str]:
        """The source names that use this id (for messages)."""
        return sorted(n or "(no name)" for n in self._by_id.get(sid, {}))

    def why_not_one(self, sid: str, source: str | None = None, hint: str = "pass --source NAME") -> str | None:
        """None when (source, sid) names exactly one question, else the reason (with ``hint``
        when naming the source would help)."""
        found = self.find(sid, source)
        if len(found) == 1:
            return None
        where = f" in {source}" if source is not None else ""
        if not found:
            return f"no question with source id {sid}{where}"
        names = self.sources_of(sid) if source is None else [source]
        hint = f"; {hint}" if source is None and len(names) > 1 else ""
        return (f"source id {sid}{where} is ambiguous: {len(found)} different questions "
                f"({', '.join(found[:4])}{' ...' if len(found) > 4 else ''}) in {', '.join(names)}{hint}")
