"""Option -> couplet links (table option_links): each option's corpus couplet found from
candidates the FTS index narrows down (linking.decide chooses), written in short transactions;
options found in reversed order put in the poet's order (revisions by `corpus-order`), and the
reads built on the links (provenance filters, clusters, a couplet's uses)."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from ..models import CorpusCouplet, OptionLink
from ..models.keys import now
from ..models.linking import Candidate, Decision, decide
from ..text import corpus_key
from .corpus import COUPLET_FIELDS, CorpusRepo
from .corpus_query import fts_query, hemistich_token, pdf_repairs
from .db import Database
from .errors import StoreBusy
from .rows import to_json

_CANDIDATE_SELECT = (
    "SELECT c.id AS couplet_id, c.poem_id, c.idx AS \"index\", c.norm1, c.norm2, pt.id AS poet_id, "
    "pt.nickname AS poet, pt.death_year, p.quoting, p.path AS poem, pt.slug AS poet_slug "
    "FROM corpus_couplets c JOIN corpus_poems p ON p.id = c.poem_id "
    "JOIN corpus_poets pt ON pt.id = p.poet_id "
)
FTS_CANDIDATES = 40  # fuzzy candidates per option, best bm25 first
RARE_TOKENS = 4  # the rarest words of an option make one of its FTS queries ...
BROAD_TOKENS = 10  # ... and up to this many words another (each OR within OR_POSTINGS)
OR_POSTINGS = 4_000  # couplets an FTS OR ranks at most (its words' counts summed; LinksRepo._candidates)
VERBATIM = ("exact", "swapped")  # link methods that end the candidate search early
STAGES = ("keys", "narrow", "wide", "halves")  # the candidate search, cheapest first (LinksRepo._candidates)
FALLBACK = "halves"  # the stage asked only for an option the stages before it could not link (or under CLOSE)
HALF_TOKENS = 3  # the fallback: the couplets holding a hemistich's rarest words, ...
PAIR_TOKENS = 6  # ... or two of the option's rarest words (any two of these), ...
AND_POSTINGS = 20_000  # ... each AND asked when its rarest word is in at most this many couplets, ...
AND_RANKED = 1_000  # ... those with fewest matches ranked together while their matches add up to this
CLOSE = 95.0  # a fuzzy link scoring less may be an edition a word further than the option's: the fallback asked
KEY_ROWS = 2_000  # couplets a hemistich key lookup reads at most (a refrain repeated in many poems)
VARIANT_TOKENS = 3  # a verbatim couplet's variants: the couplets holding these rarest words of a hemistich
LINK_THREADS = 2  # options decided at once (LinksRepo._decisions), each thread its own connection
THREADED_FROM = 64  # options: fewer are decided one at a time

Progress = Callable[[int, int], None]  # (options linked, options to link)
# an option_links row as computed: question_id, position, match_key, status, poem_id, couplet,
# method, score, candidates, created_at, others, reversed; pending with the option's hemistichs
_LinkRow = tuple[int, int, str, str, int | None, int | None, str | None, float | None, int, str, str | None,
                 int | None]
_Pending = tuple[_LinkRow, tuple[str, str]]


class LinksRepo:
    def __init__(self, db: Database, corpus: CorpusRepo):
        self.db = db
        self.corpus = corpus  # the couplets, their vocabulary and the poets a filter names
        self._df: dict[str, int] | None = None  # word -> couplets (0: not in the corpus) while linking
        self._and_df: dict[str, int] | None = None  # the same, counted up to AND_POSTINGS (the fallback's)

    def _fts_candidates(self, query: str, found: dict[int, Candidate]) -> None:
        """Add the FTS best matches (bm25) of a query to `found` (couplet id -> candidate)."""
        for r in self.db.conn.execute(
                f"{_CANDIDATE_SELECT} WHERE c.id IN (SELECT rowid FROM corpus_fts "
                "WHERE corpus_fts MATCH ? ORDER BY rank LIMIT ?)", (query, FTS_CANDIDATES)):
            found.setdefault(r["couplet_id"], Candidate(**r))

    def _key_candidates(self, a: str, b: str, found: dict[int, Candidate]) -> None:
        """Add to `found` the couplets holding either hemistich verbatim (spaces ignored): a
        lookup of their keys in corpus_keys (migration 20), the texts then compared."""
        tokens = sorted({t for t in (hemistich_token(a), hemistich_token(b)) if t})
        if not tokens:
            return
        flat = {h.replace(" ", "") for h in (a, b) if h}
        for r in self.db.conn.execute(
                f"{_CANDIDATE_SELECT} WHERE c.id IN (SELECT rowid FROM corpus_keys WHERE corpus_keys MATCH ? "
                "LIMIT ?)", (" OR ".join(fts_query([t]) for t in tokens), KEY_ROWS)):
            if r["norm1"].replace(" ", "") in flat or r["norm2"].replace(" ", "") in flat:
                found.setdefault(r["couplet_id"], Candidate(**r))

    def _variant_candidates(self, a: str, b: str, found: dict[int, Candidate]) -> None:
        """Add to `found` the first FTS_CANDIDATES couplets (unranked) holding every one of the
        VARIANT_TOKENS rarest words of a hemistich, per hemistich: a couplet found verbatim
        may have an earlier poet's edition variant (a word changed in each hemistich), which is
        its source (linking.decide)."""
        for half in {a, b}:
            words = set(half.split())
            df = self.corpus.vocab(words, self._df, cap=OR_POSTINGS + 1)
            rare = sorted((w for w in words if df.get(w)), key=lambda w: (df[w], w))[:VARIANT_TOKENS]
            if not rare or df[rare[0]] > OR_POSTINGS:
                continue
            for r in self.db.conn.execute(
                    f"{_CANDIDATE_SELECT} WHERE c.id IN (SELECT rowid FROM corpus_fts WHERE corpus_fts MATCH ? "
                    "LIMIT ?)", (" AND ".join(fts_query([w]) for w in rare), FTS_CANDIDATES)):
                found.setdefault(r["couplet_id"], Candidate(**r))

    def _half_candidates(self, a: str, b: str, found: dict[int, Candidate]) -> None:
        """The fallback stage: add to `found` the FTS best matches of the couplets holding the
        HALF_TOKENS rarest words of a hemistich (per hemistich), or any two of the option's
        PAIR_TOKENS rarest words. An edition variant with a word changed in each hemistich has
        no verbatim hemistich, and the ORs of its words, within the budget, may ask none of them
        (a famous couplet's words are common at the export's size) or rank it past the best 40;
        its rarest words together find it, two of them when the edition's word is among them.
        Two readings, each apart: two neighbours joined count as one word where the corpus has
        them so (the book writes «بی خبر» where the corpus has «بی‌خبر», one word in its key),
        their halves then left out; and every word alone. Each AND is asked when its rarest
        word is in at most AND_POSTINGS couplets (FTS5 walks no more of the others'), its
        matches are counted (unranked, up to AND_RANKED); the ANDs with fewest matches are taken
        unranked while their matches add up to FTS_CANDIDATES, the next ranked together while
        theirs add up to AND_RANKED (a quarter of the ORs' budget: FTS5 ranks about 5 µs a
        match); its cost does not grow with the corpus."""
        halves = [a.split(), b.split()]
        # a word or two neighbours joined: (hemistich, first word, last word) -> its text
        units = {(h, i, j): "".join(ws[i:j + 1]) for h, ws in enumerate(halves)
                 for i in range(len(ws)) for j in (i, i + 1) if j < len(ws)}
        df = self.corpus.vocab(set(units.values()), self._and_df, cap=AND_POSTINGS + 1)

        def rarest(keys: Iterable[tuple[int, int, int]], n: int) -> list[str]:
            """The n rarest units of the corpus's vocabulary, none overlapping another."""
            out: list[tuple[int, int, int]] = []
            for k in sorted((k for k in keys if df.get(units[k])), key=lambda k: (df[units[k]], units[k], k)):
                if len(out) < n and units[k] not in (units[o] for o in out) and \
                        not any(k[0] == o[0] and k[1] <= o[2] and o[1] <= k[2] for o in out):
                    out.append(k)
            return [units[k] for k in out]

        ands: list[tuple[str, ...]] = []
        # two readings, each apart: neighbours joined where the corpus has them so (their halves
        # left out: «ات» of «چهره ات» is some other poem's word), and every word alone (a join may
        # be other poems' word, «بی‌سر» for the couplet's «بی سر», rarer than any of the couplet's)
        joined = {k for k in units if k[1] < k[2] and df.get(units[k])}
        alone = [k for k in units if k[1] == k[2]]
        for keys in ([*joined, *(k for k in alone if not any(
                j[0] == k[0] and j[1] <= k[1] <= j[2] for j in joined))], alone):
            ands += [tuple(r) for h in range(2)
                     if len(r := rarest((k for k in keys if k[0] == h), HALF_TOKENS)) > 1]
            rare = rarest(keys, PAIR_TOKENS)
            ands += [(x, y) for i, x in enumerate(rare) for y in rare[i + 1:]]
        counted: list[tuple[int, str]] = []
        for words in dict.fromkeys(ands):
            if df[words[0]] <= AND_POSTINGS:  # its rarest word first
                query = "(" + " AND ".join(fts_query([w]) for w in words) + ")"
                if n := self.db.conn.execute(
                        "SELECT COUNT(*) FROM (SELECT rowid FROM corpus_fts WHERE corpus_fts MATCH ? LIMIT ?)",
                        (query, AND_RANKED + 1)).fetchone()[0]:
                    counted.append((n, query))
        few, chosen, taken, total = [], [], 0, 0
        for n, query in sorted(counted):
            if taken + n <= FTS_CANDIDATES:  # as many as a ranked query keeps: every one, unranked
                taken += n
                few.append(query)
                continue
            total += n
            if total > AND_RANKED:
                break
            chosen.append(query)
        if few:  # (an edition's rare word ANDed with any other matches a few couplets, none its)
            for r in self.db.conn.execute(
                    f"{_CANDIDATE_SELECT} WHERE c.id IN (SELECT rowid FROM corpus_fts WHERE corpus_fts MATCH ?)",
                    (" OR ".join(few),)):
                found.setdefault(r["couplet_id"], Candidate(**r))
        if chosen:
            self._fts_candidates(" OR ".join(chosen), found)

    def _candidates(self, a: str, b: str, found: dict[int, Candidate], stage: str) -> None:
        """Candidate blocking (never a scan of the corpus): add to `found` the couplets of one
        stage. `keys`: the couplets holding a hemistich verbatim (_key_candidates). `narrow`:
        the FTS best matches of the rarest words of the option and of each hemistich. `wide`,
        for damaged text, each a longer OR for FTS5 to rank: a damaged word is often the rarest
        one, so repaired spellings of PDF damage (see pdf_repairs) and all but the commonest
        words together. FTS5 ranks every couplet holding any word of an OR, so each OR takes
        the rarest words only while their couplets add up to OR_POSTINGS: its cost does not
        grow with the corpus (a word in more couplets than that finds nothing). `halves`, the
        fallback (link_option asks it only for an option the others could not link, or linked
        fuzzily under CLOSE): ANDs of
        the rarest words of each hemistich and of the option (_half_candidates)."""
        if stage == "keys":
            self._key_candidates(a, b, found)
            return
        if stage == FALLBACK:
            self._half_candidates(a, b, found)
            return
        halves = [sorted(set(h.split())) for h in (a, b)]
        words = sorted(set(halves[0]) | set(halves[1]))
        repairs = pdf_repairs(words) if stage == "wide" else {}
        # counted up to the budget: a word in more couplets is never asked (and costs 0.5 ms, not 19)
        df = self.corpus.vocab(set(words) | {r for rs in repairs.values() for r in rs}, self._df,
                               cap=OR_POSTINGS + 1)

        def rarest(ws: Iterable[str], n: int) -> list[str]:
            out: list[str] = []
            total = 0
            for w in sorted((w for w in set(ws) if df.get(w)), key=lambda w: (df[w], w))[:n]:
                total += df[w]
                if total > OR_POSTINGS:
                    break
                out.append(w)
            return out

        # a repaired spelling more frequent than the damaged one stands in for it
        fixed = {w: max(rs, key=lambda r: df.get(r, 0)) for w, rs in repairs.items()
                 if max(df.get(r, 0) for r in rs) > df.get(w, 0)}
        narrow = [rarest(words, RARE_TOKENS), rarest(halves[0], 3), rarest(halves[1], 3)]
        sets = ([rarest([fixed.get(w, w) for w in words], RARE_TOKENS),
                 rarest([fixed.get(w, w) for w in words], BROAD_TOKENS)]
                if stage == "wide" else narrow)
        seen = {tuple(ws) for ws in narrow} if stage == "wide" else set()
        for ws in sets:
            if ws and tuple(ws) not in seen:
                seen.add(tuple(ws))
                self._fts_candidates(" OR ".join(fts_query([w]) for w in ws), found)

    def link_option(self, mesra1: str, mesra2: str, *, own_poet: str | None = None,
                    threshold: float | None = None, brute: bool = False) -> Decision:
        """The option's link, from candidates found in stages (_candidates): most options are a
        corpus couplet verbatim (either order), which the first stage finds in one lookup of
        its hemistichs' keys; the later stages (fuzzy and damaged text, most of the time: long ORs for
        FTS5 to rank) are asked only while no verbatim link is found, the last (FALLBACK) only
        while no link at all is, or only a fuzzy one under CLOSE."""
        a, b = corpus_key(mesra1), corpus_key(mesra2)
        kw = {"threshold": threshold} if threshold is not None else {}
        if brute:  # every couplet is a candidate (the benchmark's baseline)
            return decide(a, b, [Candidate(**r) for r in self.db.conn.execute(_CANDIDATE_SELECT)],
                          own_poet=own_poet, **kw)
        found: dict[int, Candidate] = {}
        d = Decision("unlinked")
        for stage in STAGES:
            if stage == FALLBACK and d.status == "linked" and (d.method != "fuzzy" or (d.score or 0) >= CLOSE):
                break  # the fast stages linked it (split, one hemistich, or fuzzy and close)
            self._candidates(a, b, found, stage)
            d = decide(a, b, list(found.values()), own_poet=own_poet, **kw)
            if d.status == "linked" and d.method in VERBATIM and (
                    stage != "keys" or not own_poet or d.candidate and own_poet in d.candidate.poet):
                if stage == "keys":  # its edition variants: an earlier poet's is the source
                    self._variant_candidates(a, b, found)
                    d = decide(a, b, list(found.values()), own_poet=own_poet, **kw)
                break  # (an option naming another poet: its variant of the couplet is looked for)
        return d

    def link_questions(self, uids: Iterable[str] | None = None, *, force: bool = False,
                       threshold: float | None = None, batch: int = 500,
                       on_progress: Progress | None = None) -> Counter[str]:
        """Link the options of these questions (default: all) whose link is missing, stale
        (option text changed) or not linked; `force` relinks all. Reads and matching happen
        outside transactions; each batch of links is written in one short transaction, with
        the options found in reversed order put in the poet's order (see _save_links).
        Counts: per status, `reordered`, `released` (reversed, kept: in a release) and
        `up to date`."""
        if not self.corpus.has_corpus():
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
                rows += self.db.conn.execute(
                    f"{sql} WHERE q.uid IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        else:
            rows = self.db.conn.execute(sql).fetchall()
        todo = [r for r in rows
                if force and r["method"] != "chosen" or r["link_key"] != r["match_key"] or r["status"] != "linked"]
        self._df, self._and_df = {}, {}  # the corpus is not re-imported while this connection links
        try:
            counts = self._link_rows(todo, threshold, batch, on_progress)
        finally:
            self._df = self._and_df = None
        counts["up to date"] = len(rows) - len(todo)
        return counts

    def _link_rows(self, todo: list[sqlite3.Row], threshold: float | None, batch: int,
                   on_progress: Progress | None) -> Counter[str]:
        """Link the option rows `todo`, saving every `batch` links; the counts per status."""
        counts: Counter[str] = Counter()
        pending: list[_Pending] = []
        for n, d in enumerate(self._decisions(todo, threshold), 1):
            r = todo[n - 1]
            counts[d.status] += 1
            c = d.candidate
            others = to_json([[o.poem, o.index, o.poet_slug] for o in d.others]) \
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

    def _decisions(self, todo: list[sqlite3.Row], threshold: float | None) -> Iterator[Decision]:
        """Each option's decision, in order. Many options are decided by LINK_THREADS threads,
        each with its own read-only connection and word counts (SQLite runs the FTS5 queries,
        most of the time, outside Python's lock): the same decisions as one at a time."""
        def one(links: LinksRepo, r: sqlite3.Row) -> Decision:
            return links.link_option(r["mesra1"], r["mesra2"], own_poet=r["poet"], threshold=threshold)

        if LINK_THREADS < 2 or len(todo) < THREADED_FROM or not self.db.path.is_file():
            yield from (one(self, r) for r in todo)
            return
        from concurrent.futures import ThreadPoolExecutor

        local = threading.local()

        def decide(r: sqlite3.Row) -> Decision:
            links = getattr(local, "links", None)
            if links is None:
                db = Database(self.db.path, read_only=True)
                links = local.links = LinksRepo(db, CorpusRepo(db))
                links._df, links._and_df = {}, {}
            return one(links, r)

        def close(barrier: threading.Barrier) -> None:
            """Each thread closes its own connection (SQLite's may be closed only there): the
            barrier keeps a thread from taking a second of these."""
            try:
                barrier.wait(timeout=60)
            except threading.BrokenBarrierError:
                pass
            links = getattr(local, "links", None)
            if links is not None:
                links.db.close()
                local.links = None

        pool = ThreadPoolExecutor(LINK_THREADS, thread_name_prefix="link")
        try:
            yield from pool.map(decide, todo)
        finally:
            barrier = threading.Barrier(LINK_THREADS)
            list(pool.map(close, [barrier] * LINK_THREADS))
            pool.shutdown()

    def link_saved(self, uids: list[str]) -> Counter[str]:
        """The save hook: link these just-saved questions. Best effort: when the database is
        busy the save stands and the options stay unlinked until the next `corpus link`."""
        try:
            return self.link_questions(uids)
        except StoreBusy:
            return Counter()

    def _save_links(self, rows: list[_Pending]) -> Counter[str]:
        """Write links computed outside the transaction; a link for an option text that was
        edited meanwhile (another process: match_key changed) is dropped, never written over
        the editor's own link. Options linked in reversed order are put in the poet's order
        (one revision per question, author `corpus-order`), unless the question is in a
        release or that order was undone (`undo_reorder`)."""
        counts: Counter[str] = Counter()
        with self.db.tx():
            self.db.conn.executemany(
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

    def _reorder(self, turn: list[_Pending]) -> Counter[str]:
        """Inside _save_links' transaction: swap the hemistichs of these reversed options."""
        counts: Counter[str] = Counter()
        qids = sorted({r[0] for r, _ in turn})
        marks = ",".join("?" * len(qids))
        released = {r["id"] for r in self.db.conn.execute(
            f"SELECT q.id FROM questions q JOIN release_items ri ON ri.uid = q.uid WHERE q.id IN ({marks})", qids)}
        pinned = {(r["question_id"], r["value"]) for r in self.db.conn.execute(
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
            changed = self.db.conn.execute(
                "UPDATE options SET mesra1 = mesra2, mesra2 = mesra1 WHERE question_id = ? AND position = ? "
                "AND mesra1 = ? AND mesra2 = ? AND match_key = ?", (qid, pos, m1, m2, r[2])).rowcount
            if changed:
                self.db.conn.execute(
                    "UPDATE option_links SET reversed = 0, method = CASE method WHEN 'swapped' THEN 'exact' "
                    "ELSE method END WHERE question_id = ? AND position = ?", (qid, pos))
                done.setdefault(qid, []).append(pos)
        self._order_revisions(done, "hemistich_order")
        counts["reordered"] = sum(len(p) for p in done.values())
        return counts

    def undo_reorder(self, uids: Iterable[str] | None = None) -> Counter[str]:
        """Put back the file's order of options the corpus re-ordered (revisions of author
        `corpus-order`), one revision per question; those options are not re-ordered again.
        Options edited since, or in a release, are left as they are (counted)."""
        counts: Counter[str] = Counter()
        with self.db.tx():
            rows = self.db.conn.execute(
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
                if not self.db.conn.execute(
                        "UPDATE options SET mesra1 = mesra2, mesra2 = mesra1 WHERE question_id = ? AND position = ? "
                        "AND EXISTS (SELECT 1 FROM option_links l WHERE l.question_id = options.question_id "
                        "AND l.position = options.position AND l.match_key = options.match_key AND l.reversed = 0)",
                        (qid, pos)).rowcount:
                    counts["edited"] += 1  # edited or relinked since: its text stays as it is now
                    continue
                self.db.conn.execute(
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
            self.db.conn.execute(
                "INSERT INTO revisions (question_id, author, created_at, changes) VALUES (?, 'corpus-order', ?, ?)",
                (qid, stamp, to_json({change: sorted(positions)})))
            self.db.conn.execute("UPDATE questions SET updated_at = ? WHERE id = ?", (stamp, qid))

    def choose_link(self, uid: str, position: int, poem: str, index: int) -> None:
        """Record that this option was inserted from the corpus (method 'chosen')."""
        with self.db.tx():
            row = self.db.conn.execute(
                "SELECT o.question_id, o.match_key, p.id AS poem_id FROM options o "
                "JOIN questions q ON q.id = o.question_id "
                "JOIN corpus_poems p ON p.path = ? WHERE q.uid = ? AND o.position = ?",
                (poem, uid, position)).fetchone()
            if row is None:
                raise KeyError(f"no option {uid}/{position} or no poem {poem}")
            self.db.conn.execute(
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
        rows: list[sqlite3.Row] = []
        if uids is None:
            rows = self.db.conn.execute(sql).fetchall()
        else:
            uids = list(uids)
            for start in range(0, len(uids), 500):
                chunk = uids[start:start + 500]
                rows += self.db.conn.execute(f"{sql} WHERE q.uid IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        out: dict[str, dict[int, OptionLink]] = {}
        for r in rows:
            couplet = None
            if r["poem"] is not None and r["couplet"] is not None:
                couplet = CorpusCouplet(**{f: r[f] for f in COUPLET_FIELDS},
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
            ids = self.corpus.poet_ids(poet)
            marks = ",".join("?" * len(ids))
            clauses.append(f"(o.poet = ? OR q.poet = ? OR (l.status = 'linked' AND pt.id IN ({marks})))")
            params += [poet, poet, *ids]
        if form:
            clauses.append("l.status = 'linked' AND lower(p.form) = lower(?)")
            params.append(form)
        if not clauses:
            return {r["uid"] for r in self.db.conn.execute("SELECT uid FROM questions")}
        return {r["uid"] for r in self.db.conn.execute(
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
        return {(r["uid"], r["position"]): (r["path"], r["slug"]) for r in self.db.conn.execute(
            "SELECT q.uid, l.position, p.path, pt.slug FROM option_links l "
            "JOIN questions q ON q.id = l.question_id "
            "JOIN options o ON o.question_id = l.question_id AND o.position = l.position "
            "AND o.match_key = l.match_key "
            "JOIN corpus_poems p ON p.id = l.poem_id JOIN corpus_poets pt ON pt.id = p.poet_id "
            "WHERE l.status = 'linked' AND l.method NOT IN ('one_hemistich', 'split')")}

    def couplet_uses(self, poem: str, index: int, *, exclude: str | None = None) -> list[str]:
        """uids of the questions with an option linked to this couplet."""
        return [r["uid"] for r in self.db.conn.execute(
            "SELECT DISTINCT q.uid FROM option_links l JOIN questions q ON q.id = l.question_id "
            "JOIN corpus_poems p ON p.id = l.poem_id WHERE p.path = ? AND l.couplet = ? "
            "AND l.status = 'linked' AND q.uid IS NOT ? ORDER BY q.uid", (poem, index, exclude))]
