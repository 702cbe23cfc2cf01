"""LiveCodeBench code generation (the "lite" release files, ``test.jsonl`` … ``test6.jsonl``,
one by one or a directory of them, as ``--codegen-suite livecodebench`` downloads them):
JSON lines with ``question_id``, ``question_title``, ``question_content``, ``platform``,
``contest_id``, ``contest_date``, ``starter_code``, ``difficulty``, ``public_test_cases``,
``private_test_cases`` and ``metadata``.

A problem is a whole program reading stdin (AtCoder, Codeforces) or, where ``metadata``
names a ``func_name``, a LeetCode ``class Solution`` method; either is run on every test case
in one sandbox (:mod:`pytest_codegen.execution.python.io_grader`) and judged by
LiveCodeBench's rules (its ``lcb_runner/evaluation/testing_util.py``):

- stdin: the output and the expected output, stripped, split into lines, each line stripped;
  as many lines, each equal or, failing that, equal as whitespace-separated ``Decimal``s;
- functional: the arguments are the input's lines, each JSON; the result (a tuple as a list)
  ``==`` the expected output parsed as JSON;
- 6 s per test case and, for the whole sample, ``(6 + 1) x tests + 5`` s; the first failing
  case ends the sample. These are the benchmark's own limits: no limit is derived from the
  host's calibration (there is no reference solution to calibrate with).

Task ids are ``question_id``; a replay's ``solution`` runs as written, a raw answer's code is
its last fenced block, as LiveCodeBench's runner extracts it.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..collect.builtin_suites import iter_rows
from ..execution.extract import ExtractionError
from ..execution.python.io_grader import MAX_NESTING, Case, Rules, too_deep
from ..models.base import SamplingDefaults
from ..problems import Problem, SuiteError
from .fields import LiveCodeBenchFields, livecodebench_fields
from .io_kind import IOKind
from .livecodebench_cases import cases_at, problem_cases

MODE_LIVECODEBENCH = "livecodebench"
REQUIRED = (
    "question_id",
    "question_content",
    "platform",
    "contest_date",
    "starter_code",
    "public_test_cases",
    "private_test_cases",
    "metadata",
)
PER_TEST_S = 6.0  # testing_util.run_test's timeout
# lcb_runner/runner/parser.py: --n 10, --temperature 0.2
SAMPLING = SamplingDefaults(samples=10, temperature=0.2, source="LiveCodeBench's")

# LiveCodeBench's ``import_string``: run before every program, so code may use these unimported.
IMPORTS = (
    "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\n"
    "from heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\n"
    "from random import *\nfrom statistics import *\nfrom itertools import *\n"
    "from functools import *\nfrom operator import *\nfrom io import *\nfrom sys import *\n"
    "from json import *\nfrom builtins import *\nfrom typing import *\nimport string\nimport re\n"
    "import datetime\nimport collections\nimport heapq\nimport bisect\nimport copy\nimport math\n"
    "import random\nimport statistics\nimport itertools\nimport functools\nimport operator\n"
    "import io\nimport sys\nimport json\nsys.setrecursionlimit(50000)\n"
)

# LiveCodeBench's prompt (lcb_runner/prompts/code_generation.py, the chat models' one).
SYSTEM_MESSAGE = (
    "You are an expert Python programmer. You will be given a question (problem specification) "
    "and will generate a correct Python program that matches the specification and passes all "
    "tests."
)
WITH_STARTER_CODE = (
    "You will use the following starter code to write the solution to the problem and enclose "
    "your code within delimiters."
)
WITHOUT_STARTER_CODE = (
    "Read the inputs from stdin solve the problem and write the answer to stdout (do not "
    "directly test on the sample inputs). Enclose your code within delimiters as follows. "
    "Ensure that when the python program runs, it reads the inputs, runs the algorithm and "
    "writes output to STDOUT."
)


def question_prompt(content: str, starter_code: str) -> str:
    """LiveCodeBench's user message for a problem."""
    prompt = f"### Question:\n{content}\n\n"
    if starter_code:
        prompt += f"### Format: {WITH_STARTER_CODE}\n```python\n{starter_code}\n```\n\n"
    else:
        prompt += f"### Format: {WITHOUT_STARTER_CODE}\n```python\n# YOUR CODE HERE\n```\n\n"
    return prompt + "### Answer: (use the provided format with backticks)\n\n"


def last_fenced_block(reply: str) -> str | None:
    """The code between the last two lines holding a fence, as LiveCodeBench's
    ``extract_code`` takes it. A reply with one fence line is one it grades as empty code
    (``ExtractionError``); one with none, bare code such as the built-in models give, is
    left to the plugin's extraction (None)."""
    lines = reply.split("\n")
    fences = [i for i, line in enumerate(lines) if "```" in line]
    if not fences:
        return None
    if len(fences) < 2:
        raise ExtractionError("an unclosed code fence (LiveCodeBench grades such a reply as empty)")
    return "\n".join(lines[fences[-2] + 1 : fences[-1]])


# -- comparison -------------------------------------------------------------------------------


def _stripped_lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def _decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(token) for token in line.split()]
    except Exception:  # noqa: BLE001 - upstream treats any failure as "not numbers"
        return None


def same_stdout(got: Any, expected: str) -> bool:
    """LiveCodeBench's stdin rule: stripped lines, each equal or equal as Decimals."""
    if not isinstance(got, str):
        return False
    got_lines, want_lines = _stripped_lines(got), _stripped_lines(expected)
    if len(got_lines) != len(want_lines):
        return False
    for mine, theirs in zip(got_lines, want_lines, strict=True):
        if mine == theirs:
            continue
        numbers, wanted = _decimals(mine), _decimals(theirs)
        if numbers is None or wanted is None or numbers != wanted:
            return False
    return True


def same_result(got: Any, expected: Any) -> bool:
    """LiveCodeBench's functional rule: ``==`` on the parsed expected value."""
    return bool(got == expected)


PRELOAD = tuple(line.split()[1] for line in IMPORTS.splitlines() if line.startswith("import "))
STDIN_RULES = Rules("LiveCodeBench", PER_TEST_S, IMPORTS, same_stdout, PRELOAD)
FUNCTIONAL_RULES = Rules("LiveCodeBench", PER_TEST_S, IMPORTS, same_result, PRELOAD)


# -- reading a release file -------------------------------------------------------------------


def is_livecodebench_row(row: Any) -> bool:
    return isinstance(row, dict) and "question_id" in row and "private_test_cases" in row


def _lacking(row: dict[str, Any]) -> list[str]:
    row.setdefault("task_id", row.get("question_id"))
    return [k for k in REQUIRED if not isinstance(row.get(k), str)]


def release_of(path: Path) -> str:
    """The release that added a file's problems, by its upstream name: ``test.jsonl`` is
    v1's, ``testN.jsonl`` vN's; "" for another name."""
    match = re.fullmatch(r"test(\d*)\.jsonl(?:\.gz)?", path.name)
    if match is None:
        return ""
    return match.group(1) or "1"


def load_livecodebench(path: Path, suite: str) -> list[Problem]:
    problems: list[Problem] = []
    release = release_of(path)
    for where, row, span in iter_rows(path, _lacking):
        try:
            metadata = json.loads(row["metadata"] or "{}")
        except ValueError as e:
            raise SuiteError(f"{where}: metadata is not JSON ({e})") from None
        func_name = metadata.get("func_name") if isinstance(metadata, dict) else None
        if func_name is not None and not isinstance(func_name, str):
            raise SuiteError(f"{where}: metadata.func_name is not a string")
        fields = LiveCodeBenchFields(
            where=where,
            platform=row["platform"],
            contest_id=str(row.get("contest_id") or ""),
            contest_date=row["contest_date"],
            difficulty=str(row.get("difficulty") or ""),
            title=str(row.get("question_title") or ""),
            starter_code=row["starter_code"],
            func_name=func_name or "",
            release=release,
            row_at=list(span) if span is not None else [],
            source=str(path.resolve()),
            public_test_cases=row["public_test_cases"] if span is None else "",
            private_test_cases=row["private_test_cases"] if span is None else "",
        )
        problems.append(
            Problem(
                id=row["question_id"],
                suite=suite,
                category=row["platform"],
                language="python",
                mode=MODE_LIVECODEBENCH,
                prompt=question_prompt(row["question_content"], row["starter_code"]),
                tests="",
                reference=None,  # LiveCodeBench ships no solutions
                extra=dict(fields),
            )
        )
    return problems


def _call_values(case: dict[str, Any], where: str) -> tuple[list[Any], Any]:
    """A functional case's arguments (a JSON value a line) and expected value."""
    too_deep_case = (
        f"{where}: a functional test case nests lists or dicts more than {MAX_NESTING} deep"
    )
    try:
        given = [json.loads(line) for line in case["input"].split("\n")]
        expected = json.loads(case["output"])
    except ValueError as e:
        raise SuiteError(f"{where}: a functional test case is not JSON ({e})") from None
    except RecursionError:  # too deep even for json to read
        raise SuiteError(too_deep_case) from None
    if too_deep(given) or too_deep(expected):
        raise SuiteError(too_deep_case)
    return given, expected


def cases_of(problem: Problem) -> list[Case]:
    """The problem's test cases, public then hidden, parsed for its mode."""
    fields = livecodebench_fields(problem)
    if fields["row_at"]:
        offset, length = fields["row_at"]
        decoded = cases_at(fields["source"], offset, length, problem.id, fields["where"])
    else:
        decoded = problem_cases(
            fields["public_test_cases"], fields["private_test_cases"], fields["where"]
        )
    if not decoded:  # every program would pass
        raise SuiteError(f"{fields['where']}: public_test_cases and private_test_cases are empty")
    cases = []
    for case, hidden in decoded:
        # A problem is functional by its func_name, as LiveCodeBench's run_test decides: a
        # case's testtype plays no part.
        if fields["func_name"]:
            given, expected = _call_values(case, fields["where"])
            cases.append(Case(given, expected, hidden))
        else:
            cases.append(Case(case["input"], case["output"], hidden))
    return cases


class LiveCodeBenchKind(IOKind):
    name = MODE_LIVECODEBENCH
    time_floor_s = PER_TEST_S
    own_time_limits = "LiveCodeBench's 6 s per test"
    sampling_defaults = SAMPLING

    def is_row(self, row: Any) -> bool:
        return is_livecodebench_row(row)

    def claims(self, path: Path, explicit: bool) -> bool:
        if explicit and path.is_dir():  # the named suite: a directory of release files
            return super().claims(path / "test.jsonl", explicit)
        return super().claims(path, explicit)

    def load(self, path: Path, suite: str) -> list[Problem]:
        if path.is_dir():
            files = sorted(
                (int(release_of(f)), f) for f in path.glob("test*.jsonl") if release_of(f)
            )
            return [p for _, file in files for p in load_livecodebench(file, suite)]
        return load_livecodebench(path, suite)

    def holds_release(self, path: Path, release: int) -> bool:
        # testN.jsonl holds the problems release N added, none of an earlier release's.
        added = release_of(path)
        return not added or int(added) <= release

    def entry_name(self, problem: Problem) -> str | None:
        return livecodebench_fields(problem)["func_name"] or None

    def facets(self, problem: Problem) -> dict[str, str]:
        fields = livecodebench_fields(problem)
        facets = {
            "contest_date": fields["contest_date"],
            "platform": fields["platform"],
            "difficulty": fields["difficulty"],
        }
        if fields["release"]:
            facets["release"] = fields["release"]
        return facets

    def system_message(self, problem: Problem) -> str | None:
        return SYSTEM_MESSAGE

    def extract(self, problem: Problem, reply: str) -> str | None:
        return last_fenced_block(reply)

    def empty_solution(self, problem: Problem) -> str:
        func_name = livecodebench_fields(problem)["func_name"]
        if func_name:
            return f"class Solution:\n    def {func_name}(self, *args):\n        pass\n"
        return super().empty_solution(problem)

    def cases(self, problem: Problem) -> tuple[str | None, list[Case], Rules]:
        func_name = livecodebench_fields(problem)["func_name"] or None
        return func_name, cases_of(problem), FUNCTIONAL_RULES if func_name else STDIN_RULES
