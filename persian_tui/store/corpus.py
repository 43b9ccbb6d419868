"""The Ganjoor corpus: poets, poems, couplets, the FTS5 index, and option -> couplet links."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from ..models import CorpusCouplet, CorpusPoem, OptionLink
from ..models.keys import now
from ..models.linking import Candidate, Decision, decide
from ..text import corpus_key
from .corpus_query import fts_query, pdf_repairs, spellings, spellings_query, split_candidates
from .errors import StoreBusy

_COUPLET_SELECT = (
    "SELECT p.path AS poem, c.idx AS couplet, c.mesra1, c.mesra2, pt.nickname AS poet, pt.slug AS poet_slug, "
    "p.title, p.form, p.metre, p.rhyme "
    "FROM corpus_couplets c JOIN corpus_poems p ON p.id = c.poem_id "
    "JOIN corpus_poets pt ON pt.id = p.poet_id "
)
_CANDIDATE_SELECT = (
    "SELECT c.id AS couplet_id, c.poem_id, c.idx AS \"index\", c.norm1, c.norm2, pt.id AS poet_id, "
    "pt.nickname AS poet, pt.death_year, p.quoting, p.path AS poem, pt.slug AS poet_slug "
    "FROM corpus_couplets c JOIN corpus_poems p ON p.id = c.poem_id "
    "JOIN corpus_poets pt ON pt.id = p.poet_id "
)
_COUPLET_FIELDS = ("poem", "couplet", "poet", "poet_slug", "title", "form", "metre", "rhyme")  # and the mesras
FTS_CANDIDATES = 40  # fuzzy candidates per option, best bm25 first
RARE_TOKENS = 4  # the rarest words of an option make one of its FTS queries ...
BROAD_TOKENS = 10  # ... and up to this many words, the commonest left out, another
COMMON = 20_000  # couplets: a word in more is too common to find a couplet by
QUOTING_LISTED, QUOTING_FOUND = 1, 2  # corpus_poems.quoting: a listed work; found from the data
QUOTED_SHARE = 0.5  # a poem is found to quote when this share of its couplets are an earlier poet's
MERGE_PAGES = 500  # FTS leaf pages (of about 4 KB) one merge transaction writes
MERGE_AT = 64  # FTS segments (an import adds one per batch) before the import merges them
FULL_MERGE_SHARE = 0.1  # after an import: one segment when this share is outside the largest
HALF_TOKENS = 3  # linking: a hemistich's couplets are looked up by its rarest words only
VERBATIM = ("exact", "swapped")  # link methods that end the candidate search early
STAGES = ("half", "narrow", "wide")  # the candidate search, cheapest first (CorpusRepo._candidates)


def _couplet_key(norm1: str, norm2: str) -> int:
    """A couplet's hemistichs in either order, spaces ignored, as a 64-bit hash (mark_quoting)."""
    a, b = sorted((norm1.replace(" ", ""), norm2.replace(" ", "")))
    return int.from_bytes(hashlib.blake2b(f"{a}|{b}".encode(), digest_size=8).digest(), "big", signed=True)


class CorpusRepo:
    conn: sqlite3.Connection
    _df: dict[str, int] | None = None  # word -> couplets (0: not in the corpus) while linking a batch

    # ------------------------------------------------------------ import

    def upsert_poems(self, batch: list[tuple[dict, CorpusPoem]]) -> dict:
        """Insert new poems, replace changed ones (same path), skip unchanged: one short
        transaction (the caller merges the index after it: merge_index). Returns counts."""
        counts = {"new": 0, "updated": 0, "unchanged": 0, "couplets": 0}
        stamp = now()
        rows: list[tuple] = []  # the couplets to write
        replaced: list[int] = []  # poems whose couplets changed
        with self.tx():
            poet_ids: dict[str, int] = {}
            for poet, _ in batch:
                if poet["slug"] in poet_ids:
                    continue
                self.conn.execute(
                    "INSERT INTO corpus_poets (slug, ganjoor_id, name, nickname, death_year) VALUES (?,?,?,?,?) "
                    "ON CONFLICT (slug) DO UPDATE SET ganjoor_id = excluded.ganjoor_id, "
                    "name = excluded.name, nickname = excluded.nickname, death_year = excluded.death_year",
                    (poet["slug"], poet["ganjoor_id"], poet["name"], poet["nickname"], poet.get("death_year")))
                poet_ids[poet["slug"]] = self.conn.execute(
                    "SELECT id FROM corpus_poets WHERE slug = ?", (poet["slug"],)).fetchone()["id"]
            for poet, poem in batch:
                row = self.conn.execute(
                    "SELECT id, sha256, quoting FROM corpus_poems WHERE path = ?", (poem.path,)).fetchone()
                listed = QUOTING_LISTED if poem.quoting else 0
                values = (poet_ids[poet["slug"]], poem.ganjoor_id, poem.title, poem.form, poem.metre,
                          poem.rhyme, len(poem.couplets), poem.sha256, stamp, listed)
                if row and row["sha256"] == poem.sha256:
                    counts["unchanged"] += 1
                    if (row["quoting"] == QUOTING_LISTED) != bool(listed):  # the list of works changed
                        self.conn.execute("UPDATE corpus_poems SET quoting = ? WHERE id = ?", (listed, row["id"]))
                    continue
                if row:
                    poem_id = row["id"]
                    self.conn.execute(
                        "UPDATE corpus_poems SET poet_id=?, ganjoor_id=?, title=?, form=?, metre=?, "
                        "rhyme=?, couplets=?, sha256=?, imported_at=?, quoting=? WHERE id = ?", (*values, poem_id))
                    replaced.append(poem_id)
                    counts["updated"] += 1
                else:
                    poem_id = self.conn.execute(
                        "INSERT INTO corpus_poems (poet_id, ganjoor_id, title, form, metre, rhyme, "
                        "couplets, sha256, imported_at, quoting, path) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                        (*values, poem.path)).lastrowid
                    counts["new"] += 1
                rows += [(poem_id, *c) for c in poem.couplets]
                counts["couplets"] += len(poem.couplets)
            for start in range(0, len(replaced), 500):  # the changed poems' old couplets
                chunk = replaced[start:start + 500]
                self.conn.execute(f"DELETE FROM corpus_couplets WHERE poem_id IN ({','.join('?' * len(chunk))})",
                                  chunk)
            self._insert_couplets(rows)
        return counts

    def _insert_couplets(self, rows: list[tuple]) -> None:
        """Inside a transaction: (poem_id, idx, mesra1, mesra2, norm1, norm2) rows, in as few
        statements as SQLite's limit on parameters allows. FTS5 (SQLite 3.40) writes what each
        statement indexed as a segment of its own: one INSERT per poem made hundreds of tiny
        segments per batch, which FTS5 then merged inside the commit."""
        per = max(1, self.conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // 6)
        for start in range(0, len(rows), per):
            part = rows[start:start + per]
            self.conn.execute("INSERT INTO corpus_couplets (poem_id, idx, mesra1, mesra2, norm1, norm2) VALUES "
                              + ",".join(["(?,?,?,?,?,?)"] * len(part)), [v for r in part for v in r])

    def upsert_long_poem(self, poet: dict, poem: CorpusPoem, chunk: int) -> dict:
        """A poem too long for one short transaction (a masnavi of 50,000 couplets), written in
        several: its old couplets deleted `chunk` at a time, the poem row marked pending, its
        couplets `chunk` at a time, then its digest; the index merged after each part. Until
        the last one readers see part of the poem; a killed import leaves it pending, and the
        next import replaces it."""
        row = self.conn.execute("SELECT id, sha256 FROM corpus_poems WHERE path = ?", (poem.path,)).fetchone()
        if row and row["sha256"] == poem.sha256:
            return self.upsert_poems([(poet, poem)])
        while row:
            with self.tx():
                gone = self.conn.execute(
                    "DELETE FROM corpus_couplets WHERE id IN (SELECT id FROM corpus_couplets WHERE poem_id = ? "
                    "LIMIT ?)", (row["id"], chunk)).rowcount
            if not gone:
                break
            self.merge_index()
        # a pending digest never equals a stored one (a killed run's pending row is replaced)
        counts = self.upsert_poems([(poet, replace(poem, couplets=[], sha256=f"pending {time.time_ns()}"))])
        poem_id = self.conn.execute("SELECT id FROM corpus_poems WHERE path = ?", (poem.path,)).fetchone()["id"]
        for start in range(0, len(poem.couplets), chunk):
            with self.tx():
                self._insert_couplets([(poem_id, *c) for c in poem.couplets[start:start + chunk]])
            self.merge_index()
        with self.tx():
            self.conn.execute("UPDATE corpus_poems SET sha256 = ?, couplets = ? WHERE id = ?",
                              (poem.sha256, len(poem.couplets), poem_id))
        counts["couplets"] = len(poem.couplets)
        return counts

    def index_segments(self) -> list[int]:
        """The FTS index's segments, largest first, each as the number of its leaf pages that
        start a word (FTS5's %_idx table): a measure of its size."""
        return [r[0] for r in self.conn.execute("SELECT COUNT(*) FROM corpus_fts_idx GROUP BY segid ORDER BY 1 DESC")]

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
            before = self.conn.total_changes
            with self.tx():
                self.conn.execute("INSERT INTO corpus_fts (corpus_fts, rank) VALUES ('merge', ?)",
                                  (-MERGE_PAGES if full else MERGE_PAGES,))
            if self.conn.total_changes - before < 2:  # the command itself counts one: no work done
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
        self.conn.create_function("couplet_key", 2, _couplet_key, deterministic=True)
        temp = self.conn.execute("PRAGMA temp_store").fetchone()[0]
        self.conn.execute("PRAGMA temp_store = MEMORY")
        try:
            rows = self.conn.execute(
                "WITH keyed AS (SELECT c.poem_id, p.poet_id, COALESCE(NULLIF(pt.death_year, 0), 1e9) AS dy, "
                "  couplet_key(c.norm1, c.norm2) AS k "
                "  FROM corpus_couplets c JOIN corpus_poems p ON p.id = c.poem_id "
                "  JOIN corpus_poets pt ON pt.id = p.poet_id WHERE c.norm1 != '' AND c.norm2 != ''), "
                "shared AS (SELECT k, MIN(dy) AS first FROM keyed GROUP BY k HAVING COUNT(DISTINCT poet_id) > 1) "
                "SELECT keyed.poem_id, COUNT(*) AS quoted, p.couplets FROM keyed JOIN shared ON shared.k = keyed.k "
                "JOIN corpus_poems p ON p.id = keyed.poem_id "
                "WHERE shared.first < keyed.dy GROUP BY keyed.poem_id").fetchall()
        finally:
            self.conn.execute(f"PRAGMA temp_store = {int(temp)}")
        found = {r["poem_id"] for r in rows if r["quoted"] >= QUOTED_SHARE * max(r["couplets"], 1)}
        was = {r["id"] for r in self.conn.execute("SELECT id FROM corpus_poems WHERE quoting = ?", (QUOTING_FOUND,))}
        listed = {r["id"] for r in self.conn.execute(
            "SELECT id FROM corpus_poems WHERE quoting = ?", (QUOTING_LISTED,))}
        for value, old, ids in ((0, QUOTING_FOUND, sorted(was - found)),
                                (QUOTING_FOUND, 0, sorted(found - was - listed))):
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                with self.tx():
                    self.conn.execute(f"UPDATE corpus_poems SET quoting = ? WHERE quoting = ? "
                                      f"AND id IN ({','.join('?' * len(chunk))})", (value, old, *chunk))
        return len(found - listed)

    def has_corpus(self) -> bool:
        return self.conn.execute("SELECT 1 FROM corpus_poems LIMIT 1").fetchone() is not None

    def corpus_stats(self) -> dict:
        """What is loaded: totals and, per poet, poems and couplets; forms; links."""
        poets = [dict(r) for r in self.conn.execute(
            "SELECT pt.slug, pt.nickname AS poet, COUNT(p.id) AS poems, COALESCE(SUM(p.couplets), 0) AS couplets "
            "FROM corpus_poets pt LEFT JOIN corpus_poems p ON p.poet_id = pt.id "
            "GROUP BY pt.id ORDER BY couplets DESC, pt.slug")]
        forms = {r["form"]: r["n"] for r in self.conn.execute(
            "SELECT COALESCE(form, '—') AS form, COUNT(*) AS n FROM corpus_poems GROUP BY 1 ORDER BY n DESC")}
        links = {r["status"]: r["n"] for r in self.conn.execute(
            "SELECT status, COUNT(*) AS n FROM option_links GROUP BY status")}
        totals = self.conn.execute(
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
        return [r["id"] for r in self.conn.execute("SELECT id, slug, nickname, name FROM corpus_poets ORDER BY id")
                if r["slug"].lower() == poet.strip().lower()
                or want in corpus_key(r["nickname"]).replace(" ", "") or want in corpus_key(r["name"]).replace(" ", "")]

    def _known_words(self, words: Iterable[str]) -> set[str]:
        """Those of the words that occur in the corpus (the FTS vocabulary)."""
        return set(self._vocab(words))

    def _vocab(self, words: Iterable[str]) -> dict[str, int]:
        """word -> couplets holding it, for those of the words the corpus has (the FTS vocabulary).
        fts5vocab counts a word's couplets by walking its whole doclist (milliseconds for a
        common word), so while link_questions runs the counts are kept (`_df`)."""
        cache = self._df if self._df is not None else {}
        words = set(words)
        ask = sorted(w for w in words if w not in cache)
        for start in range(0, len(ask), 500):
            chunk = ask[start:start + 500]
            cache.update(dict.fromkeys(chunk, 0))
            cache.update((r["term"], r["doc"]) for r in self.conn.execute(
                f"SELECT term, doc FROM corpus_vocab WHERE term IN ({','.join('?' * len(chunk))})", chunk))
        return {w: cache[w] for w in words if cache[w]}

    def search_couplets(self, words: str = "", *, poet: str | None = None, form: str | None = None,
                        metre: str | None = None, limit: int = 50, scan: bool = False) -> list[CorpusCouplet]:
        """Couplets containing every word (normalized, ZWNJ-insensitive), best match first,
        filtered by poet (nickname or slug), form and metre (substring). `scan` uses a LIKE
        scan instead of the index (the benchmark's baseline)."""
        terms = corpus_key(words).split()
        clauses, params = [], []
        if terms and not scan:
            clauses.append("c.id IN (SELECT rowid FROM corpus_fts WHERE corpus_fts MATCH ?)")
            params.append(spellings_query(terms, self._known_words(split_candidates(terms))))
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
        rows = self.conn.execute(f"{_COUPLET_SELECT} {where} ORDER BY c.id LIMIT ?", (*params, limit))
        return [CorpusCouplet(**r) for r in rows]

    def related_couplets(self, text: str, *, limit: int = 400, poet: str | None = None,
                         form: str | None = None) -> list[CorpusCouplet]:
        """Couplets sharing any of the text's words, rarest words weighing most (FTS5 bm25):
        the candidate pool for similarity ranking."""
        words = sorted(set(corpus_key(text).split()))
        if not words:
            return []
        df = self._vocab(words)
        known = sorted((w for w in words if df.get(w)), key=lambda w: (df[w], w))
        # words found in one couplet only are often the couplet itself: they cannot fill the pool
        rare = [w for w in known if df[w] > 1][:8] + [w for w in known if df[w] == 1][:4]
        if not rare:
            return []
        clauses, params = ["c.id IN (SELECT rowid FROM corpus_fts WHERE corpus_fts MATCH ? ORDER BY rank LIMIT ?)"], \
            [" OR ".join(fts_query([w]) for w in rare), limit]
        if poet:
            ids = self.poet_ids(poet)
            clauses.append(f"pt.id IN ({','.join('?' * len(ids))})" if ids else "0")
            params += ids
        if form:
            clauses.append("lower(p.form) = lower(?)")
            params.append(form)
        rows = self.conn.execute(f"{_COUPLET_SELECT} WHERE {' AND '.join(clauses)}", params)
        return [CorpusCouplet(**r) for r in rows]

    def couplet_at(self, poem: str, index: int) -> CorpusCouplet | None:
        row = self.conn.execute(f"{_COUPLET_SELECT} WHERE p.path = ? AND c.idx = ?", (poem, index)).fetchone()
        return CorpusCouplet(**row) if row else None

    # ------------------------------------------------------------ linking

    def _fts_candidates(self, query: str, found: dict[int, Candidate]) -> None:
        """Add the FTS best matches (bm25) of a query to `found` (couplet id -> candidate)."""
        for r in self.conn.execute(
                f"{_CANDIDATE_SELECT} WHERE c.id IN (SELECT rowid FROM corpus_fts "
                "WHERE corpus_fts MATCH ? ORDER BY rank LIMIT ?)", (query, FTS_CANDIDATES)):
            found.setdefault(r["couplet_id"], Candidate(**r))

    def _candidates(self, a: str, b: str, found: dict[int, Candidate], stage: str) -> None:
        """Candidate blocking (never a scan of the corpus): add to `found` the couplets of one
        stage. `half`: those holding the rarest words of a hemistich (spacing-insensitive;
        every verbatim copy of the couplet). `narrow`: the FTS best matches of the rarest words
        of the option and of each hemistich. `wide`, for damaged text, each a longer OR for
        FTS5 to rank: a damaged word is often the rarest one, so repaired spellings of PDF
        damage (see pdf_repairs) and all but the commonest words together."""
        if stage == "half":
            for half in {a, b}:
                terms = half.split()
                if not terms:
                    continue
                spelled = {w for words in spellings(terms) for w in words} | split_candidates(terms)
                df = self._vocab(spelled)
                if query := spellings_query(terms, set(df), df, HALF_TOKENS):
                    self._fts_candidates(query, found)
            return
        halves = [sorted(set(h.split())) for h in (a, b)]
        words = sorted(set(halves[0]) | set(halves[1]))
        repairs = pdf_repairs(words) if stage == "wide" else {}
        df = self._vocab(set(words) | {r for rs in repairs.values() for r in rs})

        def rarest(ws, n):
            return sorted((w for w in ws if df.get(w)), key=lambda w: (df[w], w))[:n]

        # a repaired spelling more frequent than the damaged one stands in for it
        fixed = {w: max(rs, key=lambda r: df.get(r, 0)) for w, rs in repairs.items()
                 if max(df.get(r, 0) for r in rs) > df.get(w, 0)}
        narrow = [rarest(words, RARE_TOKENS), rarest(halves[0], 3), rarest(halves[1], 3)]
        sets = ([rarest([fixed.get(w, w) for w in words], RARE_TOKENS),
                 rarest([fixed.get(w, w) for w in words if df.get(fixed.get(w, w), 0) <= COMMON], BROAD_TOKENS)]
                if stage == "wide" else narrow)
        seen = {tuple(ws) for ws in narrow} if stage == "wide" else set()
        for ws in sets:
            if ws and tuple(ws) not in seen:
                seen.add(tuple(ws))
                self._fts_candidates(" OR ".join(fts_query([w]) for w in ws), found)

    def link_option(self, mesra1: str, mesra2: str, *, own_poet: str | None = None,
                    threshold: float | None = None, brute: bool = False) -> Decision:
        """The option's link, from candidates found in stages (_candidates): most options are a
        corpus couplet verbatim (either order), which the first stage finds in two cheap
        lookups; the later stages (fuzzy and damaged text, most of the time: long ORs for
        FTS5 to rank) are asked only while no verbatim link is found."""
        a, b = corpus_key(mesra1), corpus_key(mesra2)
        kw = {"threshold": threshold} if threshold is not None else {}
        if brute:  # every couplet is a candidate (the benchmark's baseline)
            return decide(a, b, [Candidate(**r) for r in self.conn.execute(_CANDIDATE_SELECT)],
                          own_poet=own_poet, **kw)
        found: dict[int, Candidate] = {}
        for stage in STAGES:
            self._candidates(a, b, found, stage)
            d = decide(a, b, list(found.values()), own_poet=own_poet, **kw)
            if d.status == "linked" and d.method in VERBATIM:
                break
        return d

    def link_questions(self, uids: Iterable[str] | None = None, *, force: bool = False,
                       threshold: float | None = None, batch: int = 500,
                       on_progress=None) -> Counter:
        """Link the options of these questions (default: all) whose link is missing, stale
        (option text changed) or not linked; `force` relinks all. Reads and matching happen
        outside transactions; each batch of links is written in one short transaction, with
        the options found in reversed order put in the poet's order (see _save_links).
        Counts: per status, `reordered`, `released` (reversed, kept: in a release) and
        `up to date`."""
        if not self.has_corpus():
            return Counter()
        sql = ("SELECT o.question_id, o.position, o.mesra1, o.mesra2, COALESCE(o.poet, q.poet) AS poet, "
               "o.match_key, l.match_key AS link_key, l.status, l.method FROM options o "
               "JOIN questions q ON q.id = o.question_id "
               "LEFT JOIN option_links l ON l.question_id = o.question_id AND l.position = o.position")
        if uids is not None:
            uids = list(uids)
            rows = []
            for start in range(0, len(uids), 500):
                chunk = uids[start:start + 500]
                rows += self.conn.execute(
                    f"{sql} WHERE q.uid IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        else:
            rows = self.conn.execute(sql).fetchall()
        todo = [r for r in rows
                if force and r["method"] != "chosen" or r["link_key"] != r["match_key"] or r["status"] != "linked"]
        self._df = {}  # the corpus is not re-imported while this connection links
        try:
            counts = self._link_rows(todo, threshold, batch, on_progress)
        finally:
            self._df = None
        counts["up to date"] = len(rows) - len(todo)
        return counts

    def _link_rows(self, todo: list, threshold: float | None, batch: int, on_progress) -> Counter:
        """Link the option rows `todo`, saving every `batch` links; the counts per status."""
        counts: Counter = Counter()
        pending: list[tuple] = []
        for n, r in enumerate(todo, 1):
            d = self.link_option(r["mesra1"], r["mesra2"], own_poet=r["poet"], threshold=threshold)
            counts[d.status] += 1
            c = d.candidate
            others = json.dumps([[o.poem, o.index, o.poet_slug] for o in d.others], ensure_ascii=False) \
                if d.others else None
            pending.append(((r["question_id"], r["position"], r["match_key"], d.status, c.poem_id if c else None,
                             c.index if c else None, d.method, d.score, d.candidates, now(), others,
                             None if d.reversed is None else int(d.reversed)), (r["mesra1"], r["mesra2"])))
            if len(pending) >= batch or n == len(todo):
                counts.update(self._save_links(pending))
                pending = []
                if on_progress:
                    on_progress(n, len(todo))
        return counts

    def link_saved(self, uids: list[str]) -> Counter:
        """The save hook: link these just-saved questions. Best effort: when the database is
        busy the save stands and the options stay unlinked until the next `corpus link`."""
        try:
            return self.link_questions(uids)
        except StoreBusy:
            return Counter()

    def _save_links(self, rows: list[tuple]) -> Counter:
        """Write links computed outside the transaction; a link for an option text that was
        edited meanwhile (another process: match_key changed) is dropped, never written over
        the editor's own link. Options linked in reversed order are put in the poet's order
        (one revision per question, author `corpus-order`), unless the question is in a
        release or that order was undone (`undo_reorder`)."""
        counts: Counter = Counter()
        with self.tx():
            self.conn.executemany(
                "INSERT INTO option_links (question_id, position, match_key, status, poem_id, couplet, "
                "method, score, candidates, created_at, others, reversed) SELECT ?,?,?,?,?,?,?,?,?,?,?,? "
                "WHERE EXISTS (SELECT 1 FROM options WHERE question_id = ? AND position = ? AND match_key IS ?) "
                "ON CONFLICT (question_id, position) DO UPDATE SET match_key = excluded.match_key, "
                "status = excluded.status, poem_id = excluded.poem_id, couplet = excluded.couplet, "
                "method = excluded.method, score = excluded.score, candidates = excluded.candidates, "
                "created_at = excluded.created_at, others = excluded.others, reversed = excluded.reversed",
                [(*r, *r[:3]) for r, _ in rows])
            turn = [(r, text) for r, text in rows
                    if r[3] == "linked" and r[11] == 1 and r[6] in ("swapped", "fuzzy")]
            if turn:
                counts.update(self._reorder(turn))
        return counts

    def _reorder(self, turn: list[tuple]) -> Counter:
        """Inside _save_links' transaction: swap the hemistichs of these reversed options."""
        counts: Counter = Counter()
        qids = sorted({r[0] for r, _ in turn})
        marks = ",".join("?" * len(qids))
        released = {r["id"] for r in self.conn.execute(
            f"SELECT q.id FROM questions q JOIN release_items ri ON ri.uid = q.uid WHERE q.id IN ({marks})", qids)}
        pinned = {(r["question_id"], r["value"]) for r in self.conn.execute(
            "SELECT r.question_id, j.value FROM revisions r, json_each(r.changes, '$.hemistich_order_undone') j "
            f"WHERE r.author = 'corpus-order' AND r.question_id IN ({marks})", qids)}
        done: dict[int, list[int]] = {}
        for r, (m1, m2) in turn:
            qid, pos = r[0], r[1]
            if qid in released:
                counts["released"] += 1
                continue
            if (qid, pos) in pinned:
                continue
            changed = self.conn.execute(
                "UPDATE options SET mesra1 = mesra2, mesra2 = mesra1 WHERE question_id = ? AND position = ? "
                "AND mesra1 = ? AND mesra2 = ? AND match_key = ?", (qid, pos, m1, m2, r[2])).rowcount
            if changed:
                self.conn.execute(
                    "UPDATE option_links SET reversed = 0, method = CASE method WHEN 'swapped' THEN 'exact' "
                    "ELSE method END WHERE question_id = ? AND position = ?", (qid, pos))
                done.setdefault(qid, []).append(pos)
        self._order_revisions(done, "hemistich_order")
        counts["reordered"] = sum(len(p) for p in done.values())
        return counts

    def undo_reorder(self, uids: Iterable[str] | None = None) -> Counter:
        """Put back the file's order of options the corpus re-ordered (revisions of author
        `corpus-order`), one revision per question; those options are not re-ordered again.
        Options edited since, or in a release, are left as they are (counted)."""
        counts: Counter = Counter()
        with self.tx():
            rows = self.conn.execute(
                "SELECT r.question_id, q.uid, j.value AS position, "
                "EXISTS (SELECT 1 FROM release_items ri WHERE ri.uid = q.uid) AS released "
                "FROM revisions r JOIN questions q ON q.id = r.question_id, "
                "json_each(r.changes, '$.hemistich_order') j WHERE r.author = 'corpus-order' "
                "AND NOT EXISTS (SELECT 1 FROM revisions u, json_each(u.changes, '$.hemistich_order_undone') k "
                "WHERE u.question_id = r.question_id AND u.author = 'corpus-order' AND k.value = j.value) "
                "ORDER BY r.question_id, j.value").fetchall()
            wanted = set(uids) if uids is not None else None
            done: dict[int, list[int]] = {}
            for r in rows:
                qid, pos = r["question_id"], r["position"]
                if wanted is not None and r["uid"] not in wanted or pos in done.get(qid, []):
                    continue
                if r["released"]:
                    counts["released"] += 1
                    continue
                if not self.conn.execute(
                        "UPDATE options SET mesra1 = mesra2, mesra2 = mesra1 WHERE question_id = ? AND position = ? "
                        "AND EXISTS (SELECT 1 FROM option_links l WHERE l.question_id = options.question_id "
                        "AND l.position = options.position AND l.match_key = options.match_key AND l.reversed = 0)",
                        (qid, pos)).rowcount:
                    counts["edited"] += 1  # edited or relinked since: its text stays as it is now
                    continue
                self.conn.execute(
                    "UPDATE option_links SET reversed = 1, method = CASE method WHEN 'exact' THEN 'swapped' "
                    "ELSE method END WHERE question_id = ? AND position = ? AND reversed = 0", (qid, pos))
                done.setdefault(qid, []).append(pos)
            self._order_revisions(done, "hemistich_order_undone")
        counts["restored"] = sum(len(p) for p in done.values())
        return counts

    def _order_revisions(self, done: dict[int, list[int]], change: str) -> None:
        """One `corpus-order` revision per question (inside the caller's transaction): `change`
        (hemistich_order | hemistich_order_undone) -> the options' positions."""
        stamp = now()
        for qid, positions in done.items():
            self.conn.execute(
                "INSERT INTO revisions (question_id, author, created_at, changes) VALUES (?, 'corpus-order', ?, ?)",
                (qid, stamp, json.dumps({change: sorted(positions)})))
            self.conn.execute("UPDATE questions SET updated_at = ? WHERE id = ?", (stamp, qid))

    def choose_link(self, uid: str, position: int, poem: str, index: int) -> None:
        """Record that this option was inserted from the corpus (method 'chosen')."""
        with self.tx():
            row = self.conn.execute(
                "SELECT o.question_id, o.match_key, p.id AS poem_id FROM options o "
                "JOIN questions q ON q.id = o.question_id "
                "JOIN corpus_poems p ON p.path = ? WHERE q.uid = ? AND o.position = ?",
                (poem, uid, position)).fetchone()
            if row is None:
                raise KeyError(f"no option {uid}/{position} or no poem {poem}")
            self.conn.execute(
                "INSERT OR REPLACE INTO option_links (question_id, position, match_key, status, poem_id, "
                "couplet, method, score, candidates, created_at, reversed) "
                "VALUES (?,?,?,'linked',?,?,'chosen',100,1,?,0)",
                (row["question_id"], position, row["match_key"], row["poem_id"], index, now()))

    def links(self, uids: Iterable[str] | None = None) -> dict[str, dict[int, OptionLink]]:
        """uid -> position -> link (only options that have a link row)."""
        sql = ("SELECT q.uid, l.position, l.status, l.method, l.score, l.candidates, p.path AS poem, l.couplet, "
               "c.mesra1, c.mesra2, pt.nickname AS poet, pt.slug AS poet_slug, p.title, p.form, p.metre, p.rhyme, "
               "l.others, l.reversed "
               "FROM option_links l JOIN questions q ON q.id = l.question_id "
               "JOIN options o ON o.question_id = l.question_id AND o.position = l.position "
               "AND o.match_key = l.match_key "
               "LEFT JOIN corpus_poems p ON p.id = l.poem_id "
               "LEFT JOIN corpus_poets pt ON pt.id = p.poet_id "
               "LEFT JOIN corpus_couplets c ON c.poem_id = l.poem_id AND c.idx = l.couplet")
        rows: list = []
        if uids is None:
            rows = self.conn.execute(sql).fetchall()
        else:
            uids = list(uids)
            for start in range(0, len(uids), 500):
                chunk = uids[start:start + 500]
                rows += self.conn.execute(f"{sql} WHERE q.uid IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        out: dict[str, dict[int, OptionLink]] = {}
        for r in rows:
            couplet = None
            if r["poem"] is not None and r["couplet"] is not None:
                couplet = CorpusCouplet(**{f: r[f] for f in _COUPLET_FIELDS},
                                        mesra1=r["mesra1"] or "", mesra2=r["mesra2"] or "")
            elsewhere = tuple((p, i, s) for p, i, s in json.loads(r["others"])) if r["others"] else ()
            out.setdefault(r["uid"], {})[r["position"]] = OptionLink(
                r["uid"], r["position"], r["status"], r["method"], r["score"], r["candidates"], couplet,
                elsewhere, None if r["reversed"] is None else bool(r["reversed"]))
        return out

    def provenance_uids(self, *, poet: str | None = None, form: str | None = None) -> set[str]:
        """uids of questions with an option by this poet (stored on the option or question, or
        derived from its corpus link: nickname or slug) and from a poem of this form."""
        clauses, params = [], []
        if poet:
            ids = self.poet_ids(poet)
            marks = ",".join("?" * len(ids))
            clauses.append(f"(o.poet = ? OR q.poet = ? OR (l.status = 'linked' AND pt.id IN ({marks})))")
            params += [poet, poet, *ids]
        if form:
            clauses.append("l.status = 'linked' AND lower(p.form) = lower(?)")
            params.append(form)
        if not clauses:
            return {r["uid"] for r in self.conn.execute("SELECT uid FROM questions")}
        return {r["uid"] for r in self.conn.execute(
            "SELECT DISTINCT q.uid FROM options o JOIN questions q ON q.id = o.question_id "
            "LEFT JOIN option_links l ON l.question_id = o.question_id AND l.position = o.position "
            "AND l.match_key = o.match_key "
            "LEFT JOIN corpus_poems p ON p.id = l.poem_id LEFT JOIN corpus_poets pt ON pt.id = p.poet_id "
            f"WHERE {' AND '.join(clauses)}", params)}

    def option_clusters(self) -> dict[tuple[str, int], tuple[str, str]]:
        """(uid, position) -> (poem path, poet slug) of every option linked as one whole couplet
        (not one_hemistich or split; fresh links only): the clusters for standard errors that
        allow for options from one poem or poet being correlated. Options missing here are
        their own cluster."""
        return {(r["uid"], r["position"]): (r["path"], r["slug"]) for r in self.conn.execute(
            "SELECT q.uid, l.position, p.path, pt.slug FROM option_links l "
            "JOIN questions q ON q.id = l.question_id "
            "JOIN options o ON o.question_id = l.question_id AND o.position = l.position "
            "AND o.match_key = l.match_key "
            "JOIN corpus_poems p ON p.id = l.poem_id JOIN corpus_poets pt ON pt.id = p.poet_id "
            "WHERE l.status = 'linked' AND l.method NOT IN ('one_hemistich', 'split')")}

    def poem_path(self, poem_id: int) -> str | None:
        row = self.conn.execute("SELECT path FROM corpus_poems WHERE id = ?", (poem_id,)).fetchone()
        return row["path"] if row else None

    def couplet_uses(self, poem: str, index: int, *, exclude: str | None = None) -> list[str]:
        """uids of the questions with an option linked to this couplet."""
        return [r["uid"] for r in self.conn.execute(
            "SELECT DISTINCT q.uid FROM option_links l JOIN questions q ON q.id = l.question_id "
            "JOIN corpus_poems p ON p.id = l.poem_id WHERE p.path = ? AND l.couplet = ? "
            "AND l.status = 'linked' AND q.uid IS NOT ? ORDER BY q.uid", (poem, index, exclude))]
