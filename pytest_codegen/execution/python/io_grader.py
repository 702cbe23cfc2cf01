"""Grading of whole programs on test cases of input and expected output (LiveCodeBench, APPS).

One sandbox per sample runs every test case (:mod:`.io_harness` inside it): the program is
compiled once and run once per case, stdin the case's input and stdout captured, or, for a
LeetCode problem, its ``Solution`` method called with the case's arguments. Every input is
asked for at once (a :class:`~.call_plan.Plan`): the sample answers them in turn and each
reply's arrival starts the next case's clock, so the cost per case is a function call, not a
process. The expected outputs stay in this process; each answer is judged here by the
suite's rule, on plain data, and the first wrong answer, error or overrun ends the sample, as
the official graders stop.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

from ... import outcomes
from ...outcomes import Verdict
from .call_plan import Plan
from .errors import SampleCrashed, SampleTimeout
from .exception_verdicts import classify_at
from .grader import grade_in_sandbox
from .handles import Remote
from .sandbox import Limits, Sandbox

SHOWN_CHARS = 300  # of an input, expected or actual output in a record (upstream's truncatefn)
# How deep lists and dicts may nest in a call's argument or expected value: far past any
# benchmark's, and short of Python's recursion limit, which sending a value to the sample,
# comparing and showing it run into (some 500 levels down).
MAX_NESTING = 100


@dataclasses.dataclass(frozen=True)
class Case:
    """One test case: ``given`` is stdin text or a call's argument list, ``expected`` the text
    or value the rule compares with; ``hidden`` for the suite's private cases."""

    given: Any
    expected: Any
    hidden: bool = False


@dataclasses.dataclass(frozen=True)
class Rules:
    """How a suite runs and judges its cases."""

    name: str  # whose rules, for messages ("LiveCodeBench")
    per_case_s: float  # each case's limit
    imports: str  # run before the program, as the suite's grader prepends it
    # (got, expected) -> right; got is the program's stdout, or a call's plain result.
    same: Callable[[Any, Any], bool]
    # What ``imports`` imports: the zygote imports them once, not every sample.
    preload: tuple[str, ...] = ()

    def total_s(self, cases: int) -> float:
        """The whole sample's limit: LiveCodeBench's global one (its check_correctness's
        ``(timeout + 1) x tests + 5``), which also bounds a sample of APPS."""
        return (self.per_case_s + 1) * cases + 5


def harness_source(program: str, func_name: str | None, imports: str) -> str:
    text = resources.files(__package__).joinpath("io_harness.py").read_text("utf-8")
    return f"PROGRAM = {program!r}\nFUNC_NAME = {func_name!r}\nIMPORTS = {imports!r}\n" + text


def cut(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``value`` as text, its middle cut past ``limit`` characters (as upstream shows it)."""
    text = value if isinstance(value, str) else _repr(value)
    if len(text) <= limit:
        return text
    return text[: limit // 2] + "...(truncated) ..." + text[-limit // 2 :]


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except ValueError:  # an int past Python's digit limit for str()
        return f"<{type(value).__name__} too long to print>"


def too_deep(value: Any) -> bool:
    """Whether lists and dicts nest in ``value`` (a JSON value) past :data:`MAX_NESTING`;
    counted without recursion, so a value of any depth is measured."""
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (list, dict)):
            if depth == MAX_NESTING:
                return True
            items = item.values() if isinstance(item, dict) else item
            pending.extend((v, depth + 1) for v in items if isinstance(v, (list, dict)))
    return False


class _CaseFailed(Exception):
    """A case the rule rejects; the message says which, expected and got."""


def run_io_cases(
    program: str,
    func_name: str | None,
    cases: Sequence[Case],
    rules: Rules,
    limits: Limits,
    hide: tuple[str, ...],
    mode: str,
) -> Verdict:
    """Run ``program`` on ``cases`` (a stdin program, or ``func_name`` called for each),
    stopping at the first failure. ``Verdict.tests`` has one entry per case run (the failing
    one with its input, expected and actual output, cut to :data:`SHOWN_CHARS`)."""
    entry = "call" if func_name else "run_stdin"
    source = harness_source(program, func_name, rules.imports)
    budget = rules.total_s(len(cases))
    limits = dataclasses.replace(limits, timeout_s=budget)
    results: list[dict[str, Any]] = []
    where = ["loading the program"]

    def name_of(i: int) -> str:
        return f"{'hidden' if cases[i].hidden else 'public'} test {i + 1} of {len(cases)}"

    def grade(box: Sandbox) -> None:
        end = box.started + budget
        box.deadline = min(end, box.started + rules.per_case_s)
        plan = Plan.of((list(case.given) if func_name else [case.given], {}) for case in cases)
        try:
            function = box.load((source,), entry, plan)
        except SampleTimeout:
            results.append(_entry(f"{name_of(0)}, loading", outcomes.TIMEOUT, cases[0]))
            raise SampleTimeout(f"{where[0]}: no result within {rules.per_case_s:g} s") from None
        except SampleCrashed as e:  # it ended its process while being loaded (exit())
            results.append(_entry(f"{name_of(0)}, loading", outcomes.CRASHED, cases[0]))
            raise SampleCrashed(f"{where[0]}: {e}") from None
        except Exception as e:  # it does not compile, or fails being loaded: as upstream
            # counts it, the first test fails
            results.append(_entry(f"{name_of(0)}, loading", outcomes.ERROR, cases[0], error=e))
            raise
        last = time.monotonic()
        for i, case in enumerate(cases):
            where[0] = name_of(i)
            box.deadline = min(end, last + rules.per_case_s)
            started = time.monotonic()
            try:
                got = function(*case.given) if func_name else function(case.given)
            except SampleTimeout:
                results.append(_entry(where[0], outcomes.TIMEOUT, case))
                why = (
                    f"{rules.name}'s {rules.per_case_s:g} s per test"
                    if box.deadline < end
                    else f"the {budget:g} s for all {len(cases)} tests"
                )
                raise SampleTimeout(f"{where[0]}: no result within {why}") from None
            except SampleCrashed as e:
                results.append(_entry(where[0], outcomes.CRASHED, case))
                raise SampleCrashed(f"{where[0]}: {e}") from None
            except Exception as e:
                results.append(_entry(where[0], outcomes.ERROR, case, error=e))
                raise
            last = time.monotonic()
            if isinstance(got, Remote):
                got = f"an object that is not plain data ({got!r})"
                ok = False
            else:
                ok = _same(rules, got, case.expected)
            if not ok:
                results.append(_entry(where[0], outcomes.FAILED, case, got=got))
                raise _CaseFailed(
                    f"{where[0]}: expected {cut(case.expected)!r}, got {cut(got)!r}"
                    if not func_name
                    else f"{where[0]}: expected {cut(case.expected)}, got {cut(got)}"
                )
            results.append(
                {"name": where[0], "status": outcomes.PASSED, "time_s": round(last - started, 4)}
            )

    def classify(exc: Exception) -> Verdict:
        return classify_at(exc, where[0], _CaseFailed)

    verdict = grade_in_sandbox(limits, hide, mode, grade, classify, rules.preload)
    verdict.tests = results
    return verdict


def case_record_fields(tests: list[dict[str, Any]]) -> dict[str, Any]:
    """A sample's own record fields from its cases' entries: how many passed, and the first
    that did not (None if none)."""
    failed = next((t for t in tests if t.get("status") != outcomes.PASSED), None)
    return {
        "tests_passed": sum(t.get("status") == outcomes.PASSED for t in tests),
        "first_failure": failed,
    }


def _same(rules: Rules, got: Any, expected: Any) -> bool:
    try:
        return bool(rules.same(got, expected))
    except Exception:  # noqa: BLE001 - an answer the rule cannot even compare is wrong
        return False


def _entry(
    name: str, status: str, case: Case, got: Any = None, error: Exception | None = None
) -> dict[str, Any]:
    entry = {
        "name": name,
        "status": status,
        "input": cut(case.given),
        "expected": cut(case.expected),
    }
    if status == outcomes.FAILED:
        entry["got"] = cut(got)
    if error is not None:
        entry["error"] = cut(f"{getattr(error, 'candidate_type', type(error).__name__)}: {error}")
    return entry
