"""The HTTP transport under every hosted backend (private to ``tooleval.providers``): one
``httpx`` client whose connections tooleval controls, also handed to the SDKs (Anthropic's
``http_client``, google-genai's ``httpx_client``), so the rules below hold for every backend.

- **A whole-request deadline.** Every connect, socket read and write gets at most the time
  left until the request's deadline (``deadline_s`` after it started), so a server that drips
  one byte a second, in its headers or its body, ends in a ``timeout`` like a silent one.
  (``httpx`` timeouts alone bound the gap between two reads, not the request.)
- **One origin.** A request to another scheme, host or port is refused before it is sent, and
  redirects are never followed: the SDKs' own clients follow them, and a key header such as
  ``x-api-key`` or ``x-goog-api-key`` would travel along to the other host.
- **Bounded answers.** At most ``MAX_BODY_BYTES`` after decoding. gzip and deflate (the only
  encodings asked for) are decoded here in bounded steps, so a compression bomb stops at the
  bound; an encoding that was not asked for is refused.
- **UTF-8 answers.** A successful (2xx) body must be UTF-8, as JSON requires; anything else is
  refused before an SDK turns it into replacement characters and it is scored as an answer.

The same transport serves ``httpx`` + ``httpcore`` (the OpenAI-compatible backend,
google-genai) and their fork ``httpx2`` + ``httpcore2`` (the Anthropic SDK); ``Stack`` names
the pair. Proxies from the environment (``HTTPS_PROXY``, ``HTTP_PROXY``, ``ALL_PROXY``,
``NO_PROXY``) are honoured for http(s) proxy URLs. Refusals are ``RefusedResponse`` and
``RefusedRequest`` (``httpx`` errors), which the provider modules map to ``invalid_body`` and
``client_error``.
"""

from __future__ import annotations

import codecs
import importlib
import logging
import ssl
import threading
import time
import urllib.request
import zlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

import httpx

from tooleval.providers.presets import origin
from tooleval.redaction import mentions_secret, redact

MAX_BODY_BYTES = 16 * 2**20
DECODE_STEP = 64 * 2**10
ACCEPT_ENCODING = "gzip, deflate"


class RefusedResponse(httpx.DecodingError):
    """An answer tooleval will not read: too large, not UTF-8, or in an unasked encoding."""


class RefusedRequest(httpx.RequestError):
    """A request tooleval will not send: to another origin than the backend's."""


@dataclass(frozen=True)
class Stack:
    """An HTTP client library and the connection library under it (same API, two names)."""

    http: Any  # httpx or httpx2
    core: Any  # httpcore or httpcore2

    def error(self, name: str) -> Any:
        """The client library's exception class ``name`` (``ReadTimeout``, ...)."""
        return getattr(self.http, name)


@cache
def stack(name: str = "httpx") -> Stack:
    """``httpx`` (+ httpcore) or ``httpx2`` (+ httpcore2, Anthropic's SDK)."""
    core = {"httpx": "httpcore", "httpx2": "httpcore2"}[name]
    return Stack(importlib.import_module(name), importlib.import_module(core))


# --- logs -----------------------------------------------------------------------------------


class RedactingFilter(logging.Filter):
    """Masks known secrets in the log records of the HTTP libraries and SDKs (``httpx`` logs
    every request's URL at INFO, and a URL may carry a ``?key=``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if mentions_secret(message):
            record.msg, record.args = redact(message), None
        return True


LOGGERS = ("httpx", "httpx2", "httpcore.connection", "httpcore.http11", "httpcore.proxy",
           "anthropic._base_client", "google_genai._api_client")  # fmt: skip
for _name in LOGGERS:
    logging.getLogger(_name).addFilter(RedactingFilter())


# --- the deadline ---------------------------------------------------------------------------

_deadline = threading.local()


def _time_left(timeout: float | None, error: type[Exception]) -> float | None:
    """``timeout`` cut to the time left until this thread's request deadline."""
    deadline: float | None = getattr(_deadline, "at", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise error(f"the whole request took longer than {_deadline.seconds:g} s")
    return left if timeout is None else min(timeout, left)


class DeadlineStream:
    """A connection (an httpcore ``NetworkStream``) whose every operation ends by the current
    request's deadline."""

    def __init__(self, inner: Any, core: Any) -> None:
        self._inner = inner
        self._core = core

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = self._inner.read(max_bytes, _time_left(timeout, self._core.ReadTimeout))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _time_left(timeout, self._core.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> DeadlineStream:
        left = _time_left(timeout, self._core.ConnectTimeout)
        return DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, left), self._core)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend:
    """An httpcore ``NetworkBackend`` whose connections are ``DeadlineStream``s."""

    def __init__(self, core: Any) -> None:
        self._core = core
        self._inner = core.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> DeadlineStream:
        left = _time_left(timeout, self._core.ConnectTimeout)
        inner = self._inner.connect_tcp(host, port, left, local_address, socket_options)
        return DeadlineStream(inner, self._core)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> DeadlineStream:
        left = _time_left(timeout, self._core.ConnectTimeout)
        inner = self._inner.connect_unix_socket(path, left, socket_options)
        return DeadlineStream(inner, self._core)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


# --- httpcore errors as httpx errors --------------------------------------------------------

_ERROR_NAMES = (  # most specific first
    "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "ConnectError", "ReadError",
    "WriteError", "ProxyError", "UnsupportedProtocol", "RemoteProtocolError",
    "LocalProtocolError", "TimeoutException", "NetworkError", "ProtocolError",
)  # fmt: skip


@contextmanager
def client_errors(kit: Stack, request: Any) -> Iterator[None]:
    """Raise httpcore's errors as the matching errors of the client library."""
    try:
        yield
    except (httpx.HTTPError, kit.http.HTTPError):
        raise
    except Exception as exc:
        for name in _ERROR_NAMES:
            if isinstance(exc, getattr(kit.core, name)):
                mapped = kit.error(name)
                raise mapped(str(exc) or type(exc).__name__, request=request) from exc
        raise


# --- bounded, decoded, checked bodies -------------------------------------------------------


def _decompressor(encoding: str) -> Any:
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj(zlib.MAX_WBITS)
    raise RefusedResponse(f"content-encoding {encoding!r} was not asked for")


class BodyGuard:
    """The body of one answer: decoded in bounded steps, at most ``limit`` bytes, UTF-8 when
    ``utf8``; closing it ends the request's deadline. Mixed into the client library's
    ``SyncByteStream`` (``body_class``)."""

    def __init__(
        self, raw: Any, kit: Stack, request: Any, encoding: str, limit: int, utf8: bool
    ) -> None:
        self._raw = raw
        self._kit = kit
        self._request = request
        self._decompressor = _decompressor(encoding)
        self._limit = limit
        self._size = 0
        self._utf8 = codecs.getincrementaldecoder("utf-8")() if utf8 else None

    def _check(self, data: bytes, final: bool = False) -> bytes:
        self._size += len(data)
        if self._size > self._limit:
            raise RefusedResponse(f"the answer is larger than {self._limit} bytes")
        if self._utf8 is not None:
            try:
                self._utf8.decode(data, final)
            except UnicodeDecodeError as exc:
                at = self._size - len(data) + exc.start + 1
                raise RefusedResponse(f"not UTF-8 ({exc.reason} at byte {at})") from None
        return data

    def _decoded(self, chunk: bytes) -> Iterator[bytes]:
        if self._decompressor is None:
            yield self._check(chunk)
            return
        data = chunk
        while data:
            try:
                piece = self._decompressor.decompress(data, DECODE_STEP)
            except zlib.error as exc:
                raise RefusedResponse(f"the compressed answer is corrupt ({exc})") from None
            yield self._check(piece)
            data = self._decompressor.unconsumed_tail

    def __iter__(self) -> Iterator[bytes]:
        with client_errors(self._kit, self._request):
            for chunk in self._raw:
                yield from self._decoded(chunk)
        if self._decompressor is not None:
            rest = self._decompressor.flush()
            if rest:
                yield self._check(rest)
            if not self._decompressor.eof:
                raise RefusedResponse("the compressed answer is corrupt or cut short")
        self._check(b"", final=True)

    def close(self) -> None:
        _deadline.at = None
        with client_errors(self._kit, self._request):
            self._raw.close()


@cache
def body_class(kit: Stack) -> type[BodyGuard]:
    """``BodyGuard`` as a ``SyncByteStream`` of ``kit``'s client library."""
    return type("BodyGuard", (BodyGuard, kit.http.SyncByteStream), {})


# --- the transport --------------------------------------------------------------------------


def _proxy_url(scheme: str, host: str) -> str | None:
    """The http(s) proxy the environment names for a URL (None: connect directly)."""
    proxies = urllib.request.getproxies_environment()
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
    if not proxies or bypass(host):
        return None
    found = proxies.get(scheme) or proxies.get("all")
    if found is None:
        return None
    if not found.startswith(("http://", "https://")):
        raise ValueError(f"only http(s) proxies are supported, not {found!r}")
    return found


def _pool(kit: Stack, base_url: str) -> Any:
    scheme, host, _ = origin(base_url)
    common: dict[str, Any] = {
        "ssl_context": kit.http.create_ssl_context(),
        "max_connections": None,
        "max_keepalive_connections": 256,
        "keepalive_expiry": 5.0,
        "network_backend": DeadlineBackend(kit.core),
    }
    proxy = _proxy_url(scheme, host)
    if proxy is None:
        return kit.core.ConnectionPool(**common)
    return kit.core.HTTPProxy(proxy_url=proxy, **common)


class GuardedTransport(httpx.BaseTransport):
    """Sends requests to one origin only, under a whole-request deadline, and reads bounded,
    checked answers (see the module docstring). ``kit`` picks httpx or httpx2."""

    def __init__(
        self,
        base_url: str,
        deadline_s: float,
        *,
        kit: Stack | None = None,
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        self.kit = kit or stack()
        self.origin = origin(base_url)
        self.deadline_s = deadline_s
        self.max_body_bytes = max_body_bytes
        self._pool = _pool(self.kit, base_url)

    def handle_request(self, request: Any) -> Any:
        target = origin(str(request.url))
        if target != self.origin:
            raise RefusedRequest(
                f"refusing to send a request to {target[0]}://{target[1]}:{target[2]} "
                "(this backend talks only to its own host; redirects are not followed)",
                request=request,
            )
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING
        _deadline.at = time.monotonic() + self.deadline_s
        _deadline.seconds = self.deadline_s
        core = self.kit.core.Request(
            method=request.method,
            url=self.kit.core.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with client_errors(self.kit, request):
            answer = self._pool.handle_request(core)
        return self._response(request, answer)

    def _response(self, request: Any, answer: Any) -> Any:
        headers = self.kit.http.Headers(answer.headers)
        encoding = headers.get("content-encoding", "").strip().lower()
        utf8 = 200 <= answer.status < 300
        try:
            body = body_class(self.kit)(
                answer.stream, self.kit, request, encoding, self.max_body_bytes, utf8
            )
        except RefusedResponse:
            answer.close()
            raise
        if encoding not in ("", "identity"):
            for name in ("content-encoding", "content-length"):
                del headers[name]
        return self.kit.http.Response(
            answer.status, headers=headers, stream=body, extensions=answer.extensions
        )

    def close(self) -> None:
        self._pool.close()


def guarded_client(
    base_url: str,
    timeout_s: float,
    headers: Mapping[str, str] | None = None,
    *,
    library: str = "httpx",
) -> Any:
    """A client of ``library`` (``httpx`` or ``httpx2``) on a ``GuardedTransport`` for
    ``base_url``'s origin, with ``timeout_s`` both per operation and for the whole request;
    redirects are not followed."""
    kit = stack(library)
    return kit.http.Client(
        transport=GuardedTransport(base_url, timeout_s, kit=kit),
        timeout=timeout_s,
        headers=dict(headers or {}),
        follow_redirects=False,
        trust_env=False,  # the transport reads the environment's proxies itself
    )
