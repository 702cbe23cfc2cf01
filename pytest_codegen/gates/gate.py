"""Gating a run: pass@k thresholds, comparison with a baseline, early failure diagnosis.

Everything here is a pure function of per-sample records (or of the :class:`~.score.Row`
objects :func:`~.score.summarize` builds from them), so the plugin can call it from its
terminal summary and the tests can call it without pytest.

- :func:`parse_threshold` / :func:`check_thresholds`: ``pass@1=0.80`` or
  ``humaneval:pass@1=0.9``; a score that is n/a fails its gate.
- :func:`compare_to_baseline`: per-problem regressions and improvements against an earlier
  results file, with a significance test so a drop of a few problems out of hundreds is not
  reported as a regression when it is within noise.
- :class:`Tripwire`: notices when the first samples of a suite all fail the same way (no code
  in the replies, every sample a SyntaxError, a missing module, the API failing, ...) and says
  so at once instead of after the whole run.
- :func:`unstable`: the samples whose outcome changed when they were graded again.
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .. import outcomes
from ..scoring import Row, pass_at_k

# Scores are means of floats: 4/5 may come out as 0.7999999999999999. A threshold the score
# meets up to rounding is met.
_EPS = 1e-9

# -- thresholds -----------------------------------------------------------------------------

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


# -- baseline comparison --------------------------------------------------------------------

MCNEMAR = "McNemar exact"
BOOTSTRAP = "paired bootstrap"
NO_TEST = "none"
MAX_LISTED = 20


@dataclasses.dataclass(frozen=True)
class ProblemChange:
    """A problem whose pass@k differs between the baseline and the current run."""

    suite: str
    task_id: str
    before: float
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before


@dataclasses.dataclass
class Comparison:
    """The current run against a baseline, over the problems graded in both.

    ``p_value`` is two-sided: exact McNemar when every paired problem has exactly one graded
    sample on each side, else a paired sign-flip test, with a paired bootstrap CI (see
    :func:`compare_to_baseline`). ``significant_drop`` is ``delta < 0 and p_value < alpha``.
    """

    test: str
    statistic: str
    p_value: float
    ci: tuple[float, float] | None
    mean_before: float
    mean_after: float
    delta: float
    significant_drop: bool
    k: int = 1
    alpha: float = 0.05
    paired: int = 0
    regressed: list[ProblemChange] = dataclasses.field(default_factory=list)
    improved: list[ProblemChange] = dataclasses.field(default_factory=list)
    unchanged: int = 0
    # problems graded on one side only: {"only_current": n, "only_baseline": m}
    unpaired: dict[str, int] = dataclasses.field(default_factory=dict)
    # paired problems left out because pass@k is n/a (fewer than k graded samples) on a side
    undefined: int = 0

    def lines(self) -> list[str]:
        """A short human-readable report."""
        metric = f"pass@{self.k}"
        out: list[str] = []
        if self.paired == 0:
            out.append(f"baseline comparison ({metric}): no problem graded in both runs")
        else:
            out.append(
                f"baseline comparison ({metric}, {self.paired} paired problems): "
                f"{self.mean_before:.3f} -> {self.mean_after:.3f} ({self.delta:+.3f})"
            )
            verdict = "significant drop" if self.significant_drop else "no significant drop"
            ci = (
                f", 95% CI of the change [{self.ci[0]:+.3f}, {self.ci[1]:+.3f}]"
                if self.ci is not None
                else ""
            )
            out.append(
                f"{self.test}: {self.statistic}; p = {self.p_value:.4g}{ci} -> "
                f"{verdict} at alpha = {self.alpha:g}"
            )
        for title, changes in (("regressed", self.regressed), ("improved", self.improved)):
            if not changes:
                continue
            out.append(f"{title} ({len(changes)}):")
            for change in changes[:MAX_LISTED]:
                out.append(
                    f"  {change.suite} {change.task_id}: {change.before:.3f} -> {change.after:.3f}"
                )
            if len(changes) > MAX_LISTED:
                out.append(f"  ... and {len(changes) - MAX_LISTED} more")
        tail = [f"unchanged: {self.unchanged}"]
        only_current = self.unpaired.get("only_current", 0)
        only_baseline = self.unpaired.get("only_baseline", 0)
        if only_current or only_baseline:
            tail.append(
                f"not paired: {only_current} only in the current run, "
                f"{only_baseline} only in the baseline"
            )
        if self.undefined:
            tail.append(
                f"{self.undefined} left out ({metric} n/a: fewer than {self.k} graded samples)"
            )
        out.append("; ".join(tail))
        return out


def compare_to_baseline(
    current: Iterable[Mapping[str, Any]],
    baseline: Iterable[Mapping[str, Any]],
    *,
    k: int = 1,
    alpha: float = 0.05,
    seed: int = 0,
    resamples: int = 10_000,
) -> Comparison:
    """Compare per-problem pass@k of ``current`` with ``baseline`` (both lists of records).

    Problems are paired by ``(suite, task_id)`` when both sides have at least one graded
    sample. Significance of the change in mean pass@k:

    - every paired problem has exactly one graded sample on each side: **exact McNemar**. Each
      problem is pass/fail on both sides; only discordant problems carry information.
      ``b`` = passed before, fails now; ``c`` = failed before, passes now. Under "no change"
      ``b ~ Bin(b + c, 1/2)``; the two-sided p-value is ``min(1, 2 * P(X <= min(b, c)))``.
    - otherwise (``test == "paired bootstrap"``): the per-problem differences
      ``d = after - before`` are pass@k values, not pass/fail. The 95% CI of the mean change is
      a paired bootstrap over problems (``resamples`` resamples, ``random.Random(seed)``,
      2.5th-97.5th percentiles). The p-value is *not* read off the bootstrap: the share of
      resampled means on the far side of 0 is wildly optimistic when few problems changed
      (3 of 1,000 problems dropping would give p ~ 0.05: only the chance that a resample
      misses all three). It comes from the paired **sign-flip test** (:func:`sign_flip_p`):
      under "no change" each problem's two runs are exchangeable, so each ``d`` was as likely
      to come out as ``-d``; p = P(|sum of randomly signed d| >= |sum of d|), two-sided.
      With pass/fail differences this *is* the exact McNemar test, so gating does not change
      character when a run has more samples per problem: 5 problems of 164 going from 5/5 to
      0/5 gives p = 0.0625, as 5 going from pass to fail with one sample does.

    ``significant_drop`` is ``delta < 0 and p_value < alpha``, i.e. a one-sided test at
    level ``alpha / 2``.
    """
    if k <= 0:
        raise ValueError(f"k must be a positive integer, not {k}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    now, before = _per_problem(current), _per_problem(baseline)
    graded_now = {key for key, (n, _) in now.items() if n > 0}
    graded_before = {key for key, (n, _) in before.items() if n > 0}
    # Sorted, so the bootstrap draws do not depend on the order of lines in a results file.
    keys = sorted(graded_now & graded_before)
    unpaired = {
        "only_current": len(graded_now - graded_before),
        "only_baseline": len(graded_before - graded_now),
    }

    pairs: list[tuple[tuple[str, str], float, float]] = []
    undefined = 0
    for key in keys:
        b_score, a_score = pass_at_k(*before[key], k), pass_at_k(*now[key], k)
        if b_score is None or a_score is None:
            undefined += 1
            continue
        pairs.append((key, b_score, a_score))

    changes = [ProblemChange(key[0], key[1], b, a) for key, b, a in pairs if a != b]
    regressed = sorted(
        (c for c in changes if c.delta < 0), key=lambda c: (c.delta, c.suite, c.task_id)
    )
    improved = sorted(
        (c for c in changes if c.delta > 0), key=lambda c: (-c.delta, c.suite, c.task_id)
    )
    common: dict[str, Any] = {
        "k": k,
        "alpha": alpha,
        "paired": len(pairs),
        "regressed": regressed,
        "improved": improved,
        "unchanged": len(pairs) - len(changes),
        "unpaired": unpaired,
        "undefined": undefined,
    }

    if not pairs:
        return Comparison(NO_TEST, "no paired problems", 1.0, None, 0.0, 0.0, 0.0, False, **common)
    mean_before = math.fsum(b for _, b, _ in pairs) / len(pairs)
    mean_after = math.fsum(a for _, _, a in pairs) / len(pairs)
    delta = mean_after - mean_before

    single = all(before[key][0] == 1 and now[key][0] == 1 for key, _, _ in pairs)
    if single:
        b, c = len(regressed), len(improved)
        test, p_value, ci = MCNEMAR, mcnemar_exact(b, c), None
        statistic = f"{b} passed before and fail now, {c} failed before and pass now"
    else:
        diffs = [a - b for _, b, a in pairs]
        p_value, exact = sign_flip_p(diffs, resamples=resamples, seed=seed)
        ci = bootstrap_ci(diffs, resamples=resamples, seed=seed)
        test = BOOTSTRAP
        how = "exact" if exact else f"{resamples} random sign flips"
        statistic = (
            f"mean change {delta:+.4f} over {len(pairs)} problems "
            f"({len(regressed)} fell, {len(improved)} rose); p from a paired sign-flip "
            f"test ({how}), CI from {resamples} bootstrap resamples (seed {seed})"
        )
    return Comparison(
        test,
        statistic,
        p_value,
        ci,
        mean_before,
        mean_after,
        delta,
        delta < 0 and p_value < alpha,
        **common,
    )


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs."""
    n = b + c
    if n == 0:
        return 1.0
    # Exact integer tail over 2**n: no rounding until the one division.
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    return min(1.0, 2 * tail / 2**n)


def sign_flip_p(
    diffs: Sequence[float], *, resamples: int = 10_000, seed: int = 0, max_exact: int = 200_000
) -> tuple[float, bool]:
    """Two-sided p-value of the paired sign-flip test that the mean of ``diffs`` is 0.

    p = P(|sum of s_i * d_i| >= |sum of d_i|) with independent fair signs s_i. Computed
    exactly when the distribution of the signed sum has at most ``max_exact`` distinct values
    (always, for pass/fail differences), else estimated from ``resamples`` random sign
    vectors as ``(count + 1) / (resamples + 1)`` so it never claims p = 0. Returns
    ``(p, exact)``.
    """
    # Integer units of 1e-9: sums are exact, so a tie with the observed sum is a tie.
    units = [round(d * 1e9) for d in diffs]
    units = [u for u in units if u != 0]
    if not units:
        return 1.0, True
    observed = abs(sum(units))
    # Equal magnitudes are grouped: a group of m contributes v * (2 * positives - m), with
    # positives ~ Bin(m, 1/2). pass@k takes few distinct values, so there are few groups.
    groups = sorted(Counter(abs(u) for u in units).items())
    dist = _signed_sum_distribution(groups, max_exact)
    if dist is not None:
        total = 2 ** len(units)
        return min(1.0, sum(w for v, w in dist.items() if abs(v) >= observed) / total), True
    rng = random.Random(seed)
    extreme = 0
    for _ in range(resamples):
        flipped = sum(v * (2 * rng.getrandbits(m).bit_count() - m) for v, m in groups)
        extreme += abs(flipped) >= observed
    return (extreme + 1) / (resamples + 1), False


def _signed_sum_distribution(
    groups: Sequence[tuple[int, int]], limit: int
) -> dict[int, int] | None:
    """{signed sum: number of sign vectors giving it}, or None past ``limit`` distinct sums."""
    dist = {0: 1}
    for value, m in groups:
        weights = [math.comb(m, j) for j in range(m + 1)]
        if len(dist) * (m + 1) > 10 * limit:  # bound the work, not just the result
            return None
        grown: dict[int, int] = {}
        for total, weight in dist.items():
            for j, ways in enumerate(weights):
                key = total + value * (2 * j - m)
                grown[key] = grown.get(key, 0) + weight * ways
        if len(grown) > limit:
            return None
        dist = grown
    return dist


def bootstrap_ci(
    diffs: Sequence[float], *, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """95% percentile CI of the mean of ``diffs``, from a bootstrap over its elements."""
    if not diffs:
        raise ValueError("bootstrap_ci needs at least one difference")
    if resamples <= 0:
        raise ValueError(f"resamples must be positive, not {resamples}")
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(math.fsum(rng.choices(diffs, k=n)) / n for _ in range(resamples))
    return _percentile(means, 0.025), _percentile(means, 0.975)


def _percentile(ordered: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of already sorted values."""
    pos = q * (len(ordered) - 1)
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def _per_problem(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    """(suite, task_id) -> (graded samples, passed samples).

    A sample seen twice (a results file appended to by a re-run) counts once, as its last record.
    """
    latest: dict[tuple[str, str, Any], str] = {}
    for i, rec in enumerate(records):
        index = rec.get("sample_index")
        # Without a sample index, records cannot be matched up: keep each one.
        latest[(str(rec["suite"]), str(rec["task_id"]), index if index is not None else -1 - i)] = (
            rec["outcome"]
        )
    counts: dict[tuple[str, str], list[int]] = {}
    for (suite, task_id, _), outcome in latest.items():
        nc = counts.setdefault((suite, task_id), [0, 0])
        if outcome in outcomes.GRADED:
            nc[0] += 1
            nc[1] += outcome == outcomes.PASSED
    return {key: (n, c) for key, (n, c) in counts.items()}


# -- tripwire -------------------------------------------------------------------------------

# Failure kinds the tripwire recognizes, and what a whole run of them most likely means.
UNEXTRACTABLE = "unextractable"
SYNTAX = "syntax"
MISSING_MODULE = "missing module"
NODE_ENV = "node environment"
TIMEOUT = "timeout"
CRASHED = "crashed"
API_ERROR = "api error"

_DIAGNOSES = {
    UNEXTRACTABLE: "every one unextractable — the replies contain no code",
    SYNTAX: "every one a SyntaxError — the extracted code does not compile "
    "(check the prompt format and the code extraction)",
    MISSING_MODULE: "every one a missing module — the grading environment lacks a package "
    "the code imports",
    NODE_ENV: "every one failed in the Node/Jest environment — check the Node/Jest toolchain "
    "(node, npm install of the suite's packages)",
    TIMEOUT: "every one timed out — the time limit may be too low or the machine overloaded",
    CRASHED: "every one crashed — the sandbox or the grader is failing (memory limit?)",
    API_ERROR: "every one an API error — the model API is failing (key, model name, quota?)",
}

_NODE_ENV = re.compile(
    r"Cannot find module|jest-environment|test environment .*(?:cannot be found|not found)"
    r"|Jest runner failed|cannot start .*node|no npm found|Node\.js .*not found"
    r"|grader's guard did not finish",
    re.IGNORECASE,
)
_MISSING_MODULE = re.compile(r"ModuleNotFoundError|No module named")
_SYNTAX = re.compile(r"\b(?:SyntaxError|IndentationError|TabError)\b")
_HEADLINE_CHARS = 100


def failure_kind(record: Mapping[str, Any]) -> str | None:
    """The tripwire kind of a record's failure, ``None`` for a pass or an unrecognized failure.

    Environment causes are looked for before the outcome: a Jest runner that cannot start
    shows up as ``crashed``, but the toolchain is the thing to fix.
    """
    outcome = record.get("outcome")
    if outcome == outcomes.PASSED:
        return None
    if outcome == outcomes.API_ERROR:
        return API_ERROR
    if outcome == outcomes.UNEXTRACTABLE:
        return UNEXTRACTABLE
    if outcome == outcomes.TIMEOUT:
        return TIMEOUT
    error = str(record.get("error") or "")
    if outcome in (outcomes.ERROR, outcomes.FAILED, outcomes.CRASHED):
        if _NODE_ENV.search(error):
            return NODE_ENV
        if _MISSING_MODULE.search(error):
            return MISSING_MODULE
    if outcome == outcomes.ERROR and _SYNTAX.search(error):
        return SYNTAX
    if outcome == outcomes.CRASHED:
        return CRASHED
    return None


class Tripwire:
    """Diagnoses a suite whose first ``first_n`` samples all failed the same way.

    Feed it every record as it arrives. Missing samples are ignored; API errors count although
    they are not graded (a failing API is exactly what to report early). A pass, or a failure
    of another kind, among the first ``first_n`` disarms it for that suite. Each suite is
    diagnosed at most once.
    """

    def __init__(self, first_n: int = 20) -> None:
        if first_n < 1:
            raise ValueError(f"first_n must be at least 1, not {first_n}")
        self.first_n = first_n
        self._kind: dict[str, str] = {}  # suite -> the kind every sample so far failed with
        self._seen: dict[str, int] = {}
        self._example: dict[str, str] = {}
        self._done: set[str] = set()  # disarmed or already diagnosed
        self._tripped: set[str] = set()

    def observe(self, record: Mapping[str, Any]) -> str | None:
        """Account for one record; return the one-line diagnosis when it trips, else None."""
        suite = str(record.get("suite", ""))
        if suite in self._done or record.get("outcome") == outcomes.MISSING:
            return None
        kind = failure_kind(record)
        if kind is None or self._kind.setdefault(suite, kind) != kind:
            self._done.add(suite)
            return None
        self._seen[suite] = self._seen.get(suite, 0) + 1
        self._example.setdefault(suite, _headline(record.get("error")))
        if self._seen[suite] < self.first_n:
            return None
        self._done.add(suite)
        self._tripped.add(suite)
        example = self._example[suite]
        # The first error says which module, which setting, which API message.
        detail = f" (first: {example})" if example and kind != UNEXTRACTABLE else ""
        return f"first {self.first_n} samples of {suite}: {_DIAGNOSES[kind]}{detail}"

    def tripped(self, suite: str) -> bool:
        return suite in self._tripped


def _headline(error: Any) -> str:
    lines = [line.strip() for line in str(error or "").splitlines() if line.strip()]
    if not lines:
        return ""
    first = lines[0]
    return first if len(first) <= _HEADLINE_CHARS else first[: _HEADLINE_CHARS - 3] + "..."


# -- flaky verdicts -------------------------------------------------------------------------


def unstable(first: Mapping[str, str], reruns: Mapping[str, Sequence[str]]) -> set[str]:
    """Node ids whose outcome was not the same in the first run and every rerun.

    A node id with reruns but no first outcome is judged on its reruns alone.
    """
    flaky = set()
    for nodeid, later in reruns.items():
        seen = set(later)
        if nodeid in first:
            seen.add(first[nodeid])
        if len(seen) > 1:
            flaky.add(nodeid)
    return flaky
