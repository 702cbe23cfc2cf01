"""The 95% interval of a score that is a mean over problems (E. Miller, "Adding Error Bars to
Evals", arXiv 2411.00640): the standard error over problems, clustered where problems share
context (a WebApp1K category, an Exec-CSN repository), so that problems that succeed or fail
together are not counted as independent evidence."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

# The two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054


def standard_error(scores: Sequence[float], clusters: Sequence[str] | None = None) -> float:
    """The standard error of the mean of ``scores`` (one per problem).

    Unclustered: ``sqrt(s^2 / n)`` with the sample variance ``s^2`` (divisor ``n - 1``).
    Clustered (``clusters[i]`` names problem i's cluster, at least two clusters): the
    cluster-robust standard error ``sqrt(G / (G - 1) * sum_c (sum_{i in c} (x_i - mean))^2)
    / n`` over the ``G`` clusters, which is the unclustered one when every problem is its
    own cluster. 0 for fewer than two problems (or clusters): there is no spread to read.
    """
    n = len(scores)
    if n < 2:
        return 0.0
    mean = math.fsum(scores) / n
    if clusters is None:
        return math.sqrt(math.fsum((x - mean) ** 2 for x in scores) / (n - 1) / n)
    if len(clusters) != n:
        raise ValueError(f"{len(clusters)} cluster names for {n} scores")
    residuals: dict[str, list[float]] = defaultdict(list)
    for x, cluster in zip(scores, clusters, strict=True):
        residuals[cluster].append(x - mean)
    groups = len(residuals)
    if groups < 2:
        return 0.0
    spread = math.fsum(math.fsum(r) ** 2 for r in residuals.values())
    return math.sqrt(groups / (groups - 1) * spread) / n


def mean_interval(
    scores: Sequence[float], clusters: Sequence[str] | None = None
) -> tuple[float, float] | None:
    """The 95% interval of the mean of ``scores``: mean +- 1.96 standard errors (see
    :func:`standard_error`), kept within [0, 1] where a pass@k lives. None for a single
    problem: one score says nothing of its spread (an interval of no width would read as
    certainty)."""
    if not scores:
        raise ValueError("an interval needs at least one score")
    if len(scores) < 2:
        return None
    mean = math.fsum(scores) / len(scores)
    half = Z95 * standard_error(scores, clusters)
    return max(0.0, mean - half), min(1.0, mean + half)


def clusters_of(categories: Sequence[str]) -> Sequence[str] | None:
    """The clusters to use for problems of these categories: the categories themselves when
    they name at least two (a suite of one category, or without any, is not clustered)."""
    named = {c for c in categories if c}
    if len(named) < 2:
        return None
    return categories


def clusters_across_suites(problems: Sequence[tuple[str, str, str]]) -> Sequence[str] | None:
    """The clusters of problems given as (suite, category, task_id), perhaps of several
    suites: a suite's categories where it has several, else each problem its own cluster
    (a suite is not one cluster: its problems are as independent as a suite's without
    categories). None when no suite is clustered."""
    named: dict[str, set[str]] = {}
    for suite, category, _ in problems:
        if category:
            named.setdefault(suite, set()).add(category)
    clustered = {suite for suite, categories in named.items() if len(categories) > 1}
    if not clustered:
        return None
    return [
        f"{suite}\0{category}" if suite in clustered else f"{suite}\0\0{task_id}"
        for suite, category, task_id in problems
    ]


def interval_text(value: float | None, ci: Sequence[float] | None) -> str:
    """``0.617 ± 0.074`` (the half-width; an interval cut at 0 or 1 shows its ends instead)."""
    if value is None:
        return "n/a"
    if ci is None:
        return f"{value:.3f}"
    low, high = ci
    if math.isclose(value - low, high - value, abs_tol=5e-4):
        return f"{value:.3f} ± {(high - low) / 2:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"
