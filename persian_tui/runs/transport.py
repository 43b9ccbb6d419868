"""The HTTP transport under every `openai` client the tool makes (chat, judge, embeddings): each
reply body is counted while it is read and refused past a cap, compressed bodies (gzip, deflate)
are inflated here in small steps and the inflated size counted too (a gzip bomb stops at the cap,
in milliseconds, the event loop never blocked), other encodings are refused, redirects are never
followed (the caller sees the 3xx: a redirected POST is not an answer). Sync transports also hold
a deadline for the whole reply (the async caller holds its own with asyncio.timeout)."""

from __future__ import annotations

import asyncio
import importlib
import time
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

STEP = 64 * 1024  # inflated bytes per decompression step
CHAT_REPLY_BYTES = 32 * 2**20  # a chat reply's body, inflated (MAX_REPLY_CHARS of JSON-escaped text fit)
EMBED_REPLY_BYTES = 64 * 2**20  # an embeddings reply's body, inflated
ACCEPTED = "gzip, deflate"


class ReplyTooLarge(Exception):
    """A reply body past its cap (while it was read, before it was kept)."""


class ReplyEncodingError(Exception):
    """A reply in a content encoding the tool does not read, or a corrupt compressed body."""


def http_module() -> Any:
    """The HTTP library the installed openai client is built on (httpx2, or httpx before it)."""
    try:
        return importlib.import_module("httpx2")
    except ImportError:
        return importlib.import_module("httpx")


class Inflater:
    """One body's bytes as read -> its bytes as meant, never more than ``cap`` of either."""

    def __init__(self, encoding: str | None, cap: int):
        self.cap, self.read, self.size = cap, 0, 0
        enc = (encoding or "").strip().lower()
        if enc in ("", "identity"):
            self.z = None
        elif enc in ("gzip", "x-gzip"):
            self.z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif enc == "deflate":
            self.z = zlib.decompressobj()
        else:
            raise ReplyEncodingError(f"the reply's content encoding {enc[:40]!r} is not one the tool reads "
                                     f"({ACCEPTED} or none)")

    def _count(self, n: int) -> None:
        self.size += n
        if self.size > self.cap:
            raise ReplyTooLarge(f"the reply is larger than {self.cap // 2**20} MB"
                                + (" inflated" if self.z is not None else ""))

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        self.read += len(chunk)
        if self.z is None:
            self._count(len(chunk))
            yield chunk
            return
        data = chunk
        try:
            while True:
                out = self.z.decompress(data, STEP)
                data = self.z.unconsumed_tail
                if out:
                    self._count(len(out))
                    yield out
                if self.z.eof or (not data and len(out) < STEP):
                    return
        except zlib.error as e:
            raise ReplyEncodingError(f"the reply's compressed body is corrupt ({e})") from None

    def end(self) -> bytes:
        if self.z is None:
            return b""
        try:
            out = self.z.flush(STEP)
        except zlib.error as e:
            raise ReplyEncodingError(f"the reply's compressed body is corrupt ({e})") from None
        self._count(len(out))
        return out


def _plain_headers(headers: Any) -> list[tuple[bytes, bytes]]:
    """The reply's headers without those of the encoding undone here."""
    return [(k, v) for k, v in headers.raw if k.lower() not in (b"content-encoding", b"content-length")]


def _prepare(request: Any) -> None:
    request.headers["Accept-Encoding"] = ACCEPTED


def capped_async(inner: Any, cap: int) -> Any:
    """``inner`` (an async transport) with every reply capped and inflated here."""
    http = http_module()

    class Stream(http.AsyncByteStream):  # type: ignore[name-defined]
        def __init__(self, raw: Any, inflater: Inflater):
            self.raw, self.inflater = raw, inflater

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in self.raw:
                for out in self.inflater.feed(chunk):
                    yield out
                if self.inflater.z is not None:  # a compressed body never holds the loop for long
                    await asyncio.sleep(0)  # (a plain one is read as it arrives: no turn lost)
            if tail := self.inflater.end():
                yield tail

        async def aclose(self) -> None:
            await self.raw.aclose()

    class Transport(http.AsyncBaseTransport):  # type: ignore[name-defined]
        async def handle_async_request(self, request: Any) -> Any:
            _prepare(request)
            response = await inner.handle_async_request(request)
            try:
                inflater = Inflater(response.headers.get("content-encoding"), cap)
            except ReplyEncodingError:
                await response.aclose()
                raise
            return http.Response(response.status_code, headers=_plain_headers(response.headers),
                                 stream=Stream(response.stream, inflater), request=request,
                                 extensions=response.extensions)

        async def aclose(self) -> None:
            await inner.aclose()

    return Transport()


def capped_sync(inner: Any, cap: int, deadline_seconds: float) -> Any:
    """``inner`` (a sync transport) with every reply capped, inflated here, and read whole
    within ``deadline_seconds`` of the request (a reply dripping a byte at a time ends too)."""
    http = http_module()

    class Stream(http.SyncByteStream):  # type: ignore[name-defined]
        def __init__(self, raw: Any, inflater: Inflater, deadline: float):
            self.raw, self.inflater, self.deadline = raw, inflater, deadline

        def __iter__(self) -> Iterator[bytes]:
            for chunk in self.raw:
                if time.monotonic() > self.deadline:
                    raise http.ReadTimeout(f"no complete reply within {deadline_seconds:g} s")
                yield from self.inflater.feed(chunk)
            if tail := self.inflater.end():
                yield tail

        def close(self) -> None:
            self.raw.close()

    class Transport(http.BaseTransport):  # type: ignore[name-defined]
        def handle_request(self, request: Any) -> Any:
            deadline = time.monotonic() + deadline_seconds
            _prepare(request)
            response = inner.handle_request(request)
            try:
                inflater = Inflater(response.headers.get("content-encoding"), cap)
            except ReplyEncodingError:
                response.close()
                raise
            return http.Response(response.status_code, headers=_plain_headers(response.headers),
                                 stream=Stream(response.stream, inflater, deadline), request=request,
                                 extensions=response.extensions)

        def close(self) -> None:
            inner.close()

    return Transport()


def cap_client(client: Any, cap: int) -> Any:
    """An httpx(2) client (sync or async) whose transports, its proxies' too, are capped as
    above; returned for chaining."""
    if hasattr(client, "aclose"):
        wrap = lambda inner: capped_async(inner, cap)  # noqa: E731
    else:
        seconds = client.timeout.read or client.timeout.connect or 60.0
        wrap = lambda inner: capped_sync(inner, cap, seconds)  # noqa: E731
    client._transport = wrap(client._transport)
    client._mounts = {pattern: None if t is None else wrap(t) for pattern, t in client._mounts.items()}
    return client
