"""CLI subcommands: one module each (``-`` in a command name is ``_`` in its module), exposing
``register(subparsers)``. ``COMMANDS`` is the one table of names and one-line help; ``cli``
imports only the module of the command being run. Shared flags, exit codes and error output
live in ``common``.
"""

from __future__ import annotations

COMMANDS: dict[str, str] = {
    "run": "evaluate a model on a suite, one call per item (default: local model)",
    "episodes": "multi-turn episodes: tool calls executed in the suite's environment",
    "model-tools": "Cesium scenarios: routing preflight, or live multi-turn with --live",
    "selftest": "check prompts and scoring without a model",
    "generate": "generate the InfraNode tasks from the API (replica by default)",
    "serve": "serve the offline InfraNode API replica",
    "mcp": "serve the twelve InfraNode tools as an MCP server (replica by default)",
    "parse": "parse raw model outputs into tool calls",
    "schema-compat": "audit tool schemas against provider rules",
    "routing": "score the deterministic Cesium tool routers (no network)",
    "export": "export SFT chat JSONL or RL prompts (JSON Schema)",
    "lm-eval-path": "print the lm-eval task folder, for lm_eval --include_path",
    "lm-eval-import": "read an lm-eval --log_samples output folder, write a tooleval results file",
    "report": "compare runs: table, Markdown, JSON, HTML and PNG charts",
    "measure": "prompt size in characters and tokens, and cost",
    "audit": "check that every task is defensible (exit 1 on a defect)",
}


def module_name(command: str) -> str:
    return "tooleval.commands." + command.replace("-", "_")
