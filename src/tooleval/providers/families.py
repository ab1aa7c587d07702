"""The capability table: what each model family accepts (sampling parameters, the token-limit
field, the reasoning control and its values, whether thinking can be switched off), with the
documentation or SDK source of every rule. ``capabilities`` turns a row and the flags into
request fields; docs/backends/ lists the rows for users. Pure data."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Dialect = Literal["openai", "gemini", "anthropic"]
Control = Literal[
    "none",  # no reasoning control: --reasoning off sends nothing, an effort is refused
    "reasoning_effort",  # chat completions' reasoning_effort (OpenAI, Ollama, pass-through)
    "deepseek",  # thinking: {type: enabled|disabled} plus reasoning_effort
    "openrouter",  # reasoning: {effort} | {max_tokens} | {enabled: false}
    "chat_template",  # chat_template_kwargs.enable_thinking (Qwen3 templates) plus effort
    "thinking_level",  # Gemini 3: generationConfig.thinkingConfig.thinkingLevel
    "thinking_budget",  # Gemini 2.5: generationConfig.thinkingConfig.thinkingBudget
    "adaptive",  # Claude 4.6+: thinking {type: adaptive} plus output_config.effort
    "budget_tokens",  # Claude up to 4.5: thinking {type: enabled, budget_tokens}
]
Sampling = Literal[
    "any",  # any value; tooleval sends 0 (temperature) when none is given
    "keep_default",  # accepted, but the guide says keep the default: sent only when given
    "default_only",  # the API rejects any value but its default (1): never sent
    "unsupported",  # the API has no such parameter: never sent, a given value is refused
]
LEVEL_ORDER = ("none", "minimal", "low", "medium", "high", "xhigh", "max")


@dataclass(frozen=True)
class Family:
    """One row of the table. ``pattern`` is matched against the whole model name (case
    ignored, an ``org/`` prefix dropped); ``presets`` limits an OpenAI-dialect row to those
    presets (empty: any). ``levels`` are the control's accepted words, lowest first (empty for
    a pass-through control: low/medium/high are sent as given). ``off`` is the value that
    switches thinking off (None: it cannot be switched off, and ``--reasoning off`` sends the
    lowest level or budget instead). ``budgets`` bounds a budget control.
    ``temperature_needs_off``: a temperature is accepted only with reasoning switched off.
    ``default_reasoning`` is tooleval's choice when ``--reasoning`` is not given."""

    name: str
    dialect: Dialect
    pattern: str
    source: str
    presets: tuple[str | None, ...] = ()
    temperature: Sampling = "any"
    top_p: Sampling = "any"
    token_field: str = "max_tokens"
    control: Control = "none"
    levels: tuple[str, ...] = ()
    off: str | None = None
    budgets: tuple[int, int] | None = None
    temperature_needs_off: bool = False
    default_reasoning: str | None = None

    def matches(self, dialect: str, preset: str | None, model: str) -> bool:
        if dialect != self.dialect or (self.presets and preset not in self.presets):
            return False
        return re.fullmatch(self.pattern, model_name(model), flags=re.IGNORECASE) is not None


def model_name(model: str) -> str:
    """The model name without a router's ``org/`` prefix (``openai/gpt-5`` -> ``gpt-5``)."""
    return model.rsplit("/", 1)[-1]


OPENAI_REASONING = "openai-python types/shared/reasoning_effort.py; chat completions reference"
_OPENAI_SAMPLING = (
    "the API answers 400 'Unsupported value: temperature does not support 0 with this model. "
    "Only the default (1) value is supported' (platform.openai.com/docs/guides/reasoning)"
)
OPENAI_HOSTS = ("openai", None)  # the OpenAI API, or an unnamed endpoint serving its models

GEMINI_THINKING = "ai.google.dev/gemini-api/docs/thinking"
GEMINI_3_TEMPERATURE = (
    "the Gemini 3 guide advises keeping temperature at its default 1.0 (lower values can "
    "cause looping), so none is sent unless given"
)

FAMILIES: tuple[Family, ...] = (
    # --- OpenAI ------------------------------------------------------------------------------
    Family(
        "openai-chat",
        "openai",
        r"gpt-(3\.5|4|4o|4\.\d+)(-.*)?|gpt-5(\.\d+)?-chat(-.*)?|chatgpt-.*",
        "chat models take sampling parameters and no reasoning_effort; max_tokens is deprecated "
        "for max_completion_tokens (openai-python completion_create_params.py)",
        presets=OPENAI_HOSTS,
        token_field="max_completion_tokens",
    ),
    Family(
        "openai-gpt-5.x",
        "openai",
        r"gpt-5\.\d+(-.*)?",
        f"{OPENAI_REASONING}: gpt-5.1 and later default to none and accept none, low, medium, "
        "high (xhigh after gpt-5.1-codex-max); temperature and top_p only with reasoning "
        "none (OpenAI latest-model guide, GPT-5.x parameter compatibility)",
        presets=OPENAI_HOSTS,
        temperature="default_only",
        top_p="default_only",
        token_field="max_completion_tokens",
        control="reasoning_effort",
        levels=("none", "low", "medium", "high", "xhigh"),
        off="none",
        temperature_needs_off=True,
    ),
    Family(
        "openai-gpt-5-pro",
        "openai",
        r"gpt-5-pro(-\d{4}-\d\d-\d\d)?",
        f"{OPENAI_REASONING}: gpt-5-pro defaults to (and only supports) high; {_OPENAI_SAMPLING}",
        presets=OPENAI_HOSTS,
        temperature="default_only",
        top_p="default_only",
        token_field="max_completion_tokens",
        control="reasoning_effort",
        levels=("high",),
    ),
    Family(
        "openai-gpt-5",
        "openai",
        r"gpt-5(-(mini|nano|codex))?(-\d{4}-\d\d-\d\d)?",
        f"{OPENAI_REASONING}: models before gpt-5.1 default to medium and do not support none; "
        f"{_OPENAI_SAMPLING}; max_tokens is not compatible with reasoning models",
        presets=OPENAI_HOSTS,
        temperature="default_only",
        top_p="default_only",
        token_field="max_completion_tokens",
        control="reasoning_effort",
        levels=("minimal", "low", "medium", "high"),
    ),
    Family(
        "openai-o-series",
        "openai",
        r"o\d(-.*)?",
        f"{OPENAI_REASONING}: o-series efforts low, medium, high; {_OPENAI_SAMPLING}; "
        "max_tokens 'is not compatible with o-series models' (completion_create_params.py)",
        presets=OPENAI_HOSTS,
        temperature="default_only",
        top_p="unsupported",
        token_field="max_completion_tokens",
        control="reasoning_effort",
        levels=("low", "medium", "high"),
    ),
    Family(
        "openai-other",
        "openai",
        r".*",
        "an OpenAI model not listed here: no temperature unless given (new OpenAI models are "
        "reasoning models, which accept only the default); --reasoning passed through as "
        "reasoning_effort",
        presets=("openai",),
        temperature="keep_default",
        top_p="keep_default",
        token_field="max_completion_tokens",
        control="reasoning_effort",
    ),
    # --- OpenAI-compatible servers -----------------------------------------------------------
    Family(
        "deepseek",
        "openai",
        r".*",
        "api-docs.deepseek.com/guides/thinking_mode: thinking {type: enabled|disabled}, on by "
        "default; reasoning_effort low|high|max (medium maps to high); in thinking mode "
        "temperature is ignored, and reasoning_content must be sent back on tool-call turns",
        presets=("deepseek",),
        control="deepseek",
        levels=("low", "high", "max"),
        off="disabled",
        default_reasoning="off",
    ),
    Family(
        "openrouter",
        "openai",
        r".*",
        "openrouter.ai/docs/use-cases/reasoning-tokens: reasoning {effort} or {max_tokens}, "
        "{enabled: false} to switch off; reasoning_details must be passed back unmodified",
        presets=("openrouter",),
        control="openrouter",
        off="disabled",
    ),
    Family(
        "ollama",
        "openai",
        r".*",
        "ollama openai/openai.go: reasoning_effort must be high, medium, low or none (none "
        "switches thinking off); docs.ollama.com/api/openai-compatibility",
        presets=("ollama",),
        control="reasoning_effort",
        levels=("none", "low", "medium", "high"),
        off="none",
    ),
    Family(
        "qwen-template-server",
        "openai",
        r".*",
        "vLLM, SGLang and llama.cpp pass chat_template_kwargs to the chat template; Qwen3 "
        "templates switch thinking off with enable_thinking: false (vLLM docs, reasoning "
        "outputs); llama.cpp needs --jinja for tools (tools/server/utils.hpp)",
        presets=("vllm", "sglang", "llamacpp"),
        control="chat_template",
        off="disabled",
    ),
    Family(
        "openai-compatible",
        "openai",
        r".*",
        "any other chat-completions server: sampling as sent; --reasoning passed through as "
        "reasoning_effort, off sends nothing (no portable switch)",
        control="reasoning_effort",
    ),
    # --- Gemini ------------------------------------------------------------------------------
    Family(
        "gemini-3-pro",
        "gemini",
        r"gemini-3-pro(-.*)?",
        f"{GEMINI_THINKING}: Gemini 3 Pro takes thinkingLevel low or high and cannot switch "
        f"thinking off; thinkingLevel with thinkingBudget is a 400; {GEMINI_3_TEMPERATURE}",
        temperature="keep_default",
        top_p="keep_default",
        token_field="maxOutputTokens",
        control="thinking_level",
        levels=("low", "high"),
    ),
    Family(
        "gemini-3.x-pro",
        "gemini",
        r"gemini-(3\.\d+|[4-9](\.\d+)?)-pro(-.*)?",
        f"{GEMINI_THINKING}: later Pro models add medium (not minimal) and cannot switch "
        f"thinking off; {GEMINI_3_TEMPERATURE}",
        temperature="keep_default",
        top_p="keep_default",
        token_field="maxOutputTokens",
        control="thinking_level",
        levels=("low", "medium", "high"),
    ),
    Family(
        "gemini-3-flash",
        "gemini",
        r"gemini-(3(\.\d+)?|[4-9](\.\d+)?)-flash(-.*)?",
        f"{GEMINI_THINKING}: Gemini 3 Flash thinkingLevel minimal, low, medium, high; minimal "
        f"does not guarantee that thinking is off; {GEMINI_3_TEMPERATURE}",
        temperature="keep_default",
        top_p="keep_default",
        token_field="maxOutputTokens",
        control="thinking_level",
        levels=("minimal", "low", "medium", "high"),
    ),
    Family(
        "gemini-2.5-pro",
        "gemini",
        r"gemini-2\.5-pro(-.*)?",
        "ai.google.dev/gemini-api/docs/thinking: 2.5 models take thinkingBudget, not "
        "thinkingLevel; 2.5 Pro thinks 128 to 32768 tokens and cannot switch thinking off",
        token_field="maxOutputTokens",
        control="thinking_budget",
        budgets=(128, 32768),
    ),
    Family(
        "gemini-2.5-flash-lite",
        "gemini",
        r"gemini-2\.5-flash-lite(-.*)?",
        "ai.google.dev/gemini-api/docs/thinking: 2.5 Flash-Lite budget 512 to 24576, 0 "
        "switches thinking off (its default)",
        token_field="maxOutputTokens",
        control="thinking_budget",
        budgets=(512, 24576),
        off="0",
    ),
    Family(
        "gemini-2.5-flash",
        "gemini",
        r"gemini-2\.5-flash(-.*)?",
        "ai.google.dev/gemini-api/docs/thinking: 2.5 Flash budget 0 to 24576, 0 switches "
        "thinking off",
        token_field="maxOutputTokens",
        control="thinking_budget",
        budgets=(1, 24576),
        off="0",
    ),
    Family(
        "gemini-no-thinking",
        "gemini",
        r"gemini-(1\.\d|2\.0)(-.*)?",
        "Gemini 1.5 and 2.0 do not think; thinkingConfig on a model without thinking is an "
        "error (google-genai GenerationConfig.thinking_config)",
        token_field="maxOutputTokens",
    ),
    Family(
        "gemini-other",
        "gemini",
        r".*",
        "a Gemini model not listed here: the 2.5 thinkingBudget control (0 switches off)",
        token_field="maxOutputTokens",
        control="thinking_budget",
        budgets=(1, 32768),
        off="0",
    ),
    # --- Anthropic ---------------------------------------------------------------------------
    Family(
        "claude-adaptive-only",
        "anthropic",
        r"claude-(opus-4-[7-9]|(opus|sonnet|haiku|mythos|fable)-[5-9])(-.*)?|claude-fable-.*",
        "platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting: Opus 4.7, "
        "Opus 4.8, Sonnet 5, Fable 5 and Mythos 5 reject thinking.type enabled with a 400; use "
        "adaptive with output_config.effort; the Messages API the SDK speaks has no "
        "temperature or top_p (anthropic-sdk-python types/message_create_params.py)",
        temperature="unsupported",
        top_p="unsupported",
        control="adaptive",
        levels=("low", "medium", "high", "xhigh", "max"),
        off="disabled",
    ),
    Family(
        "claude-4.6",
        "anthropic",
        r"claude-(opus|sonnet)-4-6(-.*)?|claude-mythos-preview",
        "thinking-troubleshooting: thinking.type enabled is deprecated on the 4.6 models "
        "(anthropic-sdk-python _data/models_to_warn_with_thinking_enabled.py warns); adaptive "
        "is recommended",
        temperature="unsupported",
        top_p="unsupported",
        control="adaptive",
        levels=("low", "medium", "high", "max"),
        off="disabled",
    ),
    Family(
        "claude-budget",
        "anthropic",
        r"claude-((opus|sonnet|haiku)-4(-[0-5])?|3-[57]-sonnet|3-5-haiku)(-\d{8})?",
        "thinking-troubleshooting: on Claude 4.5 and earlier, thinking.type enabled with "
        "budget_tokens (at least 1024, below max_tokens) is the only thinking mode",
        temperature="unsupported",
        top_p="unsupported",
        control="budget_tokens",
        budgets=(1024, 128000),
        off="disabled",
    ),
    Family(
        "claude-other",
        "anthropic",
        r".*",
        "a Claude model not listed here: adaptive thinking, the current models' mode",
        temperature="unsupported",
        top_p="unsupported",
        control="adaptive",
        levels=("low", "medium", "high"),
        off="disabled",
    ),
)


def family_for(dialect: Dialect, preset: str | None, model: str) -> Family:
    """The first row of FAMILIES matching the dialect, preset and model (every dialect ends
    with a catch-all row)."""
    for family in FAMILIES:
        if family.matches(dialect, preset, model):
            return family
    for family in FAMILIES:  # a preset without rows of its own: the dialect's generic row
        if family.matches(dialect, None, model) and not family.presets:
            return family
    raise ValueError(f"no capability row for {dialect} model {model!r}")  # pragma: no cover
