"""Execution stage: grade one sample of one problem and return a :class:`Verdict`.

Python problems run in :mod:`pytest_codegen.sandbox` children. In ``python-call`` mode the
benchmark's tests run here, in the trusted process, and every call of the candidate crosses
into the sandbox as plain data — the sample never shares a process with its tests, so it
cannot rebind ``check``, lie about equality or forge a verdict. ``python-program`` mode (formats
whose tests live inside the program, like Exec-CSN) runs both in the sandbox; results say which
mode graded each sample. React problems go to the Jest runner.
"""

from __future__ import annotations

import ast
import linecache
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import outcomes, problems
from .extract import ExtractionError, extract_code, python_candidate
from .outcomes import Verdict
from .problems import Problem
from .sandbox import (
    CandidateException,
    Limits,
    Remote,
    SampleCrashed,
    SampleTimeout,
    Sandbox,
    call_remote,
)


def execute(problem: Problem, reply: str, limits: Limits, *, jest: Any = None,
            hide: tuple[str, ...] = ()) -> tuple[str, Verdict]:
    """Extract the code from ``reply`` and grade it; returns ``(code, verdict)``."""
    started = time.monotonic()
    prefer = problem.extra.get("entry_point") or problem.extra.get("func_name")
    try:
        code = extract_code(reply, problem.language, prefer=prefer)
    except ExtractionError as e:
        return "", Verdict(outcomes.UNEXTRACTABLE, str(e), mode=problem.mode)
    if problem.mode == problems.MODE_PYTHON_CALL:
        verdict = run_python_call(problem, code, limits, hide)
    elif problem.mode == problems.MODE_PYTHON_PROGRAM:
        verdict = run_python_program(problem, code, limits, hide)
    elif problem.mode == problems.MODE_JEST:
        if jest is None:
            raise RuntimeError("React problems need the Jest runner")
        verdict = jest.run(
            test_source=problem.tests,
            test_filename=problem.extra["test_filename"],
            solution_filename=problem.extra["solution_filename"],
            solution_code=code,
            timeout_s=limits.timeout_s,
        )
    else:
        raise ValueError(f"unknown grading mode {problem.mode!r} for {problem.id}")
    verdict.duration_s = time.monotonic() - started
    return code, verdict


# -- python-call mode ---------------------------------------------------------------------

def run_python_call(problem: Problem, code: str, limits: Limits,
                    hide: tuple[str, ...] = ()) -> Verdict:
    entry = problem.extra["entry_point"]
    source = python_candidate(problem.prompt, code, entry)
    test_file = f"<tests of {problem.id}>"
    namespace = _load_tests(problem, test_file)

    def grade(box: Sandbox) -> None:
        candidate = call_remote(box, {"op": "load", "source": source, "entry": entry})
        if isinstance(candidate, Remote):
            object.__setattr__(candidate, "_name", entry)
        # Tests may also call the entry point by name (HumanEval/33 does).
        namespace[entry] = candidate
        namespace["check"](candidate)

    return _grade_in_sandbox(limits, hide, problems.MODE_PYTHON_CALL, grade,
                             lambda e: _classify(e, test_file))


def _grade_in_sandbox(limits: Limits, hide: tuple[str, ...], mode: str,
                      grade: Callable[[Sandbox], None],
                      classify: Callable[[Exception], Verdict]) -> Verdict:
    """Run ``grade`` against a fresh sandbox; it passes unless it raises. A timeout or a
    crash is the sandbox's verdict; any other exception is ``classify``'s to judge."""
    with Sandbox(limits, hide) as box:
        try:
            grade(box)
            verdict = Verdict(outcomes.PASSED)
        except SampleTimeout as e:
            verdict = Verdict(outcomes.TIMEOUT, str(e))
        except SampleCrashed as e:
            verdict = Verdict(outcomes.CRASHED, str(e))
        except Exception as e:  # noqa: BLE001 - every way a sample can fail is a verdict
            verdict = classify(e)
        verdict.mode = mode
        verdict.isolation = box.isolation
        verdict.stdout = box.output_tail()
    return verdict


def _classify(exc: Exception, test_file: str) -> Verdict:
    """An exception out of the tests: the candidate's own, or a failed check."""
    if hasattr(exc, "candidate_type"):
        kind = exc.candidate_type  # type: ignore[attr-defined]
        message = str(exc) if isinstance(exc, CandidateException) else f"{kind}: {exc}"
        verdict = Verdict(outcomes.ERROR, f"the code raised {message}".strip())
        verdict.stderr = exc.candidate_traceback  # type: ignore[attr-defined]
        return verdict
    where = _test_line(exc, test_file)
    if isinstance(exc, AssertionError):
        detail = str(exc).strip()
        headline = f"check failed{where}"
        return Verdict(outcomes.FAILED, headline + (f"\n{detail}" if detail else ""))
    return Verdict(outcomes.FAILED, f"check failed{where}\n{type(exc).__name__}: {exc}")


def _test_line(exc: BaseException, test_file: str) -> str:
    """`` at line N: <source>`` for the innermost test-code frame of ``exc``."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename == test_file:
            return f" at line {frame.lineno}: {(frame.line or '').strip()}"
    return ""


_COMPILED: dict[tuple[str, str], tuple[Any, Any]] = {}


def _load_tests(problem: Problem, test_file: str) -> dict[str, Any]:
    """The problem's tests (with pytest's assertion rewriting, for readable "expected vs got"
    messages) run in a fresh namespace that has the prompt's helpers. Compiled once per
    problem: every sample gets a new namespace, not a new compilation."""
    key = (problem.suite, problem.id)
    if key not in _COMPILED:
        try:
            prompt_code = compile(problem.prompt, f"<prompt of {problem.id}>", "exec")
        except (SyntaxError, ValueError):
            prompt_code = None
        source = problem.tests
        linecache.cache[test_file] = (len(source), None, source.splitlines(True), test_file)
        _COMPILED[key] = (prompt_code, _compile_tests(source, test_file))
    prompt_code, test_code = _COMPILED[key]
    namespace: dict[str, Any] = {"__name__": "codegen_tests"}
    if prompt_code is not None:
        try:
            exec(prompt_code, namespace)
        except Exception:  # noqa: BLE001 - a prompt that does not run alone only loses helpers
            pass
    exec(test_code, namespace)
    if not callable(namespace.get("check")):
        raise problems.SuiteError(f"{problem.suite}: {problem.id}: its test defines no check()")
    return namespace


def _compile_tests(source: str, filename: str) -> Any:
    tree = ast.parse(source, filename)
    try:
        from _pytest.assertion.rewrite import rewrite_asserts

        rewrite_asserts(tree, source.encode(), filename)
    except Exception:  # noqa: BLE001 - plain asserts still grade correctly
        tree = ast.parse(source, filename)
    return compile(tree, filename, "exec")


# -- python-program mode ------------------------------------------------------------------

def run_python_program(problem: Problem, code: str, limits: Limits,
                       hide: tuple[str, ...] = ()) -> Verdict:
    from .suites.execcsn import extract_function, splice

    func = extract_function(code, problem.extra["func_name"]) or code
    program = splice(problem, func)

    def classify(e: Exception) -> Verdict:
        kind = getattr(e, "candidate_type", type(e).__name__)
        outcome = outcomes.FAILED if kind == "AssertionError" else outcomes.ERROR
        verdict = Verdict(outcome, f"{kind}: {e}" if str(e) else kind)
        verdict.stderr = getattr(e, "candidate_traceback", "")
        return verdict

    return _grade_in_sandbox(
        limits, hide, problems.MODE_PYTHON_PROGRAM,
        lambda box: call_remote(box, {"op": "program", "sample": func, "program": program}),
        classify)


def hidden_paths(paths: list[Path]) -> tuple[str, ...]:
    """Directories to hide from samples: where the suites (and their answers) live."""
    return tuple(sorted({str((p if p.is_dir() else p.parent).resolve()) for p in paths}))
