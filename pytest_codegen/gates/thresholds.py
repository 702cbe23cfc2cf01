"""Score thresholds: ``pass@1=0.80`` or ``humaneval:pass@1=0.9``, checked against the
whole-suite rows of :func:`~pytest_codegen.scoring.summarize`; a score that is n/a fails its
gate (a gate that cannot be measured must not pass silently)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence

from .. import outcomes
from ..scoring.passk import Row

# Scores are means of floats: 4/5 may come out as 0.7999999999999999. A threshold the score
# meets up to rounding is met.
_EPS = 1e-9


_USAGE = "expected METRIC=VALUE like pass@1=0.80, or SUITE:METRIC=VALUE like humaneval:pass@1=0.9"
_METRIC = re.compile(r"pass@(\d+)", re.IGNORECASE)


@dataclasses.dataclass(frozen=True)
class Threshold:
    """A minimum pass@k, for one suite or (``suite is None``) for every suite."""

    k: int
    value: float
    suite: str | None = None

    @property
    def metric(self) -> str:
        return f"pass@{self.k}"

    def __str__(self) -> str:
        prefix = f"{self.suite}:" if self.suite else ""
        return f"{prefix}{self.metric}={self.value:g}"


def parse_threshold(text: str) -> Threshold:
    """Parse ``pass@K=VALUE`` or ``SUITE:pass@K=VALUE``; ``ValueError`` names the bad text."""
    raw = text.strip()
    left, eq, right = raw.partition("=")
    if not eq or "=" in right or not left.strip() or not right.strip():
        raise ValueError(f"invalid threshold {text!r}: {_USAGE}")
    # The metric is after the last colon, so the suite is everything before it.
    suite, colon, metric = left.strip().rpartition(":")
    suite = suite.strip()
    if colon and not suite:
        raise ValueError(f"invalid threshold {text!r}: empty suite name before ':'; {_USAGE}")
    match = _METRIC.fullmatch(metric.strip())
    if match is None or int(match[1]) <= 0:
        raise ValueError(
            f"invalid threshold {text!r}: the metric must be pass@K with K a positive integer; "
            f"{_USAGE}"
        )
    try:
        value = float(right)
    except ValueError:
        raise ValueError(
            f"invalid threshold {text!r}: {right.strip()!r} is not a number; {_USAGE}"
        ) from None
    if not 0.0 <= value <= 1.0:  # also rejects nan
        hint = f" (a fraction: {value / 100:g}, not {value:g})" if 1 < value <= 100 else ""
        raise ValueError(
            f"invalid threshold {text!r}: the value must be between 0 and 1{hint}; {_USAGE}"
        )
    return Threshold(k=int(match[1]), value=value, suite=suite or None)


def required_ks(thresholds: Iterable[Threshold]) -> list[int]:
    """The k values the rows must be summarized with for these thresholds to be checked."""
    return sorted({t.k for t in thresholds})


@dataclasses.dataclass
class GateResult:
    """One threshold checked against one suite."""

    threshold: Threshold
    actual: float | None
    passed: bool
    message: str
    suite: str | None = None


def check_thresholds(rows: Sequence[Row], thresholds: Iterable[Threshold]) -> list[GateResult]:
    """Check each threshold against the whole-suite rows (``category is None``).

    A threshold without a suite gives one result per suite in ``rows``. A score that is n/a
    (too few samples for that k, or no graded sample) fails: a gate that cannot be measured
    must not pass silently. So does a threshold naming a suite with no results.
    """
    suites = {row.suite: row for row in rows if row.category is None}
    results: list[GateResult] = []
    for threshold in thresholds:
        if threshold.suite is not None:
            targets: list[str] = [threshold.suite]
        else:
            targets = list(suites)
            if not targets:
                results.append(
                    GateResult(threshold, None, False, f"{threshold.metric}: no results to check")
                )
                continue
        for suite in targets:
            results.append(_check_one(threshold, suite, suites.get(suite)))
    return results


def _check_one(threshold: Threshold, suite: str, row: Row | None) -> GateResult:
    metric, k = threshold.metric, threshold.k
    if row is None:
        return GateResult(threshold, None, False, f"no results for suite {suite}", suite)
    if k not in row.pass_at_k:
        return GateResult(
            threshold,
            None,
            False,
            f"{metric} was not computed for {suite} (add {k} to the k values)",
            suite,
        )
    actual = row.pass_at_k[k]
    if actual is None:
        graded = sum(row.counts.get(o, 0) for o in outcomes.GRADED)
        why = "no graded samples" if graded == 0 else f"fewer than {k} samples for some problem"
        return GateResult(threshold, None, False, f"{metric} is n/a for {suite} ({why})", suite)
    if actual >= threshold.value - _EPS:
        shown, target = _fmt_pair(actual, threshold.value)
        return GateResult(threshold, actual, True, f"{suite} {metric} = {shown} >= {target}", suite)
    shown, target = _fmt_pair(actual, threshold.value)
    short = _fmt_pair(threshold.value - actual, 0.0)[0]
    return GateResult(
        threshold, actual, False, f"{suite} {metric} = {shown} < {target} (short by {short})", suite
    )


def _fmt_pair(a: float, b: float) -> tuple[str, str]:
    """Format two scores with 3 decimals, or more when 3 would print a failing 0.800 < 0.800."""
    for digits in (3, 6, 9):
        left, right = f"{a:.{digits}f}", f"{b:.{digits}f}"
        if left != right or abs(a - b) <= _EPS:
            return left, right
    return repr(a), repr(b)
