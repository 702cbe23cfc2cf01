"""Grading of Python samples against their problem's tests, through a :class:`Sandbox`.

``python-call``: the tests run here, in the trusted process, compiled once per problem (with
pytest's assertion rewriting, cached on disk) and given a fresh namespace per sample; every
call of the candidate crosses into the sandbox, the leading literal calls planned ahead
(:func:`planned_calls`). ``python-program``: the program with its tests runs in the sandbox.
Either way a timeout, a crash or an exception becomes the sample's :class:`Verdict`.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib.util
import linecache
import marshal
import sys
from collections.abc import Callable
from typing import Any

import pytest

from ... import attempts, outcomes, problems
from ...cachedir import atomic_write, default_cache_root
from ...kinds.fields import humaneval_fields
from ...outcomes import Verdict
from ...problems import Problem
from ...pytest_internals import bounded_comparisons
from ..extract import EXTRACT, python_candidate
from . import wire
from .call_plan import NO_PLAN, Plan
from .errors import (
    PlanDiverged,
    SampleCrashed,
    SampleTampered,
    SampleTimeout,
)
from .exception_verdicts import classify_exception
from .handles import Remote
from .sandbox import Limits, Sandbox

# -- python-call mode ---------------------------------------------------------------------


def run_python_call(
    problem: Problem,
    code: str,
    limits: Limits,
    hide: tuple[str, ...] = (),
    *,
    policy: str = EXTRACT,
) -> Verdict:
    entry = humaneval_fields(problem)["entry_point"]
    sources = python_candidate(problem.prompt, code, entry, policy)
    test_file = f"<tests of {problem.id}>"
    tests = _compiled_tests(problem, test_file)

    def attempt(plan: Plan) -> Verdict:
        namespace = tests.namespace(problem)

        def grade(box: Sandbox) -> None:
            candidate = box.load(sources, entry, plan)
            if isinstance(candidate, Remote):
                object.__setattr__(candidate, "_name", entry)
            # Tests may also call the entry point by name (HumanEval/33 does).
            namespace[entry] = candidate
            with bounded_comparisons():
                namespace["check"](candidate)

        return grade_in_sandbox(
            limits,
            hide,
            problems.MODE_PYTHON_CALL,
            grade,
            lambda e: classify_exception(e, test_file),
            problem_imports(problem),
        )

    try:
        return attempt(tests.plan)
    except PlanDiverged:
        # The tests did not make the calls foreseen: the first sandbox ran calls they never
        # asked for, so a fresh one grades the sample again, call by call.
        return attempt(NO_PLAN)


def grade_in_sandbox(
    limits: Limits,
    hide: tuple[str, ...],
    mode: str,
    grade: Callable[[Sandbox], None],
    classify: Callable[[Exception], Verdict],
    preload: tuple[str, ...] = (),
    stderr_apart: bool = False,
    sealed: bool = False,
) -> Verdict:
    """Run ``grade`` against a fresh sandbox; it passes unless it raises. A timeout, a crash
    or tampering is the sandbox's verdict; any other exception is ``classify``'s to judge.
    With ``stderr_apart`` the sample's stderr is kept apart from its stdout, and judged by
    ``limits.stderr_fail_words``; ``sealed`` is for :meth:`Sandbox.run_program`."""
    tampering: list[dict[str, str]] = []
    with Sandbox(limits, hide, preload, stderr_apart, sealed) as box:
        try:
            grade(box)
            if box.failure is not None:  # the tests caught it (a bare except: around a call)
                raise box.failure
            verdict = Verdict(outcomes.PASSED)
        except SampleTimeout as e:
            verdict = Verdict(outcomes.TIMEOUT, str(e))
        except SampleCrashed as e:
            verdict = Verdict(outcomes.CRASHED, str(e))
        except SampleTampered as e:
            verdict = Verdict(outcomes.TAMPERED, f"caught tampering with its grading: {e}")
            tampering.append(attempts.of_tampering(str(e)))
        except Exception as e:  # noqa: BLE001 - every way a sample can fail is a verdict
            verdict = classify(e)
        if box.diverged:  # even if the tests caught the PlanDiverged
            raise PlanDiverged("the tests left the planned calls")
        verdict.attempts = attempts.merged(box.collect_attempts(), tampering)
        if stderr_apart:
            stderr = box.stderr()
            if verdict.passed:
                verdict = _stderr_verdict(stderr, limits.stderr_fail_words) or verdict
            verdict.stderr = stderr + verdict.stderr  # then the traceback, as a run prints it
        verdict.mode = mode
        verdict.isolation = box.isolation
        verdict.stdout = box.output_tail()
    return verdict


def _stderr_verdict(stderr: str, words: tuple[str, ...]) -> Verdict | None:
    """A failure if ``stderr`` holds one of ``words`` (the suite's harness fails such a run,
    even for a warning); None if it holds none."""
    for line in stderr.splitlines():
        word = next((w for w in words if w in line), None)
        if word is not None:
            return Verdict(
                outcomes.FAILED,
                f"its stderr says {word!r}, which fails the run under the suite's harness rule"
                f" (--codegen-stderr-rule=off ignores it): {line.strip()[:200]}",
            )
    return None


# Builtins that leading asserts apply to the candidate's result (``abs(candidate(x) - y)``):
# they run in this process and do not call the sample.
_LOCAL_BUILTINS = frozenset(
    {
        "abs",
        "all",
        "any",
        "bool",
        "dict",
        "float",
        "frozenset",
        "int",
        "isinstance",
        "len",
        "list",
        "max",
        "min",
        "repr",
        "reversed",
        "round",
        "set",
        "sorted",
        "str",
        "sum",
        "tuple",
        "type",
    }
)
# Where an expression might not be evaluated, or evaluated out of order.
_CONDITIONAL = (
    ast.BoolOp,
    ast.IfExp,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.Lambda,
    ast.NamedExpr,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
    ast.Starred,
)


def planned_calls(tests: str) -> tuple[tuple[list[Any], dict[str, Any]], ...]:
    """The calls ``check(candidate)`` is bound to make first, ``(args, kwargs)`` each: its
    leading ``assert``s whose one call of the candidate has literal arguments (HumanEval's
    ``assert candidate([1, 2], 3) == 4``), up to the first statement of another kind.

    A prediction only: :meth:`Sandbox.load` catches a test that asks for anything else, and
    the sample is then graded again without a plan."""
    try:
        tree = ast.parse(tests)
    except (SyntaxError, ValueError):
        return ()
    check = next(
        (node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "check"),
        None,
    )
    if check is None or not check.args.args:
        return ()
    param = check.args.args[0].arg
    plan: list[tuple[list[Any], dict[str, Any]]] = []
    for statement in check.body:
        if isinstance(statement, ast.Pass) or (
            isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
        ):
            continue
        if not isinstance(statement, ast.Assert):
            break
        call = _sole_call_of(param, statement)
        if call is False:
            break
        if call is not None:
            plan.append(call)
    return tuple(plan)


def _sole_call_of(param: str, statement: ast.Assert) -> Any:
    """``(args, kwargs)`` of the one call of ``param`` the assert always makes; None if it
    makes none and calls nothing else; False if it cannot be planned."""
    if statement.msg is not None and any(
        isinstance(node, ast.Call) for node in ast.walk(statement.msg)
    ):
        return False
    nodes = list(ast.walk(statement.test))
    if any(
        isinstance(node, _CONDITIONAL) or (isinstance(node, ast.Compare) and len(node.ops) > 1)
        for node in nodes
    ):
        return False
    calls = [node for node in nodes if isinstance(node, ast.Call)]
    names = [call.func.id if isinstance(call.func, ast.Name) else None for call in calls]
    mine = [call for call, name in zip(calls, names, strict=True) if name == param]
    if len(mine) > 1 or any(name != param and name not in _LOCAL_BUILTINS for name in names):
        return False
    if not mine:
        return None
    try:
        args = [ast.literal_eval(arg) for arg in mine[0].args]
        kwargs = {
            kw.arg: ast.literal_eval(kw.value) for kw in mine[0].keywords if kw.arg is not None
        }
        if len(kwargs) != len(mine[0].keywords):
            return False
        wire.encode([args, kwargs])  # plain data only
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, wire.WireError):
        return False
    return args, kwargs


@dataclasses.dataclass(frozen=True)
class CompiledTests:
    """A problem's prompt and tests, compiled once per process; every sample gets a fresh
    namespace from them, not a new compilation."""

    prompt: Any  # code object, or None for a prompt that does not compile alone
    tests: Any
    plan: Plan  # the leading calls of the candidate (planned_calls), for every sample

    def namespace(self, problem: Problem) -> dict[str, Any]:
        """A fresh namespace where the tests have run, with the prompt's helpers."""
        namespace: dict[str, Any] = {"__name__": "codegen_tests"}
        if self.prompt is not None:
            try:
                exec(self.prompt, namespace)
            except Exception:  # noqa: BLE001 - a prompt that does not run alone only loses helpers
                pass
        exec(self.tests, namespace)
        if not callable(namespace.get("check")):
            raise problems.SuiteError(f"{problem.suite}: {problem.id}: its test defines no check()")
        return namespace


_COMPILED: dict[tuple[str, str], CompiledTests] = {}


def _compiled_tests(problem: Problem, test_file: str) -> CompiledTests:
    key = (problem.suite, problem.id)
    if key not in _COMPILED:
        try:
            prompt_code = compile(problem.prompt, f"<prompt of {problem.id}>", "exec")
        except (SyntaxError, ValueError):
            prompt_code = None
        source = problem.tests
        linecache.cache[test_file] = (len(source), None, source.splitlines(True), test_file)
        _COMPILED[key] = CompiledTests(
            prompt_code, _compile_tests(source, test_file), Plan.of(planned_calls(source))
        )
    return _COMPILED[key]


_IMPORTS: dict[tuple[str, str], tuple[str, ...]] = {}


def problem_imports(problem: Problem) -> tuple[str, ...]:
    """The modules a problem's own code imports (prompt and reference; its tests run in the
    grader): what its samples will likely import too, loaded ahead in the launcher."""
    key = (problem.suite, problem.id)
    if key not in _IMPORTS:
        sources = [problem.prompt, problem.reference or ""]
        _IMPORTS[key] = tuple(
            sorted({name for source in sources for name in imported_modules(source)})
        )
    return _IMPORTS[key]


def imported_modules(source: str) -> set[str]:
    """Absolute module names of the import statements in ``source``; a source that does not
    parse as a whole (a prompt's bare signature) is read import line by import line."""
    try:
        statements = list(ast.walk(ast.parse(source)))
    except (SyntaxError, ValueError):
        statements = []
        for line in source.splitlines():
            if line.lstrip().startswith(("import ", "from ")):
                try:
                    statements.extend(ast.parse(line.strip()).body)
                except (SyntaxError, ValueError):
                    pass
    names: set[str] = set()
    for node in statements:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


# Bump when the way tests are compiled changes: it is part of the cache key.
_REWRITE_FORMAT = "1"


def _compile_tests(source: str, filename: str) -> Any:
    """The tests with pytest's assertion rewriting, for readable "expected vs got" messages.

    Rewriting costs ~3 ms per HumanEval problem, in every process that grades it, so the
    result is kept on disk like pytest's own rewritten ``.pyc`` files, keyed by everything
    it depends on.
    """
    key = hashlib.sha256(
        "\0".join(
            [
                _REWRITE_FORMAT,
                sys.version,
                importlib.util.MAGIC_NUMBER.hex(),
                pytest.__version__,
                filename,
                source,
            ]
        ).encode()
    ).hexdigest()
    cached = default_cache_root() / "rewritten-tests" / f"{key}.marshal"
    try:
        return marshal.loads(cached.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        pass
    tree = ast.parse(source, filename)
    try:
        from ...pytest_internals import rewrite_asserts

        rewrite_asserts(tree, source.encode(), filename)
    except Exception:  # noqa: BLE001 - plain asserts still grade correctly
        tree = ast.parse(source, filename)
    code = compile(tree, filename, "exec")
    try:
        atomic_write(cached, marshal.dumps(code))
    except OSError:
        pass  # a read-only cache only costs the rewriting again
    return code
