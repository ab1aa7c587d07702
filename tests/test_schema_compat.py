"""The provider schema gate: the original five rules, provider profiles, surfaces, the CLI."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from tooleval.commands import schema_compat as command
from tooleval.records import ToolSpec
from tooleval.schema_compat import audit_suite, audit_surfaces
from tooleval.schema_compat.gate import audit_surface
from tooleval.schema_compat.report import at_least, render_table
from tooleval.schema_compat.surfaces import Surface, ToolEntry, entries_from_json
from tooleval.suites.cesium import load_tools

# The original gate's own detector fixture: root oneOf, $schema, prefixItems without items.
FIXTURE = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "oneOf": [{"type": "object", "properties": {"points": {"type": "array", "prefixItems": [{}]}}}],
}


def external(*entries: tuple[str, Any]) -> Surface:
    return Surface("test", "external", tuple(ToolEntry(n, s) for n, s in entries))


def rules_at(findings: list[Any], profile: str) -> list[tuple[str, str]]:
    return [(f.rule, f.path) for f in findings if f.profile == profile]


def test_original_detector_fixture() -> None:
    findings = audit_surface(external(("bad", FIXTURE)), ["original"])
    assert rules_at(findings, "original") == [
        ("root-object", "$"),
        ("root-union", "$.oneOf"),
        ("schema-pointer", "$.$schema"),
        ("array-items", "$.oneOf[0].properties.points"),
    ]
    providers = {f.rule: f.providers for f in findings}
    assert providers["array-items"] == ("VS Code MCP",)
    assert providers["schema-pointer"] == ("OpenAI", "Azure OpenAI", "WebMCP")


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), {1: "x"}, b"x", {"a": {"b": {1, 2}}}, ({1, 2},)]
)
def test_json_serializable_is_strict_and_stops_other_rules(value: Any) -> None:
    schema = {"type": "object", "properties": {"p": {"type": "array", "default": value}}}
    findings = audit_surface(external(("t", schema)), ["original"])
    assert [f.rule for f in findings] == ["json-serializable"]


def test_tuples_serialise_as_arrays_and_pass() -> None:
    schema = {"type": "object", "properties": {"p": {"type": "array", "items": {},
              "default": (1, (2, 3)), "enum": ((1, (2, 3)),)}}}  # fmt: skip
    json.dumps(schema)  # what every encoder does with tuples
    assert audit_surface(external(("t", schema)), ["original"]) == []


def test_draft7_additional_items_are_walked() -> None:
    schema = {"type": "object", "properties": {"p": {
        "type": "array", "items": [{"type": "number"}],
        "additionalItems": {"type": "array", "$schema": "x"}}}}  # fmt: skip
    found = rules_at(audit_surface(external(("t", schema)), ["original"]), "original")
    assert found == [
        ("schema-pointer", "$.properties.p.additionalItems.$schema"),
        ("array-items", "$.properties.p.additionalItems"),
    ]


@pytest.mark.parametrize(
    ("node", "flagged"),
    [
        ({"prefixItems": [{"type": "number"}]}, True),  # a tuple schema without type
        ({"minItems": 2}, True),
        ({"prefixItems": [{}], "items": {"type": "number"}}, False),
        ({"type": "string", "minLength": 1}, False),
        ({"type": ["array", "null"]}, True),
        ({"description": "anything"}, False),
    ],
)
def test_untyped_array_schemas_need_items(node: dict[str, Any], flagged: bool) -> None:
    schema = {"type": "object", "properties": {"p": node}}
    found = rules_at(audit_surface(external(("t", schema)), ["original"]), "original")
    assert found == ([("array-items", "$.properties.p")] if flagged else [])


def test_both_suites_pass_their_default_gate() -> None:
    from tooleval.suites.infranode import load_tools as infranode_tools

    for suite, specs in (("cesium", load_tools()), ("infranode", infranode_tools())):
        report = audit_suite(suite, specs)
        assert at_least(list(report.findings), "rejected") == [], suite
        assert {s for s, _ in report.surfaces} == {
            f"{suite}:{k}" for k in ("canonical", "mcp", "openai", "gemini", "anthropic")
        }
        assert all(v == "2026-11-30" for _, v in report.profiles)


def test_what_if_profiles_find_the_strict_dialect_problems() -> None:
    findings = list(audit_suite("cesium", load_tools(), what_if=True).findings)
    keys = {(f.profile, f.rule) for f in at_least(findings, "rejected")}
    assert ("openai-strict", "all-required") in keys
    assert ("gemini-parameters", "schema-field") in keys  # prefixItems, oneOf, const, …
    assert ("anthropic-strict", "tool-count") in keys  # 61 strict tools > 20
    assert ("anthropic-strict", "strict-complexity") in keys
    box = [f for f in findings if f.tool == "addBox" and f.profile == "gemini-parameters"]
    assert "$.properties.material.oneOf" in {f.path for f in box}


def test_gemini_drops_unsupported_keywords_and_providers_do_not_enforce() -> None:
    findings = list(audit_suite("cesium", load_tools()).findings)
    geocode = {(f.profile, f.severity, f.path) for f in findings if f.tool == "geocode"}
    assert ("gemini", "dropped", "$.properties.address.minLength") in geocode
    assert ("openai", "unenforced", "$") in geocode


def test_tool_names_and_counts_per_provider() -> None:
    ok = {"type": "object", "properties": {}}
    surface = external(
        ("with.dot", ok), ("9starts-with-digit", ok), *[(f"t{i}", ok) for i in range(127)]
    )
    findings = audit_surface(surface, ["openai", "gemini", "anthropic", "vscode-mcp"])
    named = {(f.profile, f.tool) for f in findings if f.rule == "tool-name"}
    assert ("openai", "with.dot") in named and ("anthropic", "with.dot") in named
    assert ("gemini", "with.dot") not in named and ("gemini", "9starts-with-digit") in named
    counts = {(f.profile, f.severity) for f in findings if f.rule == "tool-count"}
    assert counts == {("openai", "rejected"), ("vscode-mcp", "dropped")}  # 129 > 128


def test_each_surface_gets_its_own_profiles() -> None:
    spec = ToolSpec("t", "d", {"type": "object", "properties": {"x": {"type": "array"}}})
    found = {
        (f.surface, f.profile) for f in audit_suite("s", [spec]).findings if f.rule == "array-items"
    }
    assert found == {("s:canonical", "original"), ("s:mcp", "vscode-mcp")}


def test_surfaces_are_what_the_providers_send() -> None:
    from tooleval.providers.anthropic import anthropic_tool
    from tooleval.providers.gemini import build_gemini_body
    from tooleval.providers.openai_compat import build_openai_body
    from tooleval.records import GenerationRequest, Message
    from tooleval.schema_compat.surfaces import anthropic_tools, gemini_declaration, openai_tools

    specs = load_tools()
    request = GenerationRequest(messages=(Message("user", "x"),), tools=specs)
    assert build_openai_body(request, "m")["tools"] == openai_tools(specs)
    assert [anthropic_tool(s) for s in specs] == anthropic_tools(specs)
    sent = build_gemini_body(request, "gemini-2.5-flash")["tools"][0]["functionDeclarations"]
    assert sent == [gemini_declaration(s) for s in specs]


@pytest.mark.parametrize(
    "doc",
    [
        [{"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}],
        {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]},
        {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a", "inputSchema": {}}]}},
        [{"name": "a", "parameters": {"type": "object"}}],
    ],
)
def test_tools_file_shapes(doc: Any) -> None:
    assert [e.name for e in entries_from_json(doc, "f")] == ["a"]


def test_tools_file_errors_name_the_file_and_index() -> None:
    with pytest.raises(ValueError, match=r"f: tools\[0\] \(a\): no inputSchema"):
        entries_from_json([{"name": "a"}], "f")


def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="tooleval")
    command.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["schema-compat", *argv])
    code: int = args.func(args)
    return code


def test_cli_default_run_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli() == 0
    out = capsys.readouterr().out
    assert "surface cesium:openai: 61 tools" in out and "findings: 0 rejected" in out
    assert "original@2026-11-30" in out


def test_cli_tools_file_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([{"name": "bad", "inputSchema": FIXTURE}]), encoding="utf-8")
    assert cli("--tools", str(path)) == 1
    out = capsys.readouterr().out
    assert "surface | tool | providers | rule | JSON path | message" in out
    assert "file:tools.json | bad | VS Code MCP | array-items | $.oneOf[0].properties.points" in out
    assert cli("--tools", str(path), "--json") == 1
    doc = json.loads(capsys.readouterr().out)
    assert (
        doc["failed"] is True and {"profile": "webmcp", "version": "2026-11-30"} in doc["profiles"]
    )
    assert cli("--tools", str(tmp_path / "missing.json")) == 2


def test_fail_on_and_show_levels(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("--suite", "cesium", "--fail-on", "dropped") == 1
    capsys.readouterr()
    assert cli("--suite", "cesium", "--show", "unenforced") == 0
    assert "[unenforced] accepted but not enforced" in capsys.readouterr().out


def test_table_escapes_pipes() -> None:
    findings = audit_surface(external(("a|b", {"type": "string"})), ["original"])
    assert "a\\|b" in render_table(findings)
    assert audit_surfaces([]).findings == ()
