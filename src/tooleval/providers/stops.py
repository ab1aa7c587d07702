"""One taxonomy of how an answer ended, for every backend: each provider's finish reasons
mapped to ``records.StopClass``.

- ``truncated``: cut off by our token budget. A setup problem: the item is reported as the
  error ``truncated`` (``reasoning_truncated`` when the budget went into reasoning) and never
  scored; rerun with a larger ``--max-tokens``. An answer whose call was complete before the
  cut is still read and scored.
- ``malformed_call``: the model produced a call the API itself could not read. Model
  behaviour: scored (no readable call), and in a conversation answered like any unreadable
  call so the model can repair it.
- ``refused``: a refusal or a safety filter on the answer. Model behaviour: scored.

Anything else (a normal stop, a tool-use stop, a stop sequence) is ``done``.
"""

from __future__ import annotations

from collections.abc import Mapping

from tooleval.records import StopClass

# Chat completions ``finish_reason``: "length" when max_tokens (or the context) cut the answer,
# "content_filter" when content was omitted by a filter (openai-python
# types/chat/chat_completion.py, Choice.finish_reason). Some OpenAI-compatible servers write
# "max_tokens" for the budget (vLLM's and llama.cpp's own completions).
OPENAI: Mapping[str, StopClass] = {
    "length": "truncated",
    "max_tokens": "truncated",
    "content_filter": "refused",
}

# Messages API ``stop_reason`` (anthropic-sdk-python types/stop_reason.py): "max_tokens" is our
# budget, "model_context_window_exceeded" the window; "refusal" is the model declining.
ANTHROPIC: Mapping[str, StopClass] = {
    "max_tokens": "truncated",
    "model_context_window_exceeded": "truncated",
    "refusal": "refused",
}

# generateContent ``finishReason`` (google-genai types.FinishReason): MAX_TOKENS is our budget;
# MALFORMED_FUNCTION_CALL "a function call that is syntactically invalid and can't be parsed",
# UNEXPECTED_TOOL_CALL "a function call that is semantically invalid"; the safety, recitation,
# blocklist, prohibited-content and SPII stops are filters on the answer.
GEMINI: Mapping[str, StopClass] = {
    "MAX_TOKENS": "truncated",
    "MALFORMED_FUNCTION_CALL": "malformed_call",
    "UNEXPECTED_TOOL_CALL": "malformed_call",
    "SAFETY": "refused",
    "RECITATION": "refused",
    "BLOCKLIST": "refused",
    "PROHIBITED_CONTENT": "refused",
    "SPII": "refused",
    "IMAGE_SAFETY": "refused",
}

# Gemini's ``promptFeedback.blockReason``: the prompt itself was filtered, no candidate made.
GEMINI_PROMPT_BLOCKS = frozenset({"SAFETY", "BLOCKLIST", "PROHIBITED_CONTENT", "IMAGE_SAFETY"})

ALL: Mapping[str, StopClass] = {**OPENAI, **ANTHROPIC, **GEMINI}
"""Every provider's words at once: for the fake backend, which scripts any of them."""


def stop_class(finish_reason: object, table: Mapping[str, StopClass] = ALL) -> StopClass:
    """The class of a finish reason (``done`` for any word the table does not list)."""
    return table.get(finish_reason, "done") if isinstance(finish_reason, str) else "done"
