"""Users in the store: password hashes set, read, cleared, gone with the user; the history of
additions and removals, kept, and a re-added user's new `added` date."""

import itertools

import pytest

from persian_tui.cli import main
from persian_tui.models.users import UserEvent
from persian_tui.store import Store, StoreError
from persian_tui.store import users as users_store


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "u.db") as s:
        s.users.add("boss", "admin")
        s.users.add("ali", "annotator")
        yield s


def test_a_password_hash_is_set_and_read_back(store):
    assert store.users.password_hash("ali") is None
    store.users.set_password("ali", "scrypt$1$8$1$c2FsdA==$aGFzaA==")
    assert store.users.password_hash("ali") == "scrypt$1$8$1$c2FsdA==$aGFzaA=="
    store.users.set_password("ali", None)
    assert store.users.password_hash("ali") is None


def test_no_password_for_someone_who_is_not_a_user(store):
    with pytest.raises(StoreError, match="nobody is not a user"):
        store.users.set_password("nobody", "x")
    assert store.users.password_hash("nobody") is None


def test_a_removed_user_loses_the_password(store):
    store.users.set_password("ali", "scrypt$hash")
    store.users.remove("ali")
    assert store.users.password_hash("ali") is None
    store.users.add("ali", "annotator")  # back: signs in only after a new password
    assert store.users.password_hash("ali") is None


def test_role_changes_are_kept_as_history_and_a_re_added_user_is_added_anew(tmp_path, monkeypatch, capsys):
    """ali, an annotator, removed and added back as a reviewer (how a role changes): the users
    list dates ali from the new addition, and `users history` shows all three steps."""
    clock = (f"2026-01-0{d}T09:00:00Z" for d in itertools.count(1))
    monkeypatch.setattr(users_store, "now", lambda: next(clock))
    path = tmp_path / "h.db"
    with Store(path) as s:
        s.users.add("boss", "admin")
        s.users.add("ali", "annotator")
        s.users.remove("ali")
        s.users.add("ali", "reviewer")
        assert s.users.get("ali").created_at == "2026-01-04T09:00:00Z"
        assert s.users.history("ali") == [UserEvent("ali", "added", "annotator", "2026-01-02T09:00:00Z"),
                                          UserEvent("ali", "removed", "annotator", "2026-01-03T09:00:00Z"),
                                          UserEvent("ali", "added", "reviewer", "2026-01-04T09:00:00Z")]
        assert [e.name for e in s.users.history()] == ["boss", "ali", "ali", "ali"]
    assert main(["--db", str(path), "--user", "boss", "users", "list"]) == 0
    assert "ali   reviewer   added 2026-01-04T09:00:00Z" in capsys.readouterr().out
    assert main(["--db", str(path), "--user", "boss", "users", "history", "ali"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "2026-01-02T09:00:00Z  ali  added    annotator",
        "2026-01-03T09:00:00Z  ali  removed  annotator",
        "2026-01-04T09:00:00Z  ali  added    reviewer",
    ]
    assert main(["--db", str(path), "--user", "ali", "users", "history"]) == 1  # admins only
