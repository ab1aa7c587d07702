"""Tokenizers for prompt measurement, behind one tiny protocol: ``encode(text) -> list[int]``.

``embedded`` is the local model's own BPE, rebuilt from the GGUF metadata by
``tooleval.local.tokenizer`` (only metadata is read, no weights). Any ``tokenizer.json``
(Hugging Face ``tokenizers`` format) on disk works too, as does a GGUF file path.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal, Protocol

Template = Literal["chatml", "none"]


class TextTokenizer(Protocol):
    def encode(self, text: str) -> list[int]: ...


@dataclass(frozen=True)
class NamedTokenizer:
    """A tokenizer, what to call it in reports, and the chat template its model uses."""

    name: str
    tokenizer: TextTokenizer
    template: Template = "none"

    def count(self, text: str) -> int:
        return len(self.tokenizer.encode(text))


class WhitespaceTokenizer:
    """One token per whitespace-separated word: a stand-in for tests and rough estimates."""

    def encode(self, text: str) -> list[int]:
        return list(range(len(text.split())))


class JsonFileTokenizer:
    """A Hugging Face ``tokenizer.json`` read with the ``tokenizers`` library (offline)."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer

        try:
            self._tok = Tokenizer.from_file(str(path))
        except Exception as exc:  # tokenizers raises a bare Exception on bad files
            raise ValueError(f"{path}: not a readable tokenizer.json ({exc})") from None

    def encode(self, text: str) -> list[int]:
        return list(self._tok.encode(text, add_special_tokens=False).ids)


@cache
def gguf_tokenizer(path: Path | None = None) -> TextTokenizer:
    """The BPE tokenizer of a GGUF file (default: the embedded SmolLM2 model); cached, since
    reading a GGUF header takes seconds."""
    from gguf import GGUFReader

    from tooleval.local.gguf_model import default_model_path, read_fields
    from tooleval.local.tokenizer import ChatTokenizer, spec_from_fields

    file = path or default_model_path()
    try:
        fields = read_fields(GGUFReader(str(file)))
    except (ValueError, OSError) as exc:
        raise ValueError(f"{file}: not a readable GGUF file ({exc})") from None
    return ChatTokenizer(spec_from_fields(fields, str(file)))


def resolve_tokenizer(name: str) -> NamedTokenizer:
    """``embedded``, ``whitespace``, a ``.gguf`` file, a ``tokenizer.json`` or its folder."""
    if name == "embedded":
        return NamedTokenizer("embedded (smollm2-135m)", gguf_tokenizer(), "chatml")
    if name == "whitespace":
        return NamedTokenizer("whitespace", WhitespaceTokenizer())
    path = Path(name)
    if path.is_dir() and (path / "tokenizer.json").is_file():
        path = path / "tokenizer.json"
    if path.is_file() and path.suffix == ".gguf":
        return NamedTokenizer(path.name, gguf_tokenizer(path), "chatml")
    if path.is_file():
        return NamedTokenizer(str(path.name), JsonFileTokenizer(path))
    raise ValueError(
        f"--tokenizer {name!r}: not 'embedded', 'whitespace', a .gguf file or a tokenizer.json"
    )
