"""What each built-in kind keeps in ``Problem.extra``, typed.

``Problem.extra`` stays a plain dict: it crosses to xdist workers and remote hosts as
JSON-safe data, and a third-party kind keeps what it likes there. The built-in kinds' fields
are read through these types and accessors, by the kind and by the graders it uses, and by
no one else. Fields any stage may read whatever the kind (a suite's own limits, the data
identity, why a problem cannot be solved) are :mod:`pytest_codegen.problems`'.
"""

from __future__ import annotations

from typing import Any, Required, TypedDict, cast

from ..problems import Problem


class HumanEvalFields(TypedDict, total=False):
    entry_point: Required[str]  # the function the prompt begins and check() calls
    # HumanEval-X's Python: a completion ends before its first line outside the function
    # (CodeGeeX's evaluator cuts it there).
    cut_at_top_level: bool


class EvalPlusFields(TypedDict):
    entry_point: str
    dataset: str  # "humaneval" or "mbpp": whose comparison rules apply
    atol: float  # the absolute tolerance of float outputs (0: exact)
    base_input: list[Any]  # argument lists of the base tests ...
    plus_input: list[Any]  # ... and of the plus tests


class ExecCSNFields(TypedDict, total=False):
    func_name: str  # the function the sample writes (qualified for a method)
    mask: str  # the placeholder the masked program holds where the function goes
    mask_indent: str  # the placeholder's indentation
    mask_decorators: list[str]  # decorators above the placeholder, kept on the sample
    idx: Any  # the row's own index in the source file
    sh_code: str  # the row's shell set-up, kept as shipped


class WebApp1KFields(TypedDict):
    test_filename: str  # the Jest test's file name
    solution_filename: str  # the file the test imports, which the sample is written to


class LiveCodeBenchFields(TypedDict):
    where: str  # the row's file and line, for errors found when its tests are decoded
    platform: str  # atcoder, leetcode, codeforces
    contest_id: str
    contest_date: str  # ISO date and time
    difficulty: str  # easy, medium, hard
    title: str
    starter_code: str  # LeetCode's class stub, else ""
    func_name: str  # the method a LeetCode problem calls; "" for a stdin program
    release: str  # the release that added it ("5" for test5.jsonl), "" if not known
    # The tests, read again from the file when graded: the row's [offset, length] in
    # ``source`` (a hidden-tests blob can be megabytes: none is kept for the whole run) ...
    row_at: list[int]
    source: str
    # ... or, where the file cannot be read at an offset (a .gz file), as shipped: JSON,
    # and JSON or base64+zlib+pickle of JSON ("" when read again from the file)
    public_test_cases: str
    private_test_cases: str


class AppsFields(TypedDict):
    where: str  # the row's file and line
    difficulty: str  # introductory, interview, competition
    url: str
    # The tests, read again from the file when graded: the row's [offset, length] in
    # ``source`` (input_output can be megabytes: none is kept for the whole run) ...
    row_at: list[int]
    source: str
    # ... or, where the file cannot be read at an offset (a .gz file), as shipped: JSON,
    # decoded when graded ("" when read again from the file)
    input_output: str


def humaneval_fields(problem: Problem) -> HumanEvalFields:
    return cast(HumanEvalFields, problem.extra)


def evalplus_fields(problem: Problem) -> EvalPlusFields:
    return cast(EvalPlusFields, problem.extra)


def execcsn_fields(problem: Problem) -> ExecCSNFields:
    return cast(ExecCSNFields, problem.extra)


def webapp1k_fields(problem: Problem) -> WebApp1KFields:
    return cast(WebApp1KFields, problem.extra)


def livecodebench_fields(problem: Problem) -> LiveCodeBenchFields:
    return cast(LiveCodeBenchFields, problem.extra)


def apps_fields(problem: Problem) -> AppsFields:
    return cast(AppsFields, problem.extra)


class NativeProgramFields(TypedDict, total=False):
    stop_tokens: list[str]  # MultiPL-E: where a completion is cut
    go_import: str  # HumanEval-X Go: the prompt's imports, which its evaluator drops ...
    test_setup: str  # ... for the tests' package clause and imports
    declaration: str  # HumanEval-X Rust: the uses and signature the prompt leaves out


def native_fields(problem: Problem) -> NativeProgramFields:
    return cast(NativeProgramFields, problem.extra)
