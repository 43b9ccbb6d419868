"""Questions and their options."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..models import BankCounts, Option, Question, QuestionRow
from ..models.keys import search_body
from ..text import DuplicateIndex
from .db import Database
from .links import LinksRepo
from .rows import QUESTION_FIELDS, insert_questions, log_import, prepare, sources_for

_QUESTION_COLUMNS = ", ".join(QUESTION_FIELDS)


def _question(row: dict[str, Any], options: list[Option]) -> Question:
    """A Question from its row (a dict by column name)."""
    return Question(**{**row, "tags": json.loads(row["tags"])}, options=options)


class QuestionsRepo:
    def __init__(self, db: Database, links: LinksRepo):
        self.db = db
        self.links = links  # a saved question's options are linked to the corpus

    # ------------------------------------------------------------ writes

    def add_questions(self, questions: Iterable[Question], *, import_log: Mapping[str, object] | None = None) -> int:
        """Insert questions (and the import's log row) in one transaction: all or nothing."""
        questions = list(questions)
        rows = [prepare(q) for q in questions]  # normalized before the lock is taken
        with self.db.tx() as conn:
            insert_questions(conn, rows)
            if import_log is not None:
                log_import(conn, import_log)
        self.links.link_saved([q.uid for q in questions])  # corpus provenance (nothing without a corpus)
        return len(questions)

    # ------------------------------------------------------------ reads

    def _options_for(self, ids: list[int]) -> dict[int, list[Option]]:
        out: dict[int, list[Option]] = {i: [] for i in ids}
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for r in self.db.conn.execute(
                f"SELECT question_id, position, mesra1, mesra2, poet FROM options "
                f"WHERE question_id IN ({marks}) ORDER BY question_id, position", chunk
            ):
                out[r["question_id"]].append(Option(r["position"], r["mesra1"], r["mesra2"], r["poet"]))
        return out

    def _questions(self, where: str = "", params: tuple[object, ...] = (), order: str = "uid") -> list[Question]:
        rows = [dict(r) for r in self.db.conn.execute(
            f"SELECT id, {_QUESTION_COLUMNS} FROM questions {where} ORDER BY {order}", params)]
        ids = [r.pop("id") for r in rows]
        options, sources = self._options_for(ids), sources_for(self.db.conn, ids)
        out = []
        for qid, row in zip(ids, rows):
            q = _question(row, options[qid])
            q.sources = sources[qid]
            out.append(q)
        return out

    def get_question(self, uid: str) -> Question | None:
        found = self._questions("WHERE uid = ?", (uid,))
        return found[0] if found else None

    def questions(self, *, statuses: Iterable[str] | None = None,
                  category: str | None = None) -> list[Question]:
        """Questions in uid order (the export order), optionally filtered."""
        clauses, params = [], []
        if statuses:
            statuses = list(statuses)
            clauses.append(f"status IN ({','.join('?' * len(statuses))})")
            params += statuses
        if category:
            clauses.append("category = ?")
            params.append(category)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        return self._questions(where, tuple(params))

    def questions_for_uids(self, uids: Iterable[str]) -> dict[str, Question]:
        """These questions by uid (missing uids left out), read in chunks of 500."""
        uids = list(dict.fromkeys(uids))
        found: dict[str, Question] = {}
        for i in range(0, len(uids), 500):
            chunk = uids[i:i + 500]
            for q in self._questions(f"WHERE uid IN ({','.join('?' * len(chunk))})", tuple(chunk)):
                found[q.uid] = q
        return found

    def keys(self) -> dict[str, int | None]:
        """uid -> key of every question (None: not keyed), without reading their options."""
        return {r["uid"]: r["key"] for r in self.db.conn.execute("SELECT uid, key FROM questions")}

    def max_question_id(self) -> int:
        """The newest question's row id: an import re-checks the questions stored after it."""
        return int(self.db.conn.execute("SELECT COALESCE(MAX(id), 0) AS id FROM questions").fetchone()["id"])

    def uids(self) -> set[str]:
        return {r["uid"] for r in self.db.conn.execute("SELECT uid FROM questions")}

    def source_ids(self) -> dict[str, str]:
        """uid -> source id, for the questions that have one (how every view names a question)."""
        return {r["uid"]: r["source_id"] for r in self.db.conn.execute(
            "SELECT uid, source_id FROM questions WHERE source_id IS NOT NULL AND source_id != ''")}

    def fingerprints(self) -> dict[str, str]:
        """fingerprint -> uid of the first question with it."""
        out: dict[str, str] = {}
        for r in self.db.conn.execute("SELECT fingerprint, uid FROM questions ORDER BY id"):
            out.setdefault(r["fingerprint"], r["uid"])
        return out

    def duplicate_index(self) -> DuplicateIndex:
        index = DuplicateIndex()
        keys: dict[str, list[str]] = {}
        for r in self.db.conn.execute(
            "SELECT q.uid, o.match_key FROM options o JOIN questions q ON q.id = o.question_id "
            "ORDER BY q.id, o.position"
        ):
            keys.setdefault(r["uid"], []).append(r["match_key"])
        for uid, ks in keys.items():
            index.add(uid, ks)
        return index

    def search_entries(self) -> list[tuple[str, str, str, str | None]]:
        """(uid, search text, status, category) of every question, in bank order. The search
        text gets the poets its options' corpus links name (nickname and slug), so a plain word
        finds what the poet: facet finds (LinksRepo.provenance_uids)."""
        return [(r["uid"], r["search_text"] + (" " + r["linked"] if r["linked"] else ""), r["status"],
                 r["category"]) for r in self.db.conn.execute(
            """SELECT q.uid, q.search_text, q.status, q.category,
                      (SELECT group_concat(pt.nickname || ' ' || pt.slug, ' ')
                       FROM options o JOIN option_links l ON l.question_id = o.question_id
                            AND l.position = o.position AND l.match_key = o.match_key AND l.status = 'linked'
                       JOIN corpus_poems p ON p.id = l.poem_id JOIN corpus_poets pt ON pt.id = p.poet_id
                       WHERE o.question_id = q.id) AS linked
               FROM questions q ORDER BY q.id""")]

    def blind_search_entries(self) -> list[tuple[str, str, str, str | None]]:
        """search_entries as a blind person may search them: the text only of what they see
        (id, source id, stem, category, tags, the couplets), never a poet, a source page, a
        corpus link or a key. The status is left to the caller, which refuses it to them."""
        return [(r["uid"], search_body([r["uid"], r["source_id"] or "", r["stem"], r["category"] or "",
                                        *json.loads(r["tags"] or "[]"), r["couplets"] or ""]),
                 r["status"], r["category"]) for r in self.db.conn.execute(
            """SELECT q.uid, q.source_id, q.stem, q.category, q.tags, q.status,
                      (SELECT group_concat(o.mesra1 || ' ' || o.mesra2, ' ') FROM options o
                       WHERE o.question_id = q.id) AS couplets
               FROM questions q ORDER BY q.id""")]

    def rows_for(self, uids: list[str]) -> list[QuestionRow]:
        """Bank-table rows of these questions, in the given order."""
        found: dict[str, QuestionRow] = {}
        for start in range(0, len(uids), 500):
            chunk = uids[start:start + 500]
            sql = (
                "SELECT q.uid, q.source_id, o.mesra1 || ' / ' || o.mesra2 AS first_couplet, q.category, "
                "q.status, q.key, (SELECT COUNT(*) FROM labels l "
                " WHERE l.question_id = q.id AND l.answer IS NOT NULL) AS labels "
                "FROM questions q LEFT JOIN options o ON o.question_id = q.id AND o.position = 1 "
                f"WHERE q.uid IN ({','.join('?' * len(chunk))})"
            )
            for r in self.db.conn.execute(sql, chunk):
                found[r["uid"]] = QuestionRow(**r)
        return [found[u] for u in uids if u in found]

    def never_held_a_question(self) -> bool:
        """No question stored, nor ever kept: questions are retired, never deleted (a failed
        import takes back what it wrote). The app seeds the sample bank into such a bank."""
        return self.db.conn.execute("SELECT 1 FROM questions LIMIT 1").fetchone() is None

    def counts(self) -> BankCounts:
        by_status = {r["status"]: r["n"] for r in self.db.conn.execute(
            "SELECT status, COUNT(*) AS n FROM questions GROUP BY status")}
        categories = [r["category"] for r in self.db.conn.execute(
            "SELECT DISTINCT category FROM questions WHERE category IS NOT NULL ORDER BY category")]
        return BankCounts(sum(by_status.values()), by_status, categories)
