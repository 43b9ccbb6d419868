"""Error taxonomy, judgments (one per judge run and prediction) and append-only reviews."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from ..models import ErrorCategory, JudgmentRow, ReviewFlag
from ..models.keys import now
from ..models.limits import TextKind, check_text
from .db import Database

KEY_PROBLEM = "key_problem"
# the reviews that send a question to adjudication: a flag, or a review whose verdict is a key
# problem (3 on the review screen, or the judge's key problem accepted): one decision, counted once
FLAGS = "(v.action = 'flag' OR (v.action IN ('accept', 'override') AND v.verdict = 'key_problem'))"

class _Review(TypedDict, total=False):
    """A judgment's review in force, as its reviews add up."""

    flag: bool
    flag_note: str | None
    note: str | None
    verdict: str | None
    category: str | None
    reviewer: str | None


class JudgingRepo:
    def __init__(self, db: Database):
        self.db = db

    # ------------------------------------------------------------ taxonomy

    def error_categories(self) -> list[ErrorCategory]:
        return [ErrorCategory(**r) for r in self.db.conn.execute(
            "SELECT name, label_fa, label_en, description_fa, description_en, example "
            "FROM error_categories ORDER BY position, name")]

    def ensure_error_categories(self, defaults: Sequence[tuple[str | None, ...]]) -> None:
        """Seed the taxonomy once (an edited taxonomy is never reset)."""
        with self.db.tx():
            if self.db.conn.execute("SELECT COUNT(*) AS n FROM error_categories").fetchone()["n"]:
                return
            self.db.conn.executemany(
                "INSERT INTO error_categories (name, label_fa, label_en, description_fa, "
                "description_en, example, position) VALUES (?,?,?,?,?,?,?)",
                [(*row, i) for i, row in enumerate(defaults)])

    def save_error_category(self, c: ErrorCategory) -> None:
        if not c.name or not c.name.replace("_", "").isalnum():
            raise ValueError(f"category name {c.name!r}: letters, digits and _ only")
        texts: tuple[tuple[TextKind, str], ...] = (("taxonomy_name", c.label_fa), ("taxonomy_name", c.label_en),
                           ("taxonomy_text", c.description_fa), ("taxonomy_text", c.description_en),
                           ("taxonomy_text", c.example))
        for kind, text in texts:
            check_text(kind, text or "")
        with self.db.tx():
            position = self.db.conn.execute(
                "SELECT COALESCE(MAX(position), 0) + 1 AS next FROM error_categories").fetchone()["next"]
            self.db.conn.execute(
                "INSERT INTO error_categories (name, label_fa, label_en, description_fa, description_en, "
                "example, position) VALUES (?,?,?,?,?,?,?) ON CONFLICT (name) DO UPDATE SET "
                "label_fa = excluded.label_fa, label_en = excluded.label_en, "
                "description_fa = excluded.description_fa, description_en = excluded.description_en, "
                "example = excluded.example",
                (c.name, c.label_fa, c.label_en, c.description_fa, c.description_en, c.example, position))

    def category_uses(self) -> dict[str, int]:
        """The one count of a category's uses: the judgments and the reviews (every one kept,
        retracted or superseded too: the record names it) that name it. A used category cannot
        be deleted; the taxonomy screen shows the same figure."""
        used: dict[str, int] = {}
        for r in self.db.conn.execute(
                "SELECT error_category AS c, COUNT(*) AS n FROM judgments WHERE error_category IS NOT NULL GROUP BY 1 "
                "UNION ALL SELECT error_category, COUNT(*) FROM reviews WHERE error_category IS NOT NULL GROUP BY 1"):
            used[r["c"]] = used.get(r["c"], 0) + r["n"]
        return used

    def delete_error_category(self, name: str) -> None:
        with self.db.tx():
            used = self.category_uses().get(name, 0)
            if used:
                raise ValueError(f"category {name} is used by {used} judgment(s) or review(s)")
            self.db.conn.execute("DELETE FROM error_categories WHERE name = ?", (name,))

    # ------------------------------------------------------------ judgments

    def save_judgment(self, run_id: int, target_run: int, uid: str, *, status: str,
                      verdict: str | None = None, error_category: str | None = None,
                      rationale: str | None = None, prompt: str | None = None,
                      prompt_version: str | None = None, raw_reply: str | None = None,
                      tokens_in: int | None = None, tokens_out: int | None = None,
                      latency: float | None = None, cost: float | None = None,
                      error: str | None = None, sample: int = 0) -> None:
        """The verdict on `sample` of the target run's answer to `uid` (replaces a retried one)."""
        self.save_judgments(run_id, target_run, [dict(
            uid=uid, status=status, verdict=verdict, error_category=error_category, rationale=rationale,
            prompt=prompt, prompt_version=prompt_version, raw_reply=raw_reply, tokens_in=tokens_in,
            tokens_out=tokens_out, latency=latency, cost=cost, error=error, sample=sample)])

    def save_judgments(self, run_id: int, target_run: int, rows: list[dict[str, Any]]) -> None:
        """Verdicts in one transaction: each row has save_judgment's arguments by name (uid,
        status; the others may be absent)."""
        with self.db.tx():
            for r in rows:
                pid = self.db.conn.execute(
                    "SELECT p.id FROM predictions p JOIN questions q ON q.id = p.question_id "
                    "WHERE p.run_id = ? AND q.uid = ? AND p.sample = ?",
                    (target_run, r["uid"], r.get("sample", 0))).fetchone()["id"]
                self.db.conn.execute(
                    "INSERT INTO judgments (run_id, prediction_id, status, verdict, error_category, rationale, "
                    "prompt, prompt_version, raw_reply, tokens_in, tokens_out, latency, cost, error, created_at) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (run_id, prediction_id) DO UPDATE SET "
                    "status = excluded.status, verdict = excluded.verdict, "
                    "error_category = excluded.error_category, rationale = excluded.rationale, "
                    "prompt = excluded.prompt, prompt_version = excluded.prompt_version, "
                    "raw_reply = excluded.raw_reply, tokens_in = excluded.tokens_in, "
                    "tokens_out = excluded.tokens_out, latency = excluded.latency, cost = excluded.cost, "
                    "error = excluded.error, created_at = excluded.created_at",
                    (run_id, pid, r["status"], r.get("verdict"), r.get("error_category"), r.get("rationale"),
                     r.get("prompt"), r.get("prompt_version"), r.get("raw_reply"), r.get("tokens_in"),
                     r.get("tokens_out"), r.get("latency"), r.get("cost"), r.get("error"), now()))

    def judged_uids(self, run_id: int, *, statuses: tuple[str, ...] | None = None) -> set[str]:
        sql = ("SELECT q.uid FROM judgments j JOIN predictions p ON p.id = j.prediction_id "
               "JOIN questions q ON q.id = p.question_id WHERE j.run_id = ?")
        params: list[object] = [run_id]
        if statuses:
            sql += f" AND j.status IN ({','.join('?' * len(statuses))})"
            params += list(statuses)
        return {r["uid"] for r in self.db.conn.execute(sql, params)}

    def judgments(self, *, run_id: int | None = None, target_run: int | None = None,
                  model: str | None = None, verdict: str | None = None, category: str | None = None,
                  reviewed: bool | None = None, ids: list[int] | None = None) -> list[JudgmentRow]:
        """Judgments with the review in force: the latest review that is not retracted
        (notes do not change the verdict). ``ids``: only these judgments (one re-read after a
        decision instead of all of them)."""
        clauses, params = [], []
        for column, value in (("j.run_id", run_id), ("p.run_id", target_run), ("r.model", model),
                              ("j.verdict", verdict), ("j.error_category", category)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        only = ""
        if ids is not None:
            marks = ",".join("?" * len(ids)) or "NULL"
            clauses.append(f"j.id IN ({marks})")
            params += ids
            only = f"AND v.judgment_id IN ({marks}) "
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.db.conn.execute(
            "SELECT j.id, j.run_id, p.run_id AS target_run, q.uid, r.model, j.status, j.verdict, "
            "j.error_category, j.rationale, j.raw_reply, j.error, p.sample FROM judgments j "
            "JOIN predictions p ON p.id = j.prediction_id JOIN questions q ON q.id = p.question_id "
            f"JOIN runs r ON r.id = p.run_id {where} ORDER BY j.run_id, q.id", params).fetchall()
        live: dict[int, _Review] = {}
        for v in self.db.conn.execute(
            "SELECT v.judgment_id, v.action, v.verdict, v.error_category, v.reviewer, v.note FROM reviews v "
            "WHERE v.action != 'retract' AND NOT EXISTS (SELECT 1 FROM reviews x WHERE x.retracts = v.id) "
            f"{only}ORDER BY v.id", list(ids or ())):
            state = live.setdefault(v["judgment_id"], {"flag": False})
            if v["action"] == "flag":  # a key problem, sent to adjudication: a review's decision too
                state["flag"] = True
                state["flag_note"] = v["note"] or state.get("flag_note")
                if state.get("verdict") is None:
                    state.update({"verdict": "key_problem", "category": None, "reviewer": v["reviewer"]})
            elif v["action"] == "note":
                state["note"] = v["note"]
            else:
                state.update({"verdict": v["verdict"], "category": v["error_category"], "reviewer": v["reviewer"],
                              "note": v["note"] or state.get("note")})
                if v["verdict"] == KEY_PROBLEM:  # the same decision as a flag: it goes to adjudication
                    state["flag"] = True
                    state["flag_note"] = v["note"] or state.get("flag_note")
        out = []
        for row in rows:
            j = JudgmentRow(**row)
            state = live.get(j.id, {})
            j.review_verdict, j.review_category = state.get("verdict"), state.get("category")
            j.reviewer, j.review_note, j.flagged = state.get("reviewer"), state.get("note"), state.get("flag", False)
            j.flag_note = state.get("flag_note")
            if reviewed is None or j.reviewed == reviewed:
                out.append(j)
        return out

    def review_flags(self, uid: str | None = None) -> dict[str, dict[str, ReviewFlag]]:
        """uid -> {reviewer: flag} of judgments flagged as key problems (flags in force that no
        adjudication of the question has settled since, whatever its status), each
        with the judgment it was about (the judged model and answer, the judge's verdict);
        of one question when ``uid`` is given."""
        out: dict[str, dict[str, ReviewFlag]] = {}
        rows = self.db.conn.execute(
            "SELECT q.uid, v.reviewer, v.note, r.model, p.predicted, j.verdict, j.error_category, j.rationale, "
            "jr.model AS judge_model, j.run_id AS judge_run "
            "FROM reviews v JOIN judgments j ON j.id = v.judgment_id "
            "JOIN predictions p ON p.id = j.prediction_id JOIN questions q ON q.id = p.question_id "
            "JOIN runs r ON r.id = p.run_id JOIN runs jr ON jr.id = j.run_id "
            f"WHERE {FLAGS} AND NOT EXISTS (SELECT 1 FROM reviews x WHERE x.retracts = v.id) "
            # not yet settled by an adjudication of the question made after it (rows from before
            # schema 16 have no reviews_seen: their time decides)
            "AND NOT EXISTS (SELECT 1 FROM adjudications a WHERE a.question_id = q.id AND "
            "(a.reviews_seen >= v.id OR (a.reviews_seen IS NULL AND a.created_at >= v.created_at))) "
            "AND (? IS NULL OR q.uid = ?) ORDER BY v.id", (uid, uid))
        for r in rows:
            out.setdefault(r["uid"], {})[r["reviewer"]] = ReviewFlag(
                **{k: r[k] for k in r.keys() if k != "uid"})
        return out

    # ------------------------------------------------------------ reviews

    def add_review(self, judgment_id: int, reviewer: str, action: str, *, verdict: str | None = None,
                   error_category: str | None = None, note: str | None = None) -> int:
        """accept (the judge's verdict and category), override (another verdict/category),
        flag (send to adjudication as a key problem), note. Append-only."""
        if not reviewer:
            raise ValueError("reviewer name is empty")
        if action not in ("accept", "override", "flag", "note"):
            raise ValueError(f"unknown review action {action!r}")
        with self.db.tx():
            row = self.db.conn.execute("SELECT verdict, error_category FROM judgments WHERE id = ?",
                                       (judgment_id,)).fetchone()
            if row is None:
                raise KeyError(f"no judgment {judgment_id}")
            if action == "accept":
                verdict, error_category = row["verdict"], row["error_category"]
                if verdict is None:
                    raise ValueError("an unscored judgment cannot be accepted: override it")
            if action == "override" and verdict is None:
                raise ValueError("an override needs a verdict")
            cur = self.db.conn.execute(
                "INSERT INTO reviews (judgment_id, reviewer, action, verdict, error_category, note, created_at) "
                "VALUES (?,?,?,?,?,?,?)", (judgment_id, reviewer, action, verdict, error_category, note, now()))
        assert cur.lastrowid is not None  # an INSERT's row id
        return cur.lastrowid

    def undo_review(self, reviewer: str) -> int | None:
        """Retract the reviewer's latest review still in force; returns its judgment id."""
        with self.db.tx():
            row = self.db.conn.execute(
                "SELECT id, judgment_id FROM reviews v WHERE reviewer = ? AND action != 'retract' "
                "AND NOT EXISTS (SELECT 1 FROM reviews x WHERE x.retracts = v.id) ORDER BY id DESC LIMIT 1",
                (reviewer,)).fetchone()
            if row is None:
                return None
            self.db.conn.execute("INSERT INTO reviews (judgment_id, reviewer, action, retracts, created_at) "
                                 "VALUES (?, ?, 'retract', ?, ?)", (row["judgment_id"], reviewer, row["id"], now()))
        return int(row["judgment_id"])
