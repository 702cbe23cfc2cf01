"""A few simple mutants of the target, to measure whether its tests can fail.

Beyond the paper: tests a wrong target passes are worth little. Each kind changes the first
place it applies to, so every mutant is one small, plausible bug:

* ``flipped comparison``: ``<`` <-> ``>=``, ``>`` <-> ``<=``, ``==`` <-> ``!=``, ``in`` <->
  ``not in``, ``is`` <-> ``is not``;
* ``off-by-one``: an integer constant ``n`` becomes ``n + 1``;
* ``constant return``: every ``return <value>`` returns ``None`` (side effects stay).
"""

from __future__ import annotations

import ast
import copy
import textwrap

_FLIP: dict[type, type] = {
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


def _body_nodes(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """Nodes of the body in source order, the docstring left out."""
    body = func.body[1:] if ast.get_docstring(func) is not None else func.body
    nodes: list[ast.AST] = []
    for stmt in body:
        nodes += sorted(
            ast.walk(stmt), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0))
        )
    return nodes


def _flip_comparison(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for node in _body_nodes(func):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in _FLIP:
            node.ops[0] = _FLIP[type(node.ops[0])]()
            return True
    return False


def _off_by_one(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for node in _body_nodes(func):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            node.value += 1
            return True
    return False


def _constant_return(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    changed = False
    for node in _body_nodes(func):
        if isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                node.value = ast.Constant(None)
                changed = True
    return changed


KINDS = (
    ("flipped comparison", _flip_comparison),
    ("off-by-one", _off_by_one),
    ("constant return", _constant_return),
)


def mutants_of(source: str) -> list[tuple[str, str]]:
    """``(kind, mutated source)`` for each kind that applies to the function ``source``."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return []
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    out = []
    for kind, mutate in KINDS:
        func = copy.deepcopy(tree.body[0])
        if mutate(func):
            out.append((kind, ast.unparse(ast.fix_missing_locations(func)) + "\n"))
    return out
