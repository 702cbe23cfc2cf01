"""The outcomes a sample can have, and the verdict the execute stage returns.

Outcomes are kept distinct on purpose: a crash is not a timeout, a missing sample or an API
error is not a failed one. Only passed/failed/error/timeout/crashed/tampered/unextractable
samples are graded and count towards pass@k.
"""

from __future__ import annotations

import dataclasses
from typing import Any

PASSED = "passed"  #: every test passed
FAILED = "failed"  #: a test assertion failed
ERROR = "error"  #: the sample raised, or does not compile
TIMEOUT = "timeout"  #: the wall-clock limit was reached
CRASHED = "crashed"  #: killed by a signal, out of memory, or the runner died
TAMPERED = "tampered"  #: caught forging its verdict, or reaching for what could forge it
UNEXTRACTABLE = "unextractable"  #: no code could be found in the model's reply
MISSING = "missing"  #: the model has no such sample (short replay file, killed run)
API_ERROR = "api_error"  #: the model's API failed even after retries
QUARANTINED = "quarantined"  #: the problem's own reference fails on this machine

GRADED = (PASSED, FAILED, ERROR, TIMEOUT, CRASHED, TAMPERED, UNEXTRACTABLE)
NOT_GRADED = (MISSING, API_ERROR, QUARANTINED)
# Verdicts an error-debugging round may try to fix: every graded one but a pass, and but
# tampering (not a mistake to explain to the model: the verdict stands).
REPAIRABLE = tuple(o for o in GRADED if o not in (PASSED, TAMPERED))
ALL = GRADED + NOT_GRADED
# Outcomes whose sample item fails (the rest pass or are skipped: missing, quarantined).
FAILING = (*(o for o in GRADED if o != PASSED), API_ERROR)

NOT_GRADED_PREFIX = "not graded: "  # the error of a sample a worker's tripwire skipped
NO_SUCH_SAMPLE = "no such sample"  # the error of a sample the model has no answer for
PROCESS_DIED = "the process grading it died"  # the error of a sample whose worker died


@dataclasses.dataclass
class Verdict:
    """What executing one sample against its tests established.

    ``message`` is the short headline of a failure (which test, expected vs got);
    ``tests`` lists per-test results (``name``, ``status``, ``message``) where the runner
    has them; ``mode`` says how the verdict was reached (see ``problems.MODE_*``).
    """

    outcome: str
    message: str = ""
    tests: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    mode: str = ""
    isolation: str = ""  # how the sample was confined: namespaces+uid, uid, rlimits, ...
    time_limit: dict[str, Any] | None = None  # the limit it ran under (execution.time_limits)
    # What the sample tried besides answering (attempts.py): never part of the verdict.
    attempts: list[dict[str, str]] = dataclasses.field(default_factory=list)
    # Whether the sample ran out of time, where its outcome does not say so (None: it did
    # when it timed out): a compiler stopped at its limit is MultiPL-E's SyntaxError, and an
    # output CodeGeeX cannot decode is its "timed out" though nothing ran out of time.
    out_of_time: bool | None = None

    @property
    def passed(self) -> bool:
        return self.outcome == PASSED

    @property
    def ran_out_of_time(self) -> bool:
        """Whether a time limit decided it: such a verdict is run once more before it counts."""
        return self.outcome == TIMEOUT if self.out_of_time is None else self.out_of_time

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def judge_empty_solution(verdict: Verdict, errors_reject: bool) -> Verdict:
    """Validation of a problem without a reference: its tests ran against an empty solution.

    The problem is sound (``passed``) when every test rejects it: a failed assertion, or for
    Python an exception the tests raise on a ``None`` result (``errors_reject``, the kind's
    ``errors_reject_empty``). A test the empty solution passes is vacuous (``failed``); tests
    that cannot run at all, where an error does not reject, are broken (``error``).
    """
    passing = [t.get("name", "") for t in verdict.tests if t.get("status") == PASSED]
    rejected = verdict.outcome == FAILED or (verdict.outcome == ERROR and errors_reject)
    if rejected and not passing:
        return dataclasses.replace(verdict, outcome=PASSED, message="")
    if verdict.outcome == PASSED or passing:
        which = f"test {passing[0]!r}" if passing else "every test"
        return dataclasses.replace(
            verdict, outcome=FAILED, message=f"vacuous: {which} passes with an empty solution"
        )
    return dataclasses.replace(
        verdict, message=f"the tests cannot run against an empty solution: {verdict.message}"
    )


class SampleFailed(Exception):
    """A graded sample did not pass; the message is the short failure headline."""


class SampleNotGenerated(Exception):
    """The model's API failed for this sample even after retries."""
