"""The Ganjoor corpus: poets, poems, couplets, the FTS5 index and its searches (the option ->
couplet links are in links)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, TypedDict

from ..models import CorpusCouplet, CorpusPoem
from ..models.keys import now
from ..text import corpus_key
from .corpus_query import fts_query, spellings_query, split_candidates
from .db import Database

_COUPLET_SELECT = (
    "SELECT p.path AS poem, c.idx AS couplet, c.mesra1, c.mesra2, pt.nickname AS poet, pt.slug AS poet_slug, "
    "p.title, p.form, p.metre, p.rhyme "
    "FROM corpus_couplets c JOIN corpus_poems p ON p.id = c.poem_id "
    "JOIN corpus_poets pt ON pt.id = p.poet_id "
)
COUPLET_FIELDS = ("poem", "couplet", "poet", "poet_slug", "title", "form", "metre", "rhyme")  # and the mesras
QUOTING_LISTED, QUOTING_FOUND = 1, 2  # corpus_poems.quoting: a listed work; found from the data
QUOTED_SHARE = 0.5  # a poem is found to quote when this share of its couplets are an earlier poet's
MERGE_PAGES = 500  # FTS leaf pages (of about 4 KB) one merge transaction writes
MERGE_AT = 64  # FTS segments (an import adds one per batch) before the import merges them
FULL_MERGE_SHARE = 0.1  # after an import: one segment when this share is outside the largest


POOL_POSTINGS = 5_000  # couplets the similar-couplets pool ranks at most (related_couplets)


class CorpusStats(TypedDict):
    """What is loaded (corpus_stats)."""

    poets: int
    poems: int
    couplets: int
    hemistichs: int
    with_metre: int
    by_poet: list[dict[str, Any]]  # slug, poet (nickname), poems, couplets; most couplets first
    by_form: dict[str, int]
    links: dict[str, int]  # option links by status
    last_import: str | None


def _couplet_key(norm1: str, norm2: str) -> int:
    """A couplet's hemistichs in either order, spaces ignored, as a 64-bit hash (mark_quoting:
    Python's own string hash, the same within one process, which is all one query needs)."""
    a, b = norm1.replace(" ", ""), norm2.replace(" ", "")
    return hash((a, b) if a <= b else (b, a))


class CorpusRepo:
    def __init__(self, db: Database):
        self.db = db

    # ------------------------------------------------------------ import

    def upsert_poems(self, batch: Sequence[tuple[dict[str, Any], CorpusPoem]]) -> dict[str, int]:
        """Insert new poems, replace changed ones (same path), skip unchanged: one short
        transaction (the caller merges the index after it: merge_index). Returns counts."""
        counts = {"new": 0, "updated": 0, "unchanged": 0, "couplets": 0}
        stamp = now()
        rows: list[tuple[object, ...]] = []  # the couplets to write
        replaced: list[int] = []  # poems whose couplets changed
        with self.db.tx():
            poet_ids: dict[str, int] = {}
            for poet, _ in batch:
                if poet["slug"] in poet_ids:
                    continue
                self.db.conn.execute(
                    "INSERT INTO corpus_poets (slug, ganjoor_id, name, nickname, death_year) VALUES (?,?,?,?,?) "
                    "ON CONFLICT (slug) DO UPDATE SET ganjoor_id = excluded.ganjoor_id, "
                    "name = excluded.name, nickname = excluded.nickname, death_year = excluded.death_year",
                    (poet["slug"], poet["ganjoor_id"], poet["name"], poet["nickname"], poet.get("death_year")))
                poet_ids[poet["slug"]] = self.db.conn.execute(
                    "SELECT id FROM corpus_poets WHERE slug = ?", (poet["slug"],)).fetchone()["id"]
            for poet, poem in batch:
                row = self.db.conn.execute(
                    "SELECT id, sha256, quoting FROM corpus_poems WHERE path = ?", (poem.path,)).fetchone()
                listed = QUOTING_LISTED if poem.quoting else 0
                values = (poet_ids[poet["slug"]], poem.ganjoor_id, poem.title, poem.form, poem.metre,
                          poem.rhyme, len(poem.couplets), poem.sha256, stamp, listed)
                if row and row["sha256"] == poem.sha256:
                    counts["unchanged"] += 1
                    if (row["quoting"] == QUOTING_LISTED) != bool(listed):  # the list of works changed
                        self.db.conn.execute("UPDATE corpus_poems SET quoting = ? WHERE id = ?", (listed, row["id"]))
                    continue
                if row:
                    poem_id = row["id"]
                    self.db.conn.execute(
                        "UPDATE corpus_poems SET poet_id=?, ganjoor_id=?, title=?, form=?, metre=?, "
                        "rhyme=?, couplets=?, sha256=?, imported_at=?, quoting=? WHERE id = ?", (*values, poem_id))
                    replaced.append(poem_id)
                    counts["updated"] += 1
                else:
                    poem_id = self.db.conn.execute(
                        "INSERT INTO corpus_poems (poet_id, ganjoor_id, title, form, metre, rhyme, "
                        "couplets, sha256, imported_at, quoting, path) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                        (*values, poem.path)).lastrowid
                    counts["new"] += 1
                rows += [(poem_id, *c) for c in poem.couplets]
                counts["couplets"] += len(poem.couplets)
            for start in range(0, len(replaced), 500):  # the changed poems' old couplets
                chunk = replaced[start:start + 500]
                self.db.conn.execute(f"DELETE FROM corpus_couplets WHERE poem_id IN ({','.join('?' * len(chunk))})",
                                     chunk)
            self._insert_couplets(rows)
        return counts

    def _insert_couplets(self, rows: list[tuple[object, ...]]) -> None:
        """Inside a transaction: (poem_id, idx, mesra1, mesra2, norm1, norm2) rows, in as few
        statements as SQLite's limit on parameters allows. FTS5 (SQLite 3.40) writes what each
        statement indexed as a segment of its own: one INSERT per poem made hundreds of tiny
        segments per batch, which FTS5 then merged inside the commit."""
        per = max(1, self.db.conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // 6)
        for start in range(0, len(rows), per):
            part = rows[start:start + per]
            self.db.conn.execute("INSERT INTO corpus_couplets (poem_id, idx, mesra1, mesra2, norm1, norm2) VALUES "
                                 + ",".join(["(?,?,?,?,?,?)"] * len(part)), [v for r in part for v in r])

    def upsert_long_poem(self, poet: dict[str, Any], poem: CorpusPoem, chunk: int) -> dict[str, int]:
        """A poem too long for one short transaction (a masnavi of 50,000 couplets), written in
        several: its old couplets deleted `chunk` at a time, the poem row marked pending, its
        couplets `chunk` at a time, then its digest; the index merged after each part. Until
        the last one readers see part of the poem; a killed import leaves it pending, and the
        next import replaces it."""
        row = self.db.conn.execute("SELECT id, sha256 FROM corpus_poems WHERE path = ?", (poem.path,)).fetchone()
        if row and row["sha256"] == poem.sha256:
            return self.upsert_poems([(poet, poem)])
        while row:
            with self.db.tx():
                gone = self.db.conn.execute(
                    "DELETE FROM corpus_couplets WHERE id IN (SELECT id FROM corpus_couplets WHERE poem_id = ? "
                    "LIMIT ?)", (row["id"], chunk)).rowcount
            if not gone:
                break
            self.merge_index()
        # a pending digest never equals a stored one (a killed run's pending row is replaced)
        counts = self.upsert_poems([(poet, replace(poem, couplets=[], sha256=f"pending {time.time_ns()}"))])
        poem_id = self.db.conn.execute("SELECT id FROM corpus_poems WHERE path = ?", (poem.path,)).fetchone()["id"]
        for start in range(0, len(poem.couplets), chunk):
            with self.db.tx():
                self._insert_couplets([(poem_id, *c) for c in poem.couplets[start:start + chunk]])
            self.merge_index()
        with self.db.tx():
            self.db.conn.execute("UPDATE corpus_poems SET sha256 = ?, couplets = ? WHERE id = ?",
                                 (poem.sha256, len(poem.couplets), poem_id))
        counts["couplets"] = len(poem.couplets)
        return counts

    def index_segments(self) -> list[int]:
        """The FTS index's segments, largest first, each as the number of its leaf pages that
        start a word (FTS5's %_idx table): a measure of its size."""
        return [r[0] for r in self.db.conn.execute(
            "SELECT COUNT(*) FROM corpus_fts_idx GROUP BY segid ORDER BY 1 DESC")]

    def merge_index(self, *, final: bool = False) -> int:
        """Merge the FTS index's segments in short transactions of their own. FTS5's automatic
        merging is off (migration 18): it ran inside the inserting transaction's commit and held
        the write lock for seconds. Each step is one transaction writing about MERGE_PAGES leaf
        pages (at least one word's whole list); steps run until one does no work.
        During an import each batch adds a segment; nothing is merged until there are
        MERGE_AT, then each level holding `usermerge` (16) is merged into one segment of the
        next: few levels, so each entry is rewritten few times. `final` (after an import): into
        one segment, the fastest searches, when at least FULL_MERGE_SHARE of the index is
        outside its largest segment (a small re-import does not rewrite the whole index).
        Returns the number of steps that did work."""
        sizes = self.index_segments()
        full = final and len(sizes) > 1 and sum(sizes[1:]) >= FULL_MERGE_SHARE * sum(sizes)
        if not full and len(sizes) < MERGE_AT:
            return 0
        steps = 0
        while True:
            before = self.db.conn.total_changes
            with self.db.tx():
                self.db.conn.execute("INSERT INTO corpus_fts (corpus_fts, rank) VALUES ('merge', ?)",
                                     (-MERGE_PAGES if full else MERGE_PAGES,))
            if self.db.conn.total_changes - before < 2:  # the command itself counts one: no work done
                return steps
            steps += 1

    def mark_quoting(self) -> int:
        """Find the poems that quote others from the data: at least QUOTED_SHARE of their
        couplets (verbatim, either order) are also in a poem of a poet who died earlier. Read
        outside any transaction, each couplet keyed by a 64-bit hash of its hemistichs (a
        collision among 1.5 M couplets: odds of about 1 in 10 million) and sorted in memory: the
        full texts sorted on disk wrote most of a database's size in temporary files. The flags
        that changed are written in short transactions of 500 poems. Returns how many (listed
        works not counted)."""
        self.db.conn.create_function("couplet_key", 2, _couplet_key, deterministic=True)
        temp = self.db.conn.execute("PRAGMA temp_store").fetchone()[0]
        self.db.conn.execute("PRAGMA temp_store = MEMORY")
        try:
            rows = self.db.conn.execute(
                "WITH keyed AS (SELECT c.poem_id, p.poet_id, COALESCE(NULLIF(pt.death_year, 0), 1e9) AS dy, "
                "  couplet_key(c.norm1, c.norm2) AS k "
                "  FROM corpus_couplets c JOIN corpus_poems p ON p.id = c.poem_id "
                "  JOIN corpus_poets pt ON pt.id = p.poet_id WHERE c.norm1 != '' AND c.norm2 != ''), "
                "shared AS (SELECT k, MIN(dy) AS first FROM keyed GROUP BY k HAVING COUNT(DISTINCT poet_id) > 1) "
                "SELECT keyed.poem_id, COUNT(*) AS quoted, p.couplets FROM keyed JOIN shared ON shared.k = keyed.k "
                "JOIN corpus_poems p ON p.id = keyed.poem_id "
                "WHERE shared.first < keyed.dy GROUP BY keyed.poem_id").fetchall()
        finally:
            self.db.conn.execute(f"PRAGMA temp_store = {int(temp)}")
        found = {r["poem_id"] for r in rows if r["quoted"] >= QUOTED_SHARE * max(r["couplets"], 1)}
        was = {r["id"] for r in self.db.conn.execute("SELECT id FROM corpus_poems WHERE quoting = ?", (QUOTING_FOUND,))}
        listed = {r["id"] for r in self.db.conn.execute(
            "SELECT id FROM corpus_poems WHERE quoting = ?", (QUOTING_LISTED,))}
        for value, old, ids in ((0, QUOTING_FOUND, sorted(was - found)),
                                (QUOTING_FOUND, 0, sorted(found - was - listed))):
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                with self.db.tx():
                    self.db.conn.execute(f"UPDATE corpus_poems SET quoting = ? WHERE quoting = ? "
                                         f"AND id IN ({','.join('?' * len(chunk))})", (value, old, *chunk))
        return len(found - listed)

    def has_corpus(self) -> bool:
        return self.db.conn.execute("SELECT 1 FROM corpus_poems LIMIT 1").fetchone() is not None

    def corpus_stats(self) -> CorpusStats:
        """What is loaded: totals and, per poet, poems and couplets; forms; links."""
        poets = [dict(r) for r in self.db.conn.execute(
            "SELECT pt.slug, pt.nickname AS poet, COUNT(p.id) AS poems, COALESCE(SUM(p.couplets), 0) AS couplets "
            "FROM corpus_poets pt LEFT JOIN corpus_poems p ON p.poet_id = pt.id "
            "GROUP BY pt.id ORDER BY couplets DESC, pt.slug")]
        forms = {r["form"]: r["n"] for r in self.db.conn.execute(
            "SELECT COALESCE(form, '—') AS form, COUNT(*) AS n FROM corpus_poems GROUP BY 1 ORDER BY n DESC")}
        links = {r["status"]: r["n"] for r in self.db.conn.execute(
            "SELECT status, COUNT(*) AS n FROM option_links GROUP BY status")}
        totals = self.db.conn.execute(
            "SELECT (SELECT COALESCE(SUM((mesra1 != '') + (mesra2 != '')), 0) FROM corpus_couplets) AS hemistichs, "
            "(SELECT COUNT(*) FROM corpus_poems WHERE metre IS NOT NULL) AS with_metre, "
            "(SELECT MAX(imported_at) FROM corpus_poems) AS last_import").fetchone()
        return {
            "poets": len(poets), "poems": sum(p["poems"] for p in poets),
            "couplets": sum(p["couplets"] for p in poets),
            "hemistichs": totals["hemistichs"],
            "with_metre": totals["with_metre"],
            "by_poet": poets,
            "by_form": forms,
            "links": links,
            "last_import": totals["last_import"],
        }

    # ------------------------------------------------------------ search

    def poet_ids(self, poet: str) -> list[int]:
        """The corpus poets a filter names: any part of the nickname or full name (normalized:
        «پروین» finds «پروین اعتصامی», Arabic ي/ك match), or the slug (`parvin`)."""
        want = corpus_key(poet).replace(" ", "")
        if not want:
            return []
        return [r["id"] for r in self.db.conn.execute("SELECT id, slug, nickname, name FROM corpus_poets ORDER BY id")
                if r["slug"].lower() == poet.strip().lower()
                or want in corpus_key(r["nickname"]).replace(" ", "") or want in corpus_key(r["name"]).replace(" ", "")]

    def vocab(self, words: Iterable[str], cache: dict[str, int] | None = None, *,
              cap: int | None = None) -> dict[str, int]:
        """word -> couplets holding it, for those of the words the corpus has. Without `cap`
        from the FTS vocabulary, which counts a word's couplets by walking its whole doclist
        (19 ms for «و» at 1.4 M couplets); with `cap`, counted up to `cap` only (a word in more
        couplets counts `cap`; cap=1: is it in the corpus), never more than `cap` rows read.
        Linking keeps the counts in `cache` (word -> couplets, 0: not in the corpus) while it
        links a batch (one cap per cache)."""
        cache = cache if cache is not None else {}
        words = set(words)
        ask = sorted(w for w in words if w not in cache)
        if cap is not None:
            for w in ask:
                query = fts_query([w])
                try:
                    cache[w] = self.db.conn.execute(
                        "SELECT COUNT(*) FROM (SELECT rowid FROM corpus_fts WHERE corpus_fts MATCH ? LIMIT ?)",
                        (query, cap)).fetchone()[0] if query else 0
                except sqlite3.OperationalError:  # no word FTS5 can search (punctuation only)
                    cache[w] = 0
            return {w: cache[w] for w in words if cache[w]}
        for start in range(0, len(ask), 500):
            chunk = ask[start:start + 500]
            cache.update(dict.fromkeys(chunk, 0))
            cache.update((r["term"], r["doc"]) for r in self.db.conn.execute(
                f"SELECT term, doc FROM corpus_vocab WHERE term IN ({','.join('?' * len(chunk))})", chunk))
        return {w: cache[w] for w in words if cache[w]}

    def search_couplets(self, words: str = "", *, poet: str | None = None, form: str | None = None,
                        metre: str | None = None, limit: int = 50, scan: bool = False) -> list[CorpusCouplet]:
        """Couplets containing every word (normalized, ZWNJ-insensitive), best match first,
        filtered by poet (nickname or slug), form and metre (substring). `scan` uses a LIKE
        scan instead of the index (the benchmark's baseline)."""
        terms = corpus_key(words).split()
        clauses: list[str] = []
        params: list[object] = []
        source = ""
        if terms and not scan:
            # FTS5 drives, in rowid order: the LIMIT stops it early (an IN list of every match
            # of «و» took 220 ms at 1.4 M couplets)
            source = "corpus_fts f JOIN "
            clauses.append("corpus_fts MATCH ? AND c.id = f.rowid")
            params.append(spellings_query(terms, set(self.vocab(split_candidates(terms), cap=1))))
        for t in terms if scan else []:
            clauses.append("(' ' || c.norm1 || ' ' || c.norm2 || ' ') LIKE ?")
            params.append(f"% {t} %")
        if poet:
            ids = self.poet_ids(poet)
            clauses.append(f"pt.id IN ({','.join('?' * len(ids))})" if ids else "0")
            params += ids
        if form:
            clauses.append("lower(p.form) = lower(?)")
            params.append(form)
        if metre:
            clauses.append("instr(p.metre, ?) > 0")
            params.append(metre)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        order = "f.rowid" if source else "c.id"
        select = _COUPLET_SELECT.replace("FROM corpus_couplets c", f"FROM {source}corpus_couplets c")
        rows = self.db.conn.execute(f"{select} {where} ORDER BY {order} LIMIT ?", (*params, limit))
        return [CorpusCouplet(**r) for r in rows]

    def related_couplets(self, text: str, *, limit: int = 400, poet: str | None = None,
                         form: str | None = None, exclude: frozenset[str] = frozenset()) -> list[CorpusCouplet]:
        """Couplets sharing any of the text's words, rarest words weighing most (FTS5 bm25):
        the candidate pool for similarity ranking. FTS5 ranks every couplet holding any word
        of the OR, so it takes the rarest words while their couplets add up to POOL_POSTINGS
        (its cost does not grow with the corpus); when even the rarest word is in more, the
        first `limit` couplets holding it, unranked. `exclude`: a couplet's hemistichs without
        spaces (either order): its copies are left out of the pool."""
        words = sorted(set(corpus_key(text).split()))
        if not words:
            return []
        df = self.vocab(words, cap=POOL_POSTINGS + 1)
        known = sorted((w for w in words if df.get(w)), key=lambda w: (df[w], w))
        # words found in one couplet only are often the couplet itself: they cannot fill the pool
        rare: list[str] = []
        for w in [w for w in known if df[w] > 1][:8]:
            if sum(df[r] for r in rare) + df[w] > POOL_POSTINGS:
                break
            rare.append(w)
        rank = "ORDER BY rank" if rare else ""
        rare = (rare or [w for w in known if df[w] > 1][:1]) + [w for w in known if df[w] == 1][:4]
        if not rare:
            return []
        clauses, params = [f"c.id IN (SELECT rowid FROM corpus_fts WHERE corpus_fts MATCH ? {rank} LIMIT ?)"], \
            [" OR ".join(fts_query([w]) for w in rare), limit]
        if poet:
            ids = self.poet_ids(poet)
            clauses.append(f"pt.id IN ({','.join('?' * len(ids))})" if ids else "0")
            params += ids
        if form:
            clauses.append("lower(p.form) = lower(?)")
            params.append(form)
        select = _COUPLET_SELECT.replace("SELECT ", "SELECT c.norm1, c.norm2, ", 1)
        rows = self.db.conn.execute(f"{select} WHERE {' AND '.join(clauses)}", params)
        return [CorpusCouplet(**{k: r[k] for k in r.keys() if k not in ("norm1", "norm2")}) for r in rows
                if not exclude or frozenset(k for k in (r["norm1"].replace(" ", ""), r["norm2"].replace(" ", ""))
                                            if k) != exclude]

    def couplet_at(self, poem: str, index: int) -> CorpusCouplet | None:
        row = self.db.conn.execute(f"{_COUPLET_SELECT} WHERE p.path = ? AND c.idx = ?", (poem, index)).fetchone()
        return CorpusCouplet(**row) if row else None

    def poem_path(self, poem_id: int) -> str | None:
        row = self.db.conn.execute("SELECT path FROM corpus_poems WHERE id = ?", (poem_id,)).fetchone()
        return row["path"] if row else None

