"""Runs, their predictions (one row per run and question), and the model caches."""

from __future__ import annotations

import json
import sqlite3

import numpy as np

from ..bank import now
from ..models import Prediction, Run, RunSummary

_RUN_COLUMNS = ("id, kind, model, params, status, total, created_at, finished_at, prompt_template, "
                "prompt_hash, note")
_PRED_COLUMNS = ("q.uid, p.predicted, p.parse_status, p.scores, p.raw_output, p.reasoning, "
                 "p.permutation, p.prompt_hash, p.exemplars, p.tokens_in, p.tokens_out, p.latency, "
                 "p.cost, p.error, p.created_at")


def _run(row: tuple) -> Run:
    rid, kind, model, params, status, total, created, finished, template, phash, note = row
    return Run(rid, kind, model, json.loads(params), status, total, created, finished, template, phash, note)


def _json(value) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _loads(value: str | None):
    return None if value is None else json.loads(value)


class RunsRepo:
    conn: sqlite3.Connection

    def create_run(self, kind: str, model: str, params: dict, *, total: int = 0,
                   prompt_template: str | None = None, prompt_hash: str | None = None,
                   status: str = "running", note: str | None = None,
                   predictions: list[Prediction] = ()) -> Run:
        """A new run, with its predictions when they are known already (imports): one transaction."""
        with self.tx():
            cur = self.conn.execute(
                "INSERT INTO runs (kind, model, params, status, total, prompt_template, prompt_hash, "
                "note, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (kind, model, json.dumps(params, ensure_ascii=False, sort_keys=True), status, total,
                 prompt_template, prompt_hash, note, now()))
            self._insert_predictions(cur.lastrowid, list(predictions))
        return self.get_run(cur.lastrowid)

    def get_run(self, run_id: int) -> Run | None:
        row = self.conn.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone()
        return _run(row) if row else None

    def runs(self) -> list[Run]:
        return [_run(r) for r in self.conn.execute(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id")]

    def set_run_status(self, run_id: int, status: str, *, total: int | None = None) -> None:
        finished = None if status == "running" else now()
        with self.tx():
            self.conn.execute("UPDATE runs SET status = ?, finished_at = ?, total = COALESCE(?, total) "
                              "WHERE id = ?", (status, finished, total, run_id))

    def save_predictions(self, run_id: int, predictions: list[Prediction]) -> None:
        """Insert or replace (retry) the rows of these questions, in one transaction."""
        with self.tx():
            self._insert_predictions(run_id, predictions)

    def _insert_predictions(self, run_id: int, predictions: list[Prediction]) -> None:
        if predictions:
            ids = {}
            for p in predictions:
                if p.uid not in ids:
                    ids[p.uid] = self._qid(p.uid)
            self.conn.executemany(
                "INSERT INTO predictions (run_id, question_id, predicted, scores, raw_output, reasoning, "
                "parse_status, permutation, prompt_hash, exemplars, tokens_in, tokens_out, latency, cost, "
                "error, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT (run_id, question_id) DO UPDATE SET predicted = excluded.predicted, "
                "scores = excluded.scores, raw_output = excluded.raw_output, reasoning = excluded.reasoning, "
                "parse_status = excluded.parse_status, permutation = excluded.permutation, "
                "prompt_hash = excluded.prompt_hash, exemplars = excluded.exemplars, "
                "tokens_in = excluded.tokens_in, tokens_out = excluded.tokens_out, "
                "latency = excluded.latency, cost = excluded.cost, error = excluded.error, "
                "created_at = excluded.created_at",
                [(run_id, ids[p.uid], p.predicted, _json(p.scores), p.raw_output, p.reasoning,
                  p.parse_status, _json(p.permutation), p.prompt_hash, _json(p.exemplars), p.tokens_in,
                  p.tokens_out, p.latency, p.cost, p.error, p.created_at or now()) for p in predictions])

    def predictions(self, run_id: int, *, uid: str | None = None) -> list[Prediction]:
        where, params = "WHERE p.run_id = ?", [run_id]
        if uid is not None:
            where += " AND q.uid = ?"
            params.append(uid)
        out = []
        for r in self.conn.execute(
            f"SELECT {_PRED_COLUMNS} FROM predictions p JOIN questions q ON q.id = p.question_id "
            f"{where} ORDER BY q.id", params):
            (uid_, predicted, status, scores, raw, reasoning, perm, phash, exemplars, tin, tout, lat,
             cost, error, created) = r
            out.append(Prediction(uid_, predicted, status, _loads(scores), raw, reasoning, _loads(perm),
                                  phash, _loads(exemplars), tin, tout, lat, cost, error, created))
        return out

    def set_reasoning(self, updates: list[tuple[int, str, str]]) -> list[tuple[int, str]]:
        """Set the reasoning of (run, question uid) predictions in one transaction; returns
        the pairs that have no prediction."""
        missing = []
        with self.tx():
            for run_id, uid, text in updates:
                cur = self.conn.execute(
                    "UPDATE predictions SET reasoning = ? WHERE run_id = ? AND question_id = "
                    "(SELECT id FROM questions WHERE uid = ?)", (text, run_id, uid))
                if cur.rowcount == 0:
                    missing.append((run_id, uid))
        return missing

    def predicted_uids(self, run_id: int, *, statuses: tuple[str, ...] | None = None) -> set[str]:
        sql = ("SELECT q.uid FROM predictions p JOIN questions q ON q.id = p.question_id "
               "WHERE p.run_id = ?")
        params: list = [run_id]
        if statuses:
            sql += f" AND p.parse_status IN ({','.join('?' * len(statuses))})"
            params += list(statuses)
        return {r[0] for r in self.conn.execute(sql, params)}

    def run_summaries(self) -> list[RunSummary]:
        stats = {r[0]: r[1:] for r in self.conn.execute(
            """SELECT p.run_id, COUNT(*),
                      SUM(q.key IS NOT NULL AND p.predicted IS q.key),  -- IS: never NULL
                      SUM(q.key IS NOT NULL),
                      SUM(p.parse_status IN ('invalid', 'empty', 'refusal', 'ambiguous')),
                      SUM(p.parse_status = 'api_error')
               FROM predictions p JOIN questions q ON q.id = p.question_id GROUP BY p.run_id""")}
        # a judge run's items are its judgments: done, unscored (as invalid), API errors
        stats |= {r[0]: (r[1], 0, 0, r[2], r[3]) for r in self.conn.execute(
            """SELECT j.run_id, COUNT(*), SUM(j.status = 'unscored'), SUM(j.status = 'api_error')
               FROM judgments j JOIN runs r ON r.id = j.run_id AND r.kind = 'judge'
               GROUP BY j.run_id""")}
        return [RunSummary(run, *(stats.get(run.id) or (0, 0, 0, 0, 0))) for run in self.runs()]

    def save_paraphrases(self, run_id: int, uid: str, texts: list[str]) -> None:
        with self.tx():
            qid = self._qid(uid)
            self.conn.executemany(
                "INSERT OR REPLACE INTO paraphrases (run_id, question_id, position, text) VALUES (?,?,?,?)",
                [(run_id, qid, i, t) for i, t in enumerate(texts, 1)])

    def paraphrases(self, run_id: int) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for uid, text in self.conn.execute(
            "SELECT q.uid, p.text FROM paraphrases p JOIN questions q ON q.id = p.question_id "
            "WHERE p.run_id = ? ORDER BY q.id, p.position", (run_id,)):
            out.setdefault(uid, []).append(text)
        return out

    # ------------------------------------------------------------ caches

    def cached_vectors(self, key: tuple[str, str, str, str], hashes: list[str]) -> dict[str, np.ndarray]:
        out = {}
        for start in range(0, len(hashes), 500):
            chunk = hashes[start:start + 500]
            for sha, blob in self.conn.execute(
                "SELECT sha256, vector FROM embedding_cache WHERE model_id = ? AND revision = ? AND "
                f"prefix = ? AND normalization = ? AND sha256 IN ({','.join('?' * len(chunk))})",
                (*key, *chunk)):
                out[sha] = np.frombuffer(blob, dtype=np.float32)
        return out

    def cache_vectors(self, key: tuple[str, str, str, str], vectors: dict[str, np.ndarray]) -> None:
        with self.tx():
            self.conn.executemany(
                "INSERT OR IGNORE INTO embedding_cache (model_id, revision, prefix, normalization, "
                "sha256, vector) VALUES (?,?,?,?,?,?)",
                [(*key, sha, np.asarray(v, dtype=np.float32).tobytes()) for sha, v in vectors.items()])

    def cached_response(self, key: str) -> dict | None:
        row = self.conn.execute("SELECT response FROM response_cache WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def cache_response(self, key: str, response: dict) -> None:
        with self.tx():
            self.conn.execute("INSERT OR REPLACE INTO response_cache (key, response, created_at) "
                              "VALUES (?,?,?)", (key, json.dumps(response, ensure_ascii=False), now()))
