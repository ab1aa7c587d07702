"""The hostile matrix: servers and model output that attack the harness rather than answer it.

Every backend (the OpenAI-compatible one over plain httpx, Gemini and Anthropic through their
SDKs) gets the same transport attacks: an answer dripped one byte at a time (body or headers),
an answer too large, a compression bomb, an encoding never asked for, a body that is not
UTF-8. The command line gets the rest: an endpoint with nothing listening, bodies that are not
JSON, Unicode that breaks line-based readers, two runs on one results file, links planted at
the output path, markup and terminal escapes in model output. Figures: docs/reliability.md.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from reliability.rawserver import RawServer, dripping, gzip_bomb, head, streaming
from servers import openai_server
from servers.base import Reply, closed_port
from servers.gold_server import GoldServer
from tooleval.cli import main
from tooleval.providers._shared import parse_retry_after
from tooleval.providers._transport import MAX_BODY_BYTES
from tooleval.providers.base import ErrorClass, Provider, ProviderError
from tooleval.providers.registry import build_provider
from tooleval.records import GenerationRequest, Message
from tooleval.runner.journal import journal_path
from tooleval.runner.pacing import RETRY_AFTER_CAP_S, backoff_delay

KEY_ENV = "TOOLEVAL_HOSTILE_KEY"
BACKENDS = ("openai", "gemini", "anthropic")
REQUEST = GenerationRequest(messages=(Message("user", "Wetter in Bonn?"),), max_tokens=16)


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "hk-hostile-0123456789")


def provider(backend: str, server: RawServer, timeout_s: float = 5.0) -> Provider:
    base = server.base_url if backend == "openai" else server.base_url.removesuffix("/v1")
    return build_provider(backend, model="m", base_url=base, timeout_s=timeout_s,
                          api_key_env=KEY_ENV)  # fmt: skip


def failure(backend: str, server: RawServer, timeout_s: float = 5.0) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        provider(backend, server, timeout_s).generate(REQUEST)
    return caught.value


# --- the transport, for every backend ------------------------------------------------------


@pytest.mark.parametrize("in_headers", [False, True], ids=["body", "headers"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_dripping_server_ends_in_a_timeout_at_the_whole_request_deadline(
    backend: str, in_headers: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = json.dumps({"padding": "x" * 4000}).encode()
    server = RawServer(lambda n, c: None)
    server.behave = dripping(server, body, gap_s=0.02, in_headers=in_headers)
    monkeypatch.setattr(time, "time", lambda: 0.0)  # a wall clock that stands still
    with server:
        error = failure(backend, server, timeout_s=0.6)
    assert error.error_class is ErrorClass.TIMEOUT
    assert server.sent[0] < len(body)  # every gap was far below the timeout, yet it ended


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_answer_larger_than_the_bound_is_refused(backend: str) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"padding": "'
        for _ in range(MAX_BODY_BYTES // 2**20 + 8):
            yield b"x" * 2**20

    server = RawServer(lambda n, c: None)
    server.behave = streaming(server, chunks)
    with server:
        error = failure(backend, server)
    assert error.error_class is ErrorClass.INVALID_BODY and "larger than" in str(error)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_compression_bomb_stops_at_the_bound(backend: str) -> None:
    bomb = gzip_bomb(4 * MAX_BODY_BYTES)
    server = RawServer(
        lambda n, c: c.sendall(head(length=len(bomb), Content_Encoding="gzip") + bomb)
    )
    with server:
        error = failure(backend, server)
    assert len(bomb) < MAX_BODY_BYTES // 100
    assert error.error_class is ErrorClass.INVALID_BODY and "larger than" in str(error)


@pytest.mark.parametrize(
    ("encoding", "body", "expected"),
    [
        ("br", b"\x0b\x02\x80{}\x03", "was not asked for"),
        ("gzip", b"\x1f\x8b\x08\x00garbage", "corrupt"),
        ("identity", b'{"text": "caf\xe9"}', "not UTF-8"),
    ],
)
@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unreadable_body_is_invalid_never_an_answer(
    backend: str, encoding: str, body: bytes, expected: str
) -> None:
    answer = head(length=len(body), Content_Encoding=encoding) + body
    with RawServer(lambda n, c: c.sendall(answer)) as server:
        error = failure(backend, server)
    assert error.error_class is ErrorClass.INVALID_BODY and expected in str(error)


def test_a_gzip_answer_within_the_bound_is_read(tmp_path: Path) -> None:
    import gzip

    text = '{"name": "weather", "arguments": {"slug": "bonn"}}'
    body = gzip.compress(json.dumps(openai_server.completion({"content": text})).encode())
    answer = head(length=len(body), Content_Encoding="gzip") + body
    with RawServer(lambda n, c: c.sendall(answer)) as server:
        response = provider("openai", server).generate(REQUEST)
        assert b"accept-encoding: gzip, deflate" in server.requests[0].lower()
    assert response.text == text


# --- the command line ------------------------------------------------------------------------


def run(base_url: str, out: Path, *extra: str) -> int:
    return main(["run", "--backend", "openai", "--base-url", base_url, "--model", "m",
                 "--output", str(out), "--concurrency", "1", *extra])  # fmt: skip


def one_line(err: str) -> str:
    assert "Traceback" not in err
    return " ".join(err.split())


@pytest.mark.parametrize("retries", [0, 1])
def test_a_run_against_nothing_stops_after_three_failed_connections(
    retries: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    out = tmp_path / "dead.json"
    code = run(base, out, "--limit", "40", "--max-retries", str(retries),
               "--stop-after-errors", "1000")  # fmt: skip
    document = json.loads(out.read_text())
    assert code == 3 and len(document["items"]) == 3
    assert [item["attempts"] for item in document["items"]] == [1 + retries] * 3
    assert document["stop_reason"].startswith(f"unreachable: nothing is listening at {base}")
    assert "nothing is listening" in one_line(capsys.readouterr().err)


def test_a_server_that_answers_errors_is_not_taken_for_a_dead_one(tmp_path: Path) -> None:
    with openai_server.serve(Reply(500, {"error": {"message": "busy"}})) as server:
        assert run(server.base_url, tmp_path / "e.json", "--limit", "5", "--max-retries", "0") == 3
    document = json.loads((tmp_path / "e.json").read_text())
    assert document["stop_reason"] is None and document["errors_by_class"] == {"server_error": 5}


NOT_JSON = {
    "server-sent events": Reply(
        200, 'data: {"choices": []}\n\ndata: [DONE]\n\n', {"content-type": "text/event-stream"}
    ),
    "an HTML page": Reply(200, "<html><body>Sign in</body></html>"),
    "JSON nested 100,000 deep": Reply(200, "[" * 100_000 + "]" * 100_000),
    "an empty 204": Reply(204, b""),
    "an answer 1 MB long of error text": Reply(400, {"error": {"message": "e" * 2**20}}),
}


@pytest.mark.parametrize("name", list(NOT_JSON))
def test_a_body_that_is_not_a_chat_answer_is_classified(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with openai_server.serve(NOT_JSON[name]) as server:
        code = run(server.base_url, tmp_path / "j.json", "--limit", "1", "--max-retries", "0")
    item = json.loads((tmp_path / "j.json").read_text())["items"][0]
    assert code == 3 and item["score"] is None
    assert item["error_class"] in ("invalid_body", "client_error")
    assert len(item["error_message"]) < 600
    one_line(capsys.readouterr().err)


def test_json_with_a_wrong_content_type_is_still_an_answer(tmp_path: Path) -> None:
    text = '{"name": "get_city_overview", "arguments": {"slug": "hannover"}}'
    reply = openai_server.text(text)
    with openai_server.serve(Reply(200, reply.body, {"content-type": "text/plain"})) as server:
        assert run(server.base_url, tmp_path / "t.json", "--limit", "1") == 0


EDGES = "\u2028line\u2029para\x85nel\r\x00nul\ufeffbom\u202eevil\u202c e\u0301 👩‍👩‍👧 \ud800"


def test_unicode_that_breaks_line_readers_survives_journal_resume_and_report(
    tmp_path: Path,
) -> None:
    body = json.dumps(openai_server.completion({"role": "assistant", "content": EDGES}))
    with openai_server.serve(Reply(200, body)) as server:
        out = tmp_path / "u.json"
        assert run(server.base_url, out, "--limit", "5", "--max-requests", "3") == 3
        assert run(server.base_url, out, "--limit", "5", "--resume") == 0
    items = json.loads(out.read_text())["items"]
    assert [i["raw_output"] for i in items] == [EDGES] * 5
    assert len(journal_path(out).read_bytes().split(b"\n")) == 7  # header, 5 items, final ""
    assert main(["report", str(out), "--out", str(tmp_path / "report")]) == 0


def test_usage_counts_a_server_made_up_are_not_stored(tmp_path: Path) -> None:
    body = openai_server.completion({"role": "assistant", "content": "x"})
    body["usage"] = {"prompt_tokens": -5, "completion_tokens": 1e30, "total_tokens": "many"}
    with openai_server.serve(Reply(200, body)) as server:
        out = tmp_path / "n.json"
        assert run(server.base_url, out, "--limit", "3", "--max-requests", "2") == 3
        assert run(server.base_url, out, "--limit", "3", "--resume") == 0
    usage = json.loads(out.read_text())["items"][0]["usage"]
    assert usage["input_tokens"] is None and usage["output_tokens"] is None


RETRY_AFTER = {
    "7": 7.0, "-5": 0.0, "999999": RETRY_AFTER_CAP_S, "1e309": None, "NaN": None, "soon": None,
    "7, 8": None, "": None,
}  # fmt: skip


@pytest.mark.parametrize("value", list(RETRY_AFTER))
def test_retry_after_values_a_server_made_up(value: str) -> None:
    parsed = parse_retry_after(value)
    delay = backoff_delay(1, parsed)
    expected = RETRY_AFTER[value]
    if expected is None:
        assert parsed is None and 0.5 <= delay <= 1.0  # the jittered backoff instead
    else:
        assert delay == expected


def test_retry_after_dates_in_the_past_and_far_future() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    past = format_datetime(now - timedelta(days=3), usegmt=True)
    future = format_datetime(now + timedelta(days=3000), usegmt=True)
    assert parse_retry_after(past, now) == 0.0
    assert backoff_delay(1, parse_retry_after(future, now)) == RETRY_AFTER_CAP_S


def test_a_second_run_on_the_same_results_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    release = threading.Event()
    first_arrived = threading.Event()

    def hold(number: int, question: str) -> None:
        first_arrived.set()
        release.wait(30)

    out = tmp_path / "shared.json"
    with GoldServer(hook=hold) as server:
        first: list[int] = []
        runner = threading.Thread(
            target=lambda: first.append(run(server.base_url, out, "--limit", "2"))
        )
        runner.start()
        assert first_arrived.wait(30)
        second = run(server.base_url, out, "--limit", "2", "--resume")
        release.set()
        runner.join(30)
    assert second == 2 and first == [0]
    err = one_line(capsys.readouterr().err)
    assert f"{out} is being written by another run (process {os.getpid()})" in err
    assert json.loads(out.read_text())["counts"]["answered"] == 2
    assert not out.with_name(".shared.json.lock").exists()


@pytest.mark.parametrize("planted", ["results", "journal"])
def test_a_link_planted_at_the_output_path_is_refused(
    planted: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    out = tmp_path / "r.json"
    (out if planted == "results" else journal_path(out)).symlink_to(victim)
    with openai_server.serve(openai_server.text("x")) as server:
        assert run(server.base_url, out, "--limit", "1") == 2
        assert server.received == []
    assert "is a symbolic link" in one_line(capsys.readouterr().err)
    assert victim.read_text() == "keep me"


def test_a_linked_results_folder_is_fine(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with openai_server.serve(openai_server.text("x")) as server:
        assert run(server.base_url, tmp_path / "link" / "r.json", "--limit", "1") == 0
    assert (tmp_path / "real" / "r.json").exists()


def test_markup_and_escapes_in_model_output_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "[/bold]\x1b]0;owned\x07\x1b[2J"
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"tool_calls": [{"name": hostile, "arguments": {}}]}) + "\n")
    out = str(tmp_path / "m.json")
    code = main(["model-tools", "--live", "--backend", "fake", "--script", str(script),
                 "--model", hostile, "--limit", "2", "--output", out])  # fmt: skip
    captured = capsys.readouterr()
    assert code in (0, 3)
    for text in captured:
        assert "\x1b]" not in text and "\x1b[2J" not in text and "Traceback" not in text
    assert "[/bold]" in captured.err  # shown as text, not parsed as markup


def test_an_unreachable_api_is_one_line_for_generate_and_episodes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nowhere = f"http://127.0.0.1:{closed_port()}"
    assert main(["generate", "--out", str(tmp_path / "t.jsonl"), "--base-url", nowhere]) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith(f"tooleval generate: cannot reach the InfraNode API at {nowhere}")
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"tool_calls": [{"name": "list_cities", "arguments": {}}]}) + "\n")
    out = tmp_path / "e.json"
    code = main(["episodes", "--backend", "fake", "--script", str(script), "--limit", "1",
                 "--api-base-url", nowhere, "--output", str(out)])  # fmt: skip
    err = one_line(capsys.readouterr().err)
    assert code == 2 and f"cannot reach the InfraNode API at {nowhere}" in err
    assert "cannot reach" in json.loads(out.read_text())["stop_reason"]
