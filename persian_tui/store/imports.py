"""Writing an import: the questions still new under the write lock, the source references of
duplicates, and the import's log row. Planned outside any lock; re-checked inside it."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from ..bank import now
from ..models import Question, SourceRef
from ..text import DuplicateIndex

BATCH_PAUSE = 0.1  # seconds between two write batches of a large import (SQLite's busy wait polls)


@dataclass
class ImportResult:
    """What the write really did. ``skipped``: planned-new uid -> ("unchanged" | "linked", the
    stored uid it matched), for questions another process stored meanwhile. ``links``: per
    planned link, "linked" (reference added), "unchanged" (it was there) or "missing" (its
    question is gone)."""

    written: list[str] = field(default_factory=list)
    skipped: dict[str, tuple[str, str]] = field(default_factory=dict)
    links: list[str] = field(default_factory=list)


def _ref(row: tuple) -> SourceRef:
    name, sid, file, created = row
    return SourceRef(name, sid, file, created)


class ImportsRepo:
    conn: sqlite3.Connection

    def add_new_questions(self, questions: Iterable[Question], *, links: Iterable[tuple[str, SourceRef]] = (),
                          log: Callable[[ImportResult], dict] | None = None, same_question: bool = True,
                          since: int | None = None, near: float | None = None,
                          batch: int = 5000) -> ImportResult:
        """Insert the questions that are still new when the write lock is held, and link the
        planned references (target uid, reference). Another process may have stored the same
        uid (counted unchanged) or, with ``same_question``, the same question (same fingerprint,
        or with ``near`` and ``since`` a near-duplicate among the questions stored after row id
        ``since``): its references are linked to that question instead. ``log`` makes the
        import's log row from the result, inside the last transaction.

        Rows are normalized before any lock and written ``batch`` questions per transaction, so
        other writers never wait long. A failure in a later batch takes back what the earlier
        ones wrote (all or nothing), except for a process killed mid-way, which leaves whole
        questions that re-running the import completes (uids are deterministic)."""
        from .questions import _rows_of

        questions = list(questions)
        links = list(links)
        rows = [_rows_of(q) for q in questions]
        result = ImportResult()
        added_refs: list[tuple[int, str | None, str | None]] = []
        stamp = now()
        try:
            for start in range(0, max(len(rows), 1), batch):
                if start:
                    time.sleep(BATCH_PAUSE)  # a writer waiting for the lock gets it between batches
                part = rows[start:start + batch]
                with self.tx():
                    keep = self._still_new(part, result, added_refs, same_question, since, near, stamp)
                    self._insert_rows(keep)
                    result.written += [r[0][0] for r in keep]
                    if start + batch >= len(rows):  # the last batch: links, then the log row
                        self._link_planned(links, result, added_refs, stamp)
                        if log is not None:
                            self._log_import(log(result))
        except BaseException:
            self._undo(result.written, added_refs, batch)
            raise
        self.link_saved(result.written)  # corpus provenance
        return result

    def _still_new(self, part: list[tuple], result: ImportResult, added_refs: list, same_question: bool,
                   since: int | None, near: float | None, stamp: str) -> list[tuple]:
        ours = set(result.written)
        uids = self._existing("uid", [r[0][0] for r in part])
        prints: dict[str, str] = {}
        fresh = DuplicateIndex()
        if same_question:
            prints = self._fingerprint_owners([r[0][-2] for r in part], ours)
            if near is not None and since is not None:
                fresh = self._index_after(since, ours)
        keep = []
        for row in part:
            uid, fp = row[0][0], row[0][-2]
            target = None
            if uid in uids:
                result.skipped[uid] = ("unchanged", uid)
                continue
            if fp in prints:
                target = prints[fp]
            elif len(fresh):
                match = fresh.query([o[-1] for o in sorted(row[1])], min_score=near)
                target = match[0].uid if match and match[0].score >= near else None
            if target is None:
                keep.append(row)
                continue
            qid = self._qid(target)
            added = [self._add_source(qid, _ref(r), stamp) for r in row[2]]
            added_refs += [(qid, r[0], r[1]) for r, a in zip(row[2], added) if a]
            result.skipped[uid] = ("linked" if any(added) else "unchanged", target)
        return keep

    def _link_planned(self, links: list[tuple[str, SourceRef]], result: ImportResult, added_refs: list,
                      stamp: str) -> None:
        redirect = {uid: target for uid, (_, target) in result.skipped.items()}
        for target, ref in links:
            target = redirect.get(target, target)
            row = self.conn.execute("SELECT id FROM questions WHERE uid = ?", (target,)).fetchone()
            if row is None:
                result.links.append("missing")
            elif self._add_source(row[0], ref, stamp):
                added_refs.append((row[0], ref.name, ref.id))
                result.links.append("linked")
            else:
                result.links.append("unchanged")

    def _undo(self, written: list[str], added_refs: list, batch: int) -> None:
        """Take back what the committed batches of a failed import wrote."""
        for start in range(0, max(len(written), 1), batch):
            chunk = written[start:start + batch]
            with self.tx():
                for i in range(0, len(chunk), 500):
                    part = chunk[i:i + 500]
                    self.conn.execute(f"DELETE FROM questions WHERE uid IN ({','.join('?' * len(part))})", part)
                if start == 0:
                    self.conn.executemany(
                        "DELETE FROM question_sources WHERE question_id = ? AND source_name IS ? "
                        "AND source_id IS ?", added_refs)

    def _existing(self, column: str, values: list[str]) -> set[str]:
        found: set[str] = set()
        for i in range(0, len(values), 500):
            chunk = values[i:i + 500]
            found |= {r[0] for r in self.conn.execute(
                f"SELECT {column} FROM questions WHERE {column} IN ({','.join('?' * len(chunk))})", chunk)}
        return found

    def _fingerprint_owners(self, prints: list[str], ours: set[str]) -> dict[str, str]:
        """fingerprint -> uid of the first stored question with it (this import's own left out)."""
        out: dict[str, str] = {}
        for i in range(0, len(prints), 500):
            chunk = prints[i:i + 500]
            for fp, uid in self.conn.execute(
                f"SELECT fingerprint, uid FROM questions WHERE fingerprint IN ({','.join('?' * len(chunk))}) "
                "ORDER BY id", chunk
            ):
                if uid not in ours:
                    out.setdefault(fp, uid)
        return out

    def _index_after(self, since: int, ours: set[str]) -> DuplicateIndex:
        """A duplicate index of the questions stored after row id ``since`` by others."""
        keys: dict[str, list[str]] = {}
        for uid, key in self.conn.execute(
            "SELECT q.uid, o.match_key FROM questions q JOIN options o ON o.question_id = q.id "
            "WHERE q.id > ? ORDER BY q.id, o.position", (since,)
        ):
            if uid not in ours:
                keys.setdefault(uid, []).append(key)
        index = DuplicateIndex()
        for uid, ks in keys.items():
            index.add(uid, ks)
        return index

    def _log_import(self, log: dict) -> None:
        self.conn.execute(
            "INSERT INTO imports (path, sha256, format, source_name, new, unchanged, "
            "duplicate, conflict, rejected, linked, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (log["path"], log["sha256"], log["format"], log.get("source_name"), log["new"],
             log["unchanged"], log["duplicate"], log["conflict"], log["rejected"], log.get("linked", 0), now()))

    def iter_imports(self) -> Iterator[dict]:
        cur = self.conn.execute("SELECT * FROM imports ORDER BY id")
        names = [d[0] for d in cur.description]
        for row in cur:
            yield dict(zip(names, row))
