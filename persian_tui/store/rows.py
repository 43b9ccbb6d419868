"""A question's rows as dicts by column name, prepared before any lock is taken, and the writes
several repositories share (each a function of the connection, called inside the caller's
transaction): the bulk insert of questions, their source references, the import log row, and a
question's row id by uid. Below the repositories: none of them is imported here."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import TypedDict

from ..models import Question, SourceRef
from ..models.keys import fingerprint, now, search_text
from ..text import couplet_key


def _plain(value: object) -> object:
    """``value`` with every NaN or infinity replaced by None (JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def to_json(value: object, *, sort_keys: bool = False) -> str:
    """The one JSON writer of the store: strict JSON (a NaN or infinity becomes null, never the
    non-JSON NaN that SQLite's json functions call malformed), UTF-8 text as it is."""
    return json.dumps(_plain(value), ensure_ascii=False, sort_keys=sort_keys, allow_nan=False)


QUESTION_FIELDS = ("uid", "stem", "key", "status", "explanation", "category", "poet", "source_name",
                   "source_id", "source_page", "tags", "author", "created_at", "updated_at", "origin")


class QuestionValues(TypedDict):
    """A questions row as inserted: QUESTION_FIELDS (tags as JSON), then the normalized copies."""

    uid: str
    stem: str
    key: int | None
    status: str
    explanation: str | None
    category: str | None
    poet: str | None
    source_name: str | None
    source_id: str | None
    source_page: int | None
    tags: str
    author: str | None
    created_at: str | None
    updated_at: str | None
    origin: str
    fingerprint: str
    search_text: str


class OptionValues(TypedDict):
    """An options row as inserted, without question_id."""

    position: int
    mesra1: str
    mesra2: str
    poet: str | None
    match_key: str


class SourceValues(TypedDict):
    """A question_sources row as inserted, without question_id."""

    source_name: str | None
    source_id: str | None
    file: str | None
    created_at: str


@dataclass
class Prepared:
    """A question's rows, as dicts by column name, with the normalized copies computed (done
    before any lock is taken)."""

    row: QuestionValues
    options: list[OptionValues]
    sources: list[SourceValues]

    @property
    def uid(self) -> str:
        return self.row["uid"]

    @property
    def fingerprint(self) -> str:
        return self.row["fingerprint"]

    @property
    def keys(self) -> list[str]:
        """The options' match keys in position order (what DuplicateIndex compares)."""
        return [o["match_key"] for o in sorted(self.options, key=lambda o: o["position"])]


def clean_ref(ref: SourceRef) -> SourceRef | None:
    """The reference as stored: empty strings are no name / no id; None when nothing is left."""
    name = ref.name.strip() if isinstance(ref.name, str) and ref.name.strip() else None
    sid = ref.id.strip() if isinstance(ref.id, str) and ref.id.strip() else None
    if name is None and sid is None:
        return None
    return SourceRef(name, sid, ref.file, ref.created_at)


def source_row(ref: SourceRef, stamp: str) -> SourceValues | None:
    """The question_sources row of a reference (without question_id); None for an empty one."""
    clean = clean_ref(ref)
    if clean is None:
        return None
    return {"source_name": clean.name, "source_id": clean.id, "file": clean.file,
            "created_at": clean.created_at or stamp}


def source_ref(row: sqlite3.Row | SourceValues) -> SourceRef:
    """A reference from its question_sources row."""
    return SourceRef(row["source_name"], row["source_id"], row["file"], row["created_at"])


def source_rows(q: Question, stamp: str) -> list[SourceValues]:
    """The rows of each reference of a question about to be inserted."""
    return [row for row in (source_row(r, stamp) for r in q.references()) if row is not None]


def prepare(q: Question) -> Prepared:
    """The rows of a question about to be inserted (fills its missing timestamps)."""
    stamp = now()
    q.created_at = q.created_at or stamp
    q.updated_at = q.updated_at or q.created_at
    row: QuestionValues = {
        "uid": q.uid, "stem": q.stem, "key": q.key, "status": q.status, "explanation": q.explanation,
        "category": q.category, "poet": q.poet, "source_name": q.source_name, "source_id": q.source_id,
        "source_page": q.source_page, "tags": to_json(q.tags), "author": q.author,
        "created_at": q.created_at, "updated_at": q.updated_at, "origin": q.origin,
        "fingerprint": fingerprint(q), "search_text": search_text(q)}
    options: list[OptionValues] = [{"position": o.position, "mesra1": o.mesra1, "mesra2": o.mesra2, "poet": o.poet,
                                 "match_key": couplet_key(o.mesra1, o.mesra2)} for o in q.options]
    return Prepared(row, options, source_rows(q, stamp))


def insert_many(conn: sqlite3.Connection, table: str, rows: Sequence[Mapping[str, object]], *, ignore: bool = False,
                question_ids: list[int] | None = None) -> None:
    """Insert rows given as dicts by column name (each row's ``question_id`` from
    ``question_ids`` when given) with one executemany; call inside a transaction.
    sqlite-utils' insert_all does the same but measured 1.3-2x slower, which matters inside the
    write lock (bench/bench_inserts.py)."""
    if not rows:
        return
    columns = list(rows[0])
    values = map(itemgetter(*columns), rows) if len(columns) > 1 else ((r[columns[0]],) for r in rows)
    if question_ids is not None:
        columns = ["question_id", *columns]
        values = ((qid, *v) for qid, v in zip(question_ids, values))
    conn.executemany(f"INSERT {'OR IGNORE ' if ignore else ''}INTO {table} ({', '.join(columns)}) "
                     f"VALUES ({', '.join('?' * len(columns))})", values)


def question_id(conn: sqlite3.Connection, uid: str) -> int:
    """The row id of the question `uid` (KeyError when there is none)."""
    row = conn.execute("SELECT id FROM questions WHERE uid = ?", (uid,)).fetchone()
    if row is None:
        raise KeyError(f"no question {uid}")
    return int(row["id"])


def insert_questions(conn: sqlite3.Connection, rows: list[Prepared]) -> None:
    """Insert prepared rows (see prepare): no normalization inside the transaction, and bulk
    inserts so a large import holds the write lock briefly. Call inside a transaction."""
    if not rows:
        return
    insert_many(conn, "questions", [p.row for p in rows])
    ids: dict[str, int] = {}
    uids = [p.uid for p in rows]
    for i in range(0, len(uids), 500):
        chunk = uids[i:i + 500]
        ids.update((r["uid"], r["id"]) for r in conn.execute(
            f"SELECT uid, id FROM questions WHERE uid IN ({','.join('?' * len(chunk))})", chunk))
    insert_many(conn, "options", [o for p in rows for o in p.options],
                question_ids=[ids[p.uid] for p in rows for _ in p.options])
    insert_sources(conn, [r for p in rows for r in p.sources], [ids[p.uid] for p in rows for _ in p.sources])


def insert_sources(conn: sqlite3.Connection, rows: Sequence[SourceValues], question_ids: list[int]) -> int:
    """Insert question_sources rows (see source_row) of these questions; one already there
    (same question, name and id) is left alone. Returns how many were added. Call inside a
    transaction."""
    before = conn.total_changes
    insert_many(conn, "question_sources", rows, ignore=True, question_ids=question_ids)
    return conn.total_changes - before


def add_source(conn: sqlite3.Connection, question_id: int, ref: SourceRef, stamp: str) -> bool:
    """Link one reference to a question (inside a transaction); False when it was there."""
    row = source_row(ref, stamp)
    return row is not None and insert_sources(conn, [row], [question_id]) == 1


def replace_own_source(conn: sqlite3.Connection, question_id: int, old: SourceRef, new: SourceRef,
                       stamp: str) -> None:
    """An edit changed the question's own source: its reference row follows (inside a transaction)."""
    if old == new:
        return
    conn.execute("DELETE FROM question_sources WHERE question_id = ? AND source_name IS ? AND source_id IS ?",
                 (question_id, old.name, old.id))
    add_source(conn, question_id, new, stamp)


def sources_for(conn: sqlite3.Connection, ids: list[int]) -> dict[int, list[SourceRef]]:
    """question row id -> its references, in the order they were learnt."""
    out: dict[int, list[SourceRef]] = {i: [] for i in ids}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        for r in conn.execute(
            "SELECT question_id, source_name, source_id, file, created_at FROM question_sources "
            f"WHERE question_id IN ({','.join('?' * len(chunk))}) ORDER BY id", chunk
        ):
            out[r["question_id"]].append(source_ref(r))
    return out


def log_import(conn: sqlite3.Connection, log: Mapping[str, object]) -> None:
    """The import's row in table imports (inside the import's last transaction)."""
    columns = ("path", "sha256", "format", "source_name", "new", "linked", "unchanged", "duplicate",
               "conflict", "rejected")
    insert_many(conn, "imports", [{**{c: log.get(c, 0) for c in columns},
                                   "source_name": log.get("source_name"), "created_at": now()}])
