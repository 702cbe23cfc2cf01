"""A comparison of N runs graded on the same problems (``--codegen-compare``): each run's
pass@k with its 95% interval, and for each pair the paired difference of pass@k with its
interval, p-value and significance after Holm's correction, the minimum detectable difference,
and the problems that flip. A pure function of the runs' records; :mod:`.compare_run` reads
the files and writes the terminal lines, the JSON and the page."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from .. import outcomes
from ..scoring.intervals import clusters_across_suites, mean_interval
from ..scoring.paired import (
    MCNEMAR,
    ClusterBootstrap,
    clustered_z_p,
    holm,
    mcnemar_exact,
    min_detectable_difference,
    problems_needed,
    samples_needed,
    sign_flip_p,
)
from ..scoring.passk import latest_samples, pass_at_k
from .breakdowns import WINDOWS, Breakdown, Key, breakdowns, facet_values

SIGN_FLIP = "paired sign-flip"
Z_CLUSTERED = "paired z-test, clustered by category"
# A problem flips between two runs when its pass@1 differs by at least this much: with one
# sample, passed in one run and failed in the other; with more, most samples changed side.
FLIP_AT = 0.5


@dataclasses.dataclass
class RunScores:
    """One run's records on the compared problems, and its pass@k with intervals."""

    name: str  # the results file, as named on the command line
    model: str
    counts: dict[Key, tuple[int, int]]  # problem -> (graded samples, passed)
    samples: dict[Key, list[Mapping[str, Any]]]  # problem -> its sample records
    pass_at_k: dict[int, float | None] = dataclasses.field(default_factory=dict)
    ci: dict[int, tuple[float, float] | None] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Flip:
    """A problem solved in one run of a pair and not in the other."""

    suite: str
    task_id: str
    score_a: float
    score_b: float


@dataclasses.dataclass
class Pair:
    """Run ``a`` against run ``b`` (``diff`` is a - b) on the compared problems."""

    a: str
    b: str
    diff: float
    ci: tuple[float, float]
    p: float
    test: str
    significant: bool = False
    p_holm: float = 1.0
    mdd: float = 0.0  # the minimum detectable difference (80% power at 0.05)
    problems_needed: int | None = None  # about how many problems would settle diff
    samples_needed: int | None = None  # ... or samples a problem, on these problems
    flips: list[Flip] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Comparison:
    runs: list[RunScores]
    pairs: list[Pair]
    problems: list[Key]  # graded in every run, sorted
    left_out: int  # problems graded in some runs only
    ks: list[int]
    k: int  # the k the pairs compare
    alpha: float
    clusters: int  # categories the intervals are clustered by (0: none)
    samples: int  # graded samples a problem (the most any run has)
    # every requested k -> its pairs (Holm's correction over that k's pairs); pairs is by_k[k]
    by_k: dict[int, list[Pair]] = dataclasses.field(default_factory=dict)
    breakdowns: list[Breakdown] = dataclasses.field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The comparison for scripts; these keys are kept stable (docs/comparing.md)."""
        at_k = {(pair.a, pair.b, kk): pair for kk, pairs in self.by_k.items() for pair in pairs}
        return {
            "runs": [
                {
                    "name": run.name,
                    "pass@k": {
                        str(k): {
                            "value": run.pass_at_k[k],
                            "ci": None if run.ci[k] is None else list(run.ci[k]),  # type: ignore[arg-type]
                        }
                        for k in self.ks
                    },
                }
                for run in self.runs
            ],
            "pairs": [
                {
                    "a": pair.a,
                    "b": pair.b,
                    "diff": pair.diff,
                    "ci": list(pair.ci),
                    "p": pair.p,
                    "test": pair.test,
                    "significant": pair.significant,
                    "by_k": {
                        str(kk): _pair_json(at_k[(pair.a, pair.b, kk)])
                        for kk in self.ks
                        if (pair.a, pair.b, kk) in at_k
                    },
                }
                for pair in self.pairs
            ],
            "breakdowns": [part.to_json(self.ks) for part in self.breakdowns],
        }


def _pair_json(pair: Pair) -> dict[str, Any]:
    return {
        "diff": pair.diff,
        "ci": list(pair.ci),
        "p": pair.p,
        "test": pair.test,
        "significant": pair.significant,
    }


def compare_runs(
    runs: Sequence[tuple[str, Sequence[Mapping[str, Any]]]],
    ks: Sequence[int],
    *,
    alpha: float = 0.05,
    resamples: int = 10_000,
    seed: int = 0,
    date_window: str = "quarter",
) -> Comparison:
    """Compare the named runs (name, records) on the problems graded in all of them.

    Each run's pass@k is the mean over those problems with its 95% interval
    (:func:`~pytest_codegen.scoring.intervals.mean_interval`, clustered by category when the
    problems have several). Each pair compares pass@k at the smallest k: exact McNemar when
    every problem has one graded sample in both runs and no clustering, else the paired
    sign-flip test, or when clustered a z-test on the cluster-robust standard error of the
    differences (a sign-flip test over a few categories could never reach 0.05); the interval of
    the difference is a bootstrap over problems (or categories), shared by all pairs. A pair is
    significant when its Holm-adjusted p-value is below ``alpha``.

    The breakdowns are by category, difficulty and ``date_window`` (see :mod:`.breakdowns`);
    within each release window, the pairs are compared again on that window's problems
    (Holm's correction over the window's pairs).
    """
    if len(runs) < 2:
        raise ValueError("a comparison needs at least two runs")
    k = min(ks)
    scored: list[RunScores] = []
    graded: list[set[Key]] = []
    category: dict[Key, str] = {}
    for name, records in runs:
        samples: dict[Key, list[Mapping[str, Any]]] = {}
        counts: dict[Key, list[int]] = {}
        for rec in latest_samples(records):
            key = (str(rec["suite"]), str(rec["task_id"]))
            samples.setdefault(key, []).append(rec)
            category.setdefault(key, str(rec.get("category") or ""))
            nc = counts.setdefault(key, [0, 0])
            if rec["outcome"] in outcomes.GRADED:
                nc[0] += 1
                nc[1] += rec["outcome"] == outcomes.PASSED
        models = sorted({str(r.get("model") or "") for r in records} - {""})
        scored.append(
            RunScores(
                name, ", ".join(models), {key: (n, c) for key, (n, c) in counts.items()}, samples
            )
        )
        graded.append({key for key, (n, _) in counts.items() if n > 0})
    common = sorted(set.intersection(*graded))
    left_out = len(set.union(*graded)) - len(common)
    clusters = clusters_across_suites([(suite, category[(suite, t)], t) for suite, t in common])

    for run in scored:
        for kk in ks:
            values = [pass_at_k(*run.counts[key], kk) for key in common]
            if not values or any(v is None for v in values):
                run.pass_at_k[kk] = run.ci[kk] = None
                continue
            run.pass_at_k[kk] = math.fsum(values) / len(values)  # type: ignore[arg-type]
            run.ci[kk] = mean_interval(values, clusters)  # type: ignore[arg-type]

    by_k = {
        kk: _pairs_at(scored, common, clusters, kk, alpha=alpha, resamples=resamples, seed=seed)
        for kk in sorted(set(ks))
    }
    parts = breakdowns(
        [(run.name, run.counts) for run in scored],
        facet_values([run.samples for run in scored], common, date_window),
        common,
        ks,
    )
    for part in parts:
        if part.facet in WINDOWS:
            within = _pairs_at(
                scored, part.keys, None, k, alpha=alpha, resamples=resamples, seed=seed
            )
            part.pairs = [{"a": p.a, "b": p.b, **_pair_json(p), "p_holm": p.p_holm} for p in within]
    return Comparison(
        runs=scored,
        pairs=by_k[k],
        problems=common,
        left_out=left_out,
        ks=list(ks),
        k=k,
        alpha=alpha,
        # the categories' clusters, not the problems that are clusters of their own
        clusters=len({c for c in clusters if "\0\0" not in c}) if clusters else 0,
        samples=max((n for run in scored for n, _ in run.counts.values()), default=0),
        by_k=by_k,
        breakdowns=parts,
    )


def _pairs_at(
    scored: list[RunScores],
    common: list[Key],
    clusters: Sequence[str] | None,
    k: int,
    *,
    alpha: float,
    resamples: int,
    seed: int,
) -> list[Pair]:
    """Every pair of runs compared at pass@k, significant after Holm's correction over
    these pairs; a run with fewer than k samples of some problem is in none."""
    pairs: list[Pair] = []
    if not common:
        return pairs
    bootstrap = ClusterBootstrap(
        clusters or [f"{s}\0{t}" for s, t in common], resamples=resamples, seed=seed
    )
    scores = [[pass_at_k(*run.counts[key], k) for key in common] for run in scored]
    usable = [all(v is not None for v in s) for s in scores]
    resampled = [bootstrap.means(s) if ok else None for s, ok in zip(scores, usable, strict=True)]  # type: ignore[arg-type]
    for i, j in itertools.combinations(range(len(scored)), 2):
        if not (usable[i] and usable[j]):
            continue
        pairs.append(
            _pair(
                scored[i],
                scored[j],
                scores[i],
                scores[j],
                resampled[i] - resampled[j],
                common,
                clusters,
                k,
            )
        )  # type: ignore[operator, arg-type]
    for pair, adjusted in zip(pairs, holm([p.p for p in pairs]), strict=True):
        pair.p_holm = adjusted
        pair.significant = adjusted < alpha
    for pair in pairs:
        if pair.significant:  # settled: nothing more is needed
            pair.samples_needed = None
        else:
            pair.problems_needed = problems_needed(pair.diff, pair.mdd, len(common))
    return pairs


def _pair(
    run_a: RunScores,
    run_b: RunScores,
    scores_a: list[float],
    scores_b: list[float],
    resampled_diff: Any,
    common: list[Key],
    clusters: Sequence[str] | None,
    k: int,
) -> Pair:
    diffs = [a - b for a, b in zip(scores_a, scores_b, strict=True)]
    diff = math.fsum(diffs) / len(diffs)
    single = all(run_a.counts[key][0] == 1 and run_b.counts[key][0] == 1 for key in common)
    if single and clusters is None:
        better = sum(d > 0 for d in diffs)
        worse = sum(d < 0 for d in diffs)
        test, p = MCNEMAR, mcnemar_exact(better, worse)
    elif clusters is None:
        test, p = SIGN_FLIP, sign_flip_p(diffs)[0]
    else:
        test, p = Z_CLUSTERED, clustered_z_p(diffs, clusters)
    pair = Pair(
        run_a.name,
        run_b.name,
        diff,
        ClusterBootstrap.interval(resampled_diff),
        p,
        test,
        mdd=min_detectable_difference(diffs, clusters),
    )
    if k == 1 and clusters is None:
        samples = min(run_a.counts[key][0] for key in common)
        pair.samples_needed = samples_needed(diff, scores_a, scores_b, samples)
    pair.flips = [
        Flip(key[0], key[1], a, b)
        for key, a, b in zip(common, scores_a, scores_b, strict=True)
        if abs(a - b) >= FLIP_AT
    ]
    return pair
