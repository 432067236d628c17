"""The import graph of `service/` runs down the layers only and has no cycle between packages.

An AST walk (no import is executed), in addition to ruff's TID251 bans on fastapi/neo4j.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "service"

#: Top to bottom. A module may import its own layer or any layer below, never one above.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "service.main",
        "service.cli",
        "service.cli_memory",
        "service.cli_files",
        "service.cli_settings",
        "service.api",
        "service.mcp",
        "service.schemas",
        "service.tools",
    ),
    ("service.container",),
    ("service.domain",),
    ("service.graph", "service.embeddings", "service.onnx_encoder"),
    (
        "service.errors",
        "service.settings",
        "service.keys",
        "service.namespaces",
        "service.origins",
        "service.host_names",
        "service.metrics",
        "service.json_types",
    ),
)
#: Within the top layer, only these may import `service.api` (besides `service.api` itself);
#: `service.mcp` is the second door and shares the API's keys, scopes and error statuses.
API_IMPORTERS = ("service.main", "service.cli", "service.mcp")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """Yield (line, imported module) for every import of `service.*` in a file (lazy ones too)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                yield node.lineno, sub if _is_module(sub) else target


def _graph() -> list[tuple[str, int, str, str]]:
    """Return every (file, line, importer, imported) edge between `service` modules."""
    edges = []
    for path in sorted(SERVICE.rglob("*.py")):
        importer = _module_name(path)
        for line, imported in _imports(path):
            if imported == "service" or imported.startswith("service."):
                edges.append((str(path.relative_to(ROOT)), line, importer, imported))
    return edges


def _layer(module: str) -> int:
    for i, names in enumerate(LAYERS):
        if any(module == n or module.startswith(n + ".") for n in names):
            return i
    raise AssertionError(f"{module} is in no layer: add it to LAYERS")


def _within(module: str, names: tuple[str, ...]) -> bool:
    return any(module == n or module.startswith(n + ".") for n in names)


def _package(module: str) -> str:
    """The unit of the cycle check: `service.domain.<x>`, else `service.<x>`."""
    parts = module.split(".")
    return ".".join(parts[:3] if parts[:2] == ["service", "domain"] else parts[:2])


def back_imports(edges: list[tuple[str, int, str, str]]) -> list[str]:
    """Return the imports that run up the layers, or into `service.api` from outside."""
    out = []
    for file, line, importer, imported in edges:
        if imported == "service":
            continue
        if _layer(imported) < _layer(importer):
            out.append(f"{file}:{line}: {importer} imports {imported} (a higher layer)")
        elif _within(imported, ("service.api",)) and not _within(
            importer, ("service.api", *API_IMPORTERS)
        ):
            out.append(f"{file}:{line}: {importer} imports {imported} (only main/cli may)")
    return out


def package_cycles(edges: list[tuple[str, int, str, str]]) -> list[str]:
    """Return each cycle between packages, with one import that makes each of its steps."""
    graph: dict[str, dict[str, str]] = {}
    for file, line, importer, imported in edges:
        a, b = _package(importer), _package(imported)
        if a != b and imported != "service":
            graph.setdefault(a, {}).setdefault(b, f"{file}:{line}")
    # Tarjan's strongly connected components; every component of two or more is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    out = []
    for component in components:
        steps = [
            f"{a} -> {b} ({where})"
            for a in component
            for b, where in sorted(graph[a].items())
            if b in component
        ]
        out.append("cycle between " + ", ".join(component) + ":\n    " + "\n    ".join(steps))
    return out


def test_every_module_is_in_a_layer() -> None:
    for path in SERVICE.rglob("*.py"):
        module = _module_name(path)
        if module != "service":
            _layer(module)


def test_no_import_runs_back_up_the_layers() -> None:
    violations = back_imports(_graph())
    assert not violations, "\n".join(violations)


def test_no_cycle_between_packages() -> None:
    cycles = package_cycles(_graph())
    assert not cycles, "\n".join(cycles)


def test_the_checks_catch_a_back_import_and_a_cycle() -> None:
    edges = [
        ("service/graph/x.py", 1, "service.graph.x", "service.domain.models"),
        ("service/domain/models.py", 2, "service.domain.models", "service.graph.x"),
        ("service/domain/a.py", 3, "service.domain.a", "service.api.deps"),
    ]
    assert len(back_imports(edges)) == 2
    assert len(package_cycles(edges)) == 1
