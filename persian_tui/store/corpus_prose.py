"""Prose of corpus couplets (table corpus_paraphrases): one row per (paraphrase run, corpus
couplet), written as each reply comes back (a retry replaces its row, a resume never adds one)."""

from __future__ import annotations

import math
import sqlite3

from ..models.candidates import CoupletProse
from ..models.keys import now
from .db import Database

_COLUMNS = ("couplet_id, verse_sha, status, prose, reply, error, tokens_in, tokens_out, latency, cost, "
            "created_at")


def _finite(value: object) -> float | None:
    return value if isinstance(value, (int, float)) and math.isfinite(value) else None


def _row(r: sqlite3.Row) -> CoupletProse:
    data = dict(r)
    for k in ("latency", "cost"):
        data[k] = _finite(data[k])
    return CoupletProse(**data)


class CorpusProseRepo:
    def __init__(self, db: Database):
        self.db = db

    def save(self, run_id: int, rows: list[CoupletProse]) -> None:
        """Insert or replace (a retried error) these rows, in one transaction."""
        if not rows:
            return
        with self.db.tx() as conn:
            conn.executemany(
                f"INSERT OR REPLACE INTO corpus_paraphrases (run_id, {_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [(run_id, r.couplet_id, r.verse_sha, r.status, r.prose, r.reply, r.error, r.tokens_in,
                  r.tokens_out, _finite(r.latency), _finite(r.cost), r.created_at or now()) for r in rows])

    def rows(self, run_id: int) -> list[CoupletProse]:
        """The run's rows in couplet id order."""
        return [_row(r) for r in self.db.conn.execute(
            f"SELECT {_COLUMNS} FROM corpus_paraphrases WHERE run_id = ? ORDER BY couplet_id", (run_id,))]

    def done(self, run_id: int, *, statuses: tuple[str, ...] | None = None) -> set[int]:
        """Couplet ids with a row (of these statuses)."""
        sql = "SELECT couplet_id FROM corpus_paraphrases WHERE run_id = ?"
        params: list[object] = [run_id]
        if statuses:
            sql += f" AND status IN ({','.join('?' * len(statuses))})"
            params += list(statuses)
        return {r[0] for r in self.db.conn.execute(sql, params)}
