"""The identity of a run: everything that can change an answer, so a results file cannot be
mislabelled and ``--resume`` cannot mix two configurations.

The identity is the run's configuration less the settings that only change *how* answers are
collected (workers, pacing, caps, which items, where the results go), plus the suite's version,
its tools hash and a hash of every prompt the suite builds in the run's mode. A configuration
field added later counts as identity unless it is listed in ``NOT_IDENTITY``: the safe default.

The journal header and the results file carry the identity and its fingerprint (``run_id``);
every item record carries the ``run_id`` of the run that answered it. ``--resume`` refuses a
journal or results file of another identity, naming each differing field; ``--resume-force``
continues anyway and the results then list the earlier identities beside the current one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from tooleval.runner.records import RunConfig
from tooleval.suites.base import Suite

NOT_IDENTITY = frozenset(
    {"concurrency", "rpm", "resume", "resume_force", "fresh", "stop_after_errors",
     "max_requests", "limit", "repeats", "timeout_s", "max_retries", "output", "categories",
     "task_ids", "api_key_env"}
)  # fmt: skip
SUITE_FIELDS = ("suite_version", "tools_hash", "prompt_hash")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def normal_url(url: str | None) -> str | None:
    """A URL as compared between runs: scheme and host in lower case, no trailing slash."""
    if not url:
        return url
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def prompt_hash(suite: Suite[Any], config: RunConfig) -> str:
    """A fingerprint of every prompt the suite builds in the run's mode (system prompt, tool
    descriptions in the prompt, every task's question)."""
    digest = hashlib.sha256()
    for task in suite.tasks:
        messages = [asdict(message) for message in suite.messages(task, config.mode)]
        digest.update(_canonical(messages).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


def identity_of_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """The identity fields of a configuration as stored in a results file or journal."""
    identity = {k: v for k, v in config.items() if k not in NOT_IDENTITY}
    for name in ("base_url", "endpoint"):
        if isinstance(identity.get(name), str):
            identity[name] = normal_url(identity[name])
    return identity


def run_identity(config: RunConfig, suite: Suite[Any]) -> dict[str, Any]:
    """The identity of running ``config`` on ``suite``."""
    identity = identity_of_config(config.to_json())
    identity.update(
        suite=suite.name,
        suite_version=suite.version,
        tools_hash=suite.tools_hash,
        prompt_hash=prompt_hash(suite, config),
    )
    return identity


def fingerprint(identity: Mapping[str, Any]) -> str:
    """A short, stable name for an identity (``run_id``)."""
    return hashlib.sha256(_canonical(identity).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def stored_identity(document: Mapping[str, Any]) -> dict[str, Any]:
    """The identity a journal header or results document records. Files written before
    identities existed are read from their ``config`` and suite fields; what they did not
    record (the prompt hash) is left out and so not compared."""
    found = document.get("identity")
    if isinstance(found, dict):
        return found
    config = document.get("config")
    identity = identity_of_config(config) if isinstance(config, dict) else {}
    suite = document.get("suite")
    if isinstance(suite, dict):  # a results document
        identity.update(suite=suite.get("name"), suite_version=suite.get("version"))
        identity["tools_hash"] = suite.get("tools_hash")
    else:  # a journal header of tooleval 0.2
        for name in ("suite", "suite_version", "tools_hash", "model", "backend", "mode"):
            if name in document:
                identity[name] = document[name]
    return {k: v for k, v in identity.items() if v is not None or k in (config or {})}


def differences(
    earlier: Mapping[str, Any], current: Mapping[str, Any]
) -> list[tuple[str, Any, Any]]:
    """``(field, earlier value, current value)`` for each field both record differently."""
    return [
        (name, earlier[name], current[name])
        for name in sorted(set(earlier) & set(current))
        if _canonical(earlier[name]) != _canonical(current[name])
    ]


def describe(found: list[tuple[str, Any, Any]]) -> str:
    """``temperature 0.0 -> 0.7, base_url 'http://a' -> 'http://b'`` (values cut to 60)."""

    def short(value: Any) -> str:
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."

    return ", ".join(f"{name} {short(old)} -> {short(new)}" for name, old, new in found)
