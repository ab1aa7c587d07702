"""The scripted fake provider and the backend registry."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooleval.providers.base import ErrorClass, Provider, ProviderError
from tooleval.providers.fake import FakeProvider, FakeReply, load_script, parse_reply
from tooleval.providers.registry import BACKENDS, build_provider
from tooleval.records import GenerationRequest, Message, NativeToolCall


def ask(question: str) -> GenerationRequest:
    return GenerationRequest(messages=(Message("system", "sys"), Message("user", question)))


def test_ordered_replies_answer_in_turn_and_the_last_repeats() -> None:
    fake = FakeProvider([FakeReply(text="eins"), FakeReply(text="zwei")])
    answers = [fake.generate(ask(f"q{i}")).text for i in range(4)]
    assert answers == ["eins", "zwei", "zwei", "zwei"]
    assert [r.messages[-1].content for r in fake.requests] == ["q0", "q1", "q2", "q3"]


def test_keyed_replies_answer_by_match_and_task_id_regardless_of_order() -> None:
    script = [
        FakeReply(text="default"),
        FakeReply(text="wetter", match="Wetter"),
        FakeReply(tool_calls=(NativeToolCall("list_stations", "{}"),), task_id="t-2"),
    ]
    fake = FakeProvider(script, questions={"t-2": "Welche Bahnhöfe hat Bonn?"})
    assert fake.generate(ask("Welche Bahnhöfe hat Bonn?")).tool_calls[0].name == "list_stations"
    assert fake.generate(ask("Wetter in Köln?")).text == "wetter"
    assert fake.generate(ask("Sonstiges")).text == "default"


def test_scripted_errors_raise_provider_errors_with_retry_after() -> None:
    fake = FakeProvider([FakeReply(error=ErrorClass.RATE_LIMITED, retry_after=2.0)])
    with pytest.raises(ProviderError) as info:
        fake.generate(ask("x"))
    assert (info.value.error_class, info.value.retry_after, info.value.status) == (
        ErrorClass.RATE_LIMITED,
        2.0,
        429,
    )


def test_no_matching_reply_is_an_error_not_an_answer() -> None:
    fake = FakeProvider([FakeReply(text="nur Köln", match="Köln")])
    with pytest.raises(ProviderError) as info:
        fake.generate(ask("Bonn"))
    assert info.value.error_class is ErrorClass.OTHER


def test_jsonl_script_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "script.jsonl"
    lines = [
        {"text": "hallo", "reasoning": "kurz"},
        {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Köln"}, "id": "c1"}]},
        {"tool_calls": [{"name": "get_weather", "arguments": '{"city": '}]},
        {"error": "server_error"},
    ]
    path.write_text("# comment\n\n" + "\n".join(json.dumps(line) for line in lines), "utf-8")
    fake = FakeProvider(path)
    first = fake.generate(ask("a"))
    assert (first.text, first.reasoning, first.finish_reason) == ("hallo", "kurz", "stop")
    assert fake.generate(ask("b")).tool_calls == (
        NativeToolCall("get_weather", '{"city": "Köln"}', "c1"),
    )
    assert fake.generate(ask("c")).tool_calls[0].arguments == '{"city": '
    with pytest.raises(ProviderError):
        fake.generate(ask("d"))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"text": "a", "error": "timeout"}', "exactly one of"),
        ('{"error": "nope"}', "unknown error 'nope'"),
        ('{"txt": "a"}', "unknown field"),
        ('{"tool_calls": [{"arguments": {}}]}', "string 'name'"),
        ("[1]", "expected a JSON object"),
        ("{oops", "not JSON"),
    ],
)
def test_bad_script_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "ok"}\n' + line + "\n", "utf-8")
    with pytest.raises(ValueError, match=message) as info:
        load_script(path)
    assert f"{path}:2" in str(info.value)


def test_task_id_reply_without_questions_is_rejected() -> None:
    with pytest.raises(ValueError, match="t-9"):
        FakeProvider([parse_reply({"task_id": "t-9", "text": "x"})])


# --- registry ---------------------------------------------------------------------------


def test_registry_lists_every_backend() -> None:
    assert set(BACKENDS) == {"openai", "gemini", "anthropic", "local", "fake"}


def test_unknown_backend_lists_valid_names() -> None:
    with pytest.raises(ValueError, match="valid backends: openai, gemini, anthropic, local, fake"):
        build_provider("mistral", model="m")


def test_build_fake_from_a_jsonl_model_name(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"text": "ok"}\n', "utf-8")
    provider = build_provider("fake", model=str(path))
    assert isinstance(provider, Provider)
    assert provider.generate(ask("x")).text == "ok"


def test_build_remote_backends_with_options() -> None:
    env = {"MY_KEY": "sk-SENTINEL-registry"}
    openai = build_provider(
        "openai", model="m", base_url="http://127.0.0.1:9/v1", api_key_env="MY_KEY", env=env
    )
    gemini = build_provider("gemini", model="m", api_key_env="MY_KEY", env=env)
    anthropic = build_provider("anthropic", model="m", api_key_env="MY_KEY", env=env)
    assert [p.name for p in (openai, gemini, anthropic)] == ["openai", "gemini", "anthropic"]
    assert all(isinstance(p, Provider) for p in (openai, gemini, anthropic))


def test_presets_are_refused_outside_the_openai_backend() -> None:
    with pytest.raises(ValueError, match="only applies to the openai backend"):
        build_provider("anthropic", model="m", preset="hf")


def test_importing_the_registry_loads_no_sdk_or_numpy() -> None:
    code = (
        "import sys, tooleval.providers.registry\n"
        "heavy = {'openai', 'anthropic', 'google.genai', 'numpy'} & set(sys.modules)\n"
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
