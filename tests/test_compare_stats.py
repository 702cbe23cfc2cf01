"""The statistics of intervals and comparisons, checked against independent computations: a
brute-force bootstrap, hand-computed tables and standard errors, and scipy.stats (used by
these tests only; the plugin computes without it)."""

from __future__ import annotations

import itertools
import json
import math
import random
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import scipy.stats

from pytest_codegen.reporting.comparison import SIGN_FLIP, Z_CLUSTERED, compare_runs
from pytest_codegen.scoring.intervals import (
    Z95,
    clusters_across_suites,
    mean_interval,
    standard_error,
)
from pytest_codegen.scoring.paired import (
    MCNEMAR,
    ClusterBootstrap,
    clustered_z_p,
    holm,
    mcnemar_exact,
    samples_needed,
    sign_flip_p,
)
from pytest_codegen.scoring.passk import pass_at_k, summarize


def records(
    passed: dict[str, list[bool]], *, model: str = "m", categories: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Sample records: problem id -> each sample's verdict."""
    return [
        {
            "nodeid": f"s.jsonl::{task}[s{i}]",
            "suite": "s",
            "task_id": task,
            "category": (categories or {}).get(task, "s"),
            "sample_index": i,
            "outcome": "passed" if ok else "failed",
            "model": model,
        }
        for task, verdicts in passed.items()
        for i, ok in enumerate(verdicts)
    ]


def brute_force_bootstrap(scores: list[float], resamples: int, seed: int) -> tuple[float, float]:
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(scores, k=len(scores))) / len(scores) for _ in range(resamples))
    return means[int(0.025 * resamples)], means[int(0.975 * resamples)]


def test_the_interval_of_a_suite_agrees_with_a_brute_force_bootstrap():
    rng = random.Random(5)
    # 300 problems of 10 samples with a spread of difficulty: pass@1 per problem is c/10.
    scores = [
        sum(rng.random() < p for _ in range(10)) / 10 for p in (rng.random() for _ in range(300))
    ]
    low, high = mean_interval(scores)
    b_low, b_high = brute_force_bootstrap(scores, 4000, seed=1)
    assert low == pytest.approx(b_low, abs=0.006)
    assert high == pytest.approx(b_high, abs=0.006)
    # The plugin's own bootstrap (shared by a comparison's pairs) is the same distribution.
    resampled = ClusterBootstrap([str(i) for i in range(300)], resamples=4000, seed=2)
    p_low, p_high = ClusterBootstrap.interval(resampled.means(scores))
    assert p_low == pytest.approx(b_low, abs=0.006)
    assert p_high == pytest.approx(b_high, abs=0.006)


def test_summary_rows_carry_the_interval_of_their_problems():
    verdicts = {f"p{i}": [i % 3 != 0] for i in range(30)}
    (row,) = [r for r in summarize(records(verdicts), [1]) if r.category is None]
    scores = [float(v[0]) for _, v in sorted(verdicts.items())]
    mean = sum(scores) / 30
    half = Z95 * math.sqrt(sum((x - mean) ** 2 for x in scores) / 29 / 30)
    assert row.pass_at_k[1] == pytest.approx(20 / 30)
    assert row.ci[1] == pytest.approx((mean - half, mean + half))
    assert row.to_json()["ci"] == {"1": list(row.ci[1])}
    assert row.clusters == 0  # one category, named like its suite: not clustered


def test_clustering_changes_the_interval_as_a_hand_computation_says():
    scores = [1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    # Unclustered: s^2 = 8 * 0.25 / 7, SE = sqrt(s^2 / 8).
    assert standard_error(scores) == pytest.approx(math.sqrt(2 / 7 / 8))
    # Clusters AA BB CC DD: residual sums +1, -1, 0, 0; SE = sqrt(4/3 * 2) / 8, wider.
    clusters = ["A", "A", "B", "B", "C", "C", "D", "D"]
    assert standard_error(scores, clusters) == pytest.approx(math.sqrt(4 / 3 * 2) / 8)
    assert standard_error(scores, clusters) > standard_error(scores)
    # Clusters whose problems cancel out carry no spread: the interval shrinks to the mean.
    mixed = ["A", "B", "C", "D", "A", "B", "C", "D"]  # one pass and one fail each
    assert standard_error([1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], mixed) == 0.0
    # Every problem its own cluster: the unclustered error.
    assert standard_error(scores, [str(i) for i in range(8)]) == pytest.approx(
        standard_error(scores)
    )
    # summarize clusters a suite's row by its categories, and says by how many.
    verdicts = {f"p{i}": [bool(x)] for i, x in enumerate(scores)}
    cats = {f"p{i}": c for i, c in enumerate(clusters)}
    (row,) = [r for r in summarize(records(verdicts, categories=cats), [1]) if r.category is None]
    half = Z95 * math.sqrt(4 / 3 * 2) / 8
    assert row.clusters == 4
    assert row.ci[1] == pytest.approx((0.5 - half, 0.5 + half))


def test_mcnemar_of_a_hand_computed_table():
    # 20 problems, one sample each: both pass 10, only a 6, only b 1, both fail 3.
    kinds = ["both"] * 10 + ["a"] * 6 + ["b"] * 1 + ["none"] * 3
    a = {f"p{i:02}": [k in ("both", "a")] for i, k in enumerate(kinds)}
    b = {f"p{i:02}": [k in ("both", "b")] for i, k in enumerate(kinds)}
    comparison = compare_runs([("a", records(a)), ("b", records(b, model="n"))], [1])
    (pair,) = comparison.pairs
    # Two-sided exact: 2 * P(X <= 1), X ~ Bin(7, 1/2) = 2 * (1 + 7) / 128.
    assert pair.test == MCNEMAR
    assert pair.p == pytest.approx(2 * 8 / 128)
    assert pair.p == pytest.approx(scipy.stats.binomtest(1, 7, 0.5).pvalue)
    assert pair.diff == pytest.approx((6 - 1) / 20)
    assert not pair.significant
    assert {f.task_id for f in pair.flips} == {f"p{i}" for i in range(10, 17)}
    assert mcnemar_exact(6, 1) == pair.p


@pytest.mark.parametrize("seed", range(4))
def test_the_sign_flip_p_value_is_scipys_exact_permutation_test(seed):
    rng = random.Random(seed)
    before = [rng.randint(0, 4) / 4 for _ in range(11)]
    after = [min(1.0, max(0.0, x + rng.choice((-0.5, -0.25, 0, 0.25, 0.5)))) for x in before]
    diffs = [a - b for a, b in zip(after, before, strict=True)]
    ours, exact = sign_flip_p(diffs)
    theirs = scipy.stats.permutation_test(
        (after, before),
        lambda x, y: sum(x) - sum(y),
        permutation_type="samples",
        n_resamples=math.inf,
        alternative="two-sided",
    ).pvalue
    assert exact
    assert ours == pytest.approx(min(1.0, theirs), rel=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_the_sign_flip_p_value_of_thirds_is_counted_in_fractions(seed):
    # pass@1 of three samples: 1/3 and 2/3 are no whole number of the test's 1e-9 units, and
    # in floats 1 - 2/3 is not 1/3, yet sums that are equal (1/3 + 1/3 and 2/3) tie. (scipy's
    # permutation_test breaks such ties: it tells float sums apart that fractions make equal.)
    rng = random.Random(seed)
    before = [rng.randint(0, 3) for _ in range(14)]
    after = [rng.randint(0, 3) for _ in range(14)]
    diffs = [Fraction(a - b, 3) for a, b in zip(after, before, strict=True)]
    signs = list(itertools.product((1, -1), repeat=len(diffs)))
    extreme = sum(
        abs(sum(s * d for s, d in zip(sign, diffs, strict=True))) >= abs(sum(diffs))
        for sign in signs
    )
    ours, exact = sign_flip_p([a / 3 - b / 3 for a, b in zip(after, before, strict=True)])
    assert exact
    assert ours == pytest.approx(extreme / len(signs), rel=1e-9)


def test_the_clustered_z_p_value_is_the_normal_tail():
    diffs = [0.5, 0.0, 0.25, -0.25, 0.5, 0.75, 0.0, 0.25]
    clusters = list("AABBCCDD")
    z = (sum(diffs) / 8) / standard_error(diffs, clusters)
    assert clustered_z_p(diffs, clusters) == pytest.approx(2 * scipy.stats.norm.sf(z))


def test_holm_against_a_hand_computation():
    # Sorted: 0.01 * 3 = 0.03; 0.03 * 2 = 0.06; 0.04 * 1 = 0.04 -> kept at 0.06.
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([]) == []
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_more_samples_settle_a_difference_only_when_problems_agree():
    # Every problem at 0.6 vs 0.5: no spread between problems; sampling noise alone.
    needed = samples_needed(0.1, [0.6] * 100, [0.5] * 100, 4)
    assert needed is not None and needed > 4
    # Problems that differ wildly: no number of samples helps.
    assert samples_needed(0.02, [1.0, 0.0] * 50, [0.0, 1.0] * 50, 4) is None


def four_runs(samples: int) -> list[tuple[str, list[dict[str, Any]]]]:
    rng = random.Random(3)
    skill = {"a": 0.9, "b": 0.85, "c": 0.5, "d": 0.2}
    runs = []
    for model, p in skill.items():
        verdicts = {f"p{i:03}": [rng.random() < p for _ in range(samples)] for i in range(120)}
        runs.append((f"{model}.jsonl", records(verdicts, model=model)))
    return runs


@pytest.mark.parametrize("samples", [1, 3])
def test_the_comparison_json_has_exactly_the_documented_keys(samples):
    comparison = compare_runs(four_runs(samples), [1, 2])
    data = json.loads(json.dumps(comparison.to_json()))
    assert set(data) == {"runs", "pairs", "breakdowns"}
    assert data["breakdowns"] == []  # no categories to break down by
    assert [r["name"] for r in data["runs"]] == ["a.jsonl", "b.jsonl", "c.jsonl", "d.jsonl"]
    for run in data["runs"]:
        assert set(run) == {"name", "pass@k"}
        assert set(run["pass@k"]) == {"1", "2"}
        for k, score in run["pass@k"].items():
            assert set(score) == {"value", "ci"}
            if samples == 1 and k == "2":
                assert score == {"value": None, "ci": None}  # fewer than k samples
            else:
                assert score["ci"][0] <= score["value"] <= score["ci"][1]
    assert [(p["a"], p["b"]) for p in data["pairs"]] == list(
        itertools.combinations([r["name"] for r in data["runs"]], 2)
    )
    for pair in data["pairs"]:
        assert set(pair) == {"a", "b", "diff", "ci", "p", "test", "significant", "by_k"}
        assert pair["test"] == (MCNEMAR if samples == 1 else SIGN_FLIP)
        # pass@2 needs two samples a problem: with one, the pair is compared at k = 1 only.
        assert set(pair["by_k"]) == ({"1"} if samples == 1 else {"1", "2"})
        assert pair["by_k"]["1"] == {key: pair[key] for key in pair["by_k"]["1"]}
        for at_k in pair["by_k"].values():
            assert set(at_k) == {"diff", "ci", "p", "test", "significant"}
        assert pair["ci"][0] <= pair["diff"] <= pair["ci"][1]
    significant = {(p["a"][0], p["b"][0]) for p in data["pairs"] if p["significant"]}
    # a and b are close; every other pair differs by 0.3 or more on 120 problems.
    assert ("a", "b") not in significant
    assert {("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")} <= significant


def test_the_comparison_does_not_depend_on_the_order_of_records():
    runs = four_runs(3)
    shuffled = [(name, random.Random(1).sample(recs, len(recs))) for name, recs in runs]
    assert compare_runs(shuffled, [1]).to_json() == compare_runs(runs, [1]).to_json()


def test_a_clustered_suite_is_compared_with_the_clustered_test():
    runs = [
        (name, [{**r, "category": f"c{int(r['task_id'][1:]) % 6}"} for r in recs])
        for name, recs in four_runs(2)
    ]
    comparison = compare_runs(runs, [1])
    assert comparison.clusters == 6
    assert {p.test for p in comparison.pairs} == {Z_CLUSTERED}


def test_only_suites_with_several_categories_are_clustered():
    problems = [("web", "blog", "1"), ("web", "shop", "2"), ("he", "he", "t3"), ("he", "he", "t4")]
    # The web suite by its categories; each HumanEval problem is a cluster of its own.
    assert clusters_across_suites(problems) == ["web\0blog", "web\0shop", "he\0\0t3", "he\0\0t4"]
    assert clusters_across_suites([("he", "he", "t3"), ("mbpp", "", "t4")]) is None


@pytest.mark.parametrize(
    ("diffs", "clusters"),
    [
        ([1.0, 1.0, 1.0], ["arith", "text", "stateful"]),  # every problem solved by a only
        ([0.4 - 0.2, 0.6 - 0.4, 0.4 - 0.2], list("ABC")),  # 0.2, rounded two ways
        ([0.5, 0.0, 0.25, 0.25, 1.0, -0.5, 0.75, -0.25], list("AABBCCDD")),  # each sum 0.5
    ],
)
def test_differences_without_spread_get_the_exact_p_over_clusters_not_zero(diffs, clusters):
    """The cluster-robust standard error is 0 (every category's sum is its share of the mean):
    the normal tail would say p = 0 however few the categories. The sign-flip test over the
    categories' sums, enumerated here, is what the data can say."""
    sums: dict[str, Fraction] = {}
    for d, c in zip(diffs, clusters, strict=True):
        sums[c] = sums.get(c, Fraction(0)) + Fraction(round(d * 1000), 1000)
    observed = abs(sum(sums.values()))
    signs = list(itertools.product((1, -1), repeat=len(sums)))
    extreme = sum(
        abs(sum(s * v for s, v in zip(sign, sums.values(), strict=True))) >= observed
        for sign in signs
    )
    assert clustered_z_p(diffs, clusters) == pytest.approx(extreme / len(signs))
    assert clustered_z_p(diffs, clusters) > 0.05
    assert clustered_z_p([0.0, 0.0, 0.0], list("ABC")) == 1.0


def test_a_sign_flip_p_past_the_exact_limit_is_a_seeded_estimate():
    """pass@5 of 20 samples on 164 problems: too many signed sums to count, so the pair's p
    is (extreme + 1) / 10,001 from a fixed seed, as docs/comparing.md says, near an
    independent estimate from 200,000 other random sign vectors."""
    rng = random.Random(5)
    skill = [rng.random() for _ in range(164)]
    runs = [
        (
            name,
            records(
                {
                    f"p{i:03}": [rng.random() < p + lift for _ in range(20)]
                    for i, p in enumerate(skill)
                },
                model=name,
            ),
        )
        for name, lift in (("a", 0.0), ("b", 0.05))
    ]
    first, again = (compare_runs(runs, [1, 5]).by_k[5][0].p for _ in range(2))
    assert first == again
    assert (first * 10_001) == pytest.approx(round(first * 10_001), abs=1e-6)
    counts = {
        name: {
            t: sum(r["outcome"] == "passed" for r in recs if r["task_id"] == t)
            for t in {r["task_id"] for r in recs}
        }
        for name, recs in runs
    }
    diffs = [
        pass_at_k(20, counts["a"][t], 5) - pass_at_k(20, counts["b"][t], 5)
        for t in sorted(counts["a"])
    ]
    sign_rng = np.random.default_rng(1)
    estimate = np.mean(
        [
            np.abs(sign_rng.choice([-1.0, 1.0], size=(20_000, len(diffs))) @ np.array(diffs))
            >= abs(sum(diffs)) - 1e-9
            for _ in range(10)
        ]
    )
    assert first == pytest.approx(estimate, abs=0.01)


def test_one_problem_has_no_interval():
    # One score says nothing of its spread: n/a, not an interval of no width.
    assert mean_interval([0.5]) is None
    assert mean_interval([0.5, 0.5]) == (0.5, 0.5)  # two that agree: no spread seen
