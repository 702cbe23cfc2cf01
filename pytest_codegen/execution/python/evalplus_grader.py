"""Grading of HumanEval+ and MBPP+ samples as EvalPlus 0.3.x grades them.

There are no tests to run: the candidate is called on each of the problem's inputs, base
(the original benchmark's) then plus (EvalPlus's), each set in a fresh sandbox of its own,
and each output is compared here, in the trusted process, with the canonical solution's
(:mod:`.evalplus_match`). The first wrong output, exception or overrun ends that set.

The canonical solution's outputs and its time on each input are measured once, in the same
sandbox, and kept on disk (:func:`expected_outputs`): no sample ever holds them. Input ``i``
may take ``max(1 s, 4 x`` the canonical solution's time on it ``)``, and a whole set at most
``min(60 s, the sum of those) + 2 s`` (EvalPlus's ``gt_time_limit_factor``,
``min_time_limit`` and ``EVALPLUS_TIMEOUT_PER_TASK``, and its process's grace).

A sample's verdict is its base verdict if that fails, else its plus verdict (EvalPlus's
"base + extra tests" score); both are in ``Verdict.tests`` and the sample's record. A problem
whose canonical solution fails on one of its own inputs grades nothing: its samples are
``quarantined``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from ... import outcomes, problems
from ...cachedir import default_cache_root
from ...kinds.fields import evalplus_fields
from ...outcomes import Verdict
from ...problems import Problem
from ..extract import EXTRACT, python_candidate
from ..host_cache import HostMeasurements
from . import wire
from .call_plan import Plan
from .errors import SampleCrashed, SampleTimeout
from .evalplus_match import MBPP_NOT_NONE, MBPP_SET_EQUAL, matches
from .exception_verdicts import classify_at
from .grader import grade_in_sandbox, problem_imports
from .handles import Remote
from .sandbox import Limits, Sandbox

GT_TIME_LIMIT_FACTOR = 4.0
MIN_TIME_LIMIT_S = 1.0
SET_TIME_CAP_S = 60.0
# EvalPlus gives a set's process one second past its limit, and its join one more.
SET_GRACE_S = 2.0
# The sandbox's own limits (its CPU rlimit) are the same for every set, so one kind of spare
# process serves them all; the deadlines that matter are set per input.
SANDBOX_TIMEOUT_S = SET_TIME_CAP_S + SET_GRACE_S
# The canonical solution is trusted: it may take its time.
GROUND_TRUTH_TIMEOUT_S = 600.0
PARTS = ("base", "plus")
# Bump when what is measured, or how it is stored, changes: it is part of the cache key.
_EXPECTED_FORMAT = "2"  # 2: ints past the decimal digit limit stored as wire.py tags them


@dataclasses.dataclass(frozen=True)
class Expected:
    """The canonical solution's output on each input of a set, and its time on it."""

    outputs: list[Any]
    times: list[float]

    def time_limits(self) -> list[float]:
        return [max(MIN_TIME_LIMIT_S, GT_TIME_LIMIT_FACTOR * t) for t in self.times]


def set_budget(time_limits: list[float]) -> float:
    """How long a whole set of inputs may run, loading the code included."""
    return min(SET_TIME_CAP_S, sum(time_limits)) + SET_GRACE_S


def run_evalplus(
    problem: Problem,
    code: str,
    limits: Limits,
    hide: tuple[str, ...] = (),
    *,
    policy: str = EXTRACT,
) -> Verdict:
    entry = evalplus_fields(problem)["entry_point"]
    sources = python_candidate(problem.prompt, code, entry, policy)
    try:
        expected = expected_outputs(problem, limits, hide)
    except problems.SuiteError as e:  # the problem cannot grade anything: not graded
        return Verdict(outcomes.QUARANTINED, str(e), mode=problems.MODE_EVALPLUS)
    limits = dataclasses.replace(limits, timeout_s=SANDBOX_TIMEOUT_S)
    parts = {
        part: _grade_set(problem, part, sources, expected[part], limits, hide) for part in PARTS
    }
    first_failed = next((parts[p] for p in PARTS if not parts[p].passed), parts["plus"])
    verdict = dataclasses.replace(first_failed)
    verdict.tests = [
        {"name": part, "status": parts[part].outcome, "message": parts[part].message}
        for part in PARTS
    ]
    verdict.stdout = "".join(
        f"--- {part} inputs ---\n{parts[part].stdout}" for part in PARTS if parts[part].stdout
    )
    verdict.stderr = "".join(parts[part].stderr for part in PARTS)
    return verdict


class _WrongOutput(Exception):
    """An output the rules reject; the message says which input, expected and got."""


def _grade_set(
    problem: Problem,
    part: str,
    sources: tuple[str, ...],
    expected: Expected,
    limits: Limits,
    hide: tuple[str, ...],
) -> Verdict:
    """One set of inputs (``part``: base or plus) in a fresh sandbox, as EvalPlus's
    ``untrusted_check`` runs it."""
    fields = evalplus_fields(problem)
    entry, dataset = fields["entry_point"], fields["dataset"]
    inputs: list[Any] = fields["base_input" if part == "base" else "plus_input"]
    time_limits = expected.time_limits()
    budget = set_budget(time_limits)
    # Which input is being run (None while loading): what a failure's message names, written
    # out only if one happens.
    at: list[int | None] = [None]

    def where() -> str:
        i = at[0]
        if i is None:
            return f"loading the code for the {part} inputs"
        return f"{part} input {i + 1} of {len(inputs)}, {entry}{_args(inputs[i])}"

    def grade(box: Sandbox) -> None:
        set_end = box.started + budget
        box.deadline = set_end
        # Every input asked for at once: the sample answers them in turn, and each reply's
        # arrival starts the clock of the next input.
        plan = problems.derived(
            problem, f"evalplus-plan-{part}", lambda: Plan.of((list(a), {}) for a in inputs)
        )
        try:
            function = box.load(sources, entry, plan)
        except SampleTimeout:
            raise SampleTimeout(
                f"{where()}: no result within the {part} set's {budget:.3g} s"
            ) from None
        if inputs and not isinstance(function, Remote):
            at[0] = 0
            raise _WrongOutput(f"{where()}: {entry} is {_show(function)}, not a function")
        atol = fields["atol"]
        not_none_only = dataset == "mbpp" and entry in MBPP_NOT_NONE
        set_equal = dataset == "mbpp" and entry in MBPP_SET_EQUAL
        last = time.monotonic()
        for i, (args, want, limit) in enumerate(
            zip(inputs, expected.outputs, time_limits, strict=True)
        ):
            at[0] = i
            box.deadline = min(set_end, last + limit)
            try:
                # The plan holds every input in order: its replies are these calls' results.
                out = box.next_planned() if box.planned else function(*args)
            except SampleCrashed as e:
                raise SampleCrashed(f"{where()}: {e}") from None
            except SampleTimeout:
                why = (
                    f"its limit of {limit:.3g} s ({GT_TIME_LIMIT_FACTOR:g} x the canonical "
                    f"solution's {expected.times[i]:.3g} s, at least {MIN_TIME_LIMIT_S:g} s)"
                    if box.deadline < set_end
                    else f"the {part} set's {budget:.3g} s"
                )
                raise SampleTimeout(f"{where()}: no result within {why}") from None
            last = time.monotonic()
            if isinstance(out, Remote):
                if not_none_only:
                    out = object()  # only its being an object, not None, is judged
                elif set_equal:
                    out = list(out)  # set(out) takes any iterable there: its items, from it
                else:
                    raise _WrongOutput(
                        f"{where()}: returned an object that is not plain data ({out!r}), "
                        f"expected {_show(want)}"
                    )
            ok, atol = matches(dataset, entry, args, out, want, atol, box.subclass_answer)
            if not ok:
                shown = (
                    f"a zero of the polynomial (within {atol:g})"
                    if entry == "find_zero" and dataset != "mbpp"
                    else _show(want)
                )
                raise _WrongOutput(f"{where()}: expected {shown}, got {_show(out)}")

    def classify(exc: Exception) -> Verdict:
        return classify_at(exc, where(), _WrongOutput)

    verdict = grade_in_sandbox(
        limits, hide, problems.MODE_EVALPLUS, grade, classify, problem_imports(problem)
    )
    return verdict


def _show(value: Any, limit: int = 200) -> str:
    return _cut(_repr(value), limit)


def _args(args: Any) -> str:
    """A call's arguments as written in one: ``(1, [2, 3])``."""
    return "(" + _cut(", ".join(_repr(arg) for arg in args), 200) + ")"


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except ValueError:  # an int past Python's digit limit for str()
        return f"<{type(value).__name__} too long to print>"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


# -- the canonical solution's outputs, measured once -----------------------------------------

_EXPECTED: dict[str, dict[str, Expected] | problems.SuiteError] = {}
EXPECTED_NAME = "evalplus-expected"


def expected_dir() -> Path:
    """Where measured outputs are kept (hidden from samples, see :mod:`..hidden`)."""
    return default_cache_root() / EXPECTED_NAME


def expected_outputs(
    problem: Problem, limits: Limits, hide: tuple[str, ...] = ()
) -> dict[str, Expected]:
    """The canonical solution's outputs and times on the base and plus inputs: from this
    process's memory, else measured once per host (see :mod:`..host_cache`)."""
    key = problems.derived(problem, "evalplus-expected-key", lambda: _expected_key(problem))
    if key not in _EXPECTED:
        measurements = HostMeasurements(default_cache_root(), EXPECTED_NAME)
        try:
            stored, _ = measurements.get(
                key,
                lambda: _measure(problem, limits, hide),
                lambda entry: all(part in entry for part in PARTS),
            )
        except problems.SuiteError as e:
            _EXPECTED[key] = e
        else:
            _EXPECTED[key] = {
                part: Expected(
                    [wire.decode_value(v) for v in stored[part]["outputs"]],
                    [float(t) for t in stored[part]["times"]],
                )
                for part in PARTS
            }
    found = _EXPECTED[key]
    if isinstance(found, problems.SuiteError):
        raise found
    return found


def _expected_key(problem: Problem) -> str:
    """Everything the measured outputs depend on (not the suite's name: the same data under
    another file name is the same problem)."""
    fields = evalplus_fields(problem)
    text = json.dumps(
        [
            _EXPECTED_FORMAT,
            sys.version,
            problem.id,
            problem.prompt,
            problem.reference,
            fields["entry_point"],
            fields["dataset"],
            wire.encode(fields["base_input"]),
            wire.encode(fields["plus_input"]),
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _measure(problem: Problem, limits: Limits, hide: tuple[str, ...]) -> dict[str, Any]:
    """Run the canonical solution (after its prompt, as EvalPlus does) on every input, each
    set in a fresh sandbox; its outputs as wire data and its time per input."""
    fields = evalplus_fields(problem)
    entry, dataset = fields["entry_point"], fields["dataset"]
    source = problem.prompt + (problem.reference or "")
    limits = dataclasses.replace(limits, timeout_s=GROUND_TRUTH_TIMEOUT_S)
    measured: dict[str, Any] = {}
    for part in PARTS:
        outputs: list[Any] = []
        times: list[float] = []
        where = f"loading it for the {part} inputs"
        try:
            with Sandbox(limits, hide, problem_imports(problem)) as box:
                function = box.load((source,), entry)
                for i, args in enumerate(fields["base_input" if part == "base" else "plus_input"]):
                    where = f"{part} input {i + 1}, {entry}{_args(args)}"
                    started = time.monotonic()
                    out = _call(function, args)
                    times.append(time.monotonic() - started)
                    if dataset == "mbpp" and entry in MBPP_NOT_NONE:
                        out = out is not None
                    elif isinstance(out, Remote):
                        raise TypeError(f"returned an object that is not plain data ({out!r})")
                    outputs.append(wire.encode(out))
        except SampleTimeout:
            raise _broken(problem, where, f"took more than {GROUND_TRUTH_TIMEOUT_S:g} s") from None
        except SampleCrashed as e:
            raise _broken(problem, where, f"crashed: {e}") from None
        except Exception as e:  # noqa: BLE001 - whatever it raised, the problem is broken
            kind = getattr(e, "candidate_type", type(e).__name__)
            raise _broken(problem, where, f"failed: {kind}: {e}") from None
        measured[part] = {"outputs": outputs, "times": times}
    return measured


def _broken(problem: Problem, where: str, why: str) -> problems.SuiteError:
    return problems.SuiteError(
        f"{problem.suite}: {problem.id}: its canonical solution {why} ({where})"
    )


def _call(function: Any, args: list[Any]) -> Any:
    if not isinstance(function, Remote):
        raise TypeError(f"{_show(function)} is not a function")
    return function(*args)
