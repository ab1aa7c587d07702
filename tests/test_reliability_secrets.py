"""Secrets: a distinct sentinel key in every supported key variable never reaches a results
file, journal, log record, progress output, error text or report, for successful and failing
runs, whole or in part (a prefix or suffix that identifies it); a key only ever travels to the
host it belongs to, and never along a redirect.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servers import anthropic_server, gemini_server, openai_server
from servers.base import Reply, ScriptedServer, closed_port
from tooleval.cli import main
from tooleval.providers.base import ErrorClass, ProviderError
from tooleval.providers.presets import OPENAI_COMPATIBLE, PRESETS, key_for, origin
from tooleval.records import GenerationRequest, GenerationResponse
from tooleval.redaction import redact
from tooleval.runner import RunConfig, run_suite

CUSTOM = "TOOLEVAL_TEST_KEY"
KEY_VARIABLES = sorted({v for p in PRESETS.values() for v in p.key_env} | {CUSTOM})
SENTINELS = {var: f"sk-SENTINEL-{index:02d}-7f3a9c" for index, var in enumerate(KEY_VARIABLES)}
ACCOUNT = {"CLOUDFLARE_ACCOUNT_ID": "acct-sentinel-free"}


@pytest.fixture(autouse=True)
def sentinel_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var, value in {**SENTINELS, **ACCOUNT}.items():
        monkeypatch.setenv(var, value)


Serve = Callable[..., ScriptedServer]
Call = Callable[[dict[str, Any]], Reply]
# The one header each backend's SDK carries the key in (Anthropic's SDK 2.x: a bearer token).
BACKENDS: dict[str, tuple[Serve, Callable[[str], Reply], tuple[str, ...]]] = {
    "openai": (openai_server.serve, openai_server.text, ("authorization",)),
    "gemini": (gemini_server.serve, gemini_server.text, ("x-goog-api-key",)),
    "anthropic": (anthropic_server.serve, anthropic_server.text, ("authorization", "x-api-key")),
}
NATIVE_CALL: dict[str, Call] = {
    "openai": lambda args: openai_server.tool_calls(("get_city_overview", args)),
    "gemini": lambda args: gemini_server.function_calls(("get_city_overview", args)),
    "anthropic": lambda args: anthropic_server.tool_use(("get_city_overview", args)),
}
KEY = SENTINELS[CUSTOM]
ANSWER = '{"name": "get_city_overview", "arguments": {"slug": "hannover"}}'
ECHO = f"Incorrect API key provided: {KEY}. Authorization: Bearer {KEY}"
# An error body whose key starts 10 characters before the 500-character cut of error texts
# (the JSON wrapper around the message is 24 characters long).
STRADDLING = {"error": {"message": "x" * (500 - 10 - 24) + KEY}}


def outcome(name: str, text: Callable[[str], Reply], call: Call) -> list[Reply]:
    """The server's behaviour for one outcome; all but success and timeout echo the key."""
    return {
        "success": [text(ANSWER)],
        "server error": [Reply(500, {"error": {"message": ECHO}})],
        "401 echoing the key": [Reply(401, {"error": {"message": ECHO, "type": "auth"}})],
        "429 echoing the key": [Reply(429, {"error": {"message": ECHO}}, {"retry-after": "0"})],
        "invalid body echoing the key": [Reply(200, f"<html>{ECHO}</html>")],
        "timeout": [Reply(200, text(ANSWER).body, delay_s=2.0)],
        "answer echoing the key": [text(f"{ANSWER} (request was: Bearer {KEY})")],
        "tool call echoing the key": [call({"slug": "hannover", "note": f"Bearer {KEY}"})],
        "200 error object echoing the key": [Reply(200, {"error": {"message": ECHO, "code": 401}})],
        "key cut at the 500-character limit": [Reply(500, STRADDLING)],
        "half of the key echoed": [Reply(401, {"error": {"message": f"bad key {KEY[:12]}…"}})],
    }[name]


OUTCOMES = ("success", "server error", "401 echoing the key", "429 echoing the key",
            "invalid body echoing the key", "timeout", "answer echoing the key",
            "tool call echoing the key", "200 error object echoing the key",
            "key cut at the 500-character limit", "half of the key echoed")  # fmt: skip
SUCCEEDS = ("success", "answer echoing the key", "tool call echoing the key")


def fragments(value: str) -> list[str]:
    """The parts of a key that identify it: every prefix and suffix of 8 characters or more."""
    return [value[:n] for n in range(8, len(value) + 1)] + [
        value[-n:] for n in range(8, len(value))
    ]


def assert_no_sentinel(*texts: str) -> None:
    for text in texts:
        for var, value in SENTINELS.items():
            assert not any(part in text for part in fragments(value)), f"the key of {var} leaked"


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
    with serve(*outcome(name, text, NATIVE_CALL[backend])) as server:
        mode = "native" if "tool call" in name else "prompt"
        code = run(backend, server.base_url, tmp_path / "r.json", "--api-key-env", CUSTOM,
                   "--mode", mode)  # fmt: skip
        received = list(server.received)
    assert code == (0 if name in SUCCEEDS else 3)
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


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_a_redirect_to_another_host_never_carries_the_key(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve, text, _ = BACKENDS[backend]
    with serve(text(ANSWER)) as elsewhere:
        moved = Reply(307, {"moved": True}, {"location": f"{elsewhere.base_url}/moved"})
        with serve(moved) as server:
            code = run(backend, server.base_url, tmp_path / "r.json", "--api-key-env", CUSTOM)
        assert elsewhere.received == []
    assert code == 3
    item = json.loads((tmp_path / "r.json").read_text())["items"][0]
    assert item["error_class"] == "client_error" and "redirect" in item["error_message"]
    assert_no_sentinel(*capsys.readouterr(), *written_files(tmp_path))


def test_the_transport_refuses_any_other_host_even_when_asked() -> None:
    from tooleval.providers._transport import guarded_client

    with openai_server.serve(openai_server.text(ANSWER)) as other:
        client = guarded_client("http://127.0.0.1:1/v1", 5.0, {"x-api-key": KEY})
        with pytest.raises(httpx.RequestError, match="refusing to send"):
            client.post(f"{other.base_url}/chat/completions", json={})
        client.close()
        assert other.received == []


@pytest.mark.parametrize("reachable", [True, False])
def test_a_key_inside_the_base_url_is_masked_everywhere(
    reachable: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    in_url = "kq-URLKEY-5e8d1c0b9a"
    with openai_server.serve(Reply(401, {"error": {"message": f"bad key={in_url}"}})) as server:
        base = server.base_url if reachable else f"http://127.0.0.1:{closed_port()}/v1"
        code = run("openai", f"{base}?key={in_url}", tmp_path / "u.json")
    assert code == 3
    logs = "\n".join(record.getMessage() for record in caplog.records)
    for text in (*capsys.readouterr(), logs, *written_files(tmp_path)):
        assert not any(part in text for part in fragments(in_url))
    config = json.loads((tmp_path / "u.json").read_text())["config"]
    assert config["base_url"].endswith("?key=***")


def test_a_failure_message_holding_the_key_is_masked_in_the_results(tmp_path: Path) -> None:
    class Broken:
        name = "broken"

        def generate(self, request: GenerationRequest) -> GenerationResponse:
            raise RuntimeError(f"cannot reach the model with {KEY[:14]}")

    config = RunConfig(backend="fake", model="m", limit=2, concurrency=1,
                       output=tmp_path / "b.json")  # fmt: skip
    with pytest.raises(RuntimeError):
        run_suite(config, Broken())
    written = (tmp_path / "b.json").read_text()
    assert "failed: RuntimeError: cannot reach the model with ***" in written
    assert_no_sentinel(*written_files(tmp_path))


def test_an_error_message_never_holds_a_key() -> None:
    assert key_for(None, None, os.environ, explicit_env=CUSTOM) == KEY  # read as a provider does
    error = ProviderError(ErrorClass.CLIENT_ERROR, f"HTTP 401: {ECHO} {KEY[:9]}… …{KEY[-9:]}")
    assert_no_sentinel(str(error), repr(error))
    assert str(error).count("***") == 4


def test_the_report_masks_a_key_left_in_an_older_results_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with openai_server.serve(openai_server.text(ANSWER)) as server:
        assert run("openai", server.base_url, tmp_path / "old.json") == 0
    path = tmp_path / "old.json"
    document = json.loads(path.read_text())
    document["config"]["model"] = f"m-{SENTINELS['OPENAI_API_KEY']}"
    document["items"][0]["raw_output"] = f"{ANSWER} {SENTINELS['OPENAI_API_KEY']}"
    path.write_text(json.dumps(document))  # as an older tooleval (or a hand edit) left it
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "report")]) == 0
    assert_no_sentinel(*capsys.readouterr(), *written_files(tmp_path / "report"))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["key", "prefix", "suffix", "text", "escaped"]) | st.text(max_size=12),
        max_size=8,
    ),
    st.integers(min_value=0, max_value=200),
)
def test_no_identifying_fragment_of_a_key_survives_redaction(parts: list[str], cut: int) -> None:
    assert key_for(None, None, os.environ, explicit_env=CUSTOM) == KEY  # read as a provider does
    pieces = {"key": KEY, "prefix": KEY[:11], "suffix": KEY[-10:], "text": "ok ",
              "escaped": json.dumps(KEY)[1:-1]}  # fmt: skip
    text = "".join(pieces.get(part, part) for part in parts)
    for shown in (redact(text), redact(text)[:cut], redact(text[:cut])):
        assert not any(part in shown for part in fragments(KEY))
