"""Recall probes: one row per (recall run, question, option position), UNIQUE (a retry replaces
its row, a resume never adds a second), and the corpus figures the probes' cues need."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable

from ..models.keys import now
from ..models.recall import Probe
from .db import Database
from .rows import question_id

_COLUMNS = ("q.uid, p.position, p.gold, p.cue, p.status, p.poet, p.poem, p.couplet, p.choices, p.answer, "
            "p.predicted, p.reply, p.score, p.cer, p.tokens_in, p.tokens_out, p.latency, p.cost, p.error, "
            "p.created_at")


def _formats(formats: Iterable[str] | None) -> tuple[str, list[str]]:
    """The SQL condition (and its arguments) keeping the probes of recall runs of these formats."""
    if formats is None:
        return "", []
    wanted = list(formats)
    return f" AND json_extract(r.params, '$.format') IN ({','.join('?' * len(wanted))})", wanted


def _finite(value: object) -> float | None:
    return value if isinstance(value, (int, float)) and math.isfinite(value) else None


def _probe(r: sqlite3.Row) -> Probe:
    data = dict(r)
    data["choices"] = json.loads(data["choices"]) if data["choices"] else None
    for k in ("cer", "latency", "cost"):
        data[k] = _finite(data[k])
    return Probe(**data)


class ProbesRepo:
    def __init__(self, db: Database):
        self.db = db

    def save_probes(self, run_id: int, probes: list[Probe]) -> None:
        """Insert or replace (a retried error) these probes, in one transaction."""
        if not probes:
            return
        with self.db.tx():
            ids: dict[str, int] = {}
            for p in probes:
                if p.uid not in ids:
                    ids[p.uid] = question_id(self.db.conn, p.uid)
            self.db.conn.executemany(
                "INSERT INTO probes (run_id, question_id, position, poem, couplet, poet, gold, cue, choices, "
                "answer, predicted, reply, status, score, cer, tokens_in, tokens_out, latency, cost, error, "
                "created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT (run_id, question_id, position) DO UPDATE SET poem = excluded.poem, "
                "couplet = excluded.couplet, poet = excluded.poet, gold = excluded.gold, cue = excluded.cue, "
                "choices = excluded.choices, answer = excluded.answer, predicted = excluded.predicted, "
                "reply = excluded.reply, status = excluded.status, score = excluded.score, cer = excluded.cer, "
                "tokens_in = excluded.tokens_in, tokens_out = excluded.tokens_out, latency = excluded.latency, "
                "cost = excluded.cost, error = excluded.error, created_at = excluded.created_at",
                [(run_id, ids[p.uid], p.position, p.poem, p.couplet, p.poet, p.gold, p.cue,
                  json.dumps(p.choices, ensure_ascii=False) if p.choices is not None else None,
                  p.answer, p.predicted, p.reply, p.status, p.score, _finite(p.cer), p.tokens_in, p.tokens_out,
                  _finite(p.latency), _finite(p.cost), p.error, p.created_at or now()) for p in probes])

    def probes(self, run_id: int, *, uids: Iterable[str] | None = None) -> list[Probe]:
        """The run's probes in bank then position order (of these questions)."""
        rows = self.db.conn.execute(
            f"SELECT {_COLUMNS} FROM probes p JOIN questions q ON q.id = p.question_id "
            "WHERE p.run_id = ? ORDER BY q.id, p.position", (run_id,)).fetchall()
        wanted = set(uids) if uids is not None else None
        return [_probe(r) for r in rows if wanted is None or r["uid"] in wanted]

    def probed(self, run_id: int, *, statuses: tuple[str, ...] | None = None) -> set[tuple[str, int]]:
        """(question uid, position) of every probe row (of these statuses)."""
        sql = ("SELECT q.uid, p.position FROM probes p JOIN questions q ON q.id = p.question_id "
               "WHERE p.run_id = ?")
        params: list[object] = [run_id]
        if statuses:
            sql += f" AND p.status IN ({','.join('?' * len(statuses))})"
            params += list(statuses)
        return {(r["uid"], r["position"]) for r in self.db.conn.execute(sql, params)}

    def question_recall(self, uid: str, *, formats: Iterable[str] | None = None) -> list[tuple[str, int, str | None]]:
        """(model, position, score) of every probe of one question that got a reply, in the recall
        runs not archived (of these formats)."""
        where, args = _formats(formats)
        return [(r["model"], r["position"], r["score"]) for r in self.db.conn.execute(
            "SELECT r.model, p.position, p.score FROM probes p JOIN runs r ON r.id = p.run_id "
            "JOIN questions q ON q.id = p.question_id WHERE q.uid = ? AND r.archived = 0 AND r.kind = 'recall' "
            f"AND p.status != 'api_error'{where} ORDER BY p.run_id, p.position", (uid, *args))]

    def choice_counts(self) -> dict[int, list[int]]:
        """Recall run id -> how many choices each of its `choose` probes with a reply offered."""
        out: dict[int, list[int]] = {}
        for r in self.db.conn.execute(
                "SELECT p.run_id, json_array_length(p.choices) AS n FROM probes p JOIN runs r ON r.id = p.run_id "
                "WHERE r.kind = 'recall' AND p.choices IS NOT NULL AND p.status != 'api_error' "
                "ORDER BY p.run_id, p.question_id, p.position"):
            out.setdefault(r["run_id"], []).append(r["n"])
        return out

    def probe_counts(self) -> dict[int, dict[str, int]]:
        """run id -> {done, invalid, errors, recalled} over every recall run's probes."""
        return {r["run_id"]: {"done": r["done"], "invalid": r["invalid"], "errors": r["errors"],
                              "recalled": r["recalled"]} for r in self.db.conn.execute(
            "SELECT run_id, COUNT(*) AS done, "
            "SUM(status IN ('invalid', 'empty', 'refusal', 'ambiguous')) AS invalid, "
            "SUM(status = 'api_error') AS errors, SUM(score IN ('complete', 'partial')) AS recalled "
            "FROM probes GROUP BY run_id")}

    def same_form_hemistichs(self, poet_slug: str, metre: str | None, rhyme: str | None, *, tier: int,
                             exclude: tuple[str, int], limit: int = 200) -> list[str]:
        """Second hemistichs of up to `limit` of the poet's couplets: tier 0 from poems in the same
        metre and rhyme, 1 the same metre and another rhyme, 2 any other (the caller picks the
        nearest): the pool a `choose` probe's distractors come from. `exclude`: the couplet itself."""
        where = ("p.metre IS ? AND p.rhyme IS ?", "p.metre IS ? AND p.rhyme IS NOT ?",
                 "p.metre IS NOT ?")[tier]
        args = (metre, rhyme) if tier < 2 else (metre,)
        rows = self.db.conn.execute(
            "SELECT c.mesra2 FROM corpus_poets pt JOIN corpus_poems p ON p.poet_id = pt.id "
            "JOIN corpus_couplets c ON c.poem_id = p.id "
            f"WHERE pt.slug = ? AND {where} AND c.mesra2 != '' AND NOT (p.path = ? AND c.idx = ?) "
            "ORDER BY c.id LIMIT ?", (poet_slug, *args, exclude[0], exclude[1], limit)).fetchall()
        return [r["mesra2"] for r in rows]

    def recall_rows(self, *, uids: Iterable[str] | None = None,
                    formats: Iterable[str] | None = None) -> list[tuple[int, str, str, int, str | None]]:
        """(run id, model, question uid, position, score) of every probe that got a reply (not an
        API error) in the recall runs not archived (of these questions; of these formats)."""
        where, args = _formats(formats)
        rows = self.db.conn.execute(
            "SELECT p.run_id, r.model, q.uid, p.position, p.score FROM probes p JOIN runs r ON r.id = p.run_id "
            "JOIN questions q ON q.id = p.question_id WHERE r.archived = 0 AND r.kind = 'recall' "
            f"AND p.status != 'api_error'{where} ORDER BY p.run_id, q.id, p.position", args).fetchall()
        wanted = set(uids) if uids is not None else None
        return [(r["run_id"], r["model"], r["uid"], r["position"], r["score"]) for r in rows
                if wanted is None or r["uid"] in wanted]
