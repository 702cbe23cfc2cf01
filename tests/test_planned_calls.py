"""Planned calls: a sample makes the calls its tests are bound to make first without waiting
to be asked, and the verdict is the one the tests would reach asking call by call.

Real sandboxes and real child processes throughout.
"""

from __future__ import annotations

import hashlib

import pytest

from pytest_codegen import outcomes
from pytest_codegen.execution import dispatch as execute
from pytest_codegen.execution.python import grader
from pytest_codegen.execution.python.errors import PlanDiverged
from pytest_codegen.execution.python.grader import planned_calls
from pytest_codegen.execution.python.sandbox import Limits, Plan, Remote, Sandbox
from pytest_codegen.problems import MODE_PYTHON_CALL, Problem

LIMITS = Limits(timeout_s=10, memory_mb=512)


def test_leading_asserts_with_literal_arguments_are_planned():
    tests = '''
def check(candidate):
    """Docstrings and messages are fine."""
    assert True, "This prints if this assert fails"
    assert candidate([1, 2], k=3) == 6
    assert abs(candidate((1.5,), k=-1) - 0.5) < 1e-6, "floats"
    assert sorted(candidate({"a": 1}, k=None)) == ["a"]
    assert candidate(*[1]) == 1
    assert candidate(4) == 4
'''
    assert planned_calls(tests) == (
        ([[1, 2]], {"k": 3}),
        ([(1.5,)], {"k": -1}),
        ([{"a": 1}], {"k": None}),
    )  # a starred argument ends the plan, though later asserts would qualify


@pytest.mark.parametrize(
    "stop",
    [
        "x = 1",  # any statement other than an assert
        "for i in range(3): assert candidate(i) == i",
        "assert candidate(1) == 1 or candidate(2) == 2",  # the second call may not happen
        "assert candidate(1) if flag else True",
        "assert 0 < candidate(1) < 2",  # a chained comparison may stop early
        "assert helper(candidate(1)) == 1",  # a helper could call the candidate itself
        "assert candidate(1) == candidate(1)",  # two calls: their order is the test's business
        "assert candidate(10**20) == 1",  # not a literal
        "assert candidate(1) == 1, candidate(2)",  # the message calls it too
        "assert candidate(...) == 1",  # not plain data
        "assert [candidate(i) for i in (1, 2)] == [1, 2]",
    ],
)
def test_the_plan_stops_at_what_it_cannot_foresee(stop):
    tests = (
        f"def check(candidate):\n    assert candidate(0) == 0\n    {stop}\n"
        "    assert candidate(5) == 5\n"
    )
    assert planned_calls(tests) == (([0], {}),)


def test_tests_without_a_check_or_that_do_not_parse_plan_nothing():
    assert planned_calls("def test(candidate):\n    assert candidate(1)\n") == ()
    assert planned_calls("def check(:\n") == ()
    assert planned_calls("def check():\n    assert True\n") == ()


RECORDER = '''
class Recorder:
    """Records its calls; raises for 0, hands out an object for "obj"."""
    def __init__(self):
        self.calls = []
    def __call__(self, x):
        self.calls.append(x)
        if x == "obj":
            return Recorder()
        return 1 / x
f = Recorder()
'''


def test_planned_replies_come_in_order_and_the_plan_stops_at_a_raise():
    with Sandbox(LIMITS) as box:
        f = box.load((RECORDER,), "f", Plan.of((([1], {}), ([2], {}), ([0], {}), ([4], {}))))
        assert f(1) == 1.0
        assert f(2) == 0.5
        with pytest.raises(ZeroDivisionError):
            f(0)
        # The sample stopped its plan at the raise: 4 was never called, and the tests may
        # ask for anything now.
        assert f.calls == [1, 2, 0]
        assert f(8) == 0.125
    assert not box.diverged


def test_the_plan_stops_where_a_reply_hands_out_an_object():
    with Sandbox(LIMITS) as box:
        f = box.load((RECORDER,), "f", Plan.of((([1], {}), (["obj"], {}), ([2], {}))))
        assert f(1) == 1.0
        inner = f("obj")
        assert isinstance(inner, Remote)
        # The tests could act on the object before the next call: the plan ended there.
        assert inner.calls == []
        assert f.calls == [1, "obj"]


@pytest.mark.parametrize("first", [([2], {}), ([1.0], {}), ([True], {}), ([1], {"x": 1})])
def test_a_call_other_than_the_planned_one_diverges_for_good(first):
    with Sandbox(LIMITS) as box:
        f = box.load((RECORDER,), "f", Plan.of((([1], {}), ([2], {}))))
        with pytest.raises(PlanDiverged):
            f(*first[0], **first[1])
        assert box.diverged
        with pytest.raises(PlanDiverged):  # whatever the tests ask after
            f(2)


def test_asking_for_anything_else_during_the_plan_diverges():
    with Sandbox(LIMITS) as box:
        f = box.load((RECORDER,), "f", Plan.of((([1], {}),)))
        with pytest.raises(PlanDiverged):
            f.calls  # noqa: B018 - a getattr request


def problem(tests: str, prompt: str = "def counter(x):\n") -> Problem:
    # Compiled tests are kept per (suite, id): each source gets an id of its own.
    ident = hashlib.sha256((prompt + tests).encode()).hexdigest()[:12]
    return Problem(
        id=f"t/{ident}",
        suite="planned",
        category="c",
        language="python",
        mode=MODE_PYTHON_CALL,
        prompt=prompt,
        tests=tests,
        extra={"entry_point": "counter"},
    )


COUNTER = "    counter.n = getattr(counter, 'n', 0) + 1\n    return counter.n\n"


def test_tests_that_leave_the_plan_are_graded_call_by_call():
    # ``abs`` is shadowed by a helper that calls the candidate before the second planned
    # call is made. Asked call by call the counter answers 1, 2 (the helper), 3: the test
    # passes. Had the planned call been answered out of turn it would see 1, 3, 2 and fail.
    tests = """
def abs(x):
    return counter("helper")

def check(candidate):
    assert candidate("a") == 1
    assert abs(0) == candidate("b") - 1
"""
    p = problem(tests)
    assert planned_calls(tests) == ((["a"], {}), (["b"], {}))
    _, verdict = execute.execute(p, COUNTER, LIMITS)
    assert verdict.outcome == outcomes.PASSED, verdict.message


def test_tests_that_catch_the_divergence_are_still_graded_again():
    tests = """
def abs(x):
    try:
        return counter("helper")
    except BaseException:
        return 2

def check(candidate):
    assert candidate("a") == 1
    assert abs(0) == candidate("b") - 1
"""
    _, verdict = execute.execute(problem(tests), COUNTER, LIMITS)
    assert verdict.outcome == outcomes.PASSED, verdict.message


@pytest.mark.parametrize(
    ("body", "outcome", "message"),
    [
        ("    return x * 2\n", outcomes.PASSED, ""),
        (
            "    return x * 2 if x < 3 else 0\n",
            outcomes.FAILED,
            "check failed at line 4: assert candidate(3) == 6",
        ),
        ("    return x * 2 / (x - 2)\n", outcomes.FAILED, "assert -2.0 == 2"),
        ("    return x * 2 if x < 2 else 1 / 0\n", outcomes.ERROR, "ZeroDivisionError"),
        ("    while x == 2: pass\n    return x * 2\n", outcomes.TIMEOUT, "no result within"),
    ],
)
def test_planned_verdicts_and_messages_are_those_of_the_calls_one_by_one(
    body, outcome, message, monkeypatch
):
    tests = """def check(candidate):
    assert candidate(1) == 2
    assert candidate(2) == 4
    assert candidate(3) == 6
"""
    p = problem(tests, "def double(x):\n")
    p.extra["entry_point"] = "double"
    # The looping body needs a limit, kept short; the others get time load cannot use up.
    limits = Limits(timeout_s=2 if outcome == outcomes.TIMEOUT else 10, memory_mb=512)
    _, planned = execute.execute(p, body, limits)
    monkeypatch.setattr(grader, "planned_calls", lambda tests: ())
    monkeypatch.setattr(grader, "_COMPILED", {})
    _, one_by_one = execute.execute(p, body, limits)
    assert planned.outcome == one_by_one.outcome == outcome
    assert message in planned.message
    assert planned.message.splitlines()[:1] == one_by_one.message.splitlines()[:1]


def test_rewritten_tests_are_kept_on_disk_and_a_damaged_copy_is_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(tmp_path))
    source = "def check(candidate):\n    assert candidate(1) == 2\n"
    first = grader._compile_tests(source, "<tests of t/x>")
    (cached,) = (tmp_path / "rewritten-tests").iterdir()
    assert grader._compile_tests(source, "<tests of t/x>") == first
    cached.write_bytes(b"\x00garbage")
    namespace: dict = {}
    exec(grader._compile_tests(source, "<tests of t/x>"), namespace)
    with pytest.raises(AssertionError, match=r"assert 3 == 2"):  # still rewritten
        namespace["check"](lambda x: 3)
    assert cached.read_bytes() != b"\x00garbage"


def test_an_unwritable_cache_only_costs_the_rewriting(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(blocker))  # not a directory
    namespace: dict = {}
    exec(grader._compile_tests("def check(c):\n    assert c() == 1\n", "<t>"), namespace)
    with pytest.raises(AssertionError, match=r"assert 0 == 1"):
        namespace["check"](lambda: 0)
