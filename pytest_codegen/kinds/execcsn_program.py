"""Exec-CSN programs: the target function taken out of a reply and spliced in at the mask.

Extraction mirrors the reference harness: only the target ``def`` is taken from the reply; imports
and helper functions around it are dropped, and so are its decorators, because ``masked_code``
keeps the original decorators just above the mask. For ``Class.method`` the method is looked up
in that class, then as a module-level ``def`` of the same name (the harness's own lookup in the
class raises, so it finds only the latter); among duplicates the longest wins.
"""

from __future__ import annotations

import ast
import re

from ..problems import Problem
from .fields import execcsn_fields

MASK = "__MASK__"
_FUNC_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_OPEN_FENCE = re.compile(r"(?:```|\[PYTHON\])[ \t]*[\w+.-]*[ \t]*\n")
_FENCED = re.compile(_OPEN_FENCE.pattern + r"(.*?)\n?(?:```|\[/PYTHON\])", re.DOTALL)


def mask_indent(program: str) -> str | None:
    """The whitespace before ``__MASK__``, or None if the mask shares its line with code."""
    at = program.find(MASK)
    if at < 0:
        return None
    start = program.rfind("\n", 0, at) + 1
    end = program.find("\n", at)
    before = program[start:at]
    after = program[at + len(MASK) : len(program) if end < 0 else end]
    if before.strip() or after.strip():
        return None
    return before


# -- extraction


def code_from_reply(reply: str) -> str:
    """The code of a raw reply: its longest fenced block (```lang or [PYTHON] tags).

    Upstream scores a reply without a closed fence as empty; here an unclosed fence yields
    what follows it and a reply without any fence is taken as code.
    """
    blocks = [m.group(1) for m in _FENCED.finditer(reply)]
    if blocks:
        return max(blocks, key=len)
    opened = _OPEN_FENCE.search(reply)
    if opened:
        return reply[opened.end() :]
    return reply


def extract_function(reply_code: str, func_name: str) -> str | None:
    """The full source (decorators included) of ``func_name`` in ``reply_code``, or None.

    ``func_name`` is ``name`` (a module-level ``def``) or ``Class.method`` (a ``def`` in a
    class of that name, else a module-level ``def method``). Code around it is ignored; if the
    reply does not parse, candidate ``def`` blocks are cut out by indentation and parsed alone.
    The result is dedented so that its first line starts at column 0.
    """
    parts = func_name.split(".")
    text = _normalize_newlines(reply_code)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return _scan_for_function(text, parts[-1])
    lines = text.split("\n")
    candidates: list[FunctionNode] = []
    if len(parts) > 1:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == parts[-2]:
                candidates += [
                    s for s in node.body if isinstance(s, _FUNC_TYPES) and s.name == parts[-1]
                ]
    if not candidates:
        candidates = [s for s in tree.body if isinstance(s, _FUNC_TYPES) and s.name == parts[-1]]
    return _node_source(lines, _longest(lines, candidates)) if candidates else None


def definition_taken(text: str, nodes: list[FunctionNode]) -> FunctionNode:
    """Of the ``def``s of one name in ``text`` (a property's getter and setter, overloads),
    the one extraction takes: the longest, decorators included (the first of equals)."""
    return _longest(_normalize_newlines(text).split("\n"), nodes)


def _longest(lines: list[str], nodes: list[FunctionNode]) -> FunctionNode:
    return max(nodes, key=lambda node: len(_node_source(lines, node)))


def _normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _node_source(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    assert node.end_lineno is not None
    return _dedent_to_first(lines[first - 1 : node.end_lineno])


def _dedent_to_first(lines: list[str]) -> str:
    """Remove the first line's indentation from every line that starts with it."""
    while lines and not lines[0].strip():
        lines = lines[1:]
    if not lines:
        return ""
    indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
    out = [line[len(indent) :] if line.startswith(indent) else line for line in lines]
    return "\n".join(out).rstrip()


def _scan_for_function(text: str, name: str) -> str | None:
    """Fallback for replies that do not parse: cut ``def name`` blocks out by indentation."""
    lines = text.split("\n")
    header = re.compile(r"([ \t]*)(?:async[ \t]+)?def[ \t]+" + re.escape(name) + r"[ \t]*\(")
    found: list[str] = []
    for i, line in enumerate(lines):
        m = header.match(line)
        if not m:
            continue
        indent = len(m.group(1))
        start = i
        while start > 0 and lines[start - 1].strip().startswith("@"):
            start -= 1
        end = i + 1
        while end < len(lines):
            nxt = lines[end]
            stripped = nxt.lstrip()
            if stripped and len(nxt) - len(stripped) <= indent and stripped[0] not in ")]}":
                break
            end += 1
        source = _dedent_to_first(lines[start:end])
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        if tree.body and isinstance(tree.body[0], _FUNC_TYPES) and tree.body[0].name == name:
            found.append(source)
    return max(found, key=len) if found else None


# -- splicing


def splice(problem: Problem, function_source: str) -> str:
    """The program to run: ``problem.tests`` with ``function_source`` at the mask.

    Decorators of ``function_source`` are dropped (the masked program has the original ones
    above the mask); the ``def`` line takes the mask's place and every following line gets the
    mask line's indentation, as upstream does for methods (it assumes 4 spaces; here it is the
    mask's actual indentation, which is the original ``def``'s).
    """
    program = problem.tests
    indent = mask_indent(program)
    if indent is None:
        indent = str(execcsn_fields(problem).get("mask_indent", ""))
    lines = _strip_decorators(_normalize_newlines(function_source)).split("\n")
    placed = [lines[0]] + [indent + line if line else line for line in lines[1:]]
    at = program.find(MASK)
    if at < 0:
        raise ValueError(f"problem {problem.id!r} has no {MASK} in its program")
    return program[:at] + "\n".join(placed) + program[at + len(MASK) :]


def _strip_decorators(source: str) -> str:
    """``source`` from its ``def`` line on, dedented to that line."""
    lines = source.split("\n")
    while lines and not lines[0].strip():
        lines = lines[1:]
    dedented = _dedent_to_first(lines)
    try:
        tree = ast.parse(dedented)
    except (SyntaxError, ValueError):
        tree = None
    if tree is not None and tree.body and isinstance(tree.body[0], _FUNC_TYPES):
        return _dedent_to_first(dedented.split("\n")[tree.body[0].lineno - 1 :])
    # Not parseable on its own: drop leading decorator lines textually.
    rest = dedented.split("\n")
    while rest and (not rest[0].strip() or rest[0].lstrip().startswith("@")):
        rest = rest[1:]
    return _dedent_to_first(rest)


def program_from_reply(problem: Problem, reply_code: str) -> str | None:
    """Extract the target from ``reply_code`` and splice it; None if the target is missing.

    Upstream still runs the masked program with an empty mask in that case, and so does
    grading (its tests then fail); callers can count None as a failed sample.
    """
    function = extract_function(reply_code, str(execcsn_fields(problem).get("func_name", "")))
    if function is None:
        return None
    return splice(problem, function)
