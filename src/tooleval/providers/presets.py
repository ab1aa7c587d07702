"""Named endpoints for the OpenAI-compatible backend (plus the Gemini and Anthropic hosts),
and the one rule deciding which key may travel where.

A key is only ever sent to the host of the preset it belongs to. A ``--base-url`` pointing
elsewhere gets no key unless the user names one explicitly (``--api-key-env``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from tooleval.redaction import remember, watch_env


@dataclass(frozen=True)
class Preset:
    """One endpoint and its quirks.

    ``key_env`` lists the environment variables holding the key, first set one wins.
    ``account_env`` fills ``{account_id}`` in ``base_url``. ``extra_body`` is merged into every
    request body. ``chat_path`` is the chat endpoint's path below ``base_url``; ``body_fields``
    (when set) are the only body fields sent (a proxy that fixes everything else server-side).
    ``default_model`` is used when no model is given; ``rpm`` is the per-minute limit runs pace
    themselves under by default. ``tool_choice`` is sent with every request that offers tools
    (None: not sent). ``tool_turn_content`` is the content of an assistant turn that has tool
    calls and no text (None: ``null``; llama-cpp-python's server answers ``null`` with HTTP
    500, so ``llamacpp`` sends ``""``). What a model accepts (sampling, the token field, the
    reasoning control) is not a preset's business but its family's: ``providers.families``.
    """

    name: str
    base_url: str
    key_env: tuple[str, ...] = ()
    account_env: str | None = None
    supports_seed: bool = True
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    chat_path: str = "/chat/completions"
    body_fields: frozenset[str] | None = None
    default_model: str | None = None
    rpm: float | None = None
    tool_choice: str | None = "auto"
    tool_turn_content: str | None = None

    @property
    def needs_key(self) -> bool:
        return bool(self.key_env)


PRESETS: dict[str, Preset] = {
    "openai": Preset("openai", "https://api.openai.com/v1", ("OPENAI_API_KEY",)),
    "hf": Preset("hf", "https://router.huggingface.co/v1", ("HF_TOKEN",)),
    "deepseek": Preset(
        "deepseek",
        "https://api.deepseek.com",
        ("DEEPSEEK_API_KEY",),
        supports_seed=False,
        default_model="deepseek-v4-flash",
    ),
    # The Cesium guide's public demo (Cloudflare Pages Function in front of Workers AI): no key,
    # the model is fixed server-side, 30 requests per minute per client.
    "workers-ai": Preset(
        "workers-ai",
        "https://cesium-browser-agent.pages.dev",
        chat_path="/api/chat",
        supports_seed=False,
        body_fields=frozenset({"messages", "tools"}),
        default_model="@cf/zai-org/glm-4.7-flash",
        rpm=27.0,
    ),
    "cloudflare": Preset(
        "cloudflare",
        "https://api.cloudflare.com/client/v4/accounts/{account_id}/ai/v1",
        ("CLOUDFLARE_API_TOKEN",),
        account_env="CLOUDFLARE_ACCOUNT_ID",
        supports_seed=False,
    ),
    "openrouter": Preset("openrouter", "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",)),
    "vllm": Preset("vllm", "http://localhost:8000/v1"),
    "sglang": Preset("sglang", "http://localhost:30000/v1"),
    "ollama": Preset("ollama", "http://localhost:11434/v1"),
    "llamacpp": Preset("llamacpp", "http://localhost:8080/v1", tool_turn_content=""),
    # Hosts of the two non-OpenAI backends, so key_for guards them the same way.
    "gemini": Preset(
        "gemini", "https://generativelanguage.googleapis.com", ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    ),
    "anthropic": Preset("anthropic", "https://api.anthropic.com", ("ANTHROPIC_API_KEY",)),
}

OPENAI_COMPATIBLE = tuple(name for name in PRESETS if name not in ("gemini", "anthropic"))
# Every key variable a preset reads is a secret wherever its value shows up.
watch_env(*sorted({name for preset in PRESETS.values() for name in preset.key_env}))


def get_preset(name: str) -> Preset:
    """The preset called ``name``, or ValueError listing the valid names."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown preset {name!r}; valid presets: {', '.join(OPENAI_COMPATIBLE)}"
        ) from None


def join_path(base_url: str, path: str) -> str:
    """``path`` appended to the path of ``base_url``, before its query (``?key=…`` stays a
    query)."""
    head, mark, query = base_url.partition("?")
    return head.rstrip("/") + path + mark + query


def chat_url(preset: Preset, base_url: str) -> str | None:
    """The full chat URL when the preset's chat path is not the OpenAI one (else None)."""
    if preset.chat_path == "/chat/completions":
        return None
    return join_path(base_url, preset.chat_path)


def preset_for_host(url: str) -> Preset | None:
    """The keyed preset whose host ``url`` points at (a known provider used by its URL alone),
    or None. Local servers (vLLM, Ollama, …) are never guessed: their presets change bodies."""
    for preset in PRESETS.values():
        keyed = preset.needs_key and preset.name in OPENAI_COMPATIBLE
        if keyed and origin(url) == origin(preset.base_url):
            return preset
    return None


def origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of ``url`` with default ports filled in, for same-host checks."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    return scheme, (parts.hostname or "").lower(), port


def preset_url(preset: Preset, env: Mapping[str, str]) -> str:
    """The preset's base URL with ``{account_id}`` filled from its environment variable."""
    if preset.account_env is None:
        return preset.base_url
    account = env.get(preset.account_env, "").strip()
    if not account:
        raise ValueError(f"preset {preset.name!r} needs the {preset.account_env} variable set")
    return preset.base_url.replace("{account_id}", account)


def key_for(
    preset: Preset | None,
    base_url: str | None,
    env: Mapping[str, str],
    *,
    explicit_env: str | None = None,
) -> str | None:
    """The key to send to ``base_url`` (the preset's own URL when None), or None for no key.

    ``explicit_env`` (``--api-key-env``) names the variable to use for any host; it must be set.
    Otherwise the preset's key is returned only when ``base_url`` has the preset's scheme,
    host and port, so a key never leaks to a host it was not issued for.
    """
    if explicit_env is not None:
        key = env.get(explicit_env, "")
        if not key:
            raise ValueError(f"--api-key-env {explicit_env}: the variable is not set or empty")
        watch_env(explicit_env)
        remember(key)
        return key
    if preset is None or not preset.needs_key:
        return None
    if base_url is not None and origin(base_url) != origin(preset.base_url):
        return None
    for name in preset.key_env:
        if env.get(name):
            remember(env[name])
            return env[name]
    return None


def require_key(preset: Preset, base_url: str) -> None:
    """ValueError when ``base_url`` is the preset's own host, which needs a key, and none is set."""
    if preset.needs_key and origin(base_url) == origin(preset.base_url):
        raise ValueError(f"preset {preset.name!r} needs a key: set {' or '.join(preset.key_env)}")
