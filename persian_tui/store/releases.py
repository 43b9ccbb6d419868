"""Releases: frozen, content-hashed lists of questions under a unique name. Triggers (schema
migration 13) refuse any UPDATE or DELETE; a name is frozen once, inside one write transaction."""

from __future__ import annotations

import sqlite3

from ..models import Release, ReleaseItem, release_digest
from ..models.keys import now
from .db import Database
from .errors import ReleaseExists

_RELEASE_COLUMNS = "name, digest, questions, created_by, created_at"


def _release(row: sqlite3.Row, items: tuple[ReleaseItem, ...] = ()) -> Release:
    return Release(row["name"], row["digest"], row["questions"], row["created_by"], row["created_at"], items)


class ReleasesRepo:
    def __init__(self, db: Database):
        self.db = db

    def freeze_release(self, name: str, items: list[ReleaseItem], created_by: str | None = None
                       ) -> tuple[Release, bool]:
        """Record release `name` with `items` (in order), or find it already recorded with the
        same content: (release, created). Another content under that name: ReleaseExists.
        Checked under the write lock, so two processes freezing one name race to one release."""
        digest = release_digest(items)
        with self.db.tx():
            row = self.db.conn.execute("SELECT id, digest FROM releases WHERE name = ?", (name,)).fetchone()
            if row is None:
                cur = self.db.conn.execute(
                    "INSERT INTO releases (name, digest, questions, created_by, created_at) VALUES (?,?,?,?,?)",
                    (name, digest, len(items), created_by, now()))
                self.db.conn.executemany(
                    "INSERT INTO release_items (release_id, position, uid, sha256, key, record) "
                    "VALUES (?,?,?,?,?,?)",
                    [(cur.lastrowid, i, it.uid, it.sha256, it.key, it.record) for i, it in enumerate(items)])
                created = True
            elif row["digest"] != digest:
                old = {r["uid"]: r["sha256"] for r in self.db.conn.execute(
                    "SELECT uid, sha256 FROM release_items WHERE release_id = ?", (row["id"],))}
                new = {it.uid: it.sha256 for it in items}
                changed = sum(u in old and old[u] != h for u, h in new.items())
                raise ReleaseExists(
                    f"release {name!r} exists with other content ({changed} changed, "
                    f"{len(new.keys() - old.keys())} added, {len(old.keys() - new.keys())} removed "
                    "since it was frozen); a release never changes: choose a new name, or --frozen "
                    "writes the files of the release as it was frozen")
            else:
                created = False
        release = self.get_release(name)
        assert release is not None  # recorded above, and a release is never deleted
        return release, created

    def get_release(self, name: str) -> Release | None:
        row = self.db.conn.execute(f"SELECT id, {_RELEASE_COLUMNS} FROM releases WHERE name = ?", (name,)).fetchone()
        if row is None:
            return None
        items = tuple(ReleaseItem(**r) for r in self.db.conn.execute(
            "SELECT uid, sha256, key, record FROM release_items WHERE release_id = ? ORDER BY position",
            (row["id"],)))
        return _release(row, items)

    def release_uids(self, name: str) -> list[str] | None:
        """The release's question uids in order (None: no such release)."""
        row = self.db.conn.execute("SELECT id FROM releases WHERE name = ?", (name,)).fetchone()
        if row is None:
            return None
        return [r["uid"] for r in self.db.conn.execute(
            "SELECT uid FROM release_items WHERE release_id = ? ORDER BY position", (row["id"],))]

    def releases(self) -> list[Release]:
        """Every release, oldest first (without their items)."""
        return [_release(r) for r in self.db.conn.execute(f"SELECT {_RELEASE_COLUMNS} FROM releases ORDER BY id")]
