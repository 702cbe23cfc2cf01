"""APPS (Hendrycks et al. 2021; the ``codeparrot/apps`` test split as JSON lines): rows with
``problem_id``, ``question``, ``solutions`` (a JSON string: a list of programs),
``input_output`` (a JSON string: ``{"inputs": [...], "outputs": [...]}``, and ``fn_name``
for call-based problems), ``difficulty``, ``url`` and ``starter_code``.

Graded through the same engine as LiveCodeBench (:mod:`..execution.python.io_grader`: one
sandbox per sample, every test case in it), by APPS's own rules (its
``eval/testing_util.py``):

- 4 s per test case; before the program, APPS's imports (``sys``, ``itertools``,
  ``collections``, ``math``, ``numpy as np``, ``heapq`` …);
- stdin: the output's lines against the expected output by APPS's cascade, the first rule
  that holds wins: the whole text equal after stripping (also with each line stripped); the
  lines equal to the expected output's non-empty stripped lines (also without the output's
  empty lines); the lines as floats ``numpy.allclose`` to the expected ones; and, most
  lenient, the set of each line's set of tokens equal (also with numbers rounded to 3
  places), which ignores the order of lines and of tokens within a line;
- call-based: the result (a tuple as a list) ``==`` the expected value, or its first element
  (APPS wraps many expected values in a list), or, for a list of tuples, as lists; JSON's
  string keys turned back into ints as APPS does.

APPS tests every case; we stop at the first failure, which decides the sample's verdict
alike. The first of ``solutions`` is the problem's reference (so ``reference`` and
``validate`` work).

The test split is 1.29 GB, nearly all of it ``input_output``: the loader reads one row at a
time and keeps where each row is in the file (a ``.gz`` file's rows excepted, which keep
their ``input_output``), and a problem's row is read again when it is graded; the last two
problems' cases are kept, so a problem's samples read it once.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from ..collect.builtin_suites import iter_rows
from ..execution.python.io_grader import MAX_NESTING, Case, Rules, too_deep
from ..jsonl import read_object_at
from ..problems import Problem, SuiteError
from .fields import AppsFields, apps_fields
from .io_kind import IOKind

MODE_APPS = "apps"
PER_TEST_S = 4.0  # testing_util.timeout
IMPORTS = (
    "import sys\nimport time\nimport itertools\nfrom itertools import accumulate, product, "
    "permutations, combinations\nimport collections\nfrom collections import Counter, "
    "OrderedDict, deque, defaultdict, ChainMap\nfrom functools import lru_cache\nimport math\n"
    "from math import sqrt, sin, cos, tan, ceil, fabs, floor, gcd, exp, log, log2\n"
    "import fractions\nfrom typing import List, Tuple\nimport numpy as np\nimport random\n"
    "import heapq\nfrom heapq import *\n"
)


def _lines(expected: str) -> list[str]:
    return [line.strip() for line in expected.split("\n") if line]


def _token_sets(lines: list[str]) -> set[frozenset[str]]:
    return {frozenset(line.split()) for line in lines}


def _rounded(sets: set[frozenset[str]]) -> set[frozenset[float]]:
    return {frozenset(round(float(t), 3) for t in s) for s in sets}


def same_stdout(got: Any, expected: Any) -> bool:
    """APPS's stdin cascade (see the module's docstring)."""
    import numpy

    if not isinstance(got, str):
        return False
    want = "\n".join(expected) if isinstance(expected, list) else str(expected)
    output = got.splitlines()
    if "\n".join(output).strip() == want.strip():
        return True
    if "\n".join(o.strip() for o in output).strip() == want.strip():
        return True
    if output == [want]:
        return True
    lines = _lines(want)
    if output == lines or [o for o in output if o] == lines:
        return True
    output = [o for o in output if o]
    try:
        floats, wanted = [float(o) for o in output], [float(w) for w in lines]
        if len(floats) == len(wanted) and numpy.allclose(floats, wanted):
            return True
    except (ValueError, TypeError):
        pass
    mine = {frozenset(o.split()) for o in output if o.split()}
    theirs = _token_sets(lines)
    if mine == theirs:
        return True
    try:
        return _rounded(mine) == _rounded(theirs)
    except (ValueError, OverflowError):
        return False


def same_result(got: Any, expected: Any) -> bool:
    """APPS's call-based rule."""
    if got == expected:
        return True
    if isinstance(expected, list) and expected:
        if got == expected[0]:
            return True
        if isinstance(got, list) and got and isinstance(got[0], tuple):
            return [list(x) for x in got] == expected[0]
    return False


def _int_keys(value: Any) -> Any:
    """``[{int(k): v}]`` for a dict (or a list starting with one), as APPS rebuilds JSON's
    string keys; the value unchanged where a key is not an int."""
    try:
        if isinstance(value, dict):
            return [{int(k): v for k, v in value.items()}]
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return [{int(k): v for k, v in value[0].items()}]
    except ValueError:
        pass
    return value


PRELOAD = ("itertools", "collections", "functools", "math", "fractions", "random", "heapq")
STDIN_RULES = Rules("APPS", PER_TEST_S, IMPORTS, same_stdout, PRELOAD)
CALL_RULES = Rules("APPS", PER_TEST_S, IMPORTS, same_result, PRELOAD)


def is_apps_row(row: Any) -> bool:
    return isinstance(row, dict) and "input_output" in row and "problem_id" in row


# A non-empty "fn_name" key of input_output's JSON (a quote inside one of its strings is
# escaped, so this text can only be the key): read without parsing what may be megabytes.
_NAMED_FUNCTION = re.compile(r'"fn_name"\s*:\s*"[^"]')


def _lacking(row: dict[str, Any]) -> list[str]:
    # A row may name its problem by task_id itself (a converted dataset's): text, as any id.
    if "task_id" in row:
        named = isinstance(row["task_id"], str)
        lacking = [] if named else ["task_id"]
    else:
        problem_id = row.get("problem_id")
        named = isinstance(problem_id, (int, str)) and not isinstance(problem_id, bool)
        lacking = [] if named else ["problem_id (a number or text)"]
        row["task_id"] = str(problem_id)
    return lacking + [k for k in ("question", "input_output") if not isinstance(row.get(k), str)]


def load_apps(path: Path, suite: str) -> list[Problem]:
    problems = []
    for where, row, span in iter_rows(path, _lacking):
        solutions = row.get("solutions") or "[]"
        try:
            solutions = json.loads(solutions) if isinstance(solutions, str) else None
        except ValueError as e:
            raise SuiteError(f"{where}: solutions is not JSON ({e})") from None
        if not isinstance(solutions, list):
            raise SuiteError(f"{where}: solutions is not a JSON string of a list of programs")
        # APPS's own prompt (eval/generate_gpt_codes.py), to the character; its format line
        # follows the tests' fn_name, as the grading does, not the starter code.
        starter = str(row.get("starter_code") or "")
        prompt = f"\nQUESTION:\n{row['question']}" + (f"\n{starter}" if starter else "")
        call_based = _NAMED_FUNCTION.search(row["input_output"]) is not None
        prompt += "\nUse Call-Based format" if call_based else "\nUse Standard Input format"
        fields = AppsFields(
            where=where,
            difficulty=str(row.get("difficulty") or ""),
            url=str(row.get("url") or ""),
            row_at=list(span) if span is not None else [],
            source=str(path.resolve()),
            input_output=row["input_output"] if span is None else "",
        )
        problems.append(
            Problem(
                id=row["task_id"],
                suite=suite,
                category=fields["difficulty"] or suite,
                language="python",
                mode=MODE_APPS,
                prompt=prompt + "\nANSWER:\n",
                tests="",
                reference=solutions[0] if solutions and isinstance(solutions[0], str) else None,
                extra=dict(fields),
            )
        )
    return problems


def _malformed(func_name: str | None, i: int, given: Any, want: Any) -> str:
    """What of test case ``i`` has a shape APPS cannot run ("" if nothing): a call's input is
    its argument list; a stdin input or output is text or a list of lines (APPS's grader
    raises on anything else, so the sample fails there); a call's values nest no deeper than
    the sample can be sent them and they compared."""
    if func_name:
        for name, value in (("inputs", given), ("outputs", want)):
            if too_deep(value):
                return f"{name}[{i}] nests lists or dicts more than {MAX_NESTING} deep"
        return "" if isinstance(given, list) else f"inputs[{i}] is not a list of arguments"
    for name, value in (("inputs", given), ("outputs", want)):
        lines = value if isinstance(value, list) else [value]
        if not all(isinstance(line, str) for line in lines):
            return f"{name}[{i}] is not text or a list of lines"
    return ""


def cases_of(problem: Problem) -> tuple[str | None, list[Case]]:
    """(the function a call-based problem calls, or None; its test cases)."""
    fields = apps_fields(problem)
    if fields["row_at"]:
        offset, length = fields["row_at"]
        func_name, cases = _cases_at(fields["source"], offset, length, problem.id, fields["where"])
    else:
        func_name, cases = _decoded_cases(fields["input_output"], fields["where"])
    return func_name, list(cases)


@functools.lru_cache(maxsize=2)
def _cases_at(
    source: str, offset: int, length: int, task_id: str, where: str
) -> tuple[str | None, tuple[Case, ...]]:
    """The cases of the row at ``offset`` of ``source``, read again now (kept, as
    :func:`_decoded_cases`, for the problems graded last); a row that is no longer there, or
    is another problem's, raises ``SuiteError``."""
    try:
        row = read_object_at(Path(source), offset, length)
    except OSError as e:
        raise SuiteError(f"{where}: cannot read the row again ({e})") from None
    except (ValueError, RecursionError):
        row = None  # no longer a row at its offset
    if not isinstance(row, dict) or _lacking(row) or row["task_id"] != task_id:
        raise SuiteError(f"{where}: the file changed since it was read (no longer this row)")
    return _parsed_cases(row["input_output"], where)


@functools.lru_cache(maxsize=2)
def _decoded_cases(input_output: str, where: str) -> tuple[str | None, tuple[Case, ...]]:
    """:func:`_parsed_cases`, kept for the problems graded last (a problem's samples are
    graded one after another)."""
    return _parsed_cases(input_output, where)


def _parsed_cases(input_output: str, where: str) -> tuple[str | None, tuple[Case, ...]]:
    try:
        tests = json.loads(input_output)
        inputs, expected = tests["inputs"], tests["outputs"]
    except (ValueError, TypeError, KeyError) as e:
        raise SuiteError(f"{where}: input_output has no inputs and outputs ({e})") from None
    except RecursionError:
        raise SuiteError(f"{where}: input_output nests lists too deeply to be read") from None
    if not isinstance(inputs, list) or not isinstance(expected, list) or not inputs:
        raise SuiteError(f"{where}: input_output has no test cases")
    if len(inputs) != len(expected):
        raise SuiteError(
            f"{where}: input_output has {len(inputs)} inputs and {len(expected)} outputs"
        )
    func_name = tests.get("fn_name")
    if func_name is not None and not (isinstance(func_name, str) and func_name):
        raise SuiteError(f"{where}: input_output's fn_name is not a name")
    for i, (given, want) in enumerate(zip(inputs, expected, strict=True)):
        bad = _malformed(func_name, i, given, want)
        if bad:
            raise SuiteError(f"{where}: input_output's {bad}")
    cases = []
    for given, want in zip(inputs, expected, strict=True):
        if func_name:
            cases.append(Case(_int_keys(given), _int_keys(want)))
        else:
            text = "\n".join(given) if isinstance(given, list) else given
            cases.append(Case(text, want))
    return func_name, tuple(cases)


class AppsKind(IOKind):
    name = MODE_APPS
    own_time_limits = "APPS's 4 s per test"
    time_floor_s = PER_TEST_S

    def cases(self, problem: Problem) -> tuple[str | None, list[Case], Rules]:
        func_name, cases = cases_of(problem)
        return func_name, cases, CALL_RULES if func_name else STDIN_RULES

    def facets(self, problem: Problem) -> dict[str, str]:
        return {"difficulty": apps_fields(problem)["difficulty"]}

    def is_row(self, row: Any) -> bool:
        return is_apps_row(row)

    def load(self, path: Path, suite: str) -> list[Problem]:
        return load_apps(path, suite)
