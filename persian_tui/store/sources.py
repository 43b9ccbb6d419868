"""Source references: every (source name, id) a question is known by, with the file and the
time it was learnt (table question_sources). A duplicate found on import adds a reference here
instead of a second question; everything that matches by source id goes through these rows."""

from __future__ import annotations

import sqlite3

from ..models import Question, SourceRef
from .rows import insert_many, source_ref, source_row


class SourcesRepo:
    conn: sqlite3.Connection

    def _insert_sources(self, rows: list[dict], question_ids: list[int]) -> int:
        """Insert question_sources rows (see source_row) of these questions; one already there
        (same question, name and id) is left alone. Returns how many were added. Call inside a
        transaction."""
        before = self.conn.total_changes
        insert_many(self.conn, "question_sources", rows, ignore=True, question_ids=question_ids)
        return self.conn.total_changes - before

    def _add_source(self, question_id: int, ref: SourceRef, stamp: str) -> bool:
        """Link one reference to a question (inside a transaction); False when it was there."""
        row = source_row(ref, stamp)
        return row is not None and self._insert_sources([row], [question_id]) == 1

    def _sources_for(self, ids: list[int]) -> dict[int, list[SourceRef]]:
        out: dict[int, list[SourceRef]] = {i: [] for i in ids}
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            for r in self.conn.execute(
                "SELECT question_id, source_name, source_id, file, created_at FROM question_sources "
                f"WHERE question_id IN ({','.join('?' * len(chunk))}) ORDER BY id", chunk
            ):
                out[r["question_id"]].append(source_ref(r))
        return out

    def _replace_own_source(self, question_id: int, old: SourceRef, new: SourceRef, stamp: str) -> None:
        """An edit changed the question's own source: its reference row follows (inside a transaction)."""
        if old == new:
            return
        self.conn.execute(
            "DELETE FROM question_sources WHERE question_id = ? AND source_name IS ? AND source_id IS ?",
            (question_id, old.name, old.id))
        self._add_source(question_id, new, stamp)

    def reference_rows(self, source: str | None = None) -> list[tuple[str | None, str, str]]:
        """(source name, source id, uid) of every reference with an id (of one source if given)."""
        sql = ("SELECT s.source_name, s.source_id, q.uid FROM question_sources s "
               "JOIN questions q ON q.id = s.question_id WHERE s.source_id IS NOT NULL")
        if source is not None:
            rows = self.conn.execute(sql + " AND s.source_name = ? ORDER BY s.id", (source,))
        else:
            rows = self.conn.execute(sql + " ORDER BY s.id")
        return [(r["source_name"], r["source_id"], r["uid"]) for r in rows]

    def questions_by_source(self, source_name: str) -> dict[str, list[Question]]:
        """source id -> the questions that have a reference (source_name, id), in bank order."""
        pairs = self.conn.execute(
            "SELECT s.source_id, q.uid FROM question_sources s JOIN questions q ON q.id = s.question_id "
            "WHERE s.source_name = ? AND s.source_id IS NOT NULL ORDER BY q.id", (source_name,)).fetchall()
        found = self.questions_for_uids(r["uid"] for r in pairs)
        out: dict[str, list[Question]] = {}
        for r in pairs:
            out.setdefault(r["source_id"], []).append(found[r["uid"]])
        return out

    def source_counts(self) -> tuple[int, int, int]:
        """(references, questions with a reference, questions with two or more)."""
        r = self.conn.execute(
            "SELECT COALESCE(SUM(n), 0) AS refs, COUNT(*) AS questions, COALESCE(SUM(n > 1), 0) AS several "
            "FROM (SELECT COUNT(*) AS n FROM question_sources GROUP BY question_id)").fetchone()
        return r["refs"], r["questions"], r["several"]
