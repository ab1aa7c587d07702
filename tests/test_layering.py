"""The import graph of ``src/tooleval`` follows the data flow: no cycles, and no module imports
from a higher layer. Every import counts, also one inside a function (docs/architecture.md).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "tooleval"

# Lowest first. A module may import from its own layer and the layers below it.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"records", "fileio", "redaction"}),
    frozenset({"parsing", "scoring", "metrics", "tasks", "namefold", "local", "schema_compat"}),
    frozenset({"providers"}),
    frozenset({"suites"}),
    frozenset({"runner"}),
    frozenset({"export", "report", "measure", "integrations", "selftest"}),
    frozenset({"commands", "cli"}),
)
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: set[str] = {module_name(p) for p in SRC.rglob("*.py")}


def imports(path: Path) -> set[str]:
    """Every ``tooleval`` module ``path`` imports, at any depth of the file. ``from P import M``
    of a submodule M counts as importing ``P.M`` (not the package ``P`` itself)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = (
        module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    )
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("tooleval"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            if base.startswith("tooleval"):
                subs = {f"{base}.{a.name}" for a in node.names} & MODULES
                found.update(subs)
                if len(subs) < len(node.names):
                    found.add(base)
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in SRC.rglob("*.py")}
    return {
        name: {m for m in imports(path) if m in modules} - {name} for name, path in modules.items()
    }


def top(name: str) -> str:
    return name.split(".")[1] if "." in name else "tooleval"


def test_every_top_level_part_has_a_layer() -> None:
    parts = {top(name) for name in graph()} - {"tooleval"}
    assert parts <= set(RANK), f"add to LAYERS: {sorted(parts - set(RANK))}"


def test_no_module_imports_from_a_higher_layer() -> None:
    upward = sorted(
        f"{name} -> {target}"
        for name, targets in graph().items()
        for target in targets
        if top(name) in RANK and top(target) in RANK and RANK[top(target)] > RANK[top(name)]
    )
    assert upward == []


def test_there_is_no_import_cycle() -> None:
    edges = graph()
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_the_checker_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    sample = SRC / "runner" / "__init__.py"
    assert "tooleval.runner.dispatch" in imports(sample)
    lazy = SRC / "suites" / "infranode" / "__init__.py"
    assert "tooleval.suites.infranode.dialogue" in imports(lazy)  # inside load_suite
