"""`persian-tui web` over HTTP, without a browser: nothing is served without a session, a
foreign Origin is refused, wrong passwords lock out, a proxy's header is trusted only when
configured, TLS serves https."""

import asyncio
import http.client
import json
import os
import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest

pytest.importorskip("textual_serve", reason="textual-serve is not installed (the web extra)")

from factories import ROOT  # noqa: E402
from web_helpers import PASSWORDS, Served, people_db, process_info  # noqa: E402

pytestmark = pytest.mark.xdist_group("web")

UPGRADE = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
           "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return people_db(tmp_path_factory.mktemp("web"), ("boss", "ali"))


@pytest.fixture(scope="module")
def served(db):
    server = Served(db)
    yield server
    server.stop()


def request(served, method, path, body=None, headers=None, context=None):
    conn = (http.client.HTTPSConnection("127.0.0.1", served.port, context=context, timeout=30) if context
            else http.client.HTTPConnection("127.0.0.1", served.port, timeout=30))
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def sign_in(served, name="ali", password=None, origin=None):
    body = urlencode({"name": name, "password": PASSWORDS[name] if password is None else password})
    return request(served, "POST", "/login", body, {
        "Content-Type": "application/x-www-form-urlencoded", "Origin": origin or served.url})


def cookie_of(response) -> str:
    return response.getheader("Set-Cookie").split(";", 1)[0]


@pytest.mark.parametrize("path", ["/ws", "/static/js/textual.js", "/static/fonts/RobotoMono-VariableFont_wght.ttf",
                                  "/download/anything", "/nothing"])
def test_nothing_without_a_session(served, path):
    assert request(served, "GET", path, headers=UPGRADE if path == "/ws" else {}).status == 401


def test_the_page_sends_to_the_sign_in(served):
    response = request(served, "GET", "/")
    assert response.status == 302 and response.getheader("Location") == "/login"
    page = request(served, "GET", "/login")
    assert page.status == 200 and "frame-ancestors 'none'" in page.getheader("Content-Security-Policy")


def test_a_wrong_password_is_refused(served):
    response = sign_in(served, "ali", "not the password")
    assert response.status == 401 and response.getheader("Set-Cookie") is None
    assert sign_in(served, "nobody", "whatever it is").status == 401


def test_a_forged_cookie_is_refused(served):
    cookie = cookie_of(sign_in(served))
    name, value = cookie.split("=", 1)
    assert request(served, "GET", "/", headers={"Cookie": cookie}).status == 200
    forged = f"{name}={value[:-4]}{'0000' if not value.endswith('0000') else '1111'}"
    assert request(served, "GET", "/", headers={"Cookie": forged}).status == 302


def test_a_foreign_origin_is_refused(served):
    cookie = cookie_of(sign_in(served, "boss"))
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{served.port + 1}"):
        response = request(served, "GET", "/ws", headers={**UPGRADE, "Cookie": cookie, "Origin": origin})
        assert response.status == 403, origin
    assert request(served, "GET", "/ws", headers={**UPGRADE, "Cookie": cookie}).status == 403  # no Origin
    assert sign_in(served, origin="http://evil.example").status == 403  # nor a sign-in posted from elsewhere


def test_foreign_origins_start_no_app(db):
    server = Served(db)
    try:
        cookie = cookie_of(sign_in(server))
        assert wait_until(lambda: len(server.children()) == 1)  # the signed-in person's, pre-started
        before = server.children()
        for origin in ("http://evil.example", "null"):
            response = request(server, "GET", "/ws", headers={**UPGRADE, "Cookie": cookie, "Origin": origin})
            assert response.status == 403, origin
        assert sign_in(server, origin="http://evil.example").status == 403
        time.sleep(1)
        assert server.children() == before
    finally:
        server.stop()


def test_signing_out_ends_the_session(served):
    cookie = cookie_of(sign_in(served))
    out = request(served, "POST", "/logout", "", {"Cookie": cookie, "Origin": served.url})
    assert out.status == 302 and out.getheader("Location") == "/login"
    assert request(served, "GET", "/", headers={"Cookie": cookie}).status == 302


def test_the_cookie_is_http_only_and_strict(served):
    header = sign_in(served).getheader("Set-Cookie")
    assert "HttpOnly" in header and "SameSite=Strict" in header


def test_repeated_failures_lock_out(tmp_path):
    db = people_db(tmp_path, ("boss", "ali"))
    server = Served(db)
    try:
        for _ in range(5):
            assert sign_in(server, "ali", "wrong password!").status == 401
        assert sign_in(server, "ali").status == 429  # even the right password, from there, for a while
        assert sign_in(server, "boss").status == 302  # others still sign in
    finally:
        log = server.stop()
    assert "failed sign-in: 'ali'" in log and "locked out" in log


def forwarded(server, name, address, password=None):
    body = urlencode({"name": name, "password": PASSWORDS[name] if password is None else password})
    return request(server, "POST", "/login", body, {"Content-Type": "application/x-www-form-urlencoded",
                                                    "Origin": server.url, "X-Forwarded-For": address})


def test_a_stranger_cannot_lock_a_person_out_from_another_address(tmp_path):
    """Behind a proxy (every connection from 127.0.0.1), told to trust X-Forwarded-For: a
    stranger's failures lock out the stranger's address only."""
    db = people_db(tmp_path, ("boss", "ali"))
    server = Served(db, "--trust-forwarded-for")
    try:
        for _ in range(6):
            assert forwarded(server, "ali", "203.0.113.5", "wrong password!").status in (401, 429)
        assert forwarded(server, "ali", "203.0.113.5").status == 429
        assert forwarded(server, "ali", "198.51.100.7").status == 302  # ali, from their own address
    finally:
        log = server.stop()
    assert "from 203.0.113.5" in log


def test_the_forwarded_address_is_ignored_unless_trusted(tmp_path):
    db = people_db(tmp_path, ("boss", "ali"))
    server = Served(db)
    try:
        for _ in range(5):
            forwarded(server, "ali", "203.0.113.5", "wrong password!")
        assert forwarded(server, "ali", "198.51.100.7").status == 429  # the header names nobody: the peer is
    finally:
        server.stop()


def change_ali(db, change):
    from web_helpers import cli

    if change == "new-password":
        cli(db, "users", "passwd", "ali", "--stdin", stdin="another password 5\n")
    elif change == "password-cleared":
        cli(db, "users", "passwd", "ali", "--clear")
    elif change == "new-role":  # the role alone
        cli(db, "users", "role", "ali", "reviewer")
    else:  # removed, then added again as a reviewer (with a password)
        cli(db, "users", "remove", "ali")
        cli(db, "users", "add", "ali", "--role", "reviewer")
        cli(db, "users", "passwd", "ali", "--stdin", stdin=PASSWORDS["ali"] + "\n")


CHANGES = ["new-password", "password-cleared", "new-role", "removed-and-added-again"]


@pytest.mark.parametrize("change", CHANGES)
def test_a_session_ends_at_the_next_request_when_its_account_changes(tmp_path, change):
    db = people_db(tmp_path, ("boss", "ali"))
    server = Served(db)
    try:
        cookie = cookie_of(sign_in(server))
        assert request(server, "GET", "/", headers={"Cookie": cookie}).status == 200
        change_ali(db, change)
        assert request(server, "GET", "/", headers={"Cookie": cookie}).status == 302  # to /login
        assert wait_until(lambda: apps(server) == [])  # its pre-started app is stopped too
    finally:
        server.stop()


async def open_tab(server, cookie):
    import aiohttp

    client = aiohttp.ClientSession()
    ws = await client.ws_connect(f"{server.url}/ws?width=80&height=24",
                                 headers={"Cookie": cookie, "Origin": server.url})
    return client, ws


async def until_closed(ws, send=None, seconds=60.0):
    """Read a tab's WebSocket until the server closes it (``send`` sent once first)."""
    import aiohttp

    if send is not None:
        await ws.send_str(send)
    async with asyncio.timeout(seconds):
        async for message in ws:
            if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                break
    return ws.close_code


def test_an_open_tab_ends_at_its_next_message_when_its_account_changes(tmp_path):
    db = people_db(tmp_path, ("boss", "ali"))
    server = Served(db)

    async def scenario():
        cookie = cookie_of(sign_in(server))
        client, ws = await open_tab(server, cookie)
        try:
            await ws.receive(timeout=60)  # the app is up and drawing
            change_ali(db, "new-role")
            return await until_closed(ws, json.dumps(["stdin", "j"]))
        finally:
            await client.close()

    try:
        assert asyncio.run(scenario()) == 4004
    finally:
        log = server.stop()
    assert "the account changed" in log


def test_one_person_cannot_take_every_session(tmp_path):
    db = people_db(tmp_path, ("boss", "ali"))
    server = Served(db, "--max-per-person", "1")

    async def scenario():
        cookie = cookie_of(sign_in(server))
        client, first = await open_tab(server, cookie)  # takes the app pre-started at sign-in
        try:
            await first.receive(timeout=60)
            _, second = await open_tab(server, cookie)
            return await until_closed(second)
        finally:
            await client.close()

    try:
        assert asyncio.run(scenario()) == 4001
        assert sign_in(server, "boss").status == 302  # others still get theirs
        assert wait_until(lambda: "boss" in apps(server))
    finally:
        log = server.stop()
    assert "session refused (1 of theirs running): ali" in log


def test_an_admin_lists_and_ends_sessions(tmp_path):
    db = people_db(tmp_path, ("boss", "ali"))
    server = Served(db)
    try:
        ali = cookie_of(sign_in(server))
        boss = cookie_of(sign_in(server, "boss"))
        assert request(server, "GET", "/sessions", headers={"Cookie": ali}).status == 403
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("GET", "/sessions", headers={"Cookie": boss})
        page = conn.getresponse().read().decode()
        conn.close()
        assert "ali" in page and "127.0.0.1" in page and ali.split("=", 1)[1].split(".")[0] not in page
        rows = [line for line in page.splitlines() if 'name="id"' in line]
        ids = [line.split('value="', 1)[1].split('"', 1)[0] for line in rows]
        assert len(ids) == 2
        ended = [i for i in ids if request(server, "POST", "/sessions/end", urlencode({"id": i}), {
            "Cookie": boss, "Origin": server.url, "Content-Type": "application/x-www-form-urlencoded"}).status == 302
            and request(server, "GET", "/", headers={"Cookie": ali}).status == 302]
        assert len(ended) >= 1  # ali's session ended (boss's own too, if it came first)
        assert request(server, "GET", "/", headers={"Cookie": ali}).status == 302
    finally:
        log = server.stop()
    assert "boss ended a session of ali" in log


def test_a_proxy_header_is_trusted_only_when_configured(served, db):
    assert request(served, "GET", "/", headers={"X-Remote-User": "ali"}).status == 302
    proxied = Served(db, "--trust-user-header", "X-Remote-User")
    try:
        assert request(proxied, "GET", "/", headers={"X-Remote-User": "ali"}).status == 200
        assert request(proxied, "GET", "/", headers={"X-Remote-User": "nobody"}).status == 302
        assert request(proxied, "GET", "/").status == 302
    finally:
        proxied.stop()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl to make a test certificate")
def test_tls(db, tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    server = Served(db, "--certfile", str(cert), "--keyfile", str(key))
    try:
        assert server.url.startswith("https://")
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        response = request(server, "GET", "/login", context=context)
        assert response.status == 200
        body = urlencode({"name": "ali", "password": PASSWORDS["ali"]})
        signed = request(server, "POST", "/login", body, {"Content-Type": "application/x-www-form-urlencoded",
                                                          "Origin": server.url}, context=context)
        assert signed.status == 302 and "Secure" in signed.getheader("Set-Cookie")
    finally:
        server.stop()


def wait_until(check, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.2)
    return False


def apps(server):
    """Whose app each of the server's app processes is."""
    names = []
    for pid in server.children():
        try:
            argv, _ = process_info(pid)
        except OSError:
            continue
        if "--annotator" in argv:
            names.append(argv[argv.index("--annotator") + 1])
    return sorted(names)


def test_signing_in_starts_the_app_and_signing_out_ends_it(db):
    server = Served(db, "--max-sessions", "1")
    try:
        cookie = cookie_of(sign_in(server))
        assert wait_until(lambda: apps(server) == ["ali"])  # up before any page or WebSocket
        assert sign_in(server, "boss").status == 302 and apps(server) == ["ali"]  # the cap counts it
        request(server, "POST", "/logout", "", {"Cookie": cookie, "Origin": server.url})
        assert wait_until(lambda: apps(server) == [])
    finally:
        log = server.stop()
    assert "app pre-started for ali" in log


def test_an_unclaimed_pre_started_app_is_stopped(db):
    server = Served(db, "--idle-minutes", "0.02")
    try:
        sign_in(server)
        assert wait_until(lambda: apps(server) == ["ali"])
        assert wait_until(lambda: apps(server) == [])  # no tab came for it
    finally:
        log = server.stop()
    assert "unclaimed pre-started app" in log


def test_the_web_server_imports_textual_serve_not_textual():
    """persian_tui/web/ runs the app in child processes through textual-serve (an aiohttp
    server); the Textual app itself is imported only by those children (persian_tui/tui/)."""
    code = ("import sys, persian_tui.web.server, persian_tui.web.child; "
            "print(sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]"


def loaded(pid: int, library: str) -> bool:
    try:
        return library in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def test_an_app_runs_no_module_of_the_servers_working_folder(db, tmp_path):
    """`persian-tui web` started in a folder holding a json.py (pickle.py, sqlite3.py, ...): the
    app processes it starts import none of them."""
    from factories import plant_traps, sprung

    folder = plant_traps(tmp_path)
    server = Served(db, cwd=folder)
    try:
        sign_in(server)
        # the app has opened its database (the real sqlite3 loaded), or a trap ran
        assert wait_until(lambda: sprung(folder) or any(loaded(p, "_sqlite3") for p in server.children()))
    finally:
        log = server.stop()
    assert sprung(folder) == [], log


def test_a_name_signs_in_as_the_user_it_reads_as(served):
    """Names are compared after the project's normalizer, as `users add` compares them."""
    response = sign_in(served, "ALI", password=PASSWORDS["ali"])
    assert response.status == 302
    assert request(served, "GET", "/", headers={"Cookie": cookie_of(response)}).status == 200


def test_tls_pages_ask_browsers_to_keep_to_https(db, tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    server = Served(db, "--certfile", str(cert), "--keyfile", str(key))
    try:
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        assert "max-age" in request(server, "GET", "/login", context=context).getheader("Strict-Transport-Security")
    finally:
        server.stop()


def test_plain_http_pages_send_no_hsts(served):
    assert request(served, "GET", "/login").getheader("Strict-Transport-Security") is None


def test_a_rebound_host_name_is_refused(served):
    """A page on evil.example whose name was made to resolve to 127.0.0.1 (DNS rebinding)."""
    origin = f"http://evil.example:{served.port}"
    assert request(served, "GET", "/login", headers={"Host": f"evil.example:{served.port}"}).status == 421
    body = urlencode({"name": "ali", "password": PASSWORDS["ali"]})
    assert request(served, "POST", "/login", body, {"Host": f"evil.example:{served.port}", "Origin": origin,
                                                    "Content-Type": "application/x-www-form-urlencoded"}).status == 421
