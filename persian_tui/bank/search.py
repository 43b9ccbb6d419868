"""Incremental search over the bank, in memory.

SQLite's instr() scans 10,000 search texts in 20-120 ms; Python's substring search does it
in a few. The entries are re-read only when the database has changed (any connection)."""

from __future__ import annotations

from ..store import Store
from ..text import search_compact, search_terms


class BankSearch:
    def __init__(self, store: Store):
        self.store = store
        self._version: tuple[int, int] | None = None
        self._entries: list[tuple[str, str, str, str | None]] = []

    def refresh(self) -> None:
        version = self.store.data_version()
        if version != self._version:
            self._entries = [(uid, search_compact(body), st, cat)
                             for uid, body, st, cat in self.store.questions.search_entries()]
            self._version = version

    def uids(self, text: str = "", *, status: str | None = None,
             category: str | None = None) -> list[str]:
        """Matching uids in bank order: every word of `text` (normalized like the stored
        search text, so ي/ك find ی/ک; a ZWNJ, a space or nothing between the parts of a word
        all match) must occur; status and category must equal."""
        self.refresh()
        words, facets = split_facets(text)
        allowed = self.store.links.provenance_uids(**facets) if facets else None
        terms = search_terms(words)
        return [uid for uid, body, st, cat in self._entries
                if (status is None or st == status) and (category is None or cat == category)
                and (allowed is None or uid in allowed) and all(t in body for t in terms)]


FACETS = ("poet", "form")


def split_facets(text: str) -> tuple[str, dict[str, str]]:
    """"poet:حافظ form:Ghazal عشق" -> ("عشق", {"poet": "حافظ", "form": "Ghazal"}): filters by
    the options' poets and their corpus poems' form (see LinksRepo.provenance_uids)."""
    words, facets = [], {}
    for w in text.split():
        name, sep, value = w.partition(":")
        if sep and name.lower() in FACETS and value:
            facets[name.lower()] = value
        else:
            words.append(w)
    return " ".join(words), facets
