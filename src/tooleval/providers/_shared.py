"""Helpers the provider modules share (private to ``tooleval.providers``): error classes from
HTTP facts, key redaction, Retry-After parsing, body and usage decoding, the key a hosted
backend needs. Pure functions; no SDK imports here."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypedDict

import httpx

from tooleval import redaction
from tooleval.fileio import JsonFileError, loads
from tooleval.providers._transport import RefusedRequest, RefusedResponse
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.providers.presets import Preset, key_for
from tooleval.records import Usage

# Every backend sends through the guarded httpx client (the SDKs are handed one), so these
# are the failures without a usable answer.
TIMEOUT_ERRORS: tuple[type[Exception], ...] = (httpx.TimeoutException,)
TRANSPORT_ERRORS: tuple[type[Exception], ...] = (httpx.RequestError,)

_QUOTA_MARKERS = (
    "insufficient_quota",
    "credit balance",
    "included credits",
    "billing_hard_limit",
    "out of credits",
)
_DAILY_MARKERS = ("perday", "per day", "per_day", "daily")


ERROR_SNIPPET_CHARS = 500


def redact(text: str, secrets: tuple[str | None, ...]) -> str:
    """``text`` with every known secret and each of ``secrets`` masked, fragments included
    (``tooleval.redaction``)."""
    return redaction.redact(text, secrets)


def snippet(text: str, secrets: tuple[str | None, ...], limit: int = ERROR_SNIPPET_CHARS) -> str:
    """The start of a server's text for a message: redacted first, then cut, so a key that
    straddles the cut is masked whole."""
    redacted = redact(text, secrets)
    return redacted if len(redacted) <= limit else redacted[:limit] + "…"


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date), or None."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if math.isfinite(seconds):
        return max(0.0, seconds)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def is_quota_exhausted(body_text: str) -> bool:
    """Whether an error body says the account's quota or credit is spent (not a short burst).

    Gemini answers per-minute and per-day limits alike with RESOURCE_EXHAUSTED; only a daily
    quota counts as exhausted there.
    """
    text = body_text.lower()
    if any(marker in text for marker in _QUOTA_MARKERS):
        return True
    if "resource_exhausted" in text:
        return any(marker in text for marker in _DAILY_MARKERS)
    return "quota" in text


def error_for_status(
    status: int, body_text: str, retry_after: str | None, secrets: tuple[str | None, ...]
) -> ProviderError:
    """The ProviderError for an HTTP answer that is not a success (3xx included: redirects
    are never followed, so a key never travels to the host a redirect names)."""
    message = f"HTTP {status}: {snippet(body_text, secrets)}"
    if 300 <= status < 400:
        return ProviderError(
            ErrorClass.CLIENT_ERROR,
            f"HTTP {status}: a redirect, not followed (point --base-url at the final URL)",
            status=status,
        )
    if status == 402 or (status in (403, 429) and is_quota_exhausted(body_text)):
        return ProviderError(ErrorClass.QUOTA_EXHAUSTED, message, status=status)
    if status == 400 and "credit balance" in body_text.lower():
        return ProviderError(ErrorClass.QUOTA_EXHAUSTED, message, status=status)
    if status == 429:
        delay = parse_retry_after(retry_after)
        return ProviderError(ErrorClass.RATE_LIMITED, message, status=status, retry_after=delay)
    if status == 408:
        return ProviderError(ErrorClass.TIMEOUT, message, status=status)
    if status >= 500:
        return ProviderError(ErrorClass.SERVER_ERROR, message, status=status)
    return ProviderError(ErrorClass.CLIENT_ERROR, message, status=status)


def sdk_failure(
    sdk: Any, exc: Exception, base_url: str, secrets: tuple[str | None, ...]
) -> ProviderError:
    """Map an exception of the ``openai`` or ``anthropic`` SDK (same error classes in each)."""
    if isinstance(exc, sdk.APIStatusError):
        headers = exc.response.headers
        return error_for_status(
            exc.status_code, exc.response.text, headers.get("retry-after"), secrets
        )
    if isinstance(exc, sdk.APITimeoutError):
        return ProviderError(ErrorClass.TIMEOUT, f"no complete answer from {base_url} in time")
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__
        if isinstance(cause, RefusedResponse | RefusedRequest):
            return transport_failure(cause, base_url, secrets)
        detail = redact(str(cause or exc), secrets)
        return ProviderError(ErrorClass.CONNECTION, f"{base_url}: {detail}", target=base_url)
    if isinstance(exc, UnicodeDecodeError):
        return invalid_body(f"not UTF-8 ({exc.reason})")
    raise exc


def transport_failure(exc: Exception, url: str, secrets: tuple[str | None, ...]) -> ProviderError:
    """The ProviderError for an HTTP client failure without a usable answer: a timeout (the
    whole-request deadline included), an answer the transport refused (too large, not UTF-8:
    ``invalid_body``), a request it refused (another host: ``client_error``), or a connection
    that could not be made or broke (refused, reset, a body cut short)."""
    detail = redact(str(exc) or type(exc).__name__, secrets)
    if isinstance(exc, RefusedResponse):
        return invalid_body(detail)
    if isinstance(exc, RefusedRequest):
        return ProviderError(ErrorClass.CLIENT_ERROR, detail)
    if isinstance(exc, TIMEOUT_ERRORS):
        message = f"no complete answer from {url} in time ({detail})"
        return ProviderError(ErrorClass.TIMEOUT, message)
    return ProviderError(ErrorClass.CONNECTION, f"{url}: {detail}", target=url)


def response_text(
    status: int, content: bytes, headers: Mapping[str, str], secrets: tuple[str | None, ...]
) -> str:
    """The body of a successful (2xx) answer as text; ProviderError for any other status or a
    body that is not UTF-8 (never scored as a model answer)."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not 200 <= status < 300:
            text = content.decode("utf-8", errors="replace")
        else:
            raise invalid_body(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if not 200 <= status < 300:
        raise error_for_status(status, text, headers.get("retry-after"), secrets)
    return text


def invalid_body(detail: str) -> ProviderError:
    return ProviderError(ErrorClass.INVALID_BODY, f"invalid response body: {detail}")


def load_body(text: str) -> dict[str, Any]:
    """A response body decoded as a JSON object, or INVALID_BODY."""
    try:
        body = loads(text, "response body")
    except JsonFileError as exc:
        raise invalid_body(f"not JSON ({exc.message})") from None
    if not isinstance(body, dict):
        raise invalid_body(f"expected a JSON object, got {type(body).__name__}")
    return body


def dump_args(arguments: Any) -> str:
    """Tool-call arguments as JSON text, keeping non-ASCII characters readable."""
    return json.dumps({} if arguments is None else arguments, ensure_ascii=False)


def load_args(arguments: str) -> dict[str, Any]:
    """Arguments text of a past tool call as an object; invalid or non-object JSON gives {}."""
    try:
        value = loads(arguments) if arguments else {}
    except JsonFileError:
        return {}
    return value if isinstance(value, dict) else {}


def int_or_none(value: Any) -> int | None:
    """A count of a usage object: an integer >= 0 (booleans, negative numbers and other types
    are not counts, so what is stored can always be read back)."""
    is_count = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if is_count else None


def no_answer(reasoned: bool, truncated: bool, fields: str) -> ProviderError:
    """The error for an answer with neither text nor a tool call.

    ``truncated``: our token budget ran out first, a setup problem (REASONING_TRUNCATED when
    the budget went into reasoning, else TRUNCATED); anything else is EMPTY_CHOICES. ``fields``
    names what the provider reported (finish reason, token counts) for the message.
    """
    if reasoned and truncated:
        return ProviderError(
            ErrorClass.REASONING_TRUNCATED,
            f"token budget spent on reasoning ({fields}); raise --max-tokens or lower --reasoning",
        )
    if truncated:
        return ProviderError(
            ErrorClass.TRUNCATED,
            f"token budget spent before any answer ({fields}); raise --max-tokens",
        )
    return ProviderError(
        ErrorClass.EMPTY_CHOICES, f"the answer has no text and no tool call ({fields})"
    )


class HostedOptions(TypedDict, total=False):
    """Constructor options of the backends that always need a key (Gemini, Anthropic)."""

    base_url: str | None
    timeout_s: float
    api_key_env: str | None
    env: Mapping[str, str] | None


def hosted_target(preset: Preset, options: HostedOptions) -> tuple[str, str, float]:
    """``(base_url, key, timeout_s)`` for a backend that always needs a key: the preset's host
    unless ``base_url`` says otherwise; ValueError naming the variables to set. A key goes only
    to the preset's own host unless ``api_key_env`` names one explicitly."""
    base_url = options.get("base_url") or preset.base_url
    redaction.remember_url(base_url)
    env = options.get("env")
    environment = os.environ if env is None else env
    api_key_env = options.get("api_key_env")
    key = key_for(preset, base_url, environment, explicit_env=api_key_env)
    if key is None:
        raise ValueError(
            f"the {preset.name} backend needs {' or '.join(preset.key_env)} (for {preset.base_url})"
            " or --api-key-env naming the key for another --base-url"
        )
    return base_url, key, options.get("timeout_s", 60.0)


def usage_of(usage: Any, fields: Mapping[str, str]) -> Usage:
    """A Usage from a provider's usage object; ``fields`` maps Usage names to its keys."""
    if not isinstance(usage, Mapping):
        return Usage()
    return Usage(**{name: int_or_none(usage.get(key)) for name, key in fields.items()})
