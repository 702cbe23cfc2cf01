"""The package's shape, read from its source: no import cycle (imports inside functions count:
deferring an import hides a cycle, it does not remove it), one name per module, modules of a
readable size, and no private name used across modules."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pytest_codegen"
MOST_LINES = 400


def modules() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, whether it is a package's ``__init__``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if package else parts)
        found[name] = (path, package)
    return found


def imported_names(name: str, path: Path, package: bool) -> set[str]:
    """Every module ``name`` imports, at its top or anywhere inside it, except imports for
    type checkers only (``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(node)
        for branch in ast.walk(tree)
        if isinstance(branch, ast.If) and "TYPE_CHECKING" in ast.unparse(branch.test)
        for node in ast.walk(branch)
    }
    targets: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets.add(module)
            targets.update(f"{module}.{alias.name}" for alias in node.names)
    return targets


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (packages' ``__init__`` left out:
    importing a submodule runs its package's, which only describes it)."""
    found = modules()
    plain = {name for name, (_, package) in found.items() if not package}
    return {
        name: (imported_names(name, path, package) & plain) - {name}
        for name, (path, package) in found.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_cycle():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_deferred_imports_are_counted(tmp_path):
    source = tmp_path / "late.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .hidden import X\n"
        "def f():\n    from ..other import thing\n    import json\n"
    )
    names = imported_names("pkg.sub.late", source, package=False)
    assert {"pkg.other", "pkg.other.thing", "json"} <= names
    assert not any("hidden" in n for n in names)


def test_every_module_name_is_used_once():
    names = Counter(
        path.name
        for path in PACKAGE.rglob("*.py")
        if path.name not in ("__init__.py", "__main__.py")
    )
    assert sorted(name for name, count in names.items() if count > 1) == []


def test_modules_are_of_a_readable_size():
    sizes = {
        str(path.relative_to(PACKAGE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > MOST_LINES} == {}


def test_no_private_name_is_imported_from_another_module():
    imported = [
        f"{path.relative_to(PACKAGE)}: {alias.name}"
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]
    assert imported == []
