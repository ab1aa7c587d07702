"""The chat template stored in a GGUF file (``tokenizer.chat_template``), rendered with jinja2.

Rendering follows what Hugging Face transformers does with the same template: a sandboxed,
immutable jinja2 environment with ``trim_blocks`` and ``lstrip_blocks``, the ``tojson`` filter,
and the ``raise_exception`` and ``strftime_now`` helpers; the template sees ``messages``,
``add_generation_prompt``, ``bos_token`` and ``eos_token``. A template that raises, or that
cannot be compiled, is reported with the file it came from.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NoReturn


class ChatTemplateError(ValueError):
    """The GGUF's chat template is missing, does not compile, or refused the conversation."""


def _raise(message: str) -> NoReturn:
    raise ChatTemplateError(message)


def _tojson(value: Any, indent: int | None = None, ensure_ascii: bool = False) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


@dataclass(frozen=True)
class ChatTemplate:
    """A compiled template plus the special-token strings it may refer to."""

    source: str
    origin: str  # where it came from (the GGUF path), for error messages
    bos_token: str = ""
    eos_token: str = ""

    def render(
        self, messages: Sequence[tuple[str, str]], add_generation_prompt: bool = True
    ) -> str:
        """The prompt text for (role, content) messages, ending with the assistant header."""
        import jinja2

        try:
            text = _compile(self.source).render(
                messages=[{"role": role, "content": content} for role, content in messages],
                add_generation_prompt=add_generation_prompt,
                bos_token=self.bos_token,
                eos_token=self.eos_token,
            )
        except ChatTemplateError as exc:
            raise ChatTemplateError(f"{self.origin}: the chat template refused: {exc}") from None
        except jinja2.TemplateError as exc:
            raise ChatTemplateError(f"{self.origin}: the chat template failed: {exc}") from None
        return str(text)

    def check(self) -> None:
        """Compile the template now, so a broken one is reported before any work starts."""
        import jinja2

        try:
            _compile(self.source)
        except jinja2.TemplateError as exc:
            raise ChatTemplateError(
                f"{self.origin}: tokenizer.chat_template does not compile: {exc}"
            ) from None


_CACHE: dict[str, Any] = {}


def _compile(source: str) -> Any:
    """A jinja2 Template in a sandboxed environment (compiled once per template text)."""
    if source not in _CACHE:
        from jinja2.ext import loopcontrols
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        env = ImmutableSandboxedEnvironment(
            trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols]
        )
        env.filters["tojson"] = _tojson
        env.globals["raise_exception"] = _raise
        env.globals["strftime_now"] = _strftime_now
        _CACHE[source] = env.from_string(source)
    return _CACHE[source]
