"""Known secrets and their redaction: the one place that decides what a key looks like in
anything tooleval writes.

Keys are read only by the provider modules. Every key they read, the values of the key
variables the presets name, and credentials found in a URL (a password, a ``key=`` or
``token=`` query value) are *known* here. ``redact`` replaces each known secret in a text by
``***``: the secret itself, its JSON-escaped and percent-encoded forms, and any run of text
that begins with its first ``MIN_FRAGMENT`` characters or ends with its last ones (a key cut
off at a length limit, or echoed half by a proxy, still identifies the account).

The writers call it, so no string reaches a file, a message or the terminal unredacted:
``fileio`` (journal, results, reports, exports), ``ProviderError`` (every failure message),
the request path (every answer) and the command line's error and status lines.

Values shorter than ``MIN_SECRET`` characters are not treated as keys: masking them would
mask ordinary words in model output (no real API key is that short).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

__all__ = [
    "MASK",
    "MIN_FRAGMENT",
    "MIN_SECRET",
    "credential_query_names",
    "known",
    "mentions_secret",
    "redact",
    "redact_json",
    "remember",
    "remember_url",
    "restore",
    "snapshot",
    "watch_env",
]

MASK = "***"
MIN_SECRET = 8
MIN_FRAGMENT = 8
# Query parameters that carry credentials in the APIs tooleval talks to (and common others).
_CREDENTIAL_NAMES = frozenset(
    {"key", "api_key", "apikey", "api-key", "token", "access_token", "auth", "secret",
     "password", "sig", "signature", "x-goog-api-key", "code"}
)  # fmt: skip

_REPEATED_MASK = re.compile(r"(?:\*\*\*){2,}")
_lock = threading.Lock()
_values: set[str] = set()
_variables: set[str] = set()


def remember(*values: str | None) -> None:
    """Treat each value (a key just read) as a secret from now on, in this process."""
    with _lock:
        _values.update(v for v in values if v and len(v) >= MIN_SECRET)


def watch_env(*names: str) -> None:
    """Treat the current value of each environment variable as a secret (read when redacting,
    so a key set later is covered too)."""
    with _lock:
        _variables.update(names)


def snapshot() -> tuple[frozenset[str], frozenset[str]]:
    """The secrets and key variables known now (for ``restore``: tests that read sentinel keys
    leave the process as they found it)."""
    with _lock:
        return frozenset(_values), frozenset(_variables)


def restore(state: tuple[frozenset[str], frozenset[str]]) -> None:
    """Know exactly the secrets and variables of an earlier ``snapshot``."""
    with _lock:
        _values.clear()
        _values.update(state[0])
        _variables.clear()
        _variables.update(state[1])


def credential_query_names() -> frozenset[str]:
    return _CREDENTIAL_NAMES


def url_credentials(url: str) -> list[str]:
    """The secrets a URL carries: its password and the values of credential-like query
    parameters (``?key=…``, ``&token=…``)."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return []
    found = [password] if password else []
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if name.lower() in _CREDENTIAL_NAMES:
            found.append(value)
    return found


def remember_url(url: str | None) -> None:
    """Treat the credentials inside ``url`` as secrets (see ``url_credentials``)."""
    if url:
        remember(*url_credentials(url))


def known() -> tuple[str, ...]:
    """Every secret known now, longest first (so a key is masked before a shorter one inside
    it)."""
    with _lock:
        values = set(_values)
        names = tuple(_variables)
    values.update(v for n in names if len(v := os.environ.get(n, "")) >= MIN_SECRET)
    return tuple(sorted(values, key=lambda v: (-len(v), v)))


@lru_cache(maxsize=256)
def _forms(secret: str) -> tuple[str, ...]:
    """The ways a secret appears in text: as is, JSON-escaped, percent-encoded."""
    forms = [secret, json.dumps(secret, ensure_ascii=False)[1:-1], quote(secret, safe="")]
    forms.append(json.dumps(secret)[1:-1])
    return tuple(dict.fromkeys(forms))


def _mask_from_head(text: str, form: str) -> str:
    """Mask every run that starts with ``form``'s head and goes on as ``form`` does."""
    head = form[:MIN_FRAGMENT]
    start = text.find(head)
    if start < 0:
        return text
    pieces, done = [], 0
    while start >= 0:
        end, matched = start + len(head), len(head)
        while end < len(text) and matched < len(form) and text[end] == form[matched]:
            end, matched = end + 1, matched + 1
        pieces += [text[done:start], MASK]
        done = end
        start = text.find(head, done)
    pieces.append(text[done:])
    return "".join(pieces)


def _mask_to_tail(text: str, form: str) -> str:
    """Mask every run that ends with ``form``'s tail and, read backwards, goes on as ``form``
    does (a key whose beginning was cut off)."""
    tail = form[-MIN_FRAGMENT:]
    end = text.rfind(tail)
    if end < 0:
        return text
    pieces, done = [], len(text)
    while end >= 0:
        stop = end + len(tail)
        start, matched = end, len(tail)
        while start > 0 and matched < len(form) and text[start - 1] == form[-matched - 1]:
            start, matched = start - 1, matched + 1
        pieces += [text[stop:done], MASK]
        done = start
        end = text.rfind(tail, 0, done)
    pieces.append(text[:done])
    return "".join(reversed(pieces))


def _mask(text: str, secret: str) -> str:
    for form in _forms(secret):
        if len(form) <= MIN_FRAGMENT:
            text = text.replace(form, MASK)
        else:
            text = _mask_to_tail(_mask_from_head(text, form), form)
    return text


def mentions_secret(text: str, secrets: Iterable[str] | None = None) -> bool:
    """Whether ``text`` holds a known secret or a fragment ``redact`` would mask."""
    for secret in known() if secrets is None else secrets:
        for form in _forms(secret):
            if form[:MIN_FRAGMENT] in text or form[-MIN_FRAGMENT:] in text:
                return True
    return False


def redact(text: str, extra: Iterable[str | None] = ()) -> str:
    """``text`` with every known secret (and each of ``extra``, a key the caller holds, of any
    length) masked."""
    secrets = known()
    more = [s for s in extra if s and s not in secrets]
    masked = text
    for secret in (*secrets, *more):
        masked = _mask(masked, secret)
    return _merge_masks(masked, text)


def _merge_masks(masked: str, original: str) -> str:
    """One ``***`` where masks of two overlapping keys met (``******`` that redaction made)."""
    if MASK * 2 in masked and MASK * 2 not in original:
        return _REPEATED_MASK.sub(MASK, masked)
    return masked


def redact_json(value: Any, secrets: tuple[str, ...] | None = None) -> Any:
    """A JSON value with every string in it (object keys included) redacted."""
    secrets = known() if secrets is None else secrets
    if isinstance(value, str):
        masked = value
        for secret in secrets:
            masked = _mask(masked, secret)
        return _merge_masks(masked, value)
    if isinstance(value, dict):
        return {redact_json(k, secrets): redact_json(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_json(item, secrets) for item in value]
    return value
