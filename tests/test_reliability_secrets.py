"""Secrets: a distinct sentinel key in every supported key variable never reaches a results
file, journal, log record, progress output or error text, for successful and failing runs;
a key only ever travels to the host it belongs to.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from servers import anthropic_server, gemini_server, openai_server
from servers.base import Reply, ScriptedServer, closed_port
from tooleval.cli import main
from tooleval.providers.presets import OPENAI_COMPATIBLE, PRESETS, key_for, origin

CUSTOM = "TOOLEVAL_TEST_KEY"
KEY_VARIABLES = sorted({v for p in PRESETS.values() for v in p.key_env} | {CUSTOM})
SENTINELS = {var: f"sk-SENTINEL-{index:02d}-7f3a9c" for index, var in enumerate(KEY_VARIABLES)}
ACCOUNT = {"CLOUDFLARE_ACCOUNT_ID": "acct-sentinel-free"}


@pytest.fixture(autouse=True)
def sentinel_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var, value in {**SENTINELS, **ACCOUNT}.items():
        monkeypatch.setenv(var, value)


Serve = Callable[..., ScriptedServer]
# The one header each backend's SDK carries the key in (Anthropic's SDK 2.x: a bearer token).
BACKENDS: dict[str, tuple[Serve, Callable[[str], Reply], tuple[str, ...]]] = {
    "openai": (openai_server.serve, openai_server.text, ("authorization",)),
    "gemini": (gemini_server.serve, gemini_server.text, ("x-goog-api-key",)),
    "anthropic": (anthropic_server.serve, anthropic_server.text, ("authorization", "x-api-key")),
}
ANSWER = '{"name": "get_city_overview", "arguments": {"slug": "hannover"}}'
ECHO = f"Incorrect API key provided: {SENTINELS[CUSTOM]}. Authorization: Bearer {SENTINELS[CUSTOM]}"


def outcome(name: str, text: Callable[[str], Reply]) -> list[Reply]:
    """The server's behaviour for one outcome; the error ones echo the key back."""
    return {
        "success": [text(ANSWER)],
        "server error": [Reply(500, {"error": {"message": ECHO}})],
        "401 echoing the key": [Reply(401, {"error": {"message": ECHO, "type": "auth"}})],
        "429 echoing the key": [Reply(429, {"error": {"message": ECHO}}, {"retry-after": "0"})],
        "invalid body echoing the key": [Reply(200, f"<html>{ECHO}</html>")],
        "timeout": [Reply(200, text(ANSWER).body, delay_s=2.0)],
    }[name]


OUTCOMES = ("success", "server error", "401 echoing the key", "429 echoing the key",
            "invalid body echoing the key", "timeout")  # fmt: skip


def assert_no_sentinel(*texts: str) -> None:
    for text in texts:
        for var, value in SENTINELS.items():
            assert value not in text, f"the key of {var} leaked"


def written_files(folder: Path) -> list[str]:
    return [p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file()]


def run(backend: str, base_url: str, out: Path, *extra: str) -> int:
    return main(
        ["run", "--backend", backend, "--base-url", base_url, "--model", "m", "--limit", "2",
         "--output", str(out), "--max-retries", "0", "--timeout", "0.5", "--concurrency", "1",
         *extra]
    )  # fmt: skip


@pytest.mark.parametrize("name", OUTCOMES)
@pytest.mark.parametrize("backend", list(BACKENDS))
def test_the_key_reaches_only_its_header_and_no_output(
    backend: str,
    name: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    serve, text, headers = BACKENDS[backend]
    caplog.set_level(logging.DEBUG)
    with serve(*outcome(name, text)) as server:
        code = run(backend, server.base_url, tmp_path / "r.json", "--api-key-env", CUSTOM)
        received = list(server.received)
    assert code == (0 if name == "success" else 3)
    assert received, "the server was asked"
    for request in received:
        carrying = [h for h, v in request.headers.items() if SENTINELS[CUSTOM] in v]
        assert len(carrying) == 1 and carrying[0] in headers
        others = {k: v for k, v in SENTINELS.items() if k != CUSTOM}
        assert not any(v in str(request.headers) + str(request.body) + request.path
                       for v in others.values())  # fmt: skip
    captured = capsys.readouterr()
    logs = "\n".join(record.getMessage() for record in caplog.records)
    assert_no_sentinel(captured.out, captured.err, logs, *written_files(tmp_path))


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_failing_runs_without_a_server_leak_nothing(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base_url = f"http://127.0.0.1:{closed_port()}"
    assert run(backend, base_url, tmp_path / "c.json", "--api-key-env", CUSTOM) == 3
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert run(backend, base_url, blocked / "x.json", "--api-key-env", CUSTOM) == 2
    captured = capsys.readouterr()
    assert "connection" in (tmp_path / "c.json").read_text()
    assert_no_sentinel(captured.out, captured.err, *written_files(tmp_path))


@pytest.mark.parametrize("preset", [p for p in OPENAI_COMPATIBLE if PRESETS[p].key_env])
def test_a_preset_key_is_never_sent_to_an_overridden_host(
    preset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with openai_server.serve(openai_server.text(ANSWER)) as server:
        code = main(["run", "--backend", "openai", "--preset", preset, "--base-url",
                     server.base_url, "--model", "m", "--limit", "1",
                     "--output", str(tmp_path / "p.json")])  # fmt: skip
        received = list(server.received)
    assert code == 0 and len(received) == 1
    assert_no_sentinel(str(received[0].headers), str(received[0].body), received[0].path)
    assert_no_sentinel(*capsys.readouterr(), *written_files(tmp_path))


@pytest.mark.parametrize("backend", ["gemini", "anthropic"])
def test_native_backends_refuse_a_foreign_host_without_an_explicit_key(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve, text, _ = BACKENDS[backend]
    with serve(text(ANSWER)) as server:
        code = run(backend, server.base_url, tmp_path / "n.json")
        assert server.received == []
    captured = capsys.readouterr()
    assert code == 2 and "--api-key-env" in captured.err
    assert_no_sentinel(captured.out, captured.err)


TRICKY_URLS = [
    "{own}",
    "{own}/",
    "{upper}",
    "http://{host}/v1",  # scheme downgrade
    "{own_origin}:8443/v1",
    "https://{host}.evil.test/v1",
    "https://evil.test/{host}/v1",
    "https://{host}@evil.test/v1",
    "https://user:pw@evil.test/v1?h={host}",
    "https://evil.test#{host}",
    "https://evil.test\\@{host}/v1",
    "https://127.0.0.1/v1",
    "https://{host}./v1",
]


def connects_to(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) that httpx, the SDKs' HTTP client, would connect to."""
    parsed = httpx.URL(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    return parsed.scheme, parsed.host.lower(), port


@pytest.mark.parametrize("name", [p for p in PRESETS if PRESETS[p].key_env])
def test_the_key_rule_agrees_with_where_the_http_client_connects(name: str) -> None:
    preset = PRESETS[name]
    own = preset.base_url.replace("{account_id}", "acct")
    scheme, host, _ = origin(own)
    env: dict[str, Any] = dict(SENTINELS)
    for template in TRICKY_URLS:
        url = template.format(
            own=own, upper=own.replace(host, host.upper()), host=host,
            own_origin=f"{scheme}://{host}",
        )  # fmt: skip
        try:
            target = connects_to(url)
        except httpx.InvalidURL:
            continue
        key = key_for(preset, url, env)
        if key is not None:
            assert target == origin(own), f"{name}: key sent to {url}"
