"""Incremental search over the bank, in memory.

SQLite's instr() scans 10,000 search texts in 20-120 ms; Python's substring search does it
in a few. The entries are re-read only when the database has changed (any connection).

Who searches decides what a search runs over (``persian_tui.access``): a blind person's search
matches only what they are shown (couplets, stem, ids, category, tags, the notes of their own
labels), never a poet, a source page, a corpus link, a status or another person's note, so a
search cannot tell them what the label screen hides."""

from __future__ import annotations

from ..access import Access
from ..models.keys import search_body
from ..models.limits import check_text
from ..store import Store
from ..text import search_compact, search_terms

Entry = tuple[str, str, str, str | None]


class BankSearch:
    def __init__(self, store: Store):
        self.store = store
        self._read: dict[tuple[bool, str | None], tuple[tuple[int, int], list[Entry]]] = {}

    def entries(self, sees_sources: bool, person: str | None = None) -> list[Entry]:
        """(uid, compacted search text, status, category) of every question, re-read when the
        database changed: the full text for who sees sources, else the blind one with the
        notes of ``person``'s own labels (the only notes a blind person sees)."""
        version = self.store.data_version()
        key = (sees_sources, None if sees_sources else person)
        read = self._read.get(key)
        if read is None or read[0] != version:
            rows = (self.store.questions.search_entries() if sees_sources
                    else self.store.questions.blind_search_entries())
            notes = {} if sees_sources or person is None else {
                lab.uid: lab.note for lab in self.store.labels.labels(annotator=person) if lab.note}
            read = (version, [(uid, search_compact(body + (" " + search_body([notes[uid]]) if uid in notes else "")),
                               st, cat) for uid, body, st, cat in rows])
            self._read[key] = read
        return read[1]

    def uids(self, text: str = "", *, who: Access, status: str | None = None,
             category: str | None = None) -> list[str]:
        """Matching uids in bank order, as ``who`` may search: every word of `text` (normalized
        like the stored search text, so ي/ك find ی/ک; a ZWNJ, a space or nothing between the
        parts of a word all match) must occur; status and category must equal. AccessDenied
        for a blind person's status filter or poet:/form: facet; ValueError for a search past
        its cap (models/limits.py)."""
        check_text("search", text)
        words, facets = split_facets(text)
        if facets:
            who.require("see_sources")
        status = who.status_filter(status)
        entries = self.entries(who.may("see_sources"), who.user)
        allowed = self.store.links.provenance_uids(**facets) if facets else None
        terms = search_terms(words)
        return [uid for uid, body, st, cat in entries
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
