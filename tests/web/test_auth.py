"""Sessions, signed cookies, lock-out and the Origin rule of `persian-tui web` (no clock: times given)."""

from persian_tui.web.auth import (
    FAILURES,
    GLOBAL_FREE,
    GLOBAL_MAX,
    LOCK_SECONDS,
    SESSION_SECONDS,
    SIGNINS,
    Lockout,
    Sessions,
    account_stamp,
    host_allowed,
    is_loopback,
    same_origin,
)


def test_a_cookie_names_its_session_until_it_ends():
    sessions = Sessions(b"k" * 32)
    session, cookie = sessions.start("علی", 100.0)
    assert sessions.find(cookie, 101.0) == session
    sessions.end(session.token)
    assert sessions.find(cookie, 102.0) is None


def test_a_forged_or_altered_cookie_names_nobody():
    sessions = Sessions(b"k" * 32)
    session, cookie = sessions.start("ali", 0.0)
    token, signature = cookie.split(".")
    assert sessions.find(token, 1.0) is None
    assert sessions.find(f"{token}.{'0' * len(signature)}", 1.0) is None
    assert sessions.find(f"{token}x.{signature}", 1.0) is None
    assert Sessions(b"other key" * 4).find(cookie, 1.0) is None  # signed under another key
    assert sessions.find(None, 1.0) is None and sessions.find("", 1.0) is None


def test_a_session_expires():
    sessions = Sessions(b"k" * 32)
    _, cookie = sessions.start("ali", 0.0)
    assert sessions.find(cookie, SESSION_SECONDS - 1) is not None
    assert sessions.find(cookie, SESSION_SECONDS + 1) is None


def test_expired_sessions_are_dropped_when_another_starts():
    sessions = Sessions(b"k" * 32)
    sessions.start("ali", 0.0)
    sessions.start("sara", SESSION_SECONDS + 1)
    assert [s.user for s in sessions.by_token.values()] == ["sara"]


def test_ending_a_users_sessions():
    sessions = Sessions(b"k" * 32)
    _, a = sessions.start("ali", 0.0)
    _, b = sessions.start("ali", 0.0)
    _, c = sessions.start("sara", 0.0)
    sessions.end_user("ali")
    assert sessions.find(a, 1.0) is None and sessions.find(b, 1.0) is None
    assert sessions.find(c, 1.0) is not None


def test_repeated_failures_lock_a_name_out_from_that_address_only():
    """A stranger failing five times for ali locks ali out from the stranger's address, not
    from ali's."""
    lock = Lockout()
    for i in range(FAILURES):
        assert not lock.locked("ali", "10.0.0.1", float(i))
        lock.fail("ali", "10.0.0.1", float(i))
    assert lock.locked("ali", "10.0.0.1", 10.0)
    assert not lock.locked("ali", "10.0.0.2", 10.0)  # ali, elsewhere, still signs in
    assert not lock.locked("sara", "10.0.0.2", 10.0)
    assert not lock.locked("ali", "10.0.0.1", FAILURES + LOCK_SECONDS)  # the window passed


def test_many_failures_everywhere_slow_every_sign_in_and_lock_nobody_out():
    lock = Lockout()
    assert lock.delay(0.0) == 0.0
    for i in range(GLOBAL_FREE + 10):
        lock.fail("ali", f"10.1.{i // 250}.{i % 250}", 1.0)  # from many addresses
    assert 0 < lock.delay(2.0) <= GLOBAL_MAX
    assert not lock.locked("ali", "10.9.9.9", 2.0)
    for i in range(1000):
        lock.fail(f"n{i}", f"10.2.{i // 250}.{i % 250}", 1.0)
    assert lock.delay(2.0) == GLOBAL_MAX
    assert lock.delay(2.0 + LOCK_SECONDS) == 0.0


def test_sign_ins_of_one_person_are_limited():
    lock = Lockout()
    for i in range(SIGNINS):
        assert not lock.too_many_sign_ins("ali", float(i))
        lock.succeed("ali", "a", float(i))
    assert lock.too_many_sign_ins("ali", float(SIGNINS))
    assert not lock.too_many_sign_ins("sara", float(SIGNINS))
    assert not lock.too_many_sign_ins("ali", SIGNINS + LOCK_SECONDS)


def test_an_account_stamp_changes_with_the_password_the_role_and_a_removal():
    stamp = account_stamp("ali", "annotator", "scrypt$hash1")
    assert stamp == account_stamp("ali", "annotator", "scrypt$hash1")
    assert stamp != account_stamp("ali", "annotator", "scrypt$hash2")  # a new password
    assert stamp != account_stamp("ali", "annotator", None)  # cleared (a removal clears it too)
    assert stamp != account_stamp("ali", "admin", "scrypt$hash1")  # another role


def test_one_address_trying_many_names_is_locked_out():
    lock = Lockout()
    for i in range(4 * FAILURES):
        lock.fail(f"name{i}", "10.0.0.9", 0.0)
    assert lock.locked("anyone", "10.0.0.9", 1.0)
    assert not lock.locked("anyone", "10.0.0.8", 1.0)


def test_a_success_clears_the_names_failures():
    lock = Lockout()
    for _ in range(FAILURES - 1):
        lock.fail("ali", "a", 0.0)
    lock.succeed("ali", "a", 0.0)
    lock.fail("ali", "a", 0.0)
    assert not lock.locked("ali", "a", 0.0)


def test_the_origin_must_be_this_server():
    assert same_origin("http://127.0.0.1:8000", "127.0.0.1:8000")
    assert same_origin("https://annotate.example.org", "annotate.example.org")
    assert not same_origin("http://evil.example", "127.0.0.1:8000")
    assert not same_origin("http://127.0.0.1:8001", "127.0.0.1:8000")
    assert not same_origin(None, "127.0.0.1:8000")
    assert not same_origin("null", "127.0.0.1:8000")
    assert not same_origin("file://", "")
    # behind a proxy the Host may be the backend's: the proxy's public origin is allowed by name
    assert same_origin("https://annotate.example.org", "127.0.0.1:8000", ("https://annotate.example.org/",))


def test_loopback():
    assert is_loopback("127.0.0.1") and is_loopback("::1")
    assert not is_loopback("10.0.0.1") and not is_loopback(None) and not is_loopback("nonsense")


def test_a_loopback_server_answers_loopback_names_and_its_origins_only():
    assert host_allowed("127.0.0.1:8000", "127.0.0.1") and host_allowed("localhost:8000", "127.0.0.1")
    assert host_allowed("[::1]:8000", "::1")
    assert not host_allowed("evil.example:8000", "127.0.0.1")  # DNS rebinding: its name, our address
    assert host_allowed("annotate.example.org", "127.0.0.1", ("https://annotate.example.org",))
    assert host_allowed("anything.example", "0.0.0.0")  # listening everywhere: every name is the server's


def test_the_origin_scheme_is_the_pages():
    assert same_origin("https://127.0.0.1:8000", "127.0.0.1:8000", scheme="https")
    assert not same_origin("http://127.0.0.1:8000", "127.0.0.1:8000", scheme="https")
    assert not same_origin("https://127.0.0.1:8000", "127.0.0.1:8000", scheme="http")
