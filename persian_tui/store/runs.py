"""Runs, their predictions (one row per run, question and sample; a run asked once has sample 0
only), and the model caches."""

from __future__ import annotations

import json
import math
import os
import socket
import sqlite3
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .. import redact
from ..models import SCORED_STATUSES, Prediction, Run, RunSummary, SampleVote, sample_vote, tally
from ..models.keys import now
from .db import Database
from .errors import LeaseHeld
from .rows import question_id, to_json

if TYPE_CHECKING:  # numpy is imported by the vector cache's calls only (a light command never loads it)
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

_RUN_COLUMNS = ("id, kind, model, params, status, total, created_at, finished_at, prompt_template, "
                "prompt_hash, note, reason, archived, lease_holder, lease_expires")
_PRED_COLUMNS = ("q.uid, p.predicted, p.parse_status, p.scores, p.raw_output, p.reasoning, "
                 "p.permutation, p.prompt_hash, p.exemplars, p.tokens_in, p.tokens_out, p.latency, "
                 "p.cost, p.error, p.created_at, p.sample")


def _run(row: sqlite3.Row) -> Run:
    """A Run from its row (by column name: the names of Run's fields; the lease tells whether a
    running run's process is still there)."""
    fields = dict(row)
    holder, expires = fields.pop("lease_holder"), fields.pop("lease_expires")
    interrupted = row["status"] == "running" and holder is not None and \
        ((expires or 0) < time.time() or not _alive(holder))
    # the model name masked on the way out too: a row written before names were redacted on the way in
    return Run(**{**fields, "model": redact.text(row["model"]) or row["model"], "params": json.loads(row["params"]),
                  "archived": bool(row["archived"]), "interrupted": interrupted})


def lease_holder() -> str:
    """Who holds a run: pid@host (a second process on the run names it)."""
    return f"{os.getpid()}@{socket.gethostname()}"


def _alive(holder: str) -> bool:
    """False only when the holder is a process of this host that no longer exists (killed)."""
    pid, _, host = holder.partition("@")
    if host != socket.gethostname() or not pid.isdigit():
        return True  # another host: trust the lease until it lapses
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _json(value: object) -> str | None:
    return None if value is None else to_json(value)


def _finite(value: object) -> float | None:
    """A stored figure (latency, cost) that is a finite number, else None: an infinite one
    from older data or another writer is missing, never Infinity in a report."""
    return value if isinstance(value, (int, float)) and math.isfinite(value) else None


def _tokens(value: object) -> int | None:
    """A stored token count that is a sane non-negative integer, else None ("many" or 1e20
    from older data must not break a report)."""
    return value if isinstance(value, int) and 0 <= value <= 10**9 else None


def _loads(value: str | None) -> Any:  # a JSON column's value
    return None if value is None else json.loads(value)


# where each of _PRED_COLUMNS stands, derived from the one column list: the hot paths below read
# rows by name through it (a Row's lookup by name is a linear, case-insensitive scan; reports read
# tens of thousands of predictions, bench/bench_report.py)
_AT = {name.strip().rsplit(".", 1)[-1]: i for i, name in enumerate(_PRED_COLUMNS.split(","))}


def _prediction(r: sqlite3.Row) -> Prediction:
    """A prediction from a row of _PRED_COLUMNS, by column name (figures checked by _tokens / _finite)."""
    def at(name: str) -> Any:  # a column's value, of its SQLite type
        return r[_AT[name]]

    return Prediction(uid=at("uid"), predicted=at("predicted"), parse_status=at("parse_status"),
                      scores=_loads(at("scores")), raw_output=at("raw_output"), reasoning=at("reasoning"),
                      permutation=_loads(at("permutation")), prompt_hash=at("prompt_hash"),
                      exemplars=_loads(at("exemplars")), tokens_in=_tokens(at("tokens_in")),
                      tokens_out=_tokens(at("tokens_out")), latency=_finite(at("latency")),
                      cost=_finite(at("cost")), error=at("error"), created_at=at("created_at"), sample=at("sample"))


class RunsRepo:
    def __init__(self, db: Database):
        self.db = db

    def create_run(self, kind: str, model: str, params: dict[str, Any], *, total: int = 0,
                   prompt_template: str | None = None, prompt_hash: str | None = None,
                   status: str = "running", note: str | None = None,
                   predictions: Sequence[Prediction] = (), once_per_file: bool = False) -> Run | None:
        """A new run, with its predictions when they are known already (imports): one transaction.
        ``once_per_file``: None when a run of this kind and model from the same file (params
        sha256) exists, checked under the write lock (two imports of one file race to one run)."""
        model = redact.text(model) or model  # the one choke point: no secret in runs.model
        with self.db.tx():
            if once_per_file and self.db.conn.execute(
                    "SELECT 1 FROM runs WHERE kind = ? AND model = ? AND CASE WHEN json_valid(params) "
                    "THEN json_extract(params, '$.sha256') END = ?",  # an old non-JSON row: passed over
                    (kind, model, params.get("sha256"))).fetchone():
                return None
            run_id = self.insert_run(kind, model, params, total=total, prompt_template=prompt_template,
                                     prompt_hash=prompt_hash, status=status, note=note)
            self._insert_predictions(run_id, list(predictions))
        return self.get_run(run_id)

    def insert_run(self, kind: str, model: str, params: dict[str, Any], *, total: int = 0,
                   prompt_template: str | None = None, prompt_hash: str | None = None,
                   status: str = "running", note: str | None = None) -> int:
        """The run's row, inside the caller's transaction (create_run, a sweep's runs)."""
        cur = self.db.conn.execute(
            "INSERT INTO runs (kind, model, params, status, total, prompt_template, prompt_hash, "
            "note, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
            (kind, redact.text(model) or model, to_json(params, sort_keys=True), status, total,
             prompt_template, prompt_hash, note, now()))
        run_id = cur.lastrowid
        assert run_id is not None  # an INSERT's row id
        return run_id

    def get_run(self, run_id: int) -> Run | None:
        row = self.db.conn.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone()
        return _run(row) if row else None

    def runs(self, *, archived: bool = False) -> list[Run]:
        """Every run, oldest first; archived ones only when asked for."""
        where = "" if archived else "WHERE archived = 0"
        return [_run(r) for r in self.db.conn.execute(f"SELECT {_RUN_COLUMNS} FROM runs {where} ORDER BY id")]

    def set_run_status(self, run_id: int, status: str, *, total: int | None = None,
                       reason: str | None = None) -> None:
        finished = None if status == "running" else now()
        with self.db.tx():
            self.db.conn.execute("UPDATE runs SET status = ?, finished_at = ?, total = COALESCE(?, total), "
                                 "reason = ? WHERE id = ?", (status, finished, total, reason, run_id))

    def update_run(self, run_id: int, *, model: str | None = None, params: dict[str, Any] | None = None,
                   total: int | None = None) -> None:
        with self.db.tx():
            self.db.conn.execute(
                "UPDATE runs SET model = COALESCE(?, model), params = COALESCE(?, params), "
                "total = COALESCE(?, total) WHERE id = ?",
                (redact.text(model), None if params is None else to_json(params, sort_keys=True),
                 total, run_id))

    # ------------------------------------------------------------ lifecycle

    def take_lease(self, run_id: int, seconds: float = 60.0, holder: str | None = None) -> None:
        """Take the run for this process, in one transaction; LeaseHeld names a live holder.
        A killed holder's lease lapses after `seconds` (live holders renew it)."""
        holder = holder or lease_holder()
        stamp = time.time()
        with self.db.tx():
            self._check_lease(run_id, holder, stamp)
            self.db.conn.execute("UPDATE runs SET lease_holder = ?, lease_expires = ? WHERE id = ?",
                                 (holder, stamp + seconds, run_id))

    def _check_lease(self, run_id: int, holder: str, stamp: float) -> None:
        """LeaseHeld when a live process other than `holder` holds the run (inside a transaction)."""
        row = self.db.conn.execute("SELECT lease_holder, lease_expires FROM runs WHERE id = ?",
                                   (run_id,)).fetchone()
        held, expires = (row["lease_holder"], row["lease_expires"]) if row else (None, None)
        if held and held != holder and (expires or 0) > stamp and _alive(held):
            raise LeaseHeld(f"run {run_id} is being worked on by process {held} "
                            f"(lease for {(expires or 0) - stamp:.0f} s more); wait for it or stop it")

    def renew_lease(self, run_id: int, seconds: float = 60.0, holder: str | None = None) -> bool:
        with self.db.tx():
            cur = self.db.conn.execute("UPDATE runs SET lease_expires = ? WHERE id = ? AND lease_holder = ?",
                                       (time.time() + seconds, run_id, holder or lease_holder()))
        return cur.rowcount > 0

    def release_lease(self, run_id: int, holder: str | None = None) -> None:
        with self.db.tx():
            self.db.conn.execute("UPDATE runs SET lease_holder = NULL, lease_expires = NULL "
                                 "WHERE id = ? AND lease_holder = ?", (run_id, holder or lease_holder()))

    def log_run(self, run_id: int, event: str, detail: dict[str, Any] | None = None, who: str | None = None) -> None:
        with self.db.tx():
            self._log_run(run_id, event, detail, who)

    def _log_run(self, run_id: int, event: str, detail: dict[str, Any] | None, who: str | None) -> None:
        self.db.conn.execute("INSERT INTO run_history (run_id, event, detail, who, created_at) VALUES (?,?,?,?,?)",
                             (run_id, event, to_json(detail or {}, sort_keys=True),
                              who or lease_holder(), now()))

    def run_history(self, run_id: int) -> list[dict[str, Any]]:
        return [{"event": r["event"], "detail": json.loads(r["detail"]), "who": r["who"], "at": r["created_at"]}
                for r in self.db.conn.execute(
                    "SELECT event, detail, who, created_at FROM run_history WHERE run_id = ? ORDER BY id", (run_id,))]

    def archive_run(self, run_id: int, archived: bool = True) -> bool:
        with self.db.tx():
            cur = self.db.conn.execute("UPDATE runs SET archived = ? WHERE id = ?", (int(archived), run_id))
            if cur.rowcount:
                self._log_run(run_id, "archive" if archived else "unarchive", None, None)
        return cur.rowcount > 0

    def delete_run(self, run_id: int) -> list[int]:
        """Delete the run with its predictions and judgments, and the judge runs of it, in one
        transaction; logged in run_history. Returns the ids deleted (the run first). LeaseHeld
        (nothing deleted) when another live process works on one of them."""
        with self.db.tx():
            if not self.db.conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone():
                return []
            judges = [r["id"] for r in self.db.conn.execute(
                "SELECT id FROM runs WHERE kind = 'judge' AND CASE WHEN json_valid(params) "
                "THEN json_extract(params, '$.target_run') END = ?",
                (run_id,))]
            ids = [run_id, *judges]
            for rid in ids:
                self._check_lease(rid, lease_holder(), time.time())
            for rid in ids:
                n = self.db.conn.execute("SELECT COUNT(*) AS n FROM predictions WHERE run_id = ?",
                                         (rid,)).fetchone()["n"]
                self._log_run(rid, "delete", {"predictions": n, "with": ids}, None)
                self.db.conn.execute("DELETE FROM runs WHERE id = ?", (rid,))  # cascades
        return ids

    def save_predictions(self, run_id: int, predictions: list[Prediction]) -> None:
        """Insert or replace (retry) the rows of these questions, in one transaction."""
        with self.db.tx():
            self._insert_predictions(run_id, predictions)

    def _insert_predictions(self, run_id: int, predictions: list[Prediction]) -> None:
        if predictions:
            ids, stamp = {}, now()
            for p in predictions:
                if p.uid not in ids:
                    ids[p.uid] = question_id(self.db.conn, p.uid)
            self.db.conn.executemany(
                "INSERT INTO predictions (run_id, question_id, predicted, scores, raw_output, reasoning, "
                "parse_status, permutation, prompt_hash, exemplars, tokens_in, tokens_out, latency, cost, "
                "error, created_at, sample) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT (run_id, question_id, sample) DO UPDATE SET predicted = excluded.predicted, "
                "scores = excluded.scores, raw_output = excluded.raw_output, reasoning = excluded.reasoning, "
                "parse_status = excluded.parse_status, permutation = excluded.permutation, "
                "prompt_hash = excluded.prompt_hash, exemplars = excluded.exemplars, "
                "tokens_in = excluded.tokens_in, tokens_out = excluded.tokens_out, "
                "latency = excluded.latency, cost = excluded.cost, error = excluded.error, "
                "created_at = excluded.created_at",
                [(run_id, ids[p.uid], p.predicted, _json(p.scores), p.raw_output, p.reasoning,
                  p.parse_status, _json(p.permutation), p.prompt_hash, _json(p.exemplars), p.tokens_in,
                  p.tokens_out, _finite(p.latency), _finite(p.cost), p.error, p.created_at or stamp,
                  int(p.sample)) for p in predictions])

    def predictions(self, run_id: int, *, uid: str | None = None, samples: bool = False,
                    sample: int | None = None) -> list[Prediction]:
        """One prediction per question, in bank order: the representative of its samples (the
        majority's first, see models.sample_vote; the only row of a run asked once). `samples=True`:
        every row (question, then sample order); `sample=k`: that sample's rows."""
        rows = self._prediction_rows(run_id, uid, sample)
        if samples or sample is not None or not any(r[_AT["sample"]] for r in rows):
            return [_prediction(r) for r in rows]
        return [v.chosen for v in self._votes(rows)]

    def voted_predictions(self, run_id: int) -> tuple[list[Prediction], list[SampleVote] | None]:
        """The representatives (as predictions() gives them) and, for a run asked several
        times, the models.SampleVote of every question (None for a run asked once). The votes' other
        samples carry the answer fields only (uid, predicted, parse_status, sample): reports
        read thousands of them, so only the representative is built in full."""
        rows = self._prediction_rows(run_id, None, None)
        if not any(r[_AT["sample"]] for r in rows):
            return [_prediction(r) for r in rows], None
        votes = self._votes(rows)
        return [v.chosen for v in votes], votes

    def _prediction_rows(self, run_id: int, uid: str | None, sample: int | None) -> list[sqlite3.Row]:
        where = "WHERE p.run_id = ?"
        params: list[object] = [run_id]
        if uid is not None:
            where += " AND q.uid = ?"
            params.append(uid)
        if sample is not None:
            where += " AND p.sample = ?"
            params.append(sample)
        return self.db.conn.execute(
            f"SELECT {_PRED_COLUMNS} FROM predictions p JOIN questions q ON q.id = p.question_id "
            f"{where} ORDER BY p.question_id, p.sample", params).fetchall()  # the unique index order

    @staticmethod
    def _votes(rows: list[sqlite3.Row]) -> list[SampleVote]:
        """models.SampleVote per question of rows in question order, the chosen sample built in full."""
        groups: dict[str, list[sqlite3.Row]] = {}
        uid, predicted, status = _AT["uid"], _AT["predicted"], _AT["parse_status"]
        for r in rows:
            groups.setdefault(r[uid], []).append(r)
        out = []
        ok = (1, 2, 3, 4)
        for group in groups.values():  # rows come in sample order
            answers = [r[predicted] if r[status] == "ok" and r[predicted] in ok else 0 for r in group]
            answer, top, asked, i = tally(answers, [r[status] != "api_error" for r in group])
            out.append(SampleVote(answer, top, asked, _prediction(group[i]), tuple(answers)))
        return out

    @staticmethod
    def votes(rows: list[Prediction]) -> list[SampleVote]:
        """models.SampleVote per question of predictions in question order (as predictions(samples=True) gives)."""
        groups: dict[str, list[Prediction]] = {}
        for p in rows:
            groups.setdefault(p.uid, []).append(p)
        return [sample_vote(g) for g in groups.values()]

    def set_reasoning(self, updates: list[tuple[int, str, str]]) -> list[tuple[int, str]]:
        """Set the reasoning of (run, question uid) predictions in one transaction; returns
        the pairs that have no prediction."""
        missing = []
        with self.db.tx():
            for run_id, uid, text in updates:
                cur = self.db.conn.execute(
                    "UPDATE predictions SET reasoning = ? WHERE run_id = ? AND sample = 0 AND question_id = "
                    "(SELECT id FROM questions WHERE uid = ?)", (text, run_id, uid))
                if cur.rowcount == 0:
                    missing.append((run_id, uid))
        return missing

    def predicted_samples(self, run_id: int, *, statuses: tuple[str, ...] | None = None,
                          excluding: tuple[str, ...] = ()) -> set[tuple[str, int]]:
        """(question uid, sample) of every prediction row (of these statuses; not of those excluded)."""
        sql = ("SELECT q.uid, p.sample FROM predictions p JOIN questions q ON q.id = p.question_id "
               "WHERE p.run_id = ?")
        params: list[object] = [run_id]
        if statuses:
            sql += f" AND p.parse_status IN ({','.join('?' * len(statuses))})"
            params += list(statuses)
        if excluding:
            sql += f" AND p.parse_status NOT IN ({','.join('?' * len(excluding))})"
            params += list(excluding)
        return {(r["uid"], r["sample"]) for r in self.db.conn.execute(sql, params)}

    def run_summaries(self, *, archived: bool = False) -> list[RunSummary]:
        stats = {r["run_id"]: r for r in self.db.conn.execute(
            """SELECT p.run_id, COUNT(*) AS done,
                      SUM(q.key IS NOT NULL AND q.status IN ({scored}) AND p.predicted IS q.key)
                          AS correct,  -- IS: never NULL; models.scored_key's rule
                      SUM(q.key IS NOT NULL AND q.status IN ({scored})) AS scored,
                      SUM(p.parse_status IN ('invalid', 'empty', 'refusal', 'ambiguous')) AS invalid,
                      SUM(p.parse_status = 'api_error') AS errors
               FROM predictions p JOIN questions q ON q.id = p.question_id
               GROUP BY p.run_id""".format(scored=",".join("?" * len(SCORED_STATUSES))),
            SCORED_STATUSES * 2)}
        # a judge run's items are its judgments: done, unscored (as invalid), API errors
        stats |= {r["run_id"]: r for r in self.db.conn.execute(
            """SELECT j.run_id, COUNT(*) AS done, 0 AS correct, 0 AS scored,
                      SUM(j.status = 'unscored') AS invalid, SUM(j.status = 'api_error') AS errors
               FROM judgments j JOIN runs r ON r.id = j.run_id AND r.kind = 'judge'
               GROUP BY j.run_id""")}
        # a recall run's items are its probes: recalled (complete or partial) counts as correct
        stats |= {r["run_id"]: r for r in self.db.conn.execute(
            """SELECT p.run_id, COUNT(*) AS done, SUM(p.score IN ('complete', 'partial')) AS correct,
                      COUNT(*) AS scored, SUM(p.status IN ('invalid', 'empty', 'refusal', 'ambiguous')) AS invalid,
                      SUM(p.status = 'api_error') AS errors
               FROM probes p GROUP BY p.run_id""")}
        # a corpus paraphrase run's items are its couplets' prose: unscored
        stats |= {r["run_id"]: r for r in self.db.conn.execute(
            """SELECT c.run_id, COUNT(*) AS done, 0 AS correct, 0 AS scored,
                      SUM(c.status IN ('invalid', 'empty', 'refusal', 'ambiguous')) AS invalid,
                      SUM(c.status = 'api_error') AS errors
               FROM corpus_paraphrases c GROUP BY c.run_id""")}
        none = {"done": 0, "correct": 0, "scored": 0, "invalid": 0, "errors": 0}
        return [RunSummary(run, **{k: (stats[run.id][k] if run.id in stats else v) for k, v in none.items()})
                for run in self.runs(archived=archived)]

    def save_paraphrases(self, run_id: int, uid: str, texts: list[str]) -> None:
        with self.db.tx():
            qid = question_id(self.db.conn, uid)
            self.db.conn.executemany(
                "INSERT OR REPLACE INTO paraphrases (run_id, question_id, position, text) VALUES (?,?,?,?)",
                [(run_id, qid, i, t) for i, t in enumerate(texts, 1)])

    def paraphrases(self, run_id: int) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for r in self.db.conn.execute(
            "SELECT q.uid, p.text FROM paraphrases p JOIN questions q ON q.id = p.question_id "
            "WHERE p.run_id = ? ORDER BY q.id, p.position", (run_id,)):
            out.setdefault(r["uid"], []).append(r["text"])
        return out

    # ------------------------------------------------------------ caches

    def cached_vectors(self, key: tuple[str, str, str, str], hashes: list[str]) -> dict[str, NDArray[np.float32]]:
        import numpy as np

        out: dict[str, NDArray[np.float32]] = {}
        for start in range(0, len(hashes), 500):
            chunk = hashes[start:start + 500]
            for r in self.db.conn.execute(
                "SELECT sha256, vector FROM embedding_cache WHERE model_id = ? AND revision = ? AND "
                f"prefix = ? AND normalization = ? AND sha256 IN ({','.join('?' * len(chunk))})",
                (*key, *chunk)):
                out[r["sha256"]] = np.frombuffer(r["vector"], dtype=np.float32)
        return out

    def cache_vectors(self, key: tuple[str, str, str, str], vectors: Mapping[str, ArrayLike]) -> None:
        import numpy as np

        with self.db.tx():
            self.db.conn.executemany(
                "INSERT OR IGNORE INTO embedding_cache (model_id, revision, prefix, normalization, "
                "sha256, vector) VALUES (?,?,?,?,?,?)",
                [(*key, sha, np.asarray(v, dtype=np.float32).tobytes()) for sha, v in vectors.items()])

    def cached_response(self, key: str) -> dict[str, Any] | None:
        row = self.db.conn.execute("SELECT response FROM response_cache WHERE key = ?", (key,)).fetchone()
        response: dict[str, Any] | None = json.loads(row["response"]) if row else None
        return response

    def cache_responses(self, entries: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Cache replies (key, response) in one transaction."""
        stamp = now()
        rows = [(key, to_json(response), stamp) for key, response in entries]
        with self.db.tx():
            self.db.conn.executemany("INSERT OR REPLACE INTO response_cache (key, response, created_at) "
                                     "VALUES (?,?,?)", rows)
