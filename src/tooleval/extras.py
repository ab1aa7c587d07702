"""Optional dependencies: which extra provides what, and one clear error when one is missing.

``pip install tooleval`` installs a small core (the CLI, scoring, the fake backend, the replica
server, the lm-eval task). Each backend or feature that needs more imports it inside
``needs_extra``, so a missing package is reported as the ``pip install 'tooleval[EXTRA]'``
command that fixes it, not as a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

# Top-level module -> the extra that installs it.
EXTRA_OF_MODULE = {
    "numpy": "local",
    "gguf": "local",
    "tokenizers": "local",
    "llguidance": "local",
    "threadpoolctl": "local",
    "jinja2": "local",
    "google": "gemini",
    "anthropic": "anthropic",
    "mcp": "mcp",
    "mcp_types": "mcp",
    "anyio": "mcp",
    "matplotlib": "report",
}


class MissingExtraError(ImportError):
    """An optional package is not installed; the message says which extra to install."""


def missing_extra_message(exc: ModuleNotFoundError, feature: str, extra: str | None) -> str | None:
    """The install hint for ``exc`` (the extra named, else the one that provides the module);
    None when no extra provides it."""
    missing = (exc.name or "").split(".")[0]
    owner = extra or EXTRA_OF_MODULE.get(missing)
    if owner is None:
        return None
    return (
        f"{feature} needs the package {missing or '?'!r}, which is not installed: "
        f"pip install 'tooleval[{owner}]' (or 'tooleval[all]')"
    )


@contextmanager
def needs_extra(extra: str, feature: str) -> Iterator[None]:
    """Turn a ModuleNotFoundError inside the block into a MissingExtraError naming ``extra``.

    ``feature`` says what needed it (``the gemini backend``).
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        raise MissingExtraError(missing_extra_message(exc, feature, extra)) from None
