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
    "wrong_board",
    "incomplete",
    "per_city_calls",
    "invented_data",
    "gap_not_reported",
    "no_answer",
    "contradicted",
    "ungrounded",
)
"""Episode outcome classes, most specific first. Episodes that did not end with the model
(provider errors) are not scored; their ``outcome`` in a results file is their ending."""


@dataclass(frozen=True)
class CheckedClaim:
    """One claim of the final answer as the check read it: the ``text`` as written, its
    ``kind`` (``name``, ``number``, ``term``, ``time``, ``date``), its ``verdict``
    (``supported``, ``contradicted``, ``unsupported``, ``neutral``), and the fact it was
    checked against (the supporting one; for a contradicted claim the one it disagrees with):
    its ``entity`` (city slug or the item's name), ``field``, ``value`` and ``unit``; None
    where no fact of its field was shown. ``key``: it states a fact the question asks for."""

    text: str
    kind: str
    verdict: str
    entity: str | None = None
    field: str | None = None
    value: float | bool | str | None = None
    unit: str | None = None
    key: bool = False


@dataclass(frozen=True)
class EpisodeScore:
    """Per-episode measurements (see docs/episodes.md). ``facts_contradicted`` counts claims
    that disagree with the results; ``answer_decided`` is 0 when the final-answer check found
    nothing wrong but did not recognise the asked facts either (what a judge may decide);
    ``claims``: what the final-answer check read, claim by claim."""

    outcome: str
    success: int
    steps: int
    calls: int
    invalid_calls: int
    wasted_calls: int
    facts_supported: int
    facts_unsupported: int
    answer_grounded: int
    facts_contradicted: int = 0
    answer_decided: int = 1
    claims: tuple[CheckedClaim, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
