"""Exec-CSN as CodeBenchGen's repository stores it (``ExecCSN_dataset/test_set_final_round3.json``):
each example has the whole program (``code``), ``func_name`` and ``revised_instruction`` but not
the masked fields its own evaluation reads, which its ``process_final_test_set.py`` derives.
They are derived here the same way, with Python's own parser:

- ``masked_code``: the program with the target ``def`` (through its last line; decorators stay
  above) replaced by the line ``<indent>__MASK__``;
- ``masked_method_no_test``: the program up to the test function, the target's body replaced by
  the placeholder docstring and ``...``.

Unlike upstream, comments are kept (they change nothing that runs), and a ``Class.method``
target is found (upstream's tree-sitter helper fails on dotted names).
"""

from __future__ import annotations

import ast
import re

from .execcsn_program import MASK

_FUNC_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
_INDENT = re.compile(r"[ \t]*")


def derive_masked_fields(code: str, func_name: str, placeholder: str) -> dict[str, str] | None:
    """``masked_code``, ``masked_method_no_test`` and ``dummy_docstring`` of a stored example,
    or None if the target (or its body on lines of its own) is not in ``code``."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    *classes, name = func_name.split(".")
    scope: list[ast.stmt] = tree.body
    for class_name in classes:
        found = [n for n in scope if isinstance(n, ast.ClassDef) and n.name == class_name]
        if not found:
            return None
        scope = found[0].body
    targets = [n for n in scope if isinstance(n, _FUNC_TYPES) and n.name == name]
    if not targets or targets[0].end_lineno is None:
        return None
    target = targets[0]
    lines = code.split("\n")
    start, end, body_start = target.lineno - 1, target.end_lineno, target.body[0].lineno - 1
    if body_start <= start:  # `def f(): return x` on one line: no body of its own to mask
        return None
    indent = _INDENT.match(lines[start]).group()  # type: ignore[union-attr]
    body_indent = _INDENT.match(lines[body_start]).group()  # type: ignore[union-attr]
    tests = [
        n.lineno - 1 for n in tree.body if isinstance(n, _FUNC_TYPES) and n.name == f"test_{name}"
    ]
    cut = tests[0] if tests and tests[0] >= end else len(lines)
    return {
        "masked_code": "\n".join([*lines[:start], indent + MASK, *lines[end:]]),
        "masked_method_no_test": "\n".join(
            [
                *lines[:body_start],
                f'{body_indent}"""{placeholder}"""',
                f"{body_indent}...",
                *lines[end:cut],
            ]
        ),
        "dummy_docstring": placeholder,
    }
