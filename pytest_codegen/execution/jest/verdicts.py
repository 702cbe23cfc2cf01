"""From the Jest runner's answer for one sample to its :class:`~pytest_codegen.outcomes.Verdict`.

Per-test results come from Jest's own report (``circus``) and, when hardened, from the record
``node/guard.js`` keeps; a test passes only if both agree (see :func:`merge_tests`).
"""

from __future__ import annotations

import re
from typing import Any

from ...outcomes import CRASHED, ERROR, FAILED, PASSED, Verdict
from ...problems import MODE_JEST
from .attempt_signs import runner_attempts
from .console import strip_ansi

# Exceptions that mean "the code is broken", not "the behaviour is wrong".
PROGRAM_ERRORS = {
    "TypeError",
    "ReferenceError",
    "SyntaxError",
    "RangeError",
    "EvalError",
    "URIError",
    "InternalError",
    "ProcessExitError",
    "SandboxViolation",
}
MESSAGE_LINES = 6
# An absolute path in a message (the runner's work directory is new for each runner)
ABSOLUTE_PATH = re.compile(r"(?<![\w.])/(?:[^\s/:]+/)+([^\s/:]+)")


def answer_verdict(
    answer: dict[str, Any],
    forged: list[str],
    runner_out: str,
    runner_err: str,
    *,
    hardened: bool,
    output_limit: int,
) -> Verdict:
    """The verdict of an ``answer``; ``forged``: foreign writes seen on the answer pipe,
    ``runner_out``/``runner_err``: what the runner printed meanwhile."""
    stdout = strip_ansi(str(answer.get("console", "")))
    stderr = strip_ansi(runner_err)
    if runner_out:
        stdout = f"{stdout}\n{strip_ansi(runner_out)}".strip()

    def verdict(outcome: str, message: str, tests: list[dict[str, Any]]) -> Verdict:
        return Verdict(
            outcome,
            message,
            tests=tests,
            stdout=stdout[-output_limit:],
            stderr=stderr[-output_limit:],
            mode=MODE_JEST,
            attempts=runner_attempts(answer, forged, tests),
        )

    if "fatal" in answer:
        return verdict(CRASHED, f"the Jest runner failed: {answer['fatal']}"[:2000], [])
    exec_error = strip_ansi(str(answer.get("execError", "")))
    circus = answer.get("circus") or []
    guard = answer.get("guard")
    tests = merge_tests(guard, circus, hardened)
    problems: list[str] = []
    if forged:
        problems.append(f"the sample wrote to the result channel ({forged[0]!r})")
    if exec_error:
        return verdict(ERROR, f"test suite failed to run: {_exec_headline(exec_error)}", tests)
    if hardened:
        if not isinstance(guard, dict) or not guard.get("ready"):
            return verdict(ERROR, "the grader's guard did not finish setting up", tests)
        for note in guard.get("unverified") or []:
            problems.append(f"unverified: {note}")
    problems += [f"violation: {v}" for v in answer.get("violations") or []]
    runnable = [t for t in tests if t["status"] not in ("skipped", "todo")]
    if not runnable:
        return verdict(ERROR, "no test ran", tests)
    failing = [t for t in runnable if t["status"] != "passed"]
    if failing:
        first = failing[0]
        outcome = ERROR if any(t.get("kind") == "error" for t in failing) else FAILED
        message = f"{first['name']}: {_headline(first['message'])}"
        if problems:
            message += f" [{problems[0]}]"
        return verdict(outcome, message, tests)
    if problems:
        return verdict(FAILED, f"integrity check failed: {problems[0]}", tests)
    return verdict(PASSED, "", tests)


def merge_tests(guard: Any, circus: list[dict[str, Any]], hardened: bool) -> list[dict[str, Any]]:
    """Per-test results: Jest's report, each entry confirmed by the guard's own record.

    A test passes only if Jest says so *and* the guard saw its body start and settle
    without an exception. The lists are paired in declaration order; their lengths must
    agree (a sample cannot add, drop or reorder tests unseen). A test that Jest skips or
    lists as todo fails unless the modes declared say it should (:func:`expected_fates`).
    """
    circus_tests = [
        {
            "name": str(c.get("name", "")),
            "status": str(c.get("status", "")),
            "message": strip_ansi(str(c.get("message", ""))).strip(),
        }
        for c in circus
    ]
    if not hardened:
        for test in circus_tests:
            test["status"] = _status(test["status"])
        return circus_tests
    recorded = (guard or {}).get("tests") or []
    results: list[dict[str, Any]] = []
    if len(recorded) != len(circus_tests) or (guard or {}).get("registered") != len(recorded):
        results = [
            {**c, "status": "failed" if c["status"] == "passed" else _status(c["status"])}
            for c in circus_tests
        ]
        results.append(
            {
                "name": "(integrity)",
                "status": "failed",
                "message": f"the test file declared {len(recorded)} tests, "
                f"Jest reported {len(circus_tests)}",
            }
        )
        return results
    fates = expected_fates(recorded, bool((guard or {}).get("focus")))
    for rec, reported, fate in zip(recorded, circus_tests, fates, strict=True):
        mode = rec.get("mode")
        name = reported["name"] or str(rec.get("name", ""))
        entry: dict[str, Any] = {
            "name": name,
            "status": _status(reported["status"]),
            "message": reported["message"],
            "assertions": int(rec.get("pass", 0)),
        }
        if mode in ("skip", "todo"):
            entry["status"] = "skipped" if mode == "skip" else "todo"
        else:
            # test.failing passes when its body does not succeed: it throws, or Jest times it out
            succeeded = rec.get("end") == "ok"
            confirmed = rec.get("started") and succeeded != bool(rec.get("failing"))
            if rec.get("name") and not name.endswith(str(rec.get("name")).split(" ")[-1]):
                confirmed = False
                entry["message"] = entry["message"] or "test names do not match Jest's report"
            if entry["status"] == "passed" and not confirmed:
                entry["status"] = "failed"
                seen = f"settled: {rec.get('end')}" if rec.get("end") else "never ran"
                entry["message"] = f"Jest reported a pass the guard did not observe ({seen})"
            if fate == "run" and entry["status"] in ("skipped", "todo"):
                skipped = entry["status"]
                entry["status"] = "failed"
                entry["message"] = f"Jest reported it {skipped}; the test file declared it to run"
            if entry["status"] == "failed":
                crashed = rec.get("end") == "exception" and not rec.get("failing")
                if crashed and rec.get("errorName") in PROGRAM_ERRORS:
                    entry["kind"] = "error"
                if not entry["message"]:
                    entry["message"] = f"{rec.get('errorName')}: {rec.get('errorMessage')}"
        results.append(entry)
    return results


def expected_fates(recorded: list[dict[str, Any]], focused: bool) -> list[str]:
    """Whether Jest is to ``run`` each recorded test, ``skip`` it or list it as ``todo``, by
    jest-circus's rules on the modes declared (the guard's record: a test's own ``mode``, and
    the mode and number of the describe block it is ``within``). Focus counts only where the
    test file itself focuses tests (``focused``, the runner's reading of its source): a sample's
    own ``test.only`` skips none of the file's."""
    modes = []
    for rec in recorded:
        own, within = rec.get("mode"), rec.get("within") or ""
        # A describe block passes its mode to its tests without one, unless it is focused
        # and so is one of its tests.
        focused_sibling = within == "only" and any(
            other.get("mode") == "only" and other.get("block") == rec.get("block")
            for other in recorded
        )
        if own in ("only", "skip", "todo"):
            modes.append(own)
        elif within and not focused_sibling:
            modes.append(within)
        else:
            modes.append("run")
    focus = focused and any(
        mode == "only" and rec.get("within") != "skip"
        for mode, rec in zip(modes, recorded, strict=True)
    )
    fates = []
    for mode, rec in zip(modes, recorded, strict=True):
        if rec.get("within") == "skip" or mode == "skip" or (focus and mode == "run"):
            fates.append("skip")
        else:
            fates.append("todo" if mode == "todo" else "run")
    return fates


def _status(status: str) -> str:
    if status == "pending":
        return "skipped"
    return status if status in ("passed", "failed", "todo", "skipped") else "failed"


def _exec_headline(message: str) -> str:
    """Why a test file could not run. A file Babel cannot parse (the sample's or the test's)
    gets a page of Jest's advice on its configuration first, unless Babel said what it
    expected ("Unexpected token, expected ','"); either way Babel's line names the file, here
    by its name alone, and the place."""
    _, found, details = message.partition("\nDetails:\n")
    if not found and message.startswith("SyntaxError: "):
        details = message
    lines = [line.strip() for line in details.splitlines() if line.strip()]
    return ABSOLUTE_PATH.sub(r"\1", lines[0])[:600] if lines else _headline(message)


def _headline(message: str) -> str:
    """The first meaningful lines of a Jest failure message (no stack frames)."""
    lines = [
        line.strip()
        for line in strip_ansi(message).splitlines()
        if line.strip() and not line.strip().startswith("at ")
    ]
    return " | ".join(lines[:MESSAGE_LINES])[:600]
