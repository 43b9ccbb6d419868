"""Source references: every (source name, id) a question is known by, with the file and the
time it was learnt (table question_sources). A duplicate found on import adds a reference here
instead of a second question; everything that matches by source id goes through these rows (the
writes inside other repositories' transactions are in rows: insert_sources, add_source)."""

from __future__ import annotations

from ..models import Question
from .db import Database
from .questions import QuestionsRepo


class SourcesRepo:
    def __init__(self, db: Database, questions: QuestionsRepo):
        self.db = db
        self.questions = questions

    def reference_rows(self, source: str | None = None) -> list[tuple[str | None, str, str]]:
        """(source name, source id, uid) of every reference with an id (of one source if given)."""
        sql = ("SELECT s.source_name, s.source_id, q.uid FROM question_sources s "
               "JOIN questions q ON q.id = s.question_id WHERE s.source_id IS NOT NULL")
        if source is not None:
            rows = self.db.conn.execute(sql + " AND s.source_name = ? ORDER BY s.id", (source,))
        else:
            rows = self.db.conn.execute(sql + " ORDER BY s.id")
        return [(r["source_name"], r["source_id"], r["uid"]) for r in rows]

    def questions_by_source(self, source_name: str) -> dict[str, list[Question]]:
        """source id -> the questions that have a reference (source_name, id), in bank order."""
        pairs = self.db.conn.execute(
            "SELECT s.source_id, q.uid FROM question_sources s JOIN questions q ON q.id = s.question_id "
            "WHERE s.source_name = ? AND s.source_id IS NOT NULL ORDER BY q.id", (source_name,)).fetchall()
        found = self.questions.questions_for_uids(r["uid"] for r in pairs)
        out: dict[str, list[Question]] = {}
        for r in pairs:
            out.setdefault(r["source_id"], []).append(found[r["uid"]])
        return out

    def source_counts(self) -> tuple[int, int, int]:
        """(references, questions with a reference, questions with two or more)."""
        r = self.db.conn.execute(
            "SELECT COALESCE(SUM(n), 0) AS refs, COUNT(*) AS questions, COALESCE(SUM(n > 1), 0) AS several "
            "FROM (SELECT COUNT(*) AS n FROM question_sources GROUP BY question_id)").fetchone()
        return r["refs"], r["questions"], r["several"]
