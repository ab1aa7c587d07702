"""Training exports of the InfraNode suite: SFT chat JSONL, RL prompts and an RL environment.

Every exported line validates against a JSON Schema shipped in ``schemas/`` (``load_schema``).
See docs/export.md.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jsonschema import Draft202012Validator

from tooleval.export.rl import RL_FORMAT, InfraNodeEnv, Observation, StepResult, rl_prompts
from tooleval.export.sft import SFT_FORMAT, episode_examples, gold_examples
from tooleval.fileio import package_json

SCHEMAS = {"sft": "sft.schema.json", "rl": "rl.schema.json"}

__all__ = [
    "RL_FORMAT",
    "SCHEMAS",
    "SFT_FORMAT",
    "InfraNodeEnv",
    "Observation",
    "StepResult",
    "episode_examples",
    "gold_examples",
    "load_schema",
    "rl_prompts",
    "schema_errors",
]


@cache
def load_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of one export format (``sft`` or ``rl``), from the package."""
    if kind not in SCHEMAS:
        raise ValueError(f"unknown export format {kind!r}; choose one of: {', '.join(SCHEMAS)}")
    schema: dict[str, Any] = package_json(__name__, "schemas", SCHEMAS[kind])
    return schema


def schema_errors(kind: str, record: Any) -> list[str]:
    """Schema violations of one exported record (path: message), empty when valid."""
    validator = Draft202012Validator(load_schema(kind))
    return sorted(
        f"{'/'.join(str(p) for p in e.absolute_path) or '(record)'}: {e.message}"
        for e in validator.iter_errors(record)
    )
