"""Provider profiles: which rules each provider surface must pass, with a version.

Sources for every rule are in docs/schema-compat.md. A profile's ``version`` is the date its
rules were last checked against those sources; it goes into every report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tooleval.schema_compat import rules
from tooleval.schema_compat.rules import Check

OPENAI = ("OpenAI", "Azure OpenAI")


@dataclass(frozen=True)
class Rule:
    id: str
    providers: tuple[str, ...]
    severity: str
    check: Check


@dataclass(frozen=True)
class Profile:
    name: str
    version: str
    description: str
    rules: tuple[Rule, ...]
    name_pattern: re.Pattern[str] | None = None
    max_tools: int | None = None
    tool_limit_severity: str = "rejected"
    max_optional_params: int | None = None
    max_union_params: int | None = None

    @property
    def providers(self) -> tuple[str, ...]:
        seen: list[str] = []
        for rule in self.rules:
            seen.extend(p for p in rule.providers if p not in seen)
        return tuple(seen)


# The original gate's five rules, with the providers each protects.
ORIGINAL_RULES = (
    Rule(
        "json-serializable", (*OPENAI, "VS Code MCP", "WebMCP"), "rejected", rules.json_serializable
    ),
    Rule("root-object", (*OPENAI, "VS Code MCP"), "rejected", rules.root_object),
    Rule("root-union", OPENAI, "rejected", rules.root_union),
    Rule("schema-pointer", (*OPENAI, "WebMCP"), "rejected", rules.schema_pointer),
    Rule("array-items", ("VS Code MCP",), "rejected", rules.array_items),
)
_BY_ID = {r.id: r for r in ORIGINAL_RULES}

OPENAI_STRICT_BANNED = frozenset(
    {
        "allOf", "oneOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
        "patternProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames",
        "minProperties", "maxProperties", "contains", "minContains", "maxContains",
        "uniqueItems", "prefixItems", "minLength", "maxLength", "default", "const",
    }
)  # fmt: skip
GEMINI_SCHEMA_FIELDS = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
        "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
        "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum",
        "maximum", "additionalProperties", "$ref", "$defs",
    }
)  # fmt: skip
GEMINI_JSON_SCHEMA_FIELDS = frozenset(
    {
        "$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum",
        "items", "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf",
        "properties", "additionalProperties", "required", "propertyOrdering",
    }
)  # fmt: skip
ANTHROPIC_STRICT_BANNED = frozenset(
    {
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "maxItems", "uniqueItems", "not", "if", "then", "else",
        "patternProperties", "prefixItems", "oneOf",
    }
)  # fmt: skip

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

V = "2026-11-30"
_BASE_OPENAI = ("json-serializable", "root-object", "root-union", "schema-pointer")
_GEM = ("Gemini",)
_ANT = ("Anthropic",)

PROFILES: dict[str, Profile] = {
    "original": Profile("original", V, "the original gate's five rules", ORIGINAL_RULES),
    "openai": Profile(
        "openai", V, "OpenAI function calling, strict off (what tooleval sends)",
        (
            _BY_ID["json-serializable"], _BY_ID["root-object"], _BY_ID["root-union"],
            _BY_ID["schema-pointer"],
            Rule("unenforced", OPENAI, "unenforced", rules.unenforced_constraints),
        ),
        OPENAI_NAME, 128,
    ),
    "openai-strict": Profile(
        "openai-strict", V, "OpenAI function calling with strict: true (what-if)",
        (
            *[_BY_ID[k] for k in _BASE_OPENAI],
            Rule("closed-objects", OPENAI, "rejected", rules.closed_objects),
            Rule("all-required", OPENAI, "rejected", rules.all_required),
            Rule("strict-keyword", OPENAI, "rejected",
                 rules.keywords_in(OPENAI_STRICT_BANNED, "not permitted in strict mode")),
            Rule("max-depth", OPENAI, "rejected", rules.max_depth(10)),
        ),
        OPENAI_NAME, 128,
    ),
    "gemini-parameters": Profile(
        "gemini-parameters", V, "Gemini FunctionDeclaration.parameters (OpenAPI subset; what-if)",
        (
            Rule("json-serializable", _GEM, "rejected", rules.json_serializable),
            Rule("root-object", _GEM, "rejected", rules.root_object),
            Rule("schema-field", _GEM, "rejected",
                 rules.keywords_outside(GEMINI_SCHEMA_FIELDS, "not a field of Gemini's Schema")),
            Rule("single-type", _GEM, "rejected", rules.single_type),
            Rule("string-enum", _GEM, "rejected", rules.string_enums),
        ),
        GEMINI_NAME,
    ),
    "gemini": Profile(
        "gemini", V, "Gemini FunctionDeclaration.parametersJsonSchema (what tooleval sends)",
        (
            Rule("json-serializable", _GEM, "rejected", rules.json_serializable),
            Rule("root-object", _GEM, "rejected", rules.root_object),
            Rule("ignored-keyword", _GEM, "dropped",
                 rules.keywords_outside(GEMINI_JSON_SCHEMA_FIELDS, "outside Gemini's subset")),
            Rule("unenforced", _GEM, "unenforced", rules.unenforced_constraints),
        ),
        GEMINI_NAME,
    ),
    "anthropic": Profile(
        "anthropic", V, "Anthropic tool use, strict off (what tooleval sends)",
        (
            Rule("json-serializable", _ANT, "rejected", rules.json_serializable),
            Rule("root-object", _ANT, "rejected", rules.root_object),
            Rule("unenforced", _ANT, "unenforced", rules.unenforced_constraints),
        ),
        ANTHROPIC_NAME,
    ),
    "anthropic-strict": Profile(
        "anthropic-strict", V, "Anthropic strict tool use (what-if)",
        (
            Rule("json-serializable", _ANT, "rejected", rules.json_serializable),
            Rule("root-object", _ANT, "rejected", rules.root_object),
            Rule("closed-objects", _ANT, "rejected", rules.closed_objects),
            Rule("strict-keyword", _ANT, "rejected",
                 rules.keywords_in(ANTHROPIC_STRICT_BANNED, "not supported in strict mode")),
            Rule("min-items", _ANT, "rejected", rules.min_items_zero_or_one),
        ),
        ANTHROPIC_NAME, 20, max_optional_params=24, max_union_params=16,
    ),
    "vscode-mcp": Profile(
        "vscode-mcp", V, "VS Code as an MCP client (Copilot chat)",
        (_BY_ID["json-serializable"], _BY_ID["root-object"], _BY_ID["array-items"]),
        max_tools=128, tool_limit_severity="dropped",
    ),
    "webmcp": Profile(
        "webmcp", V, "WebMCP tool registration in the browser",
        (_BY_ID["json-serializable"], _BY_ID["schema-pointer"]),
    ),
}  # fmt: skip

# Which profiles gate which surface by default (what tooleval and MCP clients really send).
DEFAULT_PROFILES: dict[str, tuple[str, ...]] = {
    "canonical": ("original",),
    "mcp": ("vscode-mcp", "webmcp"),
    "openai": ("openai",),
    "gemini": ("gemini",),
    "anthropic": ("anthropic",),
}
WHAT_IF_PROFILES: dict[str, tuple[str, ...]] = {
    "openai": ("openai-strict",),
    "gemini": ("gemini-parameters",),
    "anthropic": ("anthropic-strict",),
}
