"""`persian-tui web`: textual-serve's Server behind a sign-in. Every path but the sign-in page
needs a session; the WebSocket's Origin must be this server; each tab gets its own app process
run as its person (child.py); processes are capped and idle ones closed with a message."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import ssl
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import WSMsgType, web
from textual_serve.server import Server, to_int

from ..models.limits import MESSAGE_BYTES
from ..models.users import MAX_NAME, User, same_person
from ..passwords import verify_password
from ..store import Store
from .auth import (
    COOKIE,
    SESSION_SECONDS,
    Lockout,
    Session,
    Sessions,
    account_stamp,
    host_allowed,
    is_loopback,
    same_origin,
)
from .child import PersonService, command, environment

log = logging.getLogger("persian_tui.web")

TEMPLATES = Path(__file__).parent / "templates"
# the page loads nothing from elsewhere: scripts, styles, fonts and the WebSocket are this server's
CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src 'self' blob:; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
IDLE_CLOSE = 4002
FULL_CLOSE = 4001
SIGNED_OUT_CLOSE = 4003
ACCOUNT_CLOSE = 4004
ACCOUNT_CHANGED = "Your account changed (a new password, no password, another role, or removed): sign in again."
MAX_FORM_NAME = 4 * MAX_NAME  # a longer name is no user's: cut before it is looked up or logged
UNCLAIMED_SECONDS = 60.0  # a pre-started app no tab took this long is stopped


@dataclass(frozen=True)
class Options:
    db: Path
    host: str = "127.0.0.1"
    port: int = 8000
    certfile: str | None = None
    keyfile: str | None = None
    max_sessions: int = 20
    max_per_person: int = 3  # app processes (tabs and pre-started apps) of one person at once
    idle_minutes: float = 30.0
    pass_env: tuple[str, ...] = ()
    trust_user_header: str | None = None  # set by a reverse proxy on loopback
    origins: tuple[str, ...] = ()  # more origins the page may be loaded from (a proxy's public URL)
    trust_forwarded_for: bool = False  # the client's address from X-Forwarded-For (set by a proxy on loopback)


@dataclass
class Live:
    """A connected tab: its process, its WebSocket, whose it is."""

    service: PersonService
    ws: web.WebSocketResponse
    user: str
    token: str | None


class WebServer(Server):
    def __init__(self, options: Options, secret: str | None = None):
        super().__init__("persian-tui", host=options.host, port=options.port, title="persian-tui",
                         templates_path=TEMPLATES)
        self.options = options
        self.sessions = Sessions(secret.encode("utf-8") if secret else _random_secret())
        self.lockout = Lockout()
        self.live: list[Live] = []
        # pre-started apps, one per signed-in session (key: its token; "user:NAME" via a proxy)
        self.warm: dict[str, PersonService] = {}
        self.sizes: dict[str, tuple[int, int]] = {}  # each person's last terminal size
        self.store: Store | None = None
        self.ssl_context: ssl.SSLContext | None = None
        if options.certfile:
            self.ssl_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            self.ssl_context.load_cert_chain(options.certfile, options.keyfile)
        self._reaper: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ the aiohttp application

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard], client_max_size=64 * 1024)
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path), autoescape=True)
        app.add_routes([
            web.get("/login", self.handle_login_page, name="login"),
            web.post("/login", self.handle_login),
            web.post("/logout", self.handle_logout),
            web.get("/", self.handle_index, name="index"),
            web.get("/ws", self.handle_websocket, name="websocket"),
            web.get("/download/{key}", self.handle_download, name="download"),
            web.get("/sessions", self.handle_sessions, name="sessions"),
            web.post("/sessions/end", self.handle_end_session),
            web.static("/static", self.statics_path, name="static"),
        ])
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_startup(self, app: web.Application) -> None:
        self.store = Store(self.options.db, create_dir=False, read_only=True)
        self._reaper = asyncio.create_task(self._close_idle())

    async def on_shutdown(self, app: web.Application) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        for live in list(self.live):
            await live.ws.close(code=1001, message=b"the server is stopping")
            await live.service.stop()
        for key in list(self.warm):
            await self._drop_warm(key)
        if self.store is not None:
            self.store.close()

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Every path but the sign-in page needs a signed-in person who is still an active user;
        every path a Host this server answers to (host_allowed: no DNS rebinding)."""
        if not host_allowed(request.host, self.options.host, self.options.origins):
            raise web.HTTPMisdirectedRequest(text="this server does not answer to that host name")
        if request.path != "/login":
            found = self.person(request)
            if found is None:
                if request.path == "/" and request.method == "GET":
                    raise web.HTTPFound("/login")
                raise web.HTTPUnauthorized(text="sign in first (/login)")
            request["user"], request["session"] = found
        response: web.StreamResponse = await handler(request)
        if not isinstance(response, web.WebSocketResponse):
            response.headers.setdefault("Content-Security-Policy", CSP)
            response.headers.setdefault("X-Content-Type-Options", "nosniff")
            response.headers.setdefault("Referrer-Policy", "same-origin")  # no-referrer makes form posts Origin: null
            if self.ssl_context is not None:  # served over TLS: browsers keep to https
                response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
            if request.path in ("/", "/login"):
                response.headers.setdefault("Cache-Control", "no-store")
        return response

    def person(self, request: web.Request) -> tuple[User, Session | None] | None:
        """The signed-in person of a request and their session: a trusted proxy's header (only
        when configured and only from loopback), else the session cookie. None when neither
        names an active user of the database."""
        assert self.store is not None
        header = self.options.trust_user_header
        session = None
        if header and header in request.headers and is_loopback(request.remote):
            name = request.headers[header].strip()
        else:
            session = self.sessions.find(request.cookies.get(COOKIE), time.time())
            if session is None:
                return None
            name = session.user
        user = self.store.users.get(name) if name else None
        if session is not None and (user is None or session.account != self._stamp(user)):
            self._end_soon(session.token, ACCOUNT_CHANGED)  # password, role or removal since signing in
            return None
        if user is None:
            return None
        return user, session

    def _same_origin(self, request: web.Request) -> bool:
        return same_origin(request.headers.get("Origin"), request.host, self.options.origins,
                           "https" if self.ssl_context is not None else "http")

    def _stamp(self, user: User) -> str:
        assert self.store is not None
        return account_stamp(user.name, user.role, self.store.users.password_hash(user.name))

    def address(self, request: web.Request) -> str:
        """The client's address: the peer's, or with --trust-forwarded-for and a loopback peer
        (the proxy) the last address of X-Forwarded-For (the one the proxy appended)."""
        peer = request.remote or "?"
        forwarded = request.headers.get("X-Forwarded-For")
        if self.options.trust_forwarded_for and forwarded and is_loopback(peer):
            last = forwarded.rsplit(",", 1)[-1].strip()
            return last[:64] or peer
        return peer

    def _end_soon(self, token: str, message: str, code: int = 0) -> None:
        """End a session now (it names nobody from here on) and close its tabs and app."""
        self.sessions.end(token)
        asyncio.ensure_future(self._close_session(token, message, code or ACCOUNT_CLOSE))

    async def _close_session(self, token: str, message: str, code: int = 0) -> None:
        await self._drop_warm(token)
        for live in [x for x in self.live if x.token == token]:
            await live.ws.close(code=code or ACCOUNT_CLOSE, message=message.encode())

    def _still_valid(self, live: Live) -> bool:
        """Checked at every WebSocket message: the tab's session (or proxy user) still names
        the same account, with the role its app runs as."""
        assert self.store is not None
        user = self.store.users.get(live.user)
        if live.token is not None:
            session = self.sessions.by_token.get(live.token)
            if session is None or user is None or session.account != self._stamp(user):
                if session is not None:
                    self.sessions.end(live.token)
                return False
        return user is not None and user.role == live.service.role

    def _running(self, name: str) -> int:
        return sum(x.user == name for x in self.live) + sum(s.user == name for s in self.warm.values())

    # ------------------------------------------------------------ signing in and out

    async def handle_login_page(self, request: web.Request) -> web.StreamResponse:
        if self.person(request) is not None:
            raise web.HTTPFound("/")
        return self._login_form(request, "", 200)

    def _login_form(self, request: web.Request, message: str, status: int, name: str = "") -> web.Response:
        response = aiohttp_jinja2.render_template("login.html", request, {"message": message, "name": name})
        response.set_status(status)
        return response

    async def handle_login(self, request: web.Request) -> web.StreamResponse:
        if not self._same_origin(request):
            raise web.HTTPForbidden(text="sign-in from another site refused")
        form = await request.post()
        name, password = str(form.get("name", "")).strip()[:MAX_FORM_NAME], str(form.get("password", ""))
        assert self.store is not None
        if (alike := same_person(self.store.users.users(), name)) is not None:
            name = alike.name  # as `users add` compares names: علي signs in as علی
        address = self.address(request)
        now = time.time()
        if wait := self.lockout.delay(now):  # many failures server-wide: everyone waits, nobody is locked out
            await asyncio.sleep(wait)
        if self.lockout.locked(name, address, now):
            log.warning("sign-in refused (locked out): %r from %s", name, address)
            return self._login_form(request, "Too many failed sign-ins: try again in 15 minutes.", 429, name)
        assert self.store is not None
        stored = self.store.users.password_hash(name) if name else None
        ok = await asyncio.to_thread(verify_password, password, stored)
        if not ok:
            self.lockout.fail(name, address, now)
            log.warning("failed sign-in: %r from %s", name, address)
            return self._login_form(request, "Wrong name or password.", 401, name)
        user = self.store.users.get(name)
        if user is None:
            return self._login_form(request, "Wrong name or password.", 401, name)
        if self.lockout.too_many_sign_ins(name, now):
            log.warning("sign-in refused (too many sign-ins): %r from %s", name, address)
            return self._login_form(request, "Too many sign-ins: try again in 15 minutes.", 429, name)
        self.lockout.succeed(name, address, now)
        session, cookie = self.sessions.start(name, now, self._stamp(user), address)
        log.info("signed in: %s from %s", name, address)
        await self._prestart(user, session)  # up by the time the page has loaded
        response = web.HTTPFound("/")
        response.set_cookie(COOKIE, cookie, max_age=SESSION_SECONDS, path="/", httponly=True,
                            samesite="Strict", secure=self.ssl_context is not None)
        raise response

    async def handle_logout(self, request: web.Request) -> web.StreamResponse:
        if not self._same_origin(request):
            raise web.HTTPForbidden(text="sign-out from another site refused")
        session: Session | None = request["session"]
        if session is not None:
            self.sessions.end(session.token)
            await self._drop_warm(session.token)
            for live in [x for x in self.live if x.token == session.token]:
                await live.ws.close(code=SIGNED_OUT_CLOSE, message=b"Signed out.")
        response = web.HTTPFound("/login")
        response.del_cookie(COOKIE, path="/")
        raise response

    # ------------------------------------------------------------ the app page and its WebSocket

    async def handle_index(self, request: web.Request) -> web.Response:
        user: User = request["user"]
        session: Session | None = request["session"]
        await self._prestart(user, session)  # a reload, or a new tab
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "user": user.name, "role": user.role,
            "config": {"static": {"url": "/static/"}},
            "application": {"name": "persian-tui"},
            "can_sign_out": request["session"] is not None,
            "message_bytes": MESSAGE_BYTES,
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if not self._same_origin(request):
            log.warning("WebSocket from a foreign origin refused: %r", request.headers.get("Origin"))
            raise web.HTTPForbidden(text="foreign origin")
        user: User = request["user"]
        session: Session | None = request["session"]
        ws = web.WebSocketResponse(heartbeat=15, max_msg_size=MESSAGE_BYTES)
        await ws.prepare(request)
        width = to_int(request.query.get("width", "80"), 80)
        height = to_int(request.query.get("height", "24"), 24)
        self.sizes[user.name] = (width, height)

        async def close() -> None:  # the app ended by itself (q, a crash): the end card says which
            await ws.close(**ended_by(service))

        service = self.warm.pop(_key(user, session), None)
        if service is not None and (service.user != user.name or service.role != user.role or not await
                                    service.attach(ws.send_bytes, ws.send_str, close, width, height)):
            await service.stop()
            service = None
        if service is None and self._running(user.name) >= self.options.max_per_person:
            log.warning("session refused (%d of theirs running): %s", self._running(user.name), user.name)
            await ws.close(code=FULL_CLOSE, message=(f"You have {self.options.max_per_person} sessions open: "
                                                     "close one first.").encode())
            return ws
        if service is None and len(self.live) + len(self.warm) >= self.options.max_sessions:
            log.warning("session refused (%d running): %s", len(self.live), user.name)
            await ws.close(code=FULL_CLOSE, message=(f"The server is full ({self.options.max_sessions} "
                                                     "sessions): try again later.").encode())
            return ws
        warm = service is not None
        if service is None:
            service = self._service(user, width, height, session, write_bytes=ws.send_bytes,
                                    write_str=ws.send_str, close=close)
        service.last_input = time.monotonic()
        live = Live(service, ws, user.name, session.token if session else None)
        self.live.append(live)
        try:
            if not warm:
                await service.start(width, height)
            log.info("app %s for %s (%s), pid %s; %d running", "attached" if warm else "started", user.name,
                     user.role, service.pid, len(self.live))
            ended = asyncio.create_task(self._close_when_ended(live))
            try:
                await self._process_messages(ws, service)
            finally:
                ended.cancel()
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("the app of %s failed", user.name)
        finally:
            self.live.remove(live)
            await service.stop()
            await ws.close()
            log.info("app ended for %s; %d running", user.name, len(self.live))
        return ws

    def _service(self, user: User, width: int, height: int, session: Session | None,
                 **writers: Any) -> PersonService:
        """The app of ``user``; of a signed-in ``session``, it offers Sign out (F10), which ends
        the session here as the page's Sign out does."""
        service = PersonService(command(self.options.db, user.name),
                                environment(user.role, self.options.pass_env, width, height,
                                            sign_out=session is not None,
                                            idle_seconds=self.options.idle_minutes * 60), user.name, user.role,
                                download_manager=self.download_manager, debug=self.debug, **writers)
        if session is not None:
            token = session.token
            service.on_sign_out = lambda: self._end_soon(token, "Signed out.", SIGNED_OUT_CLOSE)
        return service

    async def _prestart(self, user: User, session: Session | None) -> None:
        """Start ``user``'s app before their tab connects (none when one is waiting already, or
        the server is full); the tab attaches to it (handle_websocket)."""
        key = _key(user, session)
        if key in self.warm:
            return
        for other in [k for k, s in self.warm.items() if s.user == user.name]:
            await self._drop_warm(other)  # one waiting app per person, however often they sign in
        if len(self.live) + len(self.warm) >= self.options.max_sessions \
                or self._running(user.name) >= self.options.max_per_person:
            return
        width, height = self.sizes.get(user.name, (80, 24))
        service = self._service(user, width, height, session)
        try:
            await service.start(width, height)
        except OSError:
            log.exception("could not pre-start the app of %s", user.name)
            return
        self.warm[key] = service
        log.info("app pre-started for %s (%s), pid %s", user.name, user.role, service.pid)

    async def _drop_warm(self, key: str) -> None:
        service = self.warm.pop(key, None)
        if service is not None:
            await service.stop()

    def _warm_expired(self, key: str, service: PersonService, now: float) -> bool:
        """A pre-started app outlives neither its session nor UNCLAIMED_SECONDS (nor the idle time)."""
        unclaimed = min(UNCLAIMED_SECONDS, self.options.idle_minutes * 60)
        if service.gone or now - service.started > unclaimed:
            return True
        if key.startswith("user:"):
            return False
        session = self.sessions.by_token.get(key)
        return session is None or time.time() - session.started > SESSION_SECONDS

    async def _close_when_ended(self, live: Live) -> None:
        """An app that ends by itself (q, a crash) closes its tab's WebSocket."""
        task = live.service.finished
        if task is not None:
            await asyncio.shield(task)
        await live.ws.close(**ended_by(live.service))

    async def _process_messages(self, websocket: web.WebSocketResponse,  # type: ignore[override, unused-ignore]
                                app_service: PersonService) -> None:
        live = next((x for x in self.live if x.ws is websocket), None)
        async for message in websocket:
            if live is not None and not self._still_valid(live):
                log.info("closing %s's session: the account changed", live.user)
                await websocket.close(code=ACCOUNT_CLOSE, message=ACCOUNT_CHANGED.encode())
                break
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
                kind, data = envelope[0], envelope[1]
            except (ValueError, TypeError, IndexError, KeyError):
                continue
            if kind == "stdin" and isinstance(data, str):
                app_service.last_input = time.monotonic()
                await app_service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                app_service.last_input = time.monotonic()
                await app_service.resize(to_int(str(data.get("width", 80)), 80),
                                                    to_int(str(data.get("height", 24)), 24))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    async def _close_idle(self) -> None:
        """Close the tabs nobody typed in for idle_minutes, saying so."""
        idle = self.options.idle_minutes * 60
        while True:
            await asyncio.sleep(max(0.5, min(30.0, idle / 4, UNCLAIMED_SECONDS / 4)))
            now = time.monotonic()
            for key, service in list(self.warm.items()):
                if self._warm_expired(key, service, now):
                    log.info("stopping %s's unclaimed pre-started app", service.user)
                    await self._drop_warm(key)
            for live in list(self.live):
                if not self._still_valid(live):  # between messages too: a changed account ends its tabs
                    log.info("closing %s's session: the account changed", live.user)
                    await live.ws.close(code=ACCOUNT_CLOSE, message=ACCOUNT_CHANGED.encode())
                elif now - live.service.last_input > idle:
                    log.info("closing %s's idle session", live.user)
                    await live.ws.close(code=IDLE_CLOSE, message=idle_reason(self.options.idle_minutes,
                                                                              live.service.unsaved))

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        """A file the app delivers: only to the person whose app it is."""
        user: User = request["user"]
        try:
            meta = await self.download_manager.get_download_metadata(request.match_info["key"])
        except KeyError:
            raise web.HTTPNotFound(text="no such download") from None
        if getattr(meta.app_service, "user", None) != user.name:
            raise web.HTTPNotFound(text="no such download")
        return await super().handle_download(request)

    # ------------------------------------------------------------ an admin's view of the sessions

    async def handle_sessions(self, request: web.Request) -> web.StreamResponse:
        """Admins only: every signed-in session (person, from where, since when, apps running),
        each with a button that ends it."""
        user: User = request["user"]
        if user.role != "admin":
            raise web.HTTPForbidden(text="admins only")
        now = time.time()
        rows = [{"id": Sessions.short_id(s), "user": s.user, "address": s.address,
                 "minutes": int((now - s.started) // 60),
                 "tabs": sum(x.token == s.token for x in self.live), "warm": s.token in self.warm}
                for s in sorted(self.sessions.by_token.values(), key=lambda s: (s.user, s.started))
                if now - s.started <= SESSION_SECONDS]
        response = aiohttp_jinja2.render_template("sessions.html", request, {"rows": rows, "me": user.name})
        response.headers["Cache-Control"] = "no-store"
        return response

    async def handle_end_session(self, request: web.Request) -> web.StreamResponse:
        if not self._same_origin(request):
            raise web.HTTPForbidden(text="from another site refused")
        user: User = request["user"]
        if user.role != "admin":
            raise web.HTTPForbidden(text="admins only")
        form = await request.post()
        session = self.sessions.by_short_id(str(form.get("id", "")))
        if session is not None:
            log.info("%s ended a session of %s", user.name, session.user)
            self.sessions.end(session.token)
            await self._close_session(session.token, "An admin ended this session: sign in again.")
        raise web.HTTPFound("/sessions")

    # ------------------------------------------------------------ serving

    def serve(self, debug: bool = False) -> None:
        self.debug = debug
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        runner = web.AppRunner(await self._make_app(), handle_signals=False, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.options.host, self.options.port, ssl_context=self.ssl_context)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        port = sockets[0].getsockname()[1] if sockets else self.options.port
        scheme = "https" if self.ssl_context else "http"
        host = f"[{self.options.host}]" if ":" in self.options.host else self.options.host
        print(f"persian-tui web: serving {self.options.db} on {scheme}://{host}:{port}/ "
              f"(at most {self.options.max_sessions} sessions; Ctrl+C stops)", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, stop.set)
            except NotImplementedError:
                pass
        try:
            await stop.wait()
        finally:
            await runner.cleanup()


def _key(user: User, session: Session | None) -> str:
    return session.token if session is not None else f"user:{user.name}"


def _random_secret() -> bytes:
    import secrets

    return secrets.token_bytes(32)


def ended_by(service: PersonService | None) -> dict[str, Any]:
    """How a tab whose app ended by itself closes: its code and the reason its end card shows."""
    status = None if service is None else service.exit_status
    if status in (0, None):
        return {"code": 1000, "message": b"The app was closed. Saved labels are kept."}
    return {"code": 1011, "message": f"The app stopped unexpectedly (exit status {status}). Saved labels are kept."
            .encode()}


def idle_reason(minutes: float, unsaved: str) -> bytes:
    """An idle close's reason, what the end card shows: the unsaved work it dropped named (the
    app's first line of it), within a close frame's 123 bytes."""
    said = f"Closed after {minutes:g} minutes without a key. Saved labels are kept."
    if unsaved:
        said = f"Closed after {minutes:g} minutes without a key. Not saved: {unsaved}"
    data = said.encode()
    return data if len(data) <= 123 else data[:120].decode("utf-8", "ignore").encode() + "…".encode()
