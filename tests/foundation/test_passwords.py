"""Password hashes: salted scrypt, never the password; verification in constant work."""

import pytest

from persian_tui.passwords import MIN_LENGTH, check_password, hash_password, verify_password

FAST = 2**10  # the tests' cost; the stored cost is read back from the hash


def test_a_hash_verifies_its_password_and_no_other():
    stored = hash_password("کلمهٔ عبور طولانی", n=FAST)
    assert verify_password("کلمهٔ عبور طولانی", stored)
    assert not verify_password("کلمهٔ عبور طولانی ", stored)
    assert not verify_password("", stored)


def test_a_hash_is_salted_and_holds_no_password():
    one, two = hash_password("the same password", n=FAST), hash_password("the same password", n=FAST)
    assert one != two
    assert "the same password" not in one
    assert one.startswith(f"scrypt${FAST}$8$1$")


@pytest.mark.parametrize("stored", [None, "", "plain", "scrypt$1$2", "bcrypt$1$8$1$AAAA$AAAA",
                                    "scrypt$x$8$1$AAAA$AAAA", "scrypt$1024$8$1$!!$AAAA"])
def test_no_hash_or_a_broken_one_verifies_nothing(stored):
    assert not verify_password("anything at all", stored)


def test_a_password_has_a_minimum_length():
    with pytest.raises(ValueError, match=f"at least {MIN_LENGTH}"):
        check_password("short")
    assert check_password("x" * MIN_LENGTH) == "x" * MIN_LENGTH
