"""Comparison with a baseline: per-problem regressions and improvements against an earlier
results file, with a significance test so a drop of a few problems out of hundreds is not
reported as a regression when it is within noise. A pure function of per-sample records."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from typing import Any

from ..scoring.paired import MCNEMAR, bootstrap_ci, mcnemar_exact, sign_flip_p
from ..scoring.passk import pass_at_k, per_problem

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
            # Problems graded in both runs may all be n/a (fewer than k samples) on a side.
            none = f"has {metric} in" if self.undefined else "graded in"
            out.append(
                f"baseline comparison ({metric}): no problem {none} both runs"
                " -> the run fails: nothing showed it holds its baseline"
            )
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
    now, before = per_problem(current), per_problem(baseline)
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
