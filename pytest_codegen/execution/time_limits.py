"""Time limits from the problem, not the host.

A sample's limit is ``FACTOR`` times the time its problem's reference solution takes on this
host, at least a floor and at most the absolute cap (``--codegen-timeout``, else the suite's
own, else 10 s), as EvalPlus derives its limits from the ground truth's run time. The
reference's time is measured once per host and problem and kept in the cache directory
(:func:`~..cachedir.default_cache_root`), so every later run and every xdist worker on the
host reuses it. A problem without a reference, or whose reference does not pass here, gets
the cap.

Why these numbers:

- The floor is the suite's own grader's limit (HumanEval's ``check`` gets 3 s; CodeBenchGen's
  harness 10 s; WebApp1K runs Jest, whose tests get 5 s each: here the whole file does). An
  answer the official grader passes in time on a host like ours therefore passes here whatever
  the factor, so honest samples keep the official verdicts; most problems' references take
  milliseconds, and their limit is the floor.
- The factor, 10, covers the rest: an honest answer a few times slower than the reference
  (3x), on a host that got busy after calibration (a CPU hog on every core roughly halves,
  at worst thirds, what a sample gets), measured against the reference's fastest run (the
  minimum of a few, so the calibration itself resists load): 3 x 3 = 9 < 10. EvalPlus uses
  4 per test input with a 4 s floor; ours is per sample, where load and start-up weigh more.
- A timeout is run once more before it counts (``runner``): a moment of load costs a second
  run, not a verdict.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..outcomes import Verdict
from ..problems import Problem, suite_limits
from .host_cache import HostMeasurements, host_name

FACTOR = 10.0
CALIBRATION_RUNS = 3  # the reference's fastest of this many runs is its time
REFERENCE = "reference"  # the limit is FACTOR x the reference's time
FLOOR = "floor"  # ... which is below the floor
CAP = "cap"  # ... above the cap, or no reference time to go by
OWN = "own"  # the suite's grading sets its own limits (EvalPlus: one per input)
RULES = ("reference", "flat")  # --codegen-timeout-rule


@dataclasses.dataclass(frozen=True)
class TimeLimit:
    """One sample's wall-clock limit and how it was derived (the record's ``time_limit``)."""

    limit_s: float
    source: str  # REFERENCE, FLOOR, CAP or OWN
    cap_s: float
    floor_s: float | None = None
    factor: float | None = None
    reference_s: float | None = None
    calibration: dict[str, Any] | None = None  # host, runs, measured_at, cached
    why: str = ""  # why the cap applies when there is no reference time

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if v not in (None, "")}

    def describe(self) -> str:
        """How the limit came about, for a timeout's message ("" where the timeout's own
        message already says it)."""
        if self.source == OWN:
            return ""
        scaled = (
            f"{self.factor:g} x its reference's {self.reference_s:.3g} s on this host"
            if self.reference_s is not None and self.factor is not None
            else ""
        )
        if self.source == REFERENCE:
            return f"this problem's limit: {scaled}"
        if self.source == FLOOR:
            return f"this problem's limit: the floor of {self.floor_s:g} s ({scaled} is less)"
        if scaled:
            return f"the absolute cap of {self.cap_s:g} s ({scaled} is more)"
        return f"the absolute cap of {self.cap_s:g} s: {self.why}"


def floor_of(problem: Problem, cap_s: float, kind_floor_s: float) -> float:
    """The least limit of ``problem``'s samples, within the cap: its suite grader's own,
    which is its kind's (``Kind.time_floor_s``) unless the suite states one (Exec-CSN's)."""
    own = suite_limits(problem).timeout_s
    return min(kind_floor_s if own is None else own, cap_s)


def derive(floor_s: float, cap_s: float, reference_s: float | None) -> TimeLimit:
    """The limit for samples whose floor is ``floor_s`` (see :func:`floor_of`), given their
    problem's reference's time (None: unknown)."""
    if reference_s is None:
        return TimeLimit(cap_s, CAP, cap_s)
    scaled = FACTOR * reference_s
    limit, source = (
        (floor_s, FLOOR)
        if scaled <= floor_s
        else (cap_s, CAP)
        if scaled >= cap_s
        else (scaled, REFERENCE)
    )
    return TimeLimit(round(limit, 3), source, cap_s, floor_s, FACTOR, round(reference_s, 4))


def settled(reference_s: float, runs: int, floor_s: float, cap_s: float) -> bool:
    """Whether a reference time from ``runs`` runs is final: enough runs, or so short that
    its limit is the floor already (a faster run could not lower it)."""
    return runs >= CALIBRATION_RUNS or derive(floor_s, cap_s, reference_s).source == FLOOR


def problem_key(problem: Problem) -> str:
    """A problem by its content: the same problem in another suite file or run is the same."""
    parts = [problem.mode, problem.prompt, problem.tests, problem.reference, problem.extra]
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _calibration(entry: dict[str, Any], cached: bool) -> dict[str, Any]:
    """What a record says of the calibration its limit comes from (its time is beside it)."""
    return {
        "host": entry.get("host"),
        "runs": entry["runs"],
        "measured_at": entry.get("measured_at"),
        "cached": cached,
    }


class Calibration:
    """Reference times of this host's problems (see :mod:`.host_cache`: measured once per
    host, kept on disk for later runs)."""

    def __init__(self, root: Path | None) -> None:
        self.measurements = HostMeasurements(root, "calibration")
        # Why a problem has no time here (its reference failed or timed out): not kept on disk
        # (another run may pass it), but not measured again for each sample of this process.
        self._untimed: dict[str, str] = {}

    def reference_time(
        self, problem: Problem, floor_s: float, cap_s: float, run: Callable[[], Verdict]
    ) -> tuple[float | None, dict[str, Any] | str]:
        """``(seconds, calibration)`` of the problem's reference on this host, measuring it
        with ``run`` (one grading of the reference) if no one has; ``(None, why)`` when it
        has no time to go by. ``floor_s`` and ``cap_s`` bound its samples' limit."""
        if problem.reference is None:
            return None, "the problem has no reference solution"

        def final(entry: dict[str, Any]) -> bool:  # a time this limit can go by
            ok = isinstance(entry.get("reference_s"), (int, float))
            ok = ok and 0 <= entry["reference_s"] < math.inf  # not NaN (a JSON file may say so)
            ok = ok and isinstance(entry.get("runs"), int)
            return ok and settled(entry["reference_s"], entry["runs"], floor_s, cap_s)

        key = problem_key(problem)
        if key in self._untimed:
            return None, self._untimed[key]
        found, cached = self.measurements.get(
            key, lambda: self._measure(floor_s, cap_s, run), final
        )
        if isinstance(found, str):
            self._untimed[key] = found
            return None, found
        return found["reference_s"], _calibration(found, cached=cached)

    @staticmethod
    def _measure(floor_s: float, cap_s: float, run: Callable[[], Verdict]) -> dict[str, Any] | str:
        """The reference's fastest time over up to CALIBRATION_RUNS gradings, or why not."""
        times: list[float] = []
        while not times or not settled(min(times), len(times), floor_s, cap_s):
            verdict = run()
            if not verdict.passed:
                return f"its reference does not pass on this host ({verdict.outcome})"
            times.append(verdict.duration_s)
        return {
            "host": host_name(),
            "reference_s": round(min(times), 4),
            "runs": len(times),
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
