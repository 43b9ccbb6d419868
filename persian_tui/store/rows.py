"""A question's rows as dicts by column name, prepared before any lock is taken, and the one
bulk insert that writes them (shared by questions, sources and imports)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from operator import itemgetter

from ..models import Question, SourceRef
from ..models.keys import fingerprint, now, search_text
from ..text import couplet_key

QUESTION_FIELDS = ("uid", "stem", "key", "status", "explanation", "category", "poet", "source_name",
                   "source_id", "source_page", "tags", "author", "created_at", "updated_at")


@dataclass
class Prepared:
    """A question's rows, as dicts by column name, with the normalized copies computed (done
    before any lock is taken)."""

    row: dict  # questions
    options: list[dict]
    sources: list[dict]  # question_sources, without question_id

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


def source_row(ref: SourceRef, stamp: str) -> dict | None:
    """The question_sources row of a reference (without question_id); None for an empty one."""
    ref = clean_ref(ref)
    if ref is None:
        return None
    return {"source_name": ref.name, "source_id": ref.id, "file": ref.file, "created_at": ref.created_at or stamp}


def source_ref(row: sqlite3.Row | dict) -> SourceRef:
    """A reference from its question_sources row."""
    return SourceRef(row["source_name"], row["source_id"], row["file"], row["created_at"])


def source_rows(q: Question, stamp: str) -> list[dict]:
    """The rows of each reference of a question about to be inserted."""
    return [row for row in (source_row(r, stamp) for r in q.references()) if row is not None]


def prepare(q: Question) -> Prepared:
    """The rows of a question about to be inserted (fills its missing timestamps)."""
    stamp = now()
    q.created_at = q.created_at or stamp
    q.updated_at = q.updated_at or q.created_at
    row = {f: getattr(q, f) for f in QUESTION_FIELDS}
    row.update(tags=json.dumps(q.tags, ensure_ascii=False), fingerprint=fingerprint(q), search_text=search_text(q))
    options = [{"position": o.position, "mesra1": o.mesra1, "mesra2": o.mesra2, "poet": o.poet,
                "match_key": couplet_key(o.mesra1, o.mesra2)} for o in q.options]
    return Prepared(row, options, source_rows(q, stamp))


def insert_many(conn: sqlite3.Connection, table: str, rows: list[dict], *, ignore: bool = False,
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
