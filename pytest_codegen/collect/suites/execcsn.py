"""Exec-CSN (CodeBenchGen) suites: write one function inside a runnable file.

A suite file is a JSON list (JSONL also accepted) of examples with ``func_name`` (``name`` or
``Class.method``), ``masked_code`` (the whole program with the target replaced by the line
``<indent>__MASK__``, followed by a ``test_<name>`` function and a ``__main__`` block calling it),
``masked_method_no_test`` (the context without tests; the target reduced to its header plus a
placeholder docstring and ``...``), ``revised_instruction`` (replaces the placeholder in the
prompt), ``code`` (the original program) and ``idx``. The spliced program is run with ``python``:
a sample passes only if it exits 0 within 10 s AND its stderr contains none of "ERROR",
"Error", "error" (a warning that mentions an error fails it too).

Extraction mirrors the reference harness: only the target ``def`` is taken from the reply; imports
and helper functions around it are dropped, and so are its decorators, because ``masked_code``
keeps the original decorators just above the mask. For ``Class.method`` the method is looked up
in that class, then as a module-level ``def`` of the same name; among duplicates the longest wins.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

from ...problems import MODE_PYTHON_PROGRAM, Problem, SuiteError

MASK = "__MASK__"
#: The docstring CodeBenchGen leaves in ``masked_method_no_test`` for the instruction to replace.
PLACEHOLDER_DOCSTRING = "insert the instruction here"
#: The user message of the reference harness (its default, non-CodeLlama template).
INSTRUCTION_TEMPLATE = (
    "Complete the {func_name} function in the code below based on the docstring.\n"
    "Output one complete piece of code. Your code should start with a ```python delimiter"
    " and end with a ``` delimiter.\n"
    "\n"
    "```python\n"
    "{code}\n"
    "```"
)
#: How the reference harness runs a spliced program.
TIMEOUT_S = 10.0
MEMORY_LIMIT_BYTES = 4 * 1024**3  # soft `ulimit -v`
STDERR_FAIL_WORDS = ("ERROR", "Error", "error")

DEFAULT_CATEGORY = "exec-csn"
_CATEGORY_FIELDS = ("repo", "topic", "library", "category")
_ID_FIELDS = ("id", "task_id", "idx")
_FUNC_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\Z")
_FUNC_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
_OPEN_FENCE = re.compile(r"(?:```|\[PYTHON\])[ \t]*[\w+.-]*[ \t]*\n")
_FENCED = re.compile(_OPEN_FENCE.pattern + r"(.*?)\n?(?:```|\[/PYTHON\])", re.DOTALL)


# --------------------------------------------------------------------------- loading


def load_execcsn(path: Path, suite: str) -> list[Problem]:
    """Read an Exec-CSN JSON (or JSONL) file into problems, in file order."""
    path = Path(path)
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for index, line, row in _read_rows(path):
        where = f"{path}: example {index}" + (f" (line {line})" if line is not None else "")
        problem = _problem(row, index, where, suite)
        if problem.id in seen:
            raise SuiteError(
                f"{where}: duplicate id {problem.id!r} (also example {seen[problem.id]})"
            )
        seen[problem.id] = index
        problems.append(problem)
    return problems


def _read_rows(path: Path) -> list[tuple[int, int | None, Any]]:
    """``(index, line or None, value)`` for each example of a JSON list or a JSONL file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise SuiteError(f"{path}: cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise SuiteError(f"{path}: not UTF-8 text") from None
    if not text.strip():
        raise SuiteError(f"{path}: no examples (empty file)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        if text.lstrip().startswith("["):
            raise SuiteError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from None
        rows: list[tuple[int, int | None, Any]] = []
        for lineno, raw in enumerate(text.splitlines(), 1):
            if not raw.strip():
                continue
            try:
                rows.append((len(rows), lineno, json.loads(raw)))
            except json.JSONDecodeError as e:
                raise SuiteError(
                    f"{path}: example {len(rows)} (line {lineno}): not valid JSON ({e.msg})"
                ) from None
        return rows
    if isinstance(data, dict):  # a JSONL file with a single example
        data = [data]
    if not isinstance(data, list):
        raise SuiteError(f"{path}: expected a list of examples, found {type(data).__name__}")
    if not data:
        raise SuiteError(f"{path}: no examples (empty list)")
    return [(i, None, row) for i, row in enumerate(data)]


def _field(row: dict[str, Any], key: str, where: str, required: bool = True) -> str | None:
    if key not in row or row[key] is None:
        if required:
            raise SuiteError(f"{where}: missing field {key!r}")
        return None
    value = row[key]
    if not isinstance(value, str):
        raise SuiteError(
            f"{where}: bad field {key!r}: expected a string, got {type(value).__name__}"
        )
    if required and not value.strip():
        raise SuiteError(f"{where}: bad field {key!r}: empty")
    return value


def _problem(row: Any, index: int, where: str, suite: str) -> Problem:
    if not isinstance(row, dict):
        raise SuiteError(f"{where}: an example must be a JSON object, not {type(row).__name__}")
    func_name = _field(row, "func_name", where)
    assert func_name is not None
    if not _FUNC_NAME.match(func_name):
        raise SuiteError(f"{where}: bad field 'func_name': {func_name!r} is not a (dotted) name")
    masked_code = _field(row, "masked_code", where)
    context = _field(row, "masked_method_no_test", where)
    instruction = _field(row, "revised_instruction", where)
    placeholder = _field(row, "dummy_docstring", where, required=False) or PLACEHOLDER_DOCSTRING
    assert masked_code is not None and context is not None and instruction is not None

    count = masked_code.count(MASK)
    if count != 1:
        raise SuiteError(f"{where}: bad field 'masked_code': {MASK} must occur once, found {count}")
    mask_indent = _mask_indent(masked_code)
    if mask_indent is None:
        raise SuiteError(f"{where}: bad field 'masked_code': {MASK} must stand alone on its line")

    problem_id = _problem_id(row, index, func_name, where)
    category = next(
        (
            row[k].strip()
            for k in _CATEGORY_FIELDS
            if isinstance(row.get(k), str) and row[k].strip()
        ),
        DEFAULT_CATEGORY,
    )

    extra: dict[str, Any] = {
        "func_name": func_name,
        "mask": MASK,
        "mask_indent": mask_indent,
        "mask_decorators": _decorators_above_mask(masked_code),
        "timeout_s": TIMEOUT_S,
        "memory_limit_bytes": MEMORY_LIMIT_BYTES,
        "stderr_fail_words": list(STDERR_FAIL_WORDS),
    }
    if "idx" in row:
        extra["idx"] = row["idx"]
    sh_code = _field(row, "sh_code", where, required=False)
    if sh_code:
        extra["sh_code"] = sh_code

    return Problem(
        id=problem_id,
        suite=suite,
        category=category,
        language="python",
        mode=MODE_PYTHON_PROGRAM,
        prompt=build_prompt(func_name, context, instruction, placeholder),
        tests=masked_code,
        reference=_reference(row, func_name, where),
        extra=extra,
    )


def _problem_id(row: dict[str, Any], index: int, func_name: str, where: str) -> str:
    for key in _ID_FIELDS:
        if key in row and row[key] is not None:
            value = row[key]
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, str))
                or not str(value).strip()
            ):
                raise SuiteError(f"{where}: bad field {key!r}: expected an integer or a string")
            return str(value).strip()
    return f"{func_name}_{index}"


def _reference(row: dict[str, Any], func_name: str, where: str) -> str | None:
    """The original target function: from ``code`` if it has it, else from ``ref_func``."""
    code = _field(row, "code", where, required=False)
    if code:
        found = extract_function(code, func_name)
        if found is not None:
            return found
    ref_func = row.get("ref_func")  # test-augmented files carry the target's source here
    if isinstance(ref_func, list) and ref_func and isinstance(ref_func[0], str):
        ref_func = ref_func[0]
    if isinstance(ref_func, str) and ref_func.strip():
        return ref_func
    return None


def _mask_indent(program: str) -> str | None:
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


def _decorators_above_mask(program: str) -> list[str]:
    """Decorator lines the masked program keeps right above the mask (for information)."""
    lines = program[: program.find(MASK)].split("\n")[:-1]
    found: list[str] = []
    for line in reversed(lines):
        if not line.strip():
            continue
        if not line.lstrip().startswith("@"):
            break
        found.append(line.strip())
    return found[::-1]


# --------------------------------------------------------------------------- prompt


def build_prompt(
    func_name: str, context: str, instruction: str, placeholder: str = PLACEHOLDER_DOCSTRING
) -> str:
    """The user message the reference harness sends for one example.

    The instruction replaces the placeholder docstring in ``context``; its continuation lines
    are indented by the width of everything before the placeholder on its line (the opening
    quotes included), as upstream does. If the placeholder is not found the context is used
    unchanged.
    """
    return INSTRUCTION_TEMPLATE.format(
        func_name=func_name, code=_insert_instruction(context, placeholder, instruction)
    )


def _insert_instruction(context: str, placeholder: str, instruction: str) -> str:
    pattern = r"\s*\n\s*".join(re.escape(line.strip()) for line in placeholder.strip().splitlines())
    match = re.search(pattern, context, re.DOTALL)
    if match is None:
        return context
    width = match.start() - (context.rfind("\n", 0, match.start()) + 1)
    replacement = instruction.strip().replace("\n", "\n" + " " * width)
    try:
        # Upstream passes the instruction to re.sub as a template, so escapes in it are
        # interpreted; keep that, but fall back to the literal text where it would fail.
        return re.sub(pattern, replacement, context, count=1)
    except (re.error, IndexError):
        return context[: match.start()] + replacement + context[match.end() :]


# --------------------------------------------------------------------------- extraction


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
    candidates: list[str] = []
    if len(parts) > 1:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == parts[-2]:
                candidates += [
                    _node_source(lines, s)
                    for s in node.body
                    if isinstance(s, _FUNC_TYPES) and s.name == parts[-1]
                ]
    if not candidates:
        candidates = [
            _node_source(lines, s)
            for s in tree.body
            if isinstance(s, _FUNC_TYPES) and s.name == parts[-1]
        ]
    return max(candidates, key=len) if candidates else None


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


# --------------------------------------------------------------------------- splicing


def splice(problem: Problem, function_source: str) -> str:
    """The program to run: ``problem.tests`` with ``function_source`` at the mask.

    Decorators of ``function_source`` are dropped (the masked program has the original ones
    above the mask); the ``def`` line takes the mask's place and every following line gets the
    mask line's indentation, as upstream does for methods (it assumes 4 spaces; here it is the
    mask's actual indentation, which is the original ``def``'s).
    """
    program = problem.tests
    indent = _mask_indent(program)
    if indent is None:
        indent = str(problem.extra.get("mask_indent", ""))
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

    Upstream still runs the masked program with an empty mask in that case, which always
    fails; callers can count None as a failed sample.
    """
    function = extract_function(reply_code, str(problem.extra.get("func_name", "")))
    if function is None:
        return None
    return splice(problem, function)
