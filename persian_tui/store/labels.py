"""Labels (append-only annotations), the labelling queue with leases, settings."""

from __future__ import annotations

import sqlite3
import time

from ..models import CONFIDENCES, QUEUE_MODES, Label, Progress, Question, QueueScope
from ..models.keys import now
from ..models.labels import check_note
from ..models.limits import check_text
from .db import Database
from .questions import QuestionsRepo
from .rows import question_id

_LABEL_COLUMNS = ("q.uid, l.annotator, l.answer, l.skipped, l.confidence, l.flag, l.note, "
                  "l.seconds, l.created_at")


def _label(row: sqlite3.Row) -> Label:
    """A Label from its row (by column name: the names of Label's fields)."""
    return Label(**{**row, "skipped": bool(row["skipped"])})


class LabelsRepo:
    def __init__(self, db: Database, questions: QuestionsRepo):
        self.db = db
        self.questions = questions  # the queue serves questions

    def add_label(self, uid: str, annotator: str, answer: int | None = None, *, skipped: bool = False,
                  confidence: str | None = None, flag: str | None = None, note: str | None = None,
                  seconds: float | None = None, created_at: str | None = None) -> int:
        """Append a label (supersedes the annotator's earlier one) and release the claim."""
        if not annotator:
            raise ValueError("annotator name is empty")
        if answer is not None and answer not in (1, 2, 3, 4):
            raise ValueError(f"answer {answer} out of range 1..4")
        if answer is None and not skipped and not flag:
            raise ValueError("a label needs an answer, a skip or a flag")
        if confidence is not None and confidence not in CONFIDENCES:
            raise ValueError(f"confidence {confidence!r} is not one of {', '.join(CONFIDENCES)}")
        note = check_note(note)
        if flag is not None:
            check_text("reason", flag)
        with self.db.tx():
            qid = question_id(self.db.conn, uid)
            cur = self.db.conn.execute(
                "INSERT INTO annotations (question_id, annotator, answer, skipped, confidence, flag, "
                "note, seconds, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (qid, annotator, answer, int(skipped), confidence, flag, note, seconds,
                 created_at or now()))
            self.db.conn.execute("DELETE FROM claims WHERE question_id = ? AND annotator = ?", (qid, annotator))
        assert cur.lastrowid is not None  # an INSERT's row id
        return cur.lastrowid

    def add_labels(self, labels: list[Label]) -> int:
        """Append many labels in one transaction (import-labels). A label already recorded for
        that annotator and question (same answer, skip, confidence and note, at any time) is not
        added again: two imports of one file race to the same rows, and re-importing an older
        file never supersedes labels made since. Returns how many were added."""
        stamp = now()
        with self.db.tx():
            uids = {r["uid"]: r["id"] for r in self.db.conn.execute("SELECT uid, id FROM questions")}
            known = {(r["question_id"], r["annotator"], r["answer"], r["skipped"], r["confidence"], r["note"])
                     for r in self.db.conn.execute(
                         "SELECT question_id, annotator, answer, skipped, confidence, note FROM annotations "
                         "WHERE retracts IS NULL")}
            rows = []
            for l in labels:
                check_note(l.note)
                if l.flag is not None:
                    check_text("reason", l.flag)
                sig = (uids[l.uid], l.annotator, l.answer, int(l.skipped), l.confidence, l.note)
                if sig in known:
                    continue
                known.add(sig)
                rows.append((*sig[:5], l.flag, l.note, l.seconds, l.created_at or stamp))
            self.db.conn.executemany(
                "INSERT INTO annotations (question_id, annotator, answer, skipped, confidence, flag, "
                "note, seconds, created_at) VALUES (?,?,?,?,?,?,?,?,?)", rows)
        return len(rows)

    def undo_label(self, annotator: str) -> str | None:
        """Retract the annotator's latest act that is still in force; returns its question's
        uid (None when there is nothing to undo). Repeated calls go further back."""
        with self.db.tx():
            row = self.db.conn.execute(
                "SELECT a.id, q.uid FROM annotations a JOIN questions q ON q.id = a.question_id "
                "WHERE a.annotator = ? AND a.retracts IS NULL "
                "AND NOT EXISTS (SELECT 1 FROM annotations r WHERE r.retracts = a.id) "
                "ORDER BY a.id DESC LIMIT 1", (annotator,)).fetchone()
            if row is None:
                return None
            self.db.conn.execute(
                "INSERT INTO annotations (question_id, annotator, retracts, created_at) "
                "SELECT question_id, annotator, id, ? FROM annotations WHERE id = ?", (now(), row["id"]))
        return str(row["uid"])

    def labels(self, uid: str | None = None, *, annotator: str | None = None) -> list[Label]:
        """Effective labels (latest act of each annotator on each question)."""
        clauses, params = [], []
        if uid is not None:
            clauses.append("q.uid = ?")
            params.append(uid)
        if annotator is not None:
            clauses.append("l.annotator = ?")
            params.append(annotator)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        return [_label(r) for r in self.db.conn.execute(
            f"SELECT {_LABEL_COLUMNS} FROM labels l JOIN questions q ON q.id = l.question_id "
            f"{where} ORDER BY q.id, l.annotator", params)]

    def annotators(self) -> list[str]:
        return [r["annotator"] for r in self.db.conn.execute("SELECT DISTINCT annotator FROM labels ORDER BY 1")]

    # ------------------------------------------------------------ queue

    def claim_next(self, annotator: str, *, target: int = 3, lease_seconds: float = 900,
                   skip: tuple[str, ...] = (), scope: QueueScope | None = None,
                   mode: str = "overlap") -> Question | None:
        """Lease the next question for `annotator`: one in `scope` they have not labelled, with
        fewer than `target` answers counting other annotators' live claims. `overlap` (default)
        serves the questions with the most answers first, so annotators share items at once and
        agreement can be measured; `spread` serves the fewest first. One write transaction, so
        two annotators never push an item past target."""
        if mode not in QUEUE_MODES:
            raise ValueError(f"unknown queue mode {mode!r}; choose {' or '.join(QUEUE_MODES)}")
        where, params = _scope_where(scope)
        stamp = time.time()
        with self.db.tx():
            self.db.conn.execute("DELETE FROM claims WHERE expires_at < ?", (stamp,))
            # my held claim, unless others filled it past a (lowered) target meanwhile
            held = self.db.conn.execute(
                "SELECT q.uid FROM claims c JOIN questions q ON q.id = c.question_id "
                f"WHERE c.annotator = ? AND {where} AND "
                "(SELECT COUNT(*) FROM labels l WHERE l.question_id = q.id AND l.answer IS NOT NULL) "
                "+ (SELECT COUNT(*) FROM claims o WHERE o.question_id = q.id AND o.annotator != ?) < ?",
                (annotator, *params, annotator, target)).fetchone()
            if held and held["uid"] not in skip:
                self.db.conn.execute("UPDATE claims SET expires_at = ? WHERE annotator = ?",
                                     (stamp + lease_seconds, annotator))
                uid = held["uid"]
            else:
                self.db.conn.execute("DELETE FROM claims WHERE annotator = ?", (annotator,))
                marks = ",".join("?" * len(skip))
                order = "n DESC, q.id" if mode == "overlap" else "n, q.id"
                row = self.db.conn.execute(
                    f"""SELECT q.id, q.uid,
                          (SELECT COUNT(*) FROM labels l WHERE l.question_id = q.id AND l.answer IS NOT NULL)
                          + (SELECT COUNT(*) FROM claims c WHERE c.question_id = q.id) AS n
                        FROM questions q
                        WHERE {where}
                          AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.question_id = q.id
                                          AND l.annotator = ?)
                          {f'AND q.uid NOT IN ({marks})' if skip else ''}
                          AND n < ?
                        ORDER BY {order} LIMIT 1""",
                    (*params, annotator, *skip, target)).fetchone()
                if row is None:
                    return None
                self.db.conn.execute("INSERT INTO claims (question_id, annotator, expires_at) VALUES (?,?,?)",
                                     (row["id"], annotator, stamp + lease_seconds))
                uid = row["uid"]
        return self.questions.get_question(uid)

    def claim(self, annotator: str, uid: str, *, target: int = 3, lease_seconds: float = 900) -> bool:
        """Lease this question (e.g. one taken back with undo) if it is still under target,
        counting others' live claims; False when others filled it meanwhile."""
        stamp = time.time()
        with self.db.tx():
            qid = question_id(self.db.conn, uid)
            self.db.conn.execute("DELETE FROM claims WHERE expires_at < ? OR annotator = ?", (stamp, annotator))
            n = self.db.conn.execute(
                "SELECT (SELECT COUNT(*) FROM labels l WHERE l.question_id = ? AND l.answer IS NOT NULL "
                "        AND l.annotator != ?) "
                "     + (SELECT COUNT(*) FROM claims c WHERE c.question_id = ?) AS n",
                (qid, annotator, qid)).fetchone()["n"]
            if n >= target:
                return False
            self.db.conn.execute("INSERT INTO claims (question_id, annotator, expires_at) VALUES (?,?,?)",
                                 (qid, annotator, stamp + lease_seconds))
        return True

    def renew(self, annotator: str, *, lease_seconds: float = 900) -> bool:
        """Extend the annotator's lease; False when it has lapsed (the item may be gone)."""
        with self.db.tx():
            cur = self.db.conn.execute("UPDATE claims SET expires_at = ? WHERE annotator = ? AND expires_at >= ?",
                                       (time.time() + lease_seconds, annotator, time.time()))
        return cur.rowcount > 0

    def release(self, annotator: str) -> None:
        with self.db.tx():
            self.db.conn.execute("DELETE FROM claims WHERE annotator = ?", (annotator,))

    def progress(self, annotator: str, *, target: int = 3, scope: QueueScope | None = None) -> Progress:
        """What the labelling bars show, within the queue's scope: my answers, skips and flags
        (a flag without an answer is not an answer), what is left for me, and how many questions
        have reached the target (anyone's answers)."""
        where, params = _scope_where(scope)
        answers = "(SELECT COUNT(*) FROM labels l WHERE l.question_id = q.id AND l.answer IS NOT NULL)"
        row = self.db.conn.execute(
            f"""SELECT COUNT(*) AS bank,
                  COALESCE(SUM(m.answer IS NOT NULL), 0) AS mine,
                  COALESCE(SUM(m.skipped = 1), 0) AS skipped,
                  COALESCE(SUM(m.answer IS NULL AND m.skipped = 0), 0) AS flagged,
                  COALESCE(SUM(m.question_id IS NULL AND {answers} < ?), 0) AS queue_left,
                  COALESCE(SUM({answers} >= ?), 0) AS complete
                FROM questions q
                LEFT JOIN labels m ON m.question_id = q.id AND m.annotator = ?
                WHERE {where}""", (target, target, annotator, *params)).fetchone()
        return Progress(row["mine"], row["queue_left"], row["bank"], target, skipped=row["skipped"],
                        complete=row["complete"], flagged=row["flagged"])

    # ------------------------------------------------------------ settings

    def get_setting(self, name: str, default: str | None = None) -> str | None:
        row = self.db.conn.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()
        return row["value"] if row else default

    def set_setting(self, name: str, value: str) -> None:
        """Keep a shared setting (the guidelines are one); ValueError past its cap or for a
        control character (models/limits.py)."""
        check_text("setting", value)
        with self.db.tx():
            self.db.conn.execute("INSERT INTO settings (name, value) VALUES (?, ?) "
                                 "ON CONFLICT (name) DO UPDATE SET value = excluded.value", (name, value))


def _scope_where(scope: QueueScope | None) -> tuple[str, tuple[object, ...]]:
    """The SQL condition on `q` (questions) for a queue scope; open questions only."""
    scope = scope or QueueScope()
    statuses = scope.statuses
    where = [f"q.status IN ({','.join('?' * len(statuses))})"]
    params: list[object] = list(statuses)
    if scope.tag:
        where.append("EXISTS (SELECT 1 FROM json_each(q.tags) t WHERE t.value = ?)")
        params.append(scope.tag)
    if scope.category:
        where.append("q.category = ?")
        params.append(scope.category)
    if scope.source:
        # any of the question's references (a question imported from several sources is in each)
        where.append("(q.source_name = ? OR EXISTS (SELECT 1 FROM question_sources s "
                     "WHERE s.question_id = q.id AND s.source_name = ?))")
        params += [scope.source, scope.source]
    if scope.uids:
        where.append(f"q.uid IN ({','.join('?' * len(scope.uids))})")
        params += scope.uids
    return " AND ".join(where), tuple(params)
