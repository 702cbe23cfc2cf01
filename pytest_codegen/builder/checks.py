"""Checks of what the model returns at each step, by AST, and the rules that reject it.

CodeBenchGen checks replies with tree-sitter and a GPT-4 tokenizer; here the AST does the
first and :func:`token_count` (Python tokens, comments left out) the second, with the same
thresholds: a sandboxed file keeps at least 200 tokens when its context had more than 600
(else 50, or half a tiny context); a file with tests loses at most 30 tokens of its input; a
debug revision at most 50 of the program it revises. Every failed check raises
:class:`CheckFailed` whose message is the reason the build reports.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize

from ..kinds.execcsn_program import MASK, code_from_reply
from .inputs import Fragment, find_target, source_lines

SANDBOX_MIN_TOKENS = (600, 200, 50)  # context above 600 tokens -> 200, else 50
TESTS_MAX_LOSS = 30
DEBUG_MAX_LOSS = 50
MIN_ASSERTS = 3
PLACEHOLDER_DOCSTRING = "insert the instruction here"
_LEFT_OUT = re.compile(r"#.*(\.\.\.|unchanged|rest of the code|same as before)", re.IGNORECASE)
_FUNC_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)


class CheckFailed(Exception):
    """A reply that fails a check; the message is the reason."""


def code_of(reply: str) -> str:
    """The code of a reply: its longest fenced block, or the whole reply."""
    return code_from_reply(reply).strip("\n") + "\n"


def parse(code: str) -> ast.Module:
    try:
        return ast.parse(code)
    except SyntaxError as e:
        raise CheckFailed(f"the code does not parse ({e.msg} at line {e.lineno})") from None


def token_count(code: str) -> int:
    """Python tokens of ``code``, comments and layout left out."""
    skip = {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENCODING,
        tokenize.ENDMARKER,
    }
    try:
        tokens = tokenize.tokenize(io.BytesIO(code.encode("utf-8")).readline)
        return sum(1 for t in tokens if t.type not in skip)
    except (tokenize.TokenError, SyntaxError):
        return len(re.findall(r"\w+|[^\w\s]", code))


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    a = node.args
    names = [p.arg for p in a.posonlyargs + a.args]
    if a.vararg:
        names.append("*" + a.vararg.arg)
    names += [p.arg for p in a.kwonlyargs]
    if a.kwarg:
        names.append("**" + a.kwarg.arg)
    return f"({', '.join(names)})"


def check_target(
    code: str, tree: ast.Module, fragment: Fragment
) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The target's ``def`` in ``tree`` (parsed from ``code``), with the original's signature."""
    node = find_target(tree, fragment.func_name, code)
    if node is None:
        raise CheckFailed(f"the target {fragment.func_name} is missing")
    original = find_target(ast.parse(fragment.context), fragment.func_name, fragment.context)
    if original is not None and _signature(original) != _signature(node):
        raise CheckFailed(
            f"the signature of {fragment.func_name} changed: "
            f"{_signature(original)} -> {_signature(node)}"
        )
    return node


def _no_left_out_code(code: str) -> None:
    for line in code.splitlines():
        if _LEFT_OUT.search(line.strip()) and line.strip().startswith("#"):
            raise CheckFailed(f"it leaves code out ({line.strip()[:60]!r})")


def check_sandboxed(code: str, fragment: Fragment) -> None:
    """Step 1: the target is there with its signature, nothing is elided, enough is kept."""
    tree = parse(code)
    check_target(code, tree, fragment)
    _no_left_out_code(code)
    before, after = token_count(fragment.context), token_count(code)
    limit, big, small = SANDBOX_MIN_TOKENS
    need = big if before > limit else min(small, before // 2)
    if after < need:
        raise CheckFailed(f"it keeps {after} tokens of a {before}-token context (needs {need})")


def test_function(tree: ast.Module, short: str) -> ast.FunctionDef | None:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == f"test_{short}":
            return node
    return None


def assert_count(node: ast.AST) -> int:
    """``assert`` statements and ``assert*`` method calls (unittest style) in ``node``."""
    count = 0
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assert):
            count += 1
        elif isinstance(sub, ast.Call):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            count += name.startswith("assert")
    return count


def calls(node: ast.AST, short: str) -> bool:
    """Whether ``node`` calls ``short`` by name or as a method, or refers to it (a callback)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == short:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr == short:
            return True
    return False


def main_calls(tree: ast.Module) -> set[str]:
    """Names the module's ``if __name__ == "__main__":`` blocks call."""
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and _is_main_guard(node.test):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
                    found.add(sub.func.id)
    return found


def _is_main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _check_test(tree: ast.Module, fragment: Fragment) -> None:
    short = fragment.short_name
    test = test_function(tree, short)
    if test is None:
        raise CheckFailed(f"no top-level test function test_{short}")
    asserts = assert_count(test)
    if asserts < MIN_ASSERTS:
        raise CheckFailed(f"test_{short} has {asserts} asserts (needs at least {MIN_ASSERTS})")
    if not calls(test, short):
        raise CheckFailed(f"test_{short} does not call {short}")
    if f"test_{short}" not in main_calls(tree):
        raise CheckFailed(f'no `if __name__ == "__main__":` block calling test_{short}')


def check_with_tests(code: str, fragment: Fragment, program: str) -> None:
    """Step 2: the program is kept, and ``test_<name>`` calls the target with 3+ asserts."""
    tree = parse(code)
    check_target(code, tree, fragment)
    _no_left_out_code(code)
    _check_test(tree, fragment)
    _check_length(program, code, TESTS_MAX_LOSS, "it shrinks the input")


def _check_length(before_code: str, code: str, max_loss: int, what: str) -> None:
    """The length rule: ``code`` has at most ``max_loss`` tokens fewer than ``before_code``."""
    before, after = token_count(before_code), token_count(code)
    if after < before - max_loss:
        raise CheckFailed(
            f"{what} from {before} to {after} tokens (at most {max_loss} fewer allowed)"
        )


def test_names(tree: ast.Module) -> list[str]:
    return [n.name for n in tree.body if isinstance(n, _FUNC_TYPES) and n.name.startswith("test")]


def check_revision(code: str, fragment: Fragment, previous: str) -> None:
    """Step 3: a debug revision keeps every test, the target and (nearly) its length."""
    tree = parse(code)
    kept = set(test_names(tree))
    dropped = [t for t in test_names(ast.parse(previous)) if t not in kept]
    if dropped:
        raise CheckFailed(f"the revision drops {', '.join(dropped)}")
    check_target(code, tree, fragment)
    _check_test(tree, fragment)
    _check_length(previous, code, DEBUG_MAX_LOSS, "the revision shrinks the program")


def check_augmented(code: str, fragment: Fragment) -> ast.FunctionDef:
    """Step 4: an extra test function that calls the target with 3+ asserts."""
    tree = parse(code)
    short = fragment.short_name
    tests = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
    if not tests:
        raise CheckFailed("no test function")
    test = tests[0]
    if test.name == f"test_{short}":
        raise CheckFailed(f"it reuses the name test_{short}")
    if assert_count(test) < MIN_ASSERTS or not calls(test, short):
        raise CheckFailed(f"{test.name} needs {MIN_ASSERTS}+ asserts and a call of {short}")
    return test


# -- rewriting programs into the example's parts


def _target_span(program: str, fragment: Fragment) -> tuple[int, int, str]:
    """First and last line (1-based, decorators excluded) and indentation of the target."""
    node = check_target(program, ast.parse(program), fragment)
    assert node.end_lineno is not None
    return node.lineno, node.end_lineno, " " * node.col_offset


def code_lines(program: str) -> list[str]:
    """``program``'s lines as the AST numbers them, without their ends: a form feed or U+2028
    (a line end to ``str.splitlines``) stays inside its line, so the lines of a target after
    one are its own, and a string that holds one keeps it."""
    return [line.rstrip("\r\n") for line in source_lines(program)]


def mask_target(program: str, fragment: Fragment) -> str:
    """``program`` with the target's ``def`` replaced by ``<indent>__MASK__`` (decorators
    stay above it, as in Exec-CSN's ``masked_code``)."""
    lines = code_lines(program)
    first, last, indent = _target_span(program, fragment)
    return "\n".join(lines[: first - 1] + [indent + MASK] + lines[last:]) + "\n"


def target_source(program: str, fragment: Fragment) -> str:
    lines = code_lines(program)
    first, last, _ = _target_span(program, fragment)
    return "\n".join(lines[first - 1 : last]) + "\n"


def without_tests(program: str) -> str:
    """``program`` without its tests: the ``__main__`` blocks and the top-level ``test*``
    functions that only tests use. One the rest of the program refers to (a ``testable()``
    the target calls) is code, not a test, and stays."""
    tree = ast.parse(program)
    tests = {
        node.name: node
        for node in tree.body
        if isinstance(node, _FUNC_TYPES) and node.name.startswith("test")
    }
    code = [
        node
        for node in tree.body
        if getattr(node, "name", None) not in tests
        and not (isinstance(node, ast.If) and _is_main_guard(node.test))
    ]
    used = _names_in(code)
    while kept := [tests.pop(name) for name in sorted(used & tests.keys())]:
        used |= _names_in(kept)  # what a kept one uses is code too
    drop: set[int] = set()
    for node in tree.body:
        if node not in code and getattr(node, "name", None) not in used:
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            assert node.end_lineno is not None
            drop.update(range(first, node.end_lineno + 1))
    lines = [line for i, line in enumerate(code_lines(program), 1) if i not in drop]
    return "\n".join(lines).rstrip() + "\n"


def _names_in(nodes: list[ast.stmt]) -> set[str]:
    """The names ``nodes`` load or refer to as attributes."""
    found: set[str] = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                found.add(sub.id)
            elif isinstance(sub, ast.Attribute):
                found.add(sub.attr)
    return found


def with_placeholder(program: str, fragment: Fragment) -> str:
    """The target's body replaced by the placeholder docstring and ``...`` (Exec-CSN's
    ``masked_method_no_test``)."""
    node = check_target(program, ast.parse(program), fragment)
    assert node.end_lineno is not None
    lines = code_lines(program)
    body_indent = " " * node.body[0].col_offset
    header_end = node.body[0].lineno - 1  # the lines before the body (a one-line def too)
    if header_end < node.lineno:  # `def f(): return 1`: the body shares the def's line
        header = [lines[node.lineno - 1].split(":", 1)[0] + ":"]
    else:
        header = lines[node.lineno - 1 : header_end]
    body = [f'{body_indent}"""{PLACEHOLDER_DOCSTRING}"""', f"{body_indent}..."]
    return "\n".join(lines[: node.lineno - 1] + header + body + lines[node.end_lineno :]) + "\n"


def third_party_imports(program: str) -> list[str]:
    """Top-level packages ``program`` imports from outside the standard library."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(program)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return sorted(n for n in found if n not in sys.stdlib_module_names and n != "__future__")
