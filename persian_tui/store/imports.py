"""Writing an import: the questions still new under the write lock, the source references of
duplicates, and the import's log row. Planned outside any lock; re-checked inside it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..models import Question, SourceRef
from ..models.keys import now
from ..text import DuplicateIndex
from .db import Database
from .links import LinksRepo
from .questions import QuestionsRepo
from .rows import Prepared, add_source, insert_questions, log_import, prepare, question_id, source_ref

BATCH_PAUSE = 0.1  # seconds between two write batches of a large import (SQLite's busy wait polls)
_Ref = tuple[int, str | None, str | None]  # a reference row an import added: question id, name, id


@dataclass
class ImportResult:
    """What the write really did. ``skipped``: planned-new uid -> ("unchanged" | "linked" |
    "duplicate" (it has no reference to link), the stored uid it matched), for questions
    another process stored meanwhile. ``links``: per
    planned link, "linked" (reference added), "unchanged" (it was there) or "missing" (its
    question is gone)."""

    written: list[str] = field(default_factory=list)
    skipped: dict[str, tuple[str, str]] = field(default_factory=dict)
    links: list[str] = field(default_factory=list)
    corpus: dict[str, int] = field(default_factory=dict)  # link_questions' counts (reordered, ...)


class _Others:
    """The questions other processes stored after an import was planned (row id above ``seen``),
    as a near-duplicate index the import's write batches re-check against."""

    def __init__(self, since: int):
        self.index = DuplicateIndex()
        self.seen = since


class ImportsRepo:
    def __init__(self, db: Database, questions: QuestionsRepo, links: LinksRepo):
        self.db = db
        self.questions = questions
        self.links = links  # the written questions' options are linked to the corpus

    def add_new_questions(self, questions: Iterable[Question], *, links: Iterable[tuple[str, SourceRef]] = (),
                          log: Callable[[ImportResult], Mapping[str, object]] | None = None, same_question: bool = True,
                          since: int | None = None, near: float | None = None,
                          batch: int = 5000, only_into_empty: bool = False) -> ImportResult:
        """Insert the questions that are still new when the write lock is held, and link the
        planned references (target uid, reference). Another process may have stored the same
        uid (counted unchanged) or, with ``same_question``, the same question (same fingerprint,
        or with ``near`` and ``since`` a near-duplicate among the questions stored after row id
        ``since``): its references are linked to that question instead. ``log`` makes the
        import's log row from the result, inside the last transaction. ``only_into_empty``
        writes nothing unless the bank never held a question, checked under the write lock (the
        app's sample bank: another process may have stored questions since the app looked).

        Rows are normalized before any lock and written ``batch`` questions per transaction, so
        other writers never wait long. A failure in a later batch takes back what the earlier
        ones wrote (all or nothing), except for a process killed mid-way, which leaves whole
        questions that re-running the import completes (uids are deterministic)."""

        questions = list(questions)
        links = list(links)
        rows = [prepare(q) for q in questions]
        result = ImportResult()
        added_refs: list[_Ref] = []
        stamp = now()
        others = _Others(since) if same_question and near is not None and since is not None else None
        try:
            for start in range(0, max(len(rows), 1), batch):
                if start:
                    time.sleep(BATCH_PAUSE)  # a writer waiting for the lock gets it between batches
                part = rows[start:start + batch]
                with self.db.tx():
                    if only_into_empty and not start and self._any_question():
                        return result
                    keep = self._still_new(part, result, added_refs, same_question, others, near, stamp)
                    insert_questions(self.db.conn, keep)
                    if others is not None:  # everything up to here is ours or was looked at
                        others.seen = self.questions.max_question_id()
                    result.written += [p.uid for p in keep]
                    if start + batch >= len(rows):  # the last batch: links, then the log row
                        self._link_planned(links, result, added_refs, stamp)
                        if log is not None:
                            log_import(self.db.conn, log(result))
        except BaseException:
            self._undo(result.written, added_refs, batch)
            raise
        if result.written:
            result.corpus = dict(self.links.link_saved(result.written))  # corpus provenance, poet's order
        return result

    def _any_question(self) -> bool:
        return self.db.conn.execute("SELECT 1 FROM questions LIMIT 1").fetchone() is not None

    def _still_new(self, part: list[Prepared], result: ImportResult, added_refs: list[_Ref], same_question: bool,
                   others: _Others | None, near: float | None, stamp: str) -> list[Prepared]:
        ours = set(result.written)
        uids = self._existing("uid", [p.uid for p in part])
        prints: dict[str, str] = {}
        fresh = DuplicateIndex()
        if same_question:
            prints = self._fingerprint_owners([p.fingerprint for p in part], ours)
        if others is not None:
            self._look_at_others(others, ours)
            fresh = others.index
        keep = []
        for row in part:
            uid, fp = row.uid, row.fingerprint
            target = None
            if uid in uids:
                result.skipped[uid] = ("unchanged", uid)
                continue
            if fp in prints:
                target = prints[fp]
            elif len(fresh) and near is not None:
                match = fresh.query(row.keys, min_score=near)
                target = match[0].uid if match and match[0].score >= near else None
            if target is None:
                keep.append(row)
                continue
            qid = question_id(self.db.conn, target)
            refs = [source_ref(r) for r in row.sources]
            added = [add_source(self.db.conn, qid, ref, stamp) for ref in refs]
            added_refs += [(qid, ref.name, ref.id) for ref, a in zip(refs, added) if a]
            result.skipped[uid] = ("linked" if any(added) else "unchanged" if row.sources else "duplicate", target)
        return keep

    def _link_planned(self, links: list[tuple[str, SourceRef]], result: ImportResult, added_refs: list[_Ref],
                      stamp: str) -> None:
        redirect = {uid: target for uid, (_, target) in result.skipped.items()}
        for target, ref in links:
            target = redirect.get(target, target)
            row = self.db.conn.execute("SELECT id FROM questions WHERE uid = ?", (target,)).fetchone()
            if row is None:
                result.links.append("missing")
            elif add_source(self.db.conn, row["id"], ref, stamp):
                added_refs.append((row["id"], ref.name, ref.id))
                result.links.append("linked")
            else:
                result.links.append("unchanged")

    def _undo(self, written: list[str], added_refs: list[_Ref], batch: int) -> None:
        """Take back what the committed batches of a failed import wrote."""
        for start in range(0, max(len(written), 1), batch):
            chunk = written[start:start + batch]
            with self.db.tx():
                for i in range(0, len(chunk), 500):
                    part = chunk[i:i + 500]
                    self.db.conn.execute(f"DELETE FROM questions WHERE uid IN ({','.join('?' * len(part))})", part)
                if start == 0:
                    self.db.conn.executemany(
                        "DELETE FROM question_sources WHERE question_id = ? AND source_name IS ? "
                        "AND source_id IS ?", added_refs)

    def _existing(self, column: str, values: list[str]) -> set[str]:
        found: set[str] = set()
        for i in range(0, len(values), 500):
            chunk = values[i:i + 500]
            found |= {r[column] for r in self.db.conn.execute(
                f"SELECT {column} FROM questions WHERE {column} IN ({','.join('?' * len(chunk))})", chunk)}
        return found

    def _fingerprint_owners(self, prints: list[str], ours: set[str]) -> dict[str, str]:
        """fingerprint -> uid of the first stored question with it (this import's own left out)."""
        out: dict[str, str] = {}
        for i in range(0, len(prints), 500):
            chunk = prints[i:i + 500]
            for r in self.db.conn.execute(
                f"SELECT fingerprint, uid FROM questions WHERE fingerprint IN ({','.join('?' * len(chunk))}) "
                "ORDER BY id", chunk
            ):
                if r["uid"] not in ours:
                    out.setdefault(r["fingerprint"], r["uid"])
        return out

    def _look_at_others(self, others: _Others, ours: set[str]) -> None:
        """Add the questions stored after row id ``others.seen`` (by other processes: this
        import's own are passed over) to ``others.index``. Each batch reads only what is new."""
        keys: dict[str, list[str]] = {}
        for r in self.db.conn.execute(
            "SELECT q.uid, o.match_key FROM questions q JOIN options o ON o.question_id = q.id "
            "WHERE q.id > ? ORDER BY q.id, o.position", (others.seen,)
        ):
            if r["uid"] not in ours:
                keys.setdefault(r["uid"], []).append(r["match_key"])
        for uid, ks in keys.items():
            others.index.add(uid, ks)

    def iter_imports(self) -> Iterator[dict[str, Any]]:
        for r in self.db.conn.execute("SELECT * FROM imports ORDER BY id"):
            yield dict(r)
