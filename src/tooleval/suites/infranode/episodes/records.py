"""What an InfraNode episode is scored as: its outcome class and counts (see docs/episodes.md).

The executed calls are the shared ``tooleval.records.ExecutedCall``; the InfraNode environment
fills their ``status`` (HTTP) and ``source_status`` (``meta.source_status`` of the body).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from tooleval.records import ExecutedCall as ExecutedCall

OUTCOMES = (
    "success",
    "no_call",
    "wrong_call",
    "wrong_order",
    "hallucinated_eva",
    "wrong_station",
    "incomplete",
    "per_city_calls",
    "invented_data",
    "gap_not_reported",
    "no_answer",
    "ungrounded",
)
"""Episode outcome classes, most specific first. Episodes that did not end with the model
(provider errors) are not scored; their ``outcome`` in a results file is their ending."""


@dataclass(frozen=True)
class EpisodeScore:
    """Per-episode measurements (see docs/episodes.md)."""

    outcome: str
    success: int
    steps: int
    calls: int
    invalid_calls: int
    wasted_calls: int
    facts_supported: int
    facts_unsupported: int
    answer_grounded: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
