"""Users and their roles (migration 19) and their history (every addition and removal). The
rules (who may be added or removed) are models/users.py's, applied under the write lock so two
admins cannot race past them."""

from __future__ import annotations

import sqlite3

from ..models.keys import now
from ..models.users import (
    Role,
    User,
    UserEvent,
    UserEventKind,
    check_add,
    check_name,
    check_remove,
    check_role_change,
)
from .db import Database
from .errors import StoreError

_COLUMNS = "name, role, created_at, disabled_at"


def _user(row: sqlite3.Row) -> User:
    return User(row["name"], row["role"], row["created_at"], row["disabled_at"])


class UsersRepo:
    def __init__(self, db: Database):
        self.db = db

    def users(self, *, removed: bool = False) -> list[User]:
        """The users by name; with ``removed``, the removed ones too."""
        where = "" if removed else "WHERE disabled_at IS NULL"
        return [_user(r) for r in self.db.conn.execute(f"SELECT {_COLUMNS} FROM users {where} ORDER BY name")]

    def get(self, name: str) -> User | None:
        """The active user of that name (None: no such user, or removed)."""
        row = self.db.conn.execute(f"SELECT {_COLUMNS} FROM users WHERE name = ? AND disabled_at IS NULL",
                                   (name,)).fetchone()
        return _user(row) if row else None

    def any(self) -> bool:
        """Whether any user is defined (and not removed): without one, the database has one
        user, who is admin."""
        return self.db.conn.execute("SELECT 1 FROM users WHERE disabled_at IS NULL LIMIT 1").fetchone() is not None

    def add(self, name: str, role: Role) -> User:
        """Add a user (a removed one of that name comes back with this role, added now); the
        addition goes into their history. StoreError with the rule's words when
        models.users.check_add refuses."""
        try:
            name = check_name(name)
        except ValueError as e:
            raise StoreError(str(e)) from None
        with self.db.tx():
            try:
                check_add(self._all(), name, role)
            except ValueError as e:
                raise StoreError(str(e)) from None
            at = now()
            self.db.conn.execute(
                "INSERT INTO users (name, role, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE "
                "SET role = excluded.role, created_at = excluded.created_at, disabled_at = NULL",
                (name, role, at))
            self._event(name, "added", role, at)
        user = self.get(name)
        assert user is not None  # added above
        return user

    def remove(self, name: str) -> User:
        """Mark a user removed (their labels, edits and decisions keep the name). StoreError when
        models.users.check_remove refuses."""
        with self.db.tx():
            try:
                user = check_remove(self._all(), name)
            except ValueError as e:
                raise StoreError(str(e)) from None
            at = now()
            self.db.conn.execute("UPDATE users SET disabled_at = ?, password_hash = NULL WHERE name = ?", (at, name))
            self._event(name, "removed", user.role, at)
        return user

    def set_role(self, name: str, role: Role) -> User:
        """Give the active user ``name`` another role, in place (name, password and added date
        kept; their browser sessions end, as the role is part of what a session is valid for);
        the change goes into their history. Checked under the write lock (models.users.
        check_role_change: the last admin is never demoted, even by two admins at once):
        StoreError with the rule's words. Returns the user as they were."""
        with self.db.tx():
            try:
                before = check_role_change(self._all(), name, role)
            except ValueError as e:
                raise StoreError(str(e)) from None
            self.db.conn.execute("UPDATE users SET role = ? WHERE name = ? AND disabled_at IS NULL", (role, name))
            self._event(name, "role", role, now())
        return before

    def history(self, name: str | None = None) -> list[UserEvent]:
        """Every addition, role change and removal, oldest first: of ``name``, else of everyone."""
        where, params = ("WHERE name = ?", (name,)) if name is not None else ("", ())
        rows = self.db.conn.execute(f"SELECT name, event, role, at FROM user_events {where} ORDER BY id", params)
        return [UserEvent(r["name"], r["event"], r["role"], r["at"]) for r in rows]

    def _event(self, name: str, event: UserEventKind, role: Role, at: str) -> None:
        self.db.conn.execute("INSERT INTO user_events (name, event, role, at) VALUES (?, ?, ?, ?)",
                             (name, event, role, at))

    def set_password(self, name: str, password_hash: str | None) -> User:
        """Store the active user's password hash (None: no password, so no web sign-in).
        StoreError when ``name`` is not an active user."""
        with self.db.tx():
            cur = self.db.conn.execute("UPDATE users SET password_hash = ? WHERE name = ? AND disabled_at IS NULL",
                                       (password_hash, name))
            if cur.rowcount != 1:
                raise StoreError(f"{name} is not a user")
        user = self.get(name)
        assert user is not None  # updated above
        return user

    def password_hash(self, name: str) -> str | None:
        """The active user's stored password hash (None: no such user, or no password set)."""
        row = self.db.conn.execute("SELECT password_hash FROM users WHERE name = ? AND disabled_at IS NULL",
                                   (name,)).fetchone()
        return row["password_hash"] if row else None

    def _all(self) -> list[User]:
        return self.users(removed=True)

