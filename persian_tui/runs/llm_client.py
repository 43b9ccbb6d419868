"""Chat completions through the official `openai` client against any OpenAI-compatible URL,
with the one retry layer (exponential backoff + jitter, honouring Retry-After).

The API key is read from the environment variable the caller names; it is never stored."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import math
import random
import socket
import ssl
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, overload
from urllib.parse import urlsplit

from .. import redact, settings
from ..text import storable

if TYPE_CHECKING:
    from .pace import RunPace

RETRY_STATUSES = {408, 409, 425, 429, 500, 502, 503, 504}
# failed for good with these, the endpoint or the account is failing, not the item (a 400 is the item's)
UNAVAILABLE_STATUSES = RETRY_STATUSES | {402, 404}
MAX_TOKENS = 10**9  # a usage figure above this is not believed
MAX_COST = 10**6
MAX_REPLY_CHARS = 1_000_000  # a longer reply is kept as its head and tail (stored and read)
MAX_WAIT = 120.0  # seconds of retry waits per request, in total (Retry-After included)
# a refused connection (nothing listens, no such host) is retried this often, shortly: it is not
# a busy server (429/5xx) that backing off helps, and a run against it must fail within seconds
CONNECT_RETRIES = 1
CONNECT_BACKOFF = 0.5


class LLMError(Exception):
    """A request that failed for good (after retries); the message is safe to store (secrets
    redacted). `kind`: connect (no connection could be made: refused, unknown host) | connection
    (dropped mid-request) | tls (the certificate or the TLS handshake failed: never retried) |
    timeout | auth | unavailable (429, 5xx, 402, 404 after the retries) | status (other HTTP
    errors, e.g. 400: the item's; a redirect, never followed) | invalid. All but status and
    invalid are what the circuit breaker counts (connect and tls the fastest)."""

    def __init__(self, message: str, kind: str = "status"):
        super().__init__(message)
        self.kind = kind

    @property
    def unreachable(self) -> bool:
        return self.kind in ("connect", "tls", "connection", "timeout", "auth", "unavailable")


@dataclass
class Completion:
    text: str | None
    reasoning: str | None
    tokens_in: int | None
    tokens_out: int | None
    cost: float | None
    latency: float  # seconds, of the successful attempt
    cached: bool = False
    warning: str | None = None  # reply fields that were ignored (wrong type or range)

    def to_cache(self) -> dict:
        d = asdict(self)
        d.pop("cached")
        return d


def cache_key(base_url: str, model: str, messages: list[dict], params: dict,
              response_format: dict | None, repeat: int = 0) -> str:
    """Everything that changes the output, hashed."""
    blob = json.dumps({"base_url": base_url.rstrip("/"), "model": model, "messages": messages,
                       "params": params, "response_format": response_format, "repeat": repeat},
                      sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


# The first retry waits 0.375-0.5 s, then twice as long each time (the openai client's own
# schedule: 0.5 s, jitter down to 75 %); a Retry-After is honoured as given instead.
BACKOFF = 0.5


def _retry_after(error: Exception) -> float | None:
    """The wait a refusal asks, in seconds: `retry-after-ms` (OpenAI's, Azure's), else
    `Retry-After` as seconds or an HTTP date (RFC 9110 10.2.3); None when it asks none readable."""
    response = getattr(error, "response", None)
    if response is None:
        return None
    headers = response.headers
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        seconds: float | None
        try:
            seconds = float(value) / scale
        except ValueError:
            seconds = _http_date_wait(value) if scale == 1.0 else None
        if seconds is not None and math.isfinite(seconds):
            return max(0.0, seconds)
    return None


def _http_date_wait(value: str) -> float | None:
    from email.utils import parsedate_to_datetime

    try:
        return parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


class LLMClient:
    def __init__(self, base_url: str, model: str, *, api_key_env: str = "OPENAI_API_KEY",
                 timeout: float = 60.0, max_retries: int = 4, backoff: float = BACKOFF,
                 max_backoff: float = 60.0, max_wait: float = MAX_WAIT, pace: RunPace | None = None):
        redact.check_env_name(api_key_env)
        self.base_url, self.model, self.timeout = base_url, model, timeout
        self.shown_url = redact.url(base_url)  # what messages quote: no password
        # redacted from any echoed error: the key, and the URL's password in any form
        self.keys = redact.env_keys(api_key_env) + redact.url_secrets(base_url)
        self.max_retries, self.backoff, self.max_backoff = max_retries, backoff, max_backoff
        self.max_wait = max_wait  # the retry waits of one request add up to at most this
        self._api_key = settings.api_key(api_key_env) or "not-set"
        self._client: Any = None  # the openai client, and the event loop it was made in (see client)
        self._loop: asyncio.AbstractEventLoop | None = None
        self.response_type: Any = _response_type()
        self.answering = False  # the endpoint answered the last attempt (a retry may give up its slot)
        self.pace = pace  # a sweep's run: the endpoint's shared client and limits, the budgets

    @property
    def client(self) -> Any:
        """The openai client of the running event loop, made there on first use (again when the
        loop is another): its transport's connections belong to that loop. The transport is the client's own aiohttp one
        (`DefaultAioHttpClient`): about 0.6 ms less CPU per request than its default httpx stack
        (bench/bench_endpoint.py, case c). The client's own retries are off: one retry layer, ours."""
        if self.pace is not None:  # shared by the runs on the endpoint (closed by the sweep)
            return self.pace.endpoint.client(make_openai_client)
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if self._client is None or loop is not self._loop:
            self._client = make_openai_client(self.base_url, self._api_key, self.timeout)
            self._loop = loop
        return self._client

    async def close(self) -> None:
        """Close the client (its connections) when it is the running loop's (and its own)."""
        if self._client is not None and self._loop is asyncio.get_running_loop():
            client, self._client = self._client, None
            await client.close()

    def _delay(self, attempt: int, error: Exception) -> float:
        hinted = _retry_after(error)
        if hinted is not None:
            return hinted  # honoured as given: a wait past the budget gives up instead
        return min(self.max_backoff, self.backoff * 2 ** attempt) * random.uniform(0.75, 1.0)

    async def complete(self, messages: list[dict], *, params: dict[str, Any],
                       response_format: dict | None = None,
                       gate: asyncio.Semaphore | None = None) -> Completion:
        """`gate`: the run's concurrency slot the caller holds. While a retry waits it is given up
        (a request backing off is not in flight: another may use the connection) when the
        endpoint answered the attempt before the failed one: one busy reply among good ones.
        When it answers nothing (out of quota, down) the slot is kept, so a failing endpoint is
        not asked more questions at once than the limit."""
        import openai

        from .transport import ReplyEncodingError, ReplyTooLarge

        # the body as plain JSON data, posted as is: the client's typed create() would walk every
        # message through its TypedDict transform (about a millisecond of CPU per request)
        body: dict[str, Any] = {"model": self.model, "messages": messages, **params}
        if response_format:
            body["response_format"] = response_format
        waited = 0.0
        refused = 0
        cause: Exception
        error: LLMError
        pace = self.pace
        for attempt in range(self.max_retries + 1):
            ticket = await pace.begin(body) if pace is not None else None  # BudgetReached: not asked
            start = time.perf_counter()
            try:
                # a deadline for the whole request, body included (a dripping reply cannot outlast
                # it); a timeout scope, not wait_for: no second task per request
                async with asyncio.timeout(self.timeout):
                    raw = await self.client.post("/chat/completions", body=body, cast_to=self.response_type,
                                                 options=_quiet(attempt))
                reply = completion_of(self._parsed(raw), time.perf_counter() - start,
                                      content_type=raw.headers.get("content-type"))
                self.answering = True
                if pace is not None and ticket is not None:
                    pace.end(ticket, reply=reply)
                return reply
            except asyncio.CancelledError:
                if pace is not None and ticket is not None:
                    pace.end(ticket)
                raise
            except openai.APIStatusError as e:
                cause, retry = e, e.status_code in RETRY_STATUSES
                kind = "auth" if e.status_code in (401, 403) else \
                    "unavailable" if e.status_code in UNAVAILABLE_STATUSES else "status"
                error = self._error(f"HTTP {e.status_code} from {self.shown_url}: {_message(e)}", kind)
                if moved := redirect_of(e):
                    error = self._error(f"{moved} from {self.shown_url}", "status")
            except (TimeoutError, openai.APITimeoutError) as e:
                cause, retry = e, True
                error = self._error(f"timeout: no complete reply from {self.shown_url} "
                                    f"within {self.timeout:g} s", "timeout")
                if tls := _tls_failure(e):  # aiohttp's transport calls a bad certificate a timeout too
                    error, retry = self._error(f"TLS error with {self.shown_url}: {_short(tls)}", "tls"), False
                elif refusal := _never_connected(e):  # aiohttp's transport calls a refused connection a timeout
                    error = self._error(f"cannot connect to {self.shown_url}: {_short(refusal)}", "connect")
                    refused += 1
                    retry = refused <= CONNECT_RETRIES
            except openai.APIConnectionError as e:
                cause, retry = e, True
                cause_text = f" ({e.__cause__})" if e.__cause__ and str(e.__cause__) else ""  # refused, decoding ...
                never = _never_connected(e) is not None
                error = self._error(f"cannot connect to {self.shown_url}: {e}{cause_text}",
                                    "connect" if never else "connection")
                refused += never
                retry = not never or refused <= CONNECT_RETRIES
                if tls := _tls_failure(e):  # a certificate does not fix itself: asked once
                    error, retry = self._error(f"TLS error with {self.shown_url}: {_short(tls)}", "tls"), False
            except (ReplyTooLarge, ReplyEncodingError) as e:  # refused while it was read: asking again gets the same
                cause, retry = e, False
                error = self._error(f"reply refused from {self.shown_url}: {e}", "invalid")
            except Exception as e:  # noqa: BLE001 - any other shape of reply is data, not a crash
                cause, retry = e, False
                error = self._error(f"malformed reply from {self.shown_url}: {_short(e)}", "invalid")
            answered, self.answering = self.answering, False
            status = getattr(cause, "status_code", None)
            if pace is not None and ticket is not None:
                pace.end(ticket, status=status, retry_after=_retry_after(cause))
            if not retry or attempt == self.max_retries:
                raise error from cause
            delay = CONNECT_BACKOFF if error.kind == "connect" else self._delay(attempt, cause)
            if pace is not None:
                pace.retried(attempt, status, error.kind, delay, str(error))
            if waited + delay > self.max_wait:  # bounded in total, whatever the endpoint asks
                raise LLMError(f"{error} (gave up: retrying would wait {delay:.3g} s more, "
                               f"past the {self.max_wait:g} s retry budget)"[:600], error.kind) from cause
            waited += delay
            if gate is None or not answered:
                await asyncio.sleep(delay)
                continue
            gate.release()
            try:
                await asyncio.sleep(delay)
            finally:
                await gate.acquire()
        raise AssertionError("unreachable")

    def _parsed(self, response) -> Any:
        """The reply as the client's typed create() hands it back (the same steps as its
        parse(): JSON by content type, else the text): a JSON object is read through `Fields`
        (what the client's unvalidated models give, without building them), anything else as
        the client builds it."""
        content_type = response.headers.get("content-type", "*").split(";")[0]
        if content_type.endswith("json"):
            data = json.loads(response.content)
        else:
            try:
                data = json.loads(response.content)
            except Exception:  # noqa: BLE001 - not JSON: the text, as the client gives it
                return response.text
        if isinstance(data, dict):
            return Fields(data)
        from openai.types.chat import ChatCompletion

        return self.client._process_response_data(data=data, cast_to=ChatCompletion, response=response)

    def _error(self, message: str, kind: str) -> LLMError:
        return LLMError((storable(redact.text(message, keys=self.keys)) or "")[:500], kind)



_frozen = False
YOUNG_COLLECTION = 10_000  # allocations between young collections (Python's default: 700)
TELEMETRY_HEADERS = ("X-Stainless-Lang", "X-Stainless-Package-Version", "X-Stainless-OS", "X-Stainless-Arch",
                     "X-Stainless-Runtime", "X-Stainless-Runtime-Version", "X-Stainless-Async")


def settle_gc() -> None:
    """Once a process, before a run's requests: import the openai client, freeze what is loaded
    out of the cyclic garbage collector, and collect young objects less often. Otherwise every
    full collection rescans the client's and pydantic's hundreds of thousands of long-lived
    objects, and a request's objects, alive for its reply's 0.1-1 s, outlive two young
    collections and are promoted, so that full collections come every few seconds (0.1-0.5 s
    each, the event loop stopped; about 15 % of a sweep's CPU, bench/bench_sweep.py). With young
    collections every 10,000 allocations, a request's objects mostly die young. The collector is
    off while the client is imported (it rescanned the import's own objects: 30 ms of 0.39 s),
    and what it loaded is frozen as it is, as the gc module's documentation does before a fork:
    a full collection first would scan 90,000 objects (50 ms before the first request) for about
    1,200 of garbage (240 KB, kept for the process's life: a frozen cycle is never collected)."""
    global _frozen
    if not _frozen:
        import gc

        was = gc.isenabled()
        gc.disable()
        try:
            import openai  # noqa: F401 - loaded before the freeze
        finally:
            if was:
                gc.enable()
        gc.freeze()
        gc.set_threshold(YOUNG_COLLECTION, 20)
        _frozen = True


@functools.cache
def _quiet(attempt: int = 0) -> dict:
    """A request's options: without the two telemetry headers the client adds to each request
    (its retry count, its read timeout) unless the request names them; a retry (`attempt` 1,
    2 ...) says it is one with the retry count the client's own retries send, so that an
    endpoint or a rate limiter that tells retries from first attempts sees ours as retries."""
    from openai import Omit

    return {"headers": {"X-Stainless-Retry-Count": str(attempt) if attempt else Omit(),
                        "X-Stainless-Read-Timeout": Omit()}}


def make_openai_client(base_url: str, api_key: str, timeout: float) -> Any:
    """An openai client of the running event loop on the client's aiohttp transport, its own
    retries off (one retry layer: LLMClient's)."""
    from openai import AsyncOpenAI, DefaultAioHttpClient, DefaultAsyncHttpxClient, Omit

    from .transport import CHAT_REPLY_BYTES, cap_client

    # aiohttp refuses credentials in the URL beside the client's key header: such a URL keeps
    # httpx, which sends them as Basic auth. Either way the reply is capped while it is read and
    # a redirect is never followed (transport.py)
    kind = DefaultAsyncHttpxClient if urlsplit(base_url).password is not None else DefaultAioHttpClient
    http = cap_client(kind(timeout=timeout, follow_redirects=False), CHAT_REPLY_BYTES)
    # the client's telemetry headers (its platform, its retry count...) are not sent: each is
    # built, merged and copied again for every request, and an endpoint needs none of them
    quiet: dict[str, Any] = {name: Omit() for name in TELEMETRY_HEADERS}  # Omit: the client drops it
    return AsyncOpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0, http_client=http,
                       default_headers=quiet)


class Fields:
    """A JSON object read as the client's unvalidated models read it: its keys as attributes (an
    absent one None), nested objects alike, and itself as `model_extra` (looked up only for keys
    the chat models do not declare: error, reasoning, reasoning_content, cost). The tests check
    completion_of gives the same through it as through the client's models."""

    __slots__ = ("_data",)

    def __init__(self, data: dict):
        self._data = data

    def __getattr__(self, name: str) -> Any:
        if name == "model_extra":
            return self._data
        return _fields(self._data.get(name))


def _fields(value: Any) -> Any:
    if isinstance(value, dict):
        return Fields(value)
    if isinstance(value, list):
        return [_fields(v) for v in value]
    return value


def _response_type() -> type:
    """The raw response class of the HTTP library the installed openai client is built on
    (asked for with cast_to, the client hands the response back unparsed)."""
    import importlib

    try:
        return importlib.import_module("httpx2").Response
    except ImportError:  # openai before its httpx2
        return importlib.import_module("httpx").Response


def redirect_of(error: Exception) -> str | None:
    """What a 3xx reply says (never followed: a POST sent on as a GET is not an answer)."""
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    if not isinstance(status, int) or not 300 <= status < 400:
        return None
    location = (response.headers.get("location") or "") if response is not None else ""
    to = f" to {(redact.url(location) or '')[:200]}" if location else ""
    return f"redirected (HTTP {status}{to}), not followed: give the final URL as the base URL"


def _tls_failure(error: BaseException) -> BaseException | None:
    """The TLS failure (a certificate not trusted, a handshake refused) behind a transport's
    error, if any: named as what it is, never a timeout, never retried."""
    seen: BaseException | None = error
    for _ in range(6):
        if seen is None:
            return None
        if isinstance(seen, ssl.SSLError | ssl.CertificateError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _never_connected(error: BaseException) -> BaseException | None:
    """The cause saying the request never reached the server, if any: the transport's
    ConnectError (refused, no such host; httpx's class, whichever copy the openai client
    bundles), or under the aiohttp transport the refusal or failed name lookup itself."""
    seen = error
    for _ in range(5):
        parent = seen.__cause__ or seen.__context__
        if parent is None:
            return None
        seen = parent
        if type(seen).__name__ == "ConnectError" or isinstance(seen, ConnectionRefusedError | socket.gaierror):
            return seen
    return None


def completion_of(reply, latency: float, content_type: str | None = None) -> Completion:
    """Validate a chat completion of any shape: choices a non-empty list whose first message
    has text (a string) or none; usage figures non-negative integers, cost finite. A wrong
    shape of the answer raises ValueError; a wrong usage figure is dropped with a warning."""
    if not hasattr(reply, "choices"):  # the client hands back what is not an object as is
        if isinstance(reply, str) and "json" not in (content_type or ""):
            shown = f" ({_snippet(content_type.split(';')[0])})" if content_type else ""
            raise ValueError(f"the reply is not JSON{shown}: {_snippet(reply)}")
        raise ValueError(f"the reply is not a completion object: {_snippet(reply)}")
    choices = getattr(reply, "choices", None)
    error = (getattr(reply, "model_extra", None) or {}).get("error")
    if choices is None and error:  # a 200 that is an error object
        inner = error.get("message") or error if isinstance(error, dict) else error
        raise ValueError(f"the endpoint answered with an error: {_snippet(inner)}")
    if not isinstance(choices, list) or not choices:
        raise ValueError(f"choices should be a non-empty list, got {_kind(choices)}")
    if isinstance(choices[0], (str, int, float, list)) or choices[0] is None:
        raise ValueError(f"choices[0] should be an object, got {_kind(choices[0])}")
    message = getattr(choices[0], "message", None)
    if message is None or isinstance(message, (str, int, float, list)):
        raise ValueError(f"choices[0].message should be an object, got {_kind(message)}")
    text = getattr(message, "content", None)
    if text is not None and not isinstance(text, str):
        raise ValueError(f"message content should be text, got {_kind(text)}")
    refusal = getattr(message, "refusal", None)
    if text is None and isinstance(refusal, str) and refusal.strip():
        text = refusal  # structured outputs: the model's refusal is its reply
    warnings: list[str] = []
    text = cut_long(storable(text), "reply", warnings)
    finish = getattr(choices[0], "finish_reason", None)
    if finish is not None and not isinstance(finish, str):
        warnings.append(f"finish_reason {_kind(finish)} ignored")
    elif finish == "length":
        warnings.append("reply cut short at the token limit (finish_reason length)")
    extra = getattr(message, "model_extra", None) or {}
    reasoning = extra.get("reasoning") or extra.get("reasoning_content")
    reasoning = cut_long(storable(reasoning), "reasoning", warnings) if isinstance(reasoning, str) else None
    usage = getattr(reply, "usage", None)
    if usage is not None and not hasattr(usage, "prompt_tokens"):
        warnings.append(f"usage {_kind(usage)} ignored")
        usage = None
    tokens_in = _count(getattr(usage, "prompt_tokens", None), "prompt_tokens", warnings)
    tokens_out = _count(getattr(usage, "completion_tokens", None), "completion_tokens", warnings)
    cost = (getattr(usage, "model_extra", None) or {}).get("cost") if usage is not None else None
    if cost is not None:
        if isinstance(cost, bool) or not isinstance(cost, (int, float)) or not math.isfinite(cost) \
                or not 0 <= cost <= MAX_COST:
            warnings.append(f"cost {_kind(cost)} ignored")
            cost = None
    return Completion(text=text, reasoning=reasoning if isinstance(reasoning, str) else None,
                      tokens_in=tokens_in, tokens_out=tokens_out,
                      cost=float(cost) if cost is not None else None, latency=latency,
                      warning="; ".join(warnings) or None)


@overload
def cut_long(text: str, name: str, warnings: list[str]) -> str: ...
@overload
def cut_long(text: str | None, name: str, warnings: list[str]) -> str | None: ...
def cut_long(text: str | None, name: str, warnings: list[str]) -> str | None:
    """A text longer than MAX_REPLY_CHARS kept as its head and tail (an answer usually closes a
    long reply), the cut noted: a hostile endpoint cannot grow the database by megabytes a row."""
    if text is None or len(text) <= MAX_REPLY_CHARS:
        return text
    half = MAX_REPLY_CHARS // 2
    warnings.append(f"{name} of {len(text)} characters cut to its first and last {half}")
    return f"{text[:half]}\n[… {len(text) - 2 * half} characters cut …]\n{text[-half:]}"


def _count(value, name: str, warnings: list[str]) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        warnings.append(f"{name} {_kind(value)} ignored")
        return None
    return value


def _kind(value) -> str:
    """A short, safe description of a value of the wrong shape."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        text = repr(value)
        return text if len(text) <= 24 else f"a {len(text)}-digit number"
    if isinstance(value, str):
        return f"text {value[:24]!r}" if len(value) <= 24 else f"text of {len(value)} characters"
    if isinstance(value, Fields):  # where the client's models keep a JSON object as is
        return "dict"
    return "nothing" if value is None else type(value).__name__


def _snippet(value) -> str:
    """The start of a reply that is not what was asked for, on one line."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text[:120] + ("…" if len(text) > 120 else "") if text else "(empty)"


def _short(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0][:200]


def _message(e: Exception) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
    return str(e)[:300]
