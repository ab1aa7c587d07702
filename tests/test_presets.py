"""Endpoint presets and the rule that a key only travels to its own host."""

from __future__ import annotations

from pathlib import Path

import pytest

from tooleval.cli import main
from tooleval.providers._shared import (
    error_for_status,
    is_quota_exhausted,
    parse_retry_after,
    redact,
)
from tooleval.providers.base import ErrorClass
from tooleval.providers.openai_compat import OpenAICompatProvider
from tooleval.providers.presets import (
    OPENAI_COMPATIBLE,
    PRESETS,
    get_preset,
    key_for,
    origin,
    preset_for_host,
    preset_url,
)
from tooleval.providers.reasoning import parse_reasoning

KEY = "sk-SENTINEL-preset-0123456789"


def test_every_openai_compatible_preset_is_listed() -> None:
    assert set(OPENAI_COMPATIBLE) == {
        "openai",
        "hf",
        "deepseek",
        "cloudflare",
        "openrouter",
        "workers-ai",
        "vllm",
        "sglang",
        "ollama",
        "llamacpp",
    }


@pytest.mark.parametrize(
    ("name", "url", "key_env"),
    [
        ("openai", "https://api.openai.com/v1", ("OPENAI_API_KEY",)),
        ("hf", "https://router.huggingface.co/v1", ("HF_TOKEN",)),
        ("deepseek", "https://api.deepseek.com", ("DEEPSEEK_API_KEY",)),
        ("openrouter", "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",)),
        ("vllm", "http://localhost:8000/v1", ()),
        ("sglang", "http://localhost:30000/v1", ()),
        ("ollama", "http://localhost:11434/v1", ()),
        ("llamacpp", "http://localhost:8080/v1", ()),
    ],
)
def test_preset_endpoints_and_key_variables(name: str, url: str, key_env: tuple[str, ...]) -> None:
    preset = PRESETS[name]
    assert (preset.base_url, preset.key_env) == (url, key_env)


def test_unknown_preset_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="valid presets: openai, hf"):
        get_preset("groq")


def test_cloudflare_url_takes_the_account_id_from_the_environment() -> None:
    preset = PRESETS["cloudflare"]
    url = preset_url(preset, {"CLOUDFLARE_ACCOUNT_ID": "abc123"})
    assert url == "https://api.cloudflare.com/client/v4/accounts/abc123/ai/v1"
    with pytest.raises(ValueError, match="CLOUDFLARE_ACCOUNT_ID"):
        preset_url(preset, {})


def test_key_goes_to_the_presets_own_host() -> None:
    env = {"HF_TOKEN": KEY}
    assert key_for(PRESETS["hf"], None, env) == KEY
    assert key_for(PRESETS["hf"], "https://router.huggingface.co/v1/", env) == KEY


@pytest.mark.parametrize(
    "base_url",
    [
        "https://evil.example.com/v1",
        "http://router.huggingface.co/v1",  # same host, but cleartext
        "https://router.huggingface.co:8443/v1",  # same host, other port
        "https://router.huggingface.co.evil.example/v1",
        "http://127.0.0.1:8000/v1",
    ],
)
def test_key_never_goes_to_another_origin(base_url: str) -> None:
    assert key_for(PRESETS["hf"], base_url, {"HF_TOKEN": KEY}) is None


def test_explicit_key_variable_works_for_any_host_and_must_be_set() -> None:
    env = {"MY_KEY": KEY}
    assert key_for(None, "http://127.0.0.1:8000/v1", env, explicit_env="MY_KEY") == KEY
    with pytest.raises(ValueError, match="MY_OTHER_KEY"):
        key_for(None, "http://127.0.0.1:8000/v1", env, explicit_env="MY_OTHER_KEY")


def test_local_presets_and_custom_urls_get_no_key() -> None:
    env = {"OPENAI_API_KEY": KEY}
    assert key_for(PRESETS["vllm"], None, env) is None
    assert key_for(None, "http://localhost:9999/v1", env) is None


def test_gemini_takes_gemini_key_first_then_google_key() -> None:
    preset = PRESETS["gemini"]
    assert key_for(preset, None, {"GOOGLE_API_KEY": "g", "GEMINI_API_KEY": "m"}) == "m"
    assert key_for(preset, None, {"GOOGLE_API_KEY": "g"}) == "g"


def test_origin_fills_default_ports() -> None:
    assert origin("https://API.openai.com/v1") == ("https", "api.openai.com", 443)
    assert origin("http://localhost/v1") == ("http", "localhost", 80)


# --- shared error and reasoning helpers ------------------------------------------------


def test_retry_after_as_seconds_or_http_date() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("30", now) == 30.0
    assert parse_retry_after("Thu, 01 Jan 2026 12:00:45 GMT", now) == 45.0
    assert parse_retry_after("Thu, 01 Jan 2026 11:00:00 GMT", now) == 0.0
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after(None, now) is None


@pytest.mark.parametrize(
    ("body", "exhausted"),
    [
        ('{"error": {"code": "insufficient_quota"}}', True),
        ("Your credit balance is too low", True),
        ('{"status": "RESOURCE_EXHAUSTED", "quotaId": "GenerateRequestsPerDayPerProject"}', True),
        ('{"status": "RESOURCE_EXHAUSTED", "quotaId": "GenerateRequestsPerMinute"}', False),
        ("Rate limit reached for requests per min", False),
        ("You have exceeded your monthly included credits", True),
    ],
)
def test_quota_markers(body: str, exhausted: bool) -> None:
    assert is_quota_exhausted(body) is exhausted


@pytest.mark.parametrize(
    ("status", "body", "error_class"),
    [
        (429, "slow down", ErrorClass.RATE_LIMITED),
        (429, "insufficient_quota", ErrorClass.QUOTA_EXHAUSTED),
        (402, "payment required", ErrorClass.QUOTA_EXHAUSTED),
        (400, "Your credit balance is too low", ErrorClass.QUOTA_EXHAUSTED),
        (400, "bad request", ErrorClass.CLIENT_ERROR),
        (404, "not found", ErrorClass.CLIENT_ERROR),
        (408, "request timeout", ErrorClass.TIMEOUT),
        (502, "bad gateway", ErrorClass.SERVER_ERROR),
    ],
)
def test_status_classes(status: int, body: str, error_class: ErrorClass) -> None:
    assert error_for_status(status, body, None, ()).error_class is error_class


def test_error_messages_are_redacted() -> None:
    error = error_for_status(401, f"Incorrect API key provided: {KEY}", None, (KEY, None))
    assert KEY not in str(error) and "***" in str(error)
    assert redact("a KEY b", ("KEY", "")) == "a *** b"


@pytest.mark.parametrize(
    ("value", "budget", "effort"),
    [
        (None, None, None),
        ("off", None, None),
        ("low", 1024, "low"),
        ("high", 16384, "high"),
        ("3000", 3000, "medium"),
        ("100000", 100000, "high"),
    ],
)
def test_reasoning_values(value: str | None, budget: int | None, effort: str | None) -> None:
    setting = parse_reasoning(value)
    assert (setting.as_budget(), setting.as_effort()) == (budget, effort)


HF_URL = "https://router.huggingface.co/v1"


def test_a_known_provider_host_picks_its_preset() -> None:
    hf = preset_for_host(HF_URL)
    assert hf is not None and hf.name == "hf"
    assert preset_for_host("http://localhost:8000/v1") is None  # local servers are not guessed
    assert preset_for_host("https://example.com/v1") is None
    client = OpenAICompatProvider("m", base_url=HF_URL, env={"HF_TOKEN": "hf_token_value"})
    assert client.preset is not None and client.preset.name == "hf"
    assert key_for(client.preset, HF_URL, {"HF_TOKEN": "hf_token_value"}) == "hf_token_value"


def test_the_seed_command_without_its_key_says_which_variable_to_set(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The original guide's literal ``--base-url https://router.huggingface.co/v1``: no key set
    is a clear error before any request, not a run of 401s."""
    monkeypatch.delenv("HF_TOKEN", raising=False)
    argv = ["run", "--backend", "openai", "--base-url", HF_URL, "--model", "m",
            "--output", str(tmp_path / "r.json")]  # fmt: skip
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == (
        "tooleval run: preset 'hf' needs a key: set HF_TOKEN"
    )
    assert not (tmp_path / "r.json").exists()
