"""Which model files the local backend loads, and how it refuses the others."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tooleval.cli import main
from tooleval.local.blas import blas_description, blas_threads, set_blas_threads
from tooleval.local.chat_template import ChatTemplate, ChatTemplateError
from tooleval.local.gguf_model import ModelFileError, load_model
from tooleval.local.support import (
    SUPPORTED_TENSOR_TYPES,
    UnsupportedModelError,
    check_supported,
)
from tooleval.providers.local import BUILTIN_MODEL, resolve_model

CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
LLAMA_FIELDS: dict[str, Any] = {
    "general.architecture": "llama",
    "llama.embedding_length": 8,
    "llama.attention.head_count": 2,
    "tokenizer.ggml.model": "gpt2",
    "tokenizer.chat_template": CHATML,
}


def write_gguf(path: Path, arch: str, tensor_type: str = "F32", **fields: Any) -> Path:
    """A tiny GGUF file: an architecture, a few header fields and one tensor."""
    import gguf

    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_uint32(f"{arch}.embedding_length", 8)
    writer.add_uint32(f"{arch}.attention.head_count", 2)
    writer.add_string("tokenizer.ggml.model", fields.pop("tokenizer", "gpt2"))
    writer.add_string("tokenizer.chat_template", CHATML)
    for key, value in fields.items():
        writer.add_uint32(key, value) if isinstance(value, int) else writer.add_string(key, value)
    qtype = gguf.GGMLQuantizationType[tensor_type]
    if qtype == gguf.GGMLQuantizationType.F32:
        writer.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    else:
        block, size = gguf.GGML_QUANT_SIZES[qtype]
        raw = np.zeros((4, 256 // block * size), dtype=np.uint8)
        writer.add_tensor("token_embd.weight", raw, raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


# ----------------------------------------------------------------- --model names
def test_builtin_name_and_empty_mean_the_builtin_model() -> None:
    assert resolve_model(BUILTIN_MODEL) is None and resolve_model("") is None


def test_unknown_model_name_is_refused_with_what_can_be_loaded() -> None:
    with pytest.raises(ValueError) as caught:
        resolve_model("llama3")
    message = str(caught.value)
    assert "'llama3'" in message and BUILTIN_MODEL in message and ".gguf" in message


def test_missing_and_non_gguf_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match=r"missing/file\.gguf: no such file"):
        resolve_model(str(tmp_path / "missing/file.gguf"))
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(ModelFileError, match=r"junk\.gguf: not a GGUF file"):
        resolve_model(str(junk))
    with pytest.raises(ModelFileError, match="not a file"):
        resolve_model(str(tmp_path) + "/")


def test_cli_refuses_unknown_model_with_exit_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    code = main(["run", "--backend", "local", "--model", "llama3", "--output", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "llama3" in err and BUILTIN_MODEL in err and "Traceback" not in err
    assert not out.exists()
    code = main(["run", "--model", str(tmp_path / "missing.gguf"), "--output", str(out)])
    assert code == 2 and "missing.gguf: no such file" in capsys.readouterr().err


def test_cli_refuses_constrained_decoding_for_other_backends(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for flags in (["--backend", "fake"], ["--provider", "deepseek"]):
        assert main(["run", *flags, "--decoding", "constrained"]) == 2
        err = capsys.readouterr().err
        assert "only available for --backend local" in err and "Traceback" not in err


# ----------------------------------------------------------------- supported files
def test_unsupported_architecture_is_refused_naming_what_runs(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "q.gguf", "qwen2")
    with pytest.raises(UnsupportedModelError) as caught:
        load_model(path)
    message = str(caught.value)
    assert "q.gguf" in message and "architecture 'qwen2'" in message
    assert "It runs: architecture llama" in message and "Q4_1" in message
    assert "--backend openai" in message


def test_unsupported_tensor_type_is_refused(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "iq.gguf", "llama", tensor_type="IQ2_XXS")
    with pytest.raises(UnsupportedModelError, match=r"tensor type\(s\) IQ2_XXS"):
        load_model(path)


def test_llama_variants_the_engine_does_not_compute_are_refused() -> None:
    fields = dict(LLAMA_FIELDS)
    fields["llama.rope.scaling.type"] = "yarn"
    fields["llama.rope.dimension_count"] = 2
    with pytest.raises(UnsupportedModelError) as caught:
        check_supported(fields, {"rope_freqs.weight": "F32"}, "m.gguf")
    message = str(caught.value)
    assert "RoPE scaling" in message and "rope_freqs.weight" in message
    assert "llama.rope.dimension_count = 2 differs from the head size 4" in message


def test_tokenizer_and_chat_template_are_required() -> None:
    fields = {**LLAMA_FIELDS, "tokenizer.ggml.model": "llama", "tokenizer.chat_template": ""}
    with pytest.raises(UnsupportedModelError) as caught:
        check_supported(fields, {"w": "Q4_1"}, "m.gguf")
    assert "tokenizer 'llama'" in str(caught.value) and "no chat template" in str(caught.value)


def test_a_plain_llama_file_passes_the_check() -> None:
    check_supported({**LLAMA_FIELDS, "llama.rope.dimension_count": 4}, {"w": "Q4_K"}, "m.gguf")


@pytest.mark.parametrize("name", SUPPORTED_TENSOR_TYPES)
def test_every_supported_tensor_type_dequantises(name: str) -> None:
    import gguf
    from gguf.quants import dequantize

    qtype = gguf.GGMLQuantizationType[name]
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    raw = np.zeros((2, 256 // block * size), dtype=np.uint8)
    if name in ("F32", "F16"):
        raw = np.zeros((2, 256), dtype=np.float32 if name == "F32" else np.float16)
    out = dequantize(raw, qtype)
    assert out.shape == (2, 256) and not np.any(out)


# ----------------------------------------------------------------- chat templates
def test_template_renders_like_transformers_with_trimmed_blocks() -> None:
    source = (
        "{% for m in messages %}\n"
        "  {% if m['role'] == 'system' %}[SYS]{{ m['content'] | tojson }}{% endif %}\n"
        "  {% if m['role'] == 'user' %}{{ bos_token }}[U]{{ m['content'] }}{{ eos_token }}"
        "{% endif %}\n"
        "{% endfor %}\n"
        "{% if add_generation_prompt %}[A]{% endif %}"
    )
    template = ChatTemplate(source, "m.gguf", bos_token="<s>", eos_token="</s>")
    text = template.render([("system", "Grüße"), ("user", "Hi")])
    assert text == '[SYS]"Grüße"<s>[U]Hi</s>[A]'


def test_template_exceptions_and_sandbox_are_reported_with_the_file() -> None:
    strict = ChatTemplate(
        "{% if messages[0]['role'] != 'user' %}{{ raise_exception('first must be user') }}"
        "{% endif %}ok",
        "strict.gguf",
    )
    assert strict.render([("user", "x")]) == "ok"
    with pytest.raises(ChatTemplateError, match=r"strict\.gguf: the chat template refused: first"):
        strict.render([("system", "x")])
    escape = ChatTemplate("{{ ''.__class__.__mro__[1].__subclasses__() }}", "evil.gguf")
    with pytest.raises(ChatTemplateError, match=r"evil\.gguf"):
        escape.render([("user", "x")])
    with pytest.raises(ChatTemplateError, match=r"bad\.gguf: tokenizer\.chat_template does not"):
        ChatTemplate("{% for %}", "bad.gguf").check()


# ----------------------------------------------------------------- BLAS threads
def test_blas_threads_are_set_through_threadpoolctl() -> None:
    before = blas_threads()
    assert before is not None and "thread(s)" in blas_description()
    try:
        assert set_blas_threads(1) is True
        assert blas_threads() == 1
    finally:
        set_blas_threads(before)
    with pytest.raises(ValueError, match=">= 1"):
        set_blas_threads(0)


def test_results_setup_names_the_decoding(tmp_path: Path) -> None:
    from tooleval.runner.records import RunConfig

    assert RunConfig(decoding="constrained").setup_label() == "prompt, constrained"
    assert RunConfig().setup_label() == "prompt"
    assert json.loads(json.dumps(RunConfig(decoding="constrained").to_json()))["decoding"] == (
        "constrained"
    )


def test_report_pairs_free_and_constrained_runs_of_one_model(tmp_path: Path) -> None:
    from tooleval.providers.fake import FakeProvider, FakeReply
    from tooleval.report import build_report, load_runs
    from tooleval.runner import RunConfig, run_suite
    from tooleval.suites.infranode import load_tasks

    gold = load_tasks()[0].gold  # the fake answers the first task's gold call on every item
    right = json.dumps({"name": gold.name, "arguments": dict(gold.arguments)})
    for decoding, text in (("free", "Hannover ist schön."), ("constrained", right)):
        config = RunConfig(
            backend="fake",
            model="m",
            decoding=decoding,  # type: ignore[arg-type]
            limit=3,
            output=tmp_path / f"m-{decoding}.json",
        )
        run_suite(config, FakeProvider([FakeReply(text=text)]))
    report = build_report(load_runs([tmp_path]))
    assert {s.run.setup for s in report.summaries} == {"prompt", "prompt, constrained"}
    [pair] = report.comparisons
    assert (pair.a, pair.b, pair.n) == ("m-free", "m-constrained", 3)
    assert pair.a_rate.value == 0.0 and pair.b_only >= 1  # at least the first task is right


def test_resume_refuses_to_mix_free_and_constrained_answers(tmp_path: Path) -> None:
    from tooleval.providers.fake import FakeProvider, FakeReply
    from tooleval.runner import ResumeError, RunConfig, run_suite

    output = tmp_path / "m.json"
    free = RunConfig(backend="fake", model="m", limit=2, output=output)
    run_suite(free, FakeProvider([FakeReply(text="Hannover")]))
    constrained = RunConfig(
        backend="fake", model="m", limit=2, output=output, resume=True, decoding="constrained"
    )
    with pytest.raises(ResumeError, match="decoding"):
        run_suite(constrained, FakeProvider([FakeReply(text="Hannover")]))
