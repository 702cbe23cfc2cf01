"""Exec-CSN (CodeBenchGen) suites: write one function inside a runnable file.

A suite file is a JSON list (JSONL also accepted) of examples with ``func_name`` (``name`` or
``Class.method``), ``masked_code`` (the whole program with the target replaced by the line
``<indent>__MASK__``, followed by a ``test_<name>`` function and a ``__main__`` block calling it),
``masked_method_no_test`` (the context without tests; the target reduced to its header plus a
placeholder docstring and ``...``), ``revised_instruction`` (replaces the placeholder in the
prompt), ``code`` (the original program) and ``idx``. The spliced program is run with ``python``:
a sample passes only if it exits 0 within 10 s AND its stderr contains none of "ERROR",
"Error", "error" (a warning that mentions an error fails it too).

This module reads the examples into problems and builds their prompts; taking the target out
of a reply and splicing it into the program is :mod:`.execcsn_program`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..jsonl import loads, not_valid_json, unencodable_field
from ..problems import MODE_PYTHON_PROGRAM, Problem, SuiteError, SuiteLimits, mark_unsolvable
from .execcsn_program import MASK, extract_function, mask_indent

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


# -- loading


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
        data = loads(text)
    except json.JSONDecodeError as e:
        if text.lstrip().startswith("["):
            raise SuiteError(f"{path}: line {e.lineno}: {not_valid_json(e, 'file')}") from None
        rows: list[tuple[int, int | None, Any]] = []
        for lineno, raw in enumerate(text.split("\n"), 1):  # not at U+2028: JSON allows it
            if not raw.strip():
                continue
            try:
                rows.append((len(rows), lineno, loads(raw)))
            except json.JSONDecodeError as e:
                raise SuiteError(
                    f"{path}: example {len(rows)} (line {lineno}): {not_valid_json(e)}"
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
    unencodable = unencodable_field(row)
    if unencodable is not None:
        raise SuiteError(f"{where}: {unencodable}")
    func_name = _field(row, "func_name", where)
    assert func_name is not None
    if not all(part.isidentifier() for part in func_name.split(".")):  # größe is one too
        raise SuiteError(f"{where}: bad field 'func_name': {func_name!r} is not a (dotted) name")
    unsolvable = None
    if "masked_code" not in row and isinstance(row.get("code"), str):
        # The dataset as its repository stores it: the masked fields derived from `code`.
        from .execcsn_stored import derive_masked_fields

        derived = derive_masked_fields(row["code"], func_name, PLACEHOLDER_DOCSTRING)
        if derived is None:  # graded as an error naming why; the other examples still count
            unsolvable = f"{func_name!r} has no body of its own in field 'code'"
            derived = {"masked_code": MASK, "masked_method_no_test": row["code"]}
        row = {**derived, **row}
    masked_code = _field(row, "masked_code", where)
    context = _field(row, "masked_method_no_test", where)
    instruction = _field(row, "revised_instruction", where)
    placeholder = _field(row, "dummy_docstring", where, required=False) or PLACEHOLDER_DOCSTRING
    assert masked_code is not None and context is not None and instruction is not None

    count = masked_code.count(MASK)
    if count != 1:
        raise SuiteError(f"{where}: bad field 'masked_code': {MASK} must occur once, found {count}")
    indent = mask_indent(masked_code)
    if indent is None:
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
        "mask_indent": indent,
        "mask_decorators": _decorators_above_mask(masked_code),
        **SuiteLimits(TIMEOUT_S, MEMORY_LIMIT_BYTES, STDERR_FAIL_WORDS).to_extra(),
    }
    if "idx" in row:
        extra["idx"] = row["idx"]
    sh_code = _field(row, "sh_code", where, required=False)
    if sh_code:
        extra["sh_code"] = sh_code

    problem = Problem(
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
    if unsolvable:
        mark_unsolvable(problem, unsolvable)
    return problem


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


# -- prompt


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
