"""Authoring with edit history, and adjudication decisions (both append-only logs)."""

from __future__ import annotations

import json
from collections.abc import Callable

from ..models import Adjudication, Question, Revision, SourceRef
from ..models.keys import fingerprint, new_uid, now, repeated_couplets, search_text
from ..models.labels import Changes
from ..models.merge import merge
from ..text import couplet_key
from .db import Database
from .errors import Changed, EditConflict
from .links import LinksRepo
from .questions import QuestionsRepo
from .rows import insert_questions, prepare, question_id, replace_own_source, to_json

_EDITABLE = ("stem", "key", "status", "explanation", "category", "poet", "source_name",
             "source_id", "tags")


def _option_dicts(q: Question) -> list[dict[str, int | str | None]]:
    return [{"position": o.position, "mesra1": o.mesra1, "mesra2": o.mesra2, "poet": o.poet}
            for o in sorted(q.options, key=lambda o: o.position)]


class CurationRepo:
    def __init__(self, db: Database, questions: QuestionsRepo, links: LinksRepo):
        self.db = db
        self.questions = questions
        self.links = links  # an edited question's options are linked to the corpus

    def create_question(self, q: Question, author: str | None) -> Question:
        """Save a new authored question (uid assigned when empty)."""
        problems = [p for p in q.problems()]
        if problems:
            raise ValueError("; ".join(problems))
        q.uid = q.uid or new_uid()
        q.author = q.author or author
        q.created_at = q.updated_at = now()
        with self.db.tx():
            insert_questions(self.db.conn, [prepare(q)])
            qid = question_id(self.db.conn, q.uid)
            self.db.conn.execute(
                "INSERT INTO revisions (question_id, author, created_at, changes) VALUES (?,?,?,?)",
                (qid, author, q.created_at, to_json({"created": [None, q.uid]})))
        self.links.link_saved([q.uid])  # corpus provenance, its own short transaction
        return q

    def update_question(self, q: Question, author: str | None) -> Changes:
        """Write the edited question `q` (same uid) and log what changed; returns the changes."""
        return self.save_edit(q, author)[1]

    def save_edit(self, q: Question, author: str | None,
                  base: Question | None = None) -> tuple[Question, Changes, list[str]]:
        """Write the edited question `q` and log what changed. With `base` (the version the
        editor loaded) the edit is merged, in the write transaction, with what was stored
        since: fields only the other side changed keep their value; fields both changed
        differently raise EditConflict (nothing written). Returns (the question as saved, the
        changes, the fields kept from the stored version)."""
        problems = q.problems()
        if problems:
            raise ValueError("; ".join(problems))
        kept: list[str] = []
        with self.db.tx():
            old = self.questions.get_question(q.uid)
            if old is None:
                raise KeyError(f"no question {q.uid}")
            if base is not None:
                merged = merge(base, q, old)
                if merged.conflicts:
                    raise EditConflict(merged.conflicts, old, merged.question)
                q, kept = merged.question, merged.kept
                problems = q.problems()
                if not repeated_couplets(old):  # a merge never makes one couplet two options
                    problems += repeated_couplets(q)
                if problems:
                    raise ValueError("; ".join(problems))
            changes: Changes = {f: [getattr(old, f), getattr(q, f)] for f in _EDITABLE
                       if getattr(old, f) != getattr(q, f)}
            if _option_dicts(old) != _option_dicts(q):
                changes["options"] = [_option_dicts(old), _option_dicts(q)]
            if not changes:
                return old, {}, kept
            q.updated_at = now()
            qid = question_id(self.db.conn, q.uid)
            self.db.conn.execute(
                "UPDATE questions SET stem=?, key=?, status=?, explanation=?, category=?, poet=?, "
                "source_name=?, source_id=?, tags=?, updated_at=?, fingerprint=?, search_text=? "
                "WHERE id = ?",
                (q.stem, q.key, q.status, q.explanation, q.category, q.poet, q.source_name,
                 q.source_id, to_json(q.tags), q.updated_at,
                 fingerprint(q), search_text(q), qid))
            replace_own_source(self.db.conn, qid, SourceRef(old.source_name, old.source_id),
                               SourceRef(q.source_name, q.source_id), q.updated_at)
            if "options" in changes:
                self.db.conn.execute("DELETE FROM options WHERE question_id = ?", (qid,))
                self.db.conn.executemany(
                    "INSERT INTO options (question_id, position, mesra1, mesra2, poet, match_key) "
                    "VALUES (?,?,?,?,?,?)",
                    [(qid, o.position, o.mesra1, o.mesra2, o.poet, couplet_key(o.mesra1, o.mesra2))
                     for o in q.options])
            self.db.conn.execute(
                "INSERT INTO revisions (question_id, author, created_at, changes) VALUES (?,?,?,?)",
                (qid, author, q.updated_at, to_json(changes)))
        if "options" in changes:
            self.links.link_saved([q.uid])  # corpus provenance, its own short transaction
        return q, changes, kept

    def revisions(self, uid: str) -> list[Revision]:
        return [Revision(uid, r["author"], r["created_at"], json.loads(r["changes"])) for r in self.db.conn.execute(
            "SELECT r.author, r.created_at, r.changes FROM revisions r "
            "JOIN questions q ON q.id = r.question_id WHERE q.uid = ? ORDER BY r.id", (uid,))]

    def revision_counts(self) -> dict[str, int]:
        return {r["uid"]: r["n"] for r in self.db.conn.execute(
            "SELECT q.uid, COUNT(*) AS n FROM revisions r JOIN questions q ON q.id = r.question_id "
            "GROUP BY q.uid")}

    def adjudicate(self, uid: str, adjudicator: str, decision: str, *, key: int | None = None,
                   reason: str | None = None,
                   check: Callable[[Question], str | None] | None = None) -> Adjudication:
        """Record a final decision: `accept` the current key, set `key`, or `retire`.
        The question becomes curated (or retired); the log keeps who, when and why. ``check``:
        run on the question as it is inside the write transaction; a reason it returns raises
        Changed (nothing written): a decision planned earlier is re-checked where it is made."""
        if decision not in ("accept", "key", "retire"):
            raise ValueError(f"unknown decision {decision!r}")
        if not adjudicator:
            raise ValueError("adjudicator name is empty")
        stamp = now()
        with self.db.tx():
            q = self.questions.get_question(uid)
            if q is None:
                raise KeyError(f"no question {uid}")
            if check is not None and (why := check(q)):
                raise Changed(why)
            if decision == "key" and key not in (1, 2, 3, 4):
                raise ValueError(f"key {key!r} out of range 1..4")
            if decision == "accept":
                if q.key is None:
                    raise ValueError(f"{uid} has no key to accept")
                key = q.key
            status = "retired" if decision == "retire" else "curated"
            new_key = q.key if decision == "retire" else key
            qid = question_id(self.db.conn, uid)
            self.db.conn.execute("UPDATE questions SET key = ?, status = ?, updated_at = ? WHERE id = ?",
                                 (new_key, status, stamp, qid))
            seen = self.db.conn.execute("SELECT COALESCE(MAX(id), 0) AS n FROM reviews").fetchone()["n"]
            self.db.conn.execute(
                "INSERT INTO adjudications (question_id, adjudicator, decision, key, reason, created_at, "
                "reviews_seen) VALUES (?,?,?,?,?,?,?)", (qid, adjudicator, decision, key, reason, stamp, seen))
        return Adjudication(uid, adjudicator, decision, key, reason, stamp)

    def adjudications(self, uid: str | None = None) -> list[Adjudication]:
        where, params = ("WHERE q.uid = ?", (uid,)) if uid else ("", ())
        return [Adjudication(**r) for r in self.db.conn.execute(
            "SELECT q.uid, a.adjudicator, a.decision, a.key, a.reason, a.created_at "
            f"FROM adjudications a JOIN questions q ON q.id = a.question_id {where} ORDER BY a.id", params)]
