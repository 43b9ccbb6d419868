"""Users' password hashes in the store: set, read, cleared, gone with the user."""

import pytest

from persian_tui.store import Store, StoreError


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
