"""FTS5 query text for the corpus (pure functions, no database): quoted words, the spellings of
a search (words joined and split), and the repairs of a PDF's damaged «لا»."""

from __future__ import annotations

from collections.abc import Iterable

MAX_JOINS = 5  # word boundaries of a search tried both joined and apart (2**5 spellings at most)


def pdf_repairs(words: Iterable[str]) -> dict[str, list[str]]:
    """Spellings a PDF's right-to-left extraction may have damaged, repaired: it writes the
    ligature «لا» as «ال» («انقلاب» -> «انقالب», «سالاری» -> «ساالری»). Each word with «ال»
    after its first letter -> the word with one or all of those turned back into «لا»."""
    out: dict[str, list[str]] = {}
    for w in words:
        spots = [i for i in range(1, len(w) - 1) if w.startswith("ال", i)]
        if not spots:
            continue
        alts = {w[:i] + "لا" + w[i + 2:] for i in spots}
        alts.add(w[:1] + w[1:].replace("ال", "لا"))
        out[w] = sorted(alts - {w})
    return out


def fts_query(words: Iterable[str]) -> str:
    """An FTS5 query of quoted words (no operator in the data reaches the parser)."""
    return " ".join('"' + w.replace('"', "") + '"' for w in words if w.replace('"', ""))


def spellings(terms: list[str]) -> list[list[str]]:
    """The words as typed, and with neighbours joined: "می خانه ها" -> [می خانه ها], [میخانه ها],
    [می خانهها], [میخانهها]. Boundaries next to a short word are tried first, MAX_JOINS at most."""
    terms = [t.replace('"', "") for t in terms if t.replace('"', "")]
    bounds = sorted(range(len(terms) - 1), key=lambda i: (min(len(terms[i]), len(terms[i + 1])), i))[:MAX_JOINS]
    out: list[list[str]] = []
    for mask in range(1 << len(bounds)):
        joined = {b for k, b in enumerate(bounds) if mask >> k & 1}
        words = terms[:1]
        for i, t in enumerate(terms[1:]):
            if i in joined:
                words[-1] += t
            else:
                words.append(t)
        if words not in out:
            out.append(words)
    return out


def split_candidates(terms: list[str]) -> set[str]:
    """The halves (two letters or more) of every word of every spelling of the terms: the
    words to look up in the corpus vocabulary for `spellings_query`'s `known`."""
    return {h for words in spellings(terms) for w in words for i in range(2, len(w) - 1)
            for h in (w[:i], w[i:])}


def spellings_query(terms: list[str], known: set[str] | frozenset[str] = frozenset(),
                    df: dict[str, int] | None = None, keep: int = 0) -> str:
    """An FTS5 query (every word quoted: no operator from the data) that is space-insensitive.
    Corpus keys drop the ZWNJ ("می‌خانه" is the one word "میخانه"), so a word typed apart
    ("می خانه") is also tried joined to its neighbours (see spellings); and a word the corpus
    writes as two (both halves in `known`, the corpus vocabulary) also matches that phrase:
    "میخانه" finds "می خانه". With `df` (word -> couplets holding it, for every word of every
    spelling and their halves) and `keep`, each spelling asks for its `keep` rarest words only
    (a common word adds a long doclist for FTS5 to walk and selects nothing) and a spelling with
    a word the corpus cannot match is left out; "" when no spelling can match."""
    def word(w: str) -> str:
        alts = [w] + [f"{w[:i]} {w[i:]}" for i in range(2, len(w) - 1) if w[:i] in known and w[i:] in known]
        return f'"{w}"' if len(alts) == 1 else "(" + " OR ".join(f'"{a}"' for a in alts) + ")"

    def cost(w: str, df: dict[str, int]) -> int | None:  # the couplets a word (or its two-word spelling) can be in
        splits = [min(df[w[:i]], df[w[i:]]) for i in range(2, len(w) - 1) if w[:i] in df and w[i:] in df]
        found = ([df[w]] if w in df else []) + splits
        return max(found) if found else None

    queries: list[str] = []
    for words in spellings(terms):
        if df is not None and keep:
            costs = {w: cost(w, df) for w in words}
            if None in costs.values():
                continue
            words = sorted(set(words), key=lambda w: (costs[w], w))[:keep]
        query = " AND ".join(word(w) for w in words)
        if query not in queries:
            queries.append(query)
    if not queries:
        return ""
    return queries[0] if len(queries) == 1 else " OR ".join(f"({q})" for q in queries)


KEY_ENDS = 4  # letters from each end of a hemistich make its key (migration 20's triggers; at most
# 101 hemistichs share one among the 2.8 M of the full-size bench corpus)


def hemistich_token(key: str) -> str:
    """The corpus_keys token of a hemistich (a corpus key: text.corpus_key): its first and last
    KEY_ENDS letters without spaces, as migration 20's triggers write it; "" for an empty one.
    FTS5 splits a token at a character that is not a letter or digit: then the longest piece is
    asked (it finds a superset; callers compare the text)."""
    flat = key.replace(" ", "")
    token = flat[:KEY_ENDS] + flat[-KEY_ENDS:]
    if token.isalnum():
        return token
    pieces = "".join(ch if ch.isalnum() else " " for ch in token).split()
    return max(pieces, key=len) if pieces else ""
