"""Paired tests between runs graded on the same problems: exact McNemar (one sample a
problem), the paired sign-flip test (pass@k differences), bootstrap intervals of a mean
difference, Holm's correction for many pairs, and the minimum detectable difference.

Pure Python and numpy (already a dependency); no SciPy: the exact tests are sums of binomial
coefficients, the bootstrap a matrix of resampled indices."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .intervals import Z95, standard_error

if TYPE_CHECKING:
    import numpy as np

MCNEMAR = "McNemar exact"
# z of 80% power, one-sided: a true difference of one MDD is found significant 4 times in 5.
Z_POWER80 = 0.8416212335729143


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
    # Integer units of 1e-9, so that sums are exact. Each difference is rounded by up to half
    # a unit (1/3 is 333333333 units, 2/3 is 666666667), so two sign vectors whose sums are
    # equal may differ by up to one unit a difference: a sum that close to the observed one
    # ties with it, and is as extreme.
    units = [round(d * 1e9) for d in diffs]
    units = [u for u in units if u != 0]
    if not units:
        return 1.0, True
    observed = abs(sum(units)) - len(units)
    # Equal magnitudes are grouped: a group of m contributes v * (2 * positives - m), with
    # positives ~ Bin(m, 1/2). pass@k takes few distinct values, so there are few groups.
    groups = sorted(Counter(abs(u) for u in units).items())
    tail = _tail_on_grid(groups, observed, max_exact)
    if tail is not None:
        return min(1.0, tail), True
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


def _tail_on_grid(groups: Sequence[tuple[int, int]], observed: int, limit: int) -> float | None:
    """P(|signed sum| >= ``observed``) over the integer grid of the sums, in units of the
    magnitudes' greatest common divisor; None when that grid has more than ``limit`` points
    (magnitudes with no common step, as pass@k above one gives). pass@1 differences of n
    samples are multiples of 1/n, so for n dividing 10**9 (2, 4, 5, 10, ...) the grid is
    small and each group's binomial is laid on it
    with a few array operations. The sums are exact; the probabilities are floats (each term
    positive, so even a far tail keeps its relative precision)."""
    step = math.gcd(*(value for value, _ in groups))
    scaled = [(value // step, m) for value, m in groups]
    # positives: t = sum of value * (number of + signs) over groups, in [0, top]
    top = sum(value * m for value, m in scaled)
    if top + 1 > limit:
        return None
    import numpy as np  # only here: every pytest process imports this module at start-up

    dist = np.zeros(top + 1)
    dist[0], reach = 1.0, 0
    for value, m in scaled:
        pmf = [math.comb(m, j) / 2**m for j in range(m + 1)]
        grown = np.zeros(top + 1)
        for j, p in enumerate(pmf):
            if p:
                shift = value * j
                grown[shift : shift + reach + 1] += p * dist[: reach + 1]
        dist, reach = grown, reach + value * m
    # the signed sum is (2 t - top) steps; its absolute value reaches observed
    t = np.arange(top + 1)
    return float(dist[np.abs(2 * t - top) * step >= observed].sum())


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


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as given): the i-th smallest p is
    multiplied by ``m - i`` (i from 0), and the adjusted values made non-decreasing. A pair is
    significant at level alpha when its adjusted p is below alpha; the chance of calling any
    equal pair different stays below alpha, however many pairs there are."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


class ClusterBootstrap:
    """One set of bootstrap resamples of the clusters (problems, or a suite's categories)
    shared by every run: a run's resampled mean score, and the difference of two runs' means
    on the same resamples, so every pair's interval is paired. ``numpy.random.PCG64(seed)``:
    the same files give the same intervals."""

    def __init__(self, clusters: Sequence[str], *, resamples: int = 10_000, seed: int = 0) -> None:
        if not clusters:
            raise ValueError("a bootstrap needs at least one problem")
        import numpy as np  # only here: every pytest process imports this module at start-up

        names = sorted(set(clusters))
        self.index = {name: i for i, name in enumerate(names)}
        self.of_problem = np.array([self.index[c] for c in clusters], dtype=np.intp)
        sizes = np.bincount(self.of_problem, minlength=len(names)).astype(float)
        rng = np.random.Generator(np.random.PCG64(seed))
        self.draws = rng.integers(0, len(names), size=(resamples, len(names)))
        self.sizes = sizes[self.draws].sum(axis=1)

    def means(self, scores: Sequence[float]) -> np.ndarray:
        """Each resample's mean of ``scores`` (one per problem, in the clusters' order)."""
        import numpy as np

        sums = np.bincount(self.of_problem, weights=np.asarray(scores, dtype=float))
        return sums[self.draws].sum(axis=1) / self.sizes

    @staticmethod
    def interval(resampled: np.ndarray) -> tuple[float, float]:
        """The 2.5th and 97.5th percentiles (linear interpolation) of resampled values."""
        import numpy as np

        low, high = np.percentile(resampled, [2.5, 97.5])
        return float(low), float(high)


def clustered_z_p(diffs: Sequence[float], clusters: Sequence[str]) -> float:
    """Two-sided p-value that the mean of the paired ``diffs`` is 0, from the normal
    approximation with the cluster-robust standard error (Miller, section 3): with few
    clusters the approximation is optimistic, and the p-value is only as good as it.

    A standard error of 0 (up to the rounding of the differences: 0.4 - 0.2 and 0.6 - 0.4
    are not the same float) with a mean that is not (every cluster moved alike) leaves the
    normal tail nothing to read: p is then the exact sign-flip test's over the ``G``
    clusters, whose sums all have one sign, ``2 / 2**G``."""
    n = len(diffs)
    mean = math.fsum(diffs) / n if n else 0.0
    se = standard_error(diffs, clusters)
    if se < 1e-12:
        return 1.0 if abs(mean) < 1e-12 else min(1.0, 2.0 ** (1 - len(set(clusters))))
    return math.erfc(abs(mean) / se / math.sqrt(2))


def min_detectable_difference(diffs: Sequence[float], clusters: Sequence[str] | None) -> float:
    """The smallest true mean difference a two-sided test at 0.05 finds 80% of the time with
    these problems: ``(1.96 + 0.84) * SE`` of the paired differences (Miller, section 5)."""
    return (Z95 + Z_POWER80) * standard_error(diffs, clusters)


def problems_needed(diff: float, mdd: float, problems: int) -> int | None:
    """About how many problems like these would make ``diff`` the minimum detectable
    difference (the standard error falls as one over the square root of the problems);
    None for no difference."""
    if diff == 0 or mdd == 0:
        return None
    return math.ceil(problems * (mdd / abs(diff)) ** 2)


def samples_needed(
    diff: float, rates_a: Sequence[float], rates_b: Sequence[float], samples: int
) -> int | None:
    """About how many samples a problem would make ``diff`` detectable on these problems, or
    None when no number would (the problems themselves differ too much: more problems are
    needed) or ``samples < 2`` (the spread within a problem cannot be read from one sample).

    The variance of a problem's difference of pass rates is the spread between problems plus
    the sampling noise within each, ``(p_a (1 - p_a) + p_b (1 - p_b)) / n`` for n samples
    (Miller, section 4); more samples shrink only the second part.
    """
    n = len(rates_a)
    if samples < 2 or n < 2 or diff == 0:
        return None
    diffs = [a - b for a, b in zip(rates_a, rates_b, strict=True)]
    mean = math.fsum(diffs) / n
    total = math.fsum((d - mean) ** 2 for d in diffs) / (n - 1)
    # One sample's variance, unbiased from ``samples`` of them.
    within = (
        math.fsum(
            (a * (1 - a) + b * (1 - b)) * samples / (samples - 1)
            for a, b in zip(rates_a, rates_b, strict=True)
        )
        / n
    )
    between = max(0.0, total - within / samples)
    wanted = n * (abs(diff) / (Z95 + Z_POWER80)) ** 2  # the variance that would do
    if between >= wanted or within == 0:
        return None
    return max(samples, math.ceil(within / (wanted - between)))
