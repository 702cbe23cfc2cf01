"""--codegen-compare's breakdowns by category and its pairs at every k: the four models
replayed on the everyday suite (6 categories), checked against the replays' known answers
with the statistics computed here from scratch (scipy for the normal tail)."""

from __future__ import annotations

import json
import math
import statistics

import pytest
import scipy.stats
from conftest import XDIST_MODES
from livecodebench_data import (
    SUM_POSITIVE_ONLY,
    SUM_RIGHT,
    row,
    stdin_case,
    write_release,
    write_samples,
)
from test_compare_runs import EVERYDAY, MODELS, TASKS, grade, solves

SAMPLES = 2
CATEGORIES = [json.loads(line)["category"] for line in EVERYDAY.read_text().splitlines()]


def passed(model: str, problem: int) -> int:
    return sum(solves(model, problem, s) for s in range(SAMPLES))


def chen_pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al.'s unbiased estimator, 1 - C(n-c, k) / C(n, k)."""
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def hand_interval(values: list[float]) -> list[float]:
    """Mean +- 1.96 standard errors (sample standard deviation), cut to [0, 1]."""
    mean = statistics.fmean(values)
    half = scipy.stats.norm.ppf(0.975) * statistics.stdev(values) / math.sqrt(len(values))
    return [max(0.0, mean - half), min(1.0, mean + half)]


def hand_clustered_p(diffs: list[float]) -> float:
    """The paired z-test with the standard error clustered by the everyday categories."""
    n = len(diffs)
    mean = statistics.fmean(diffs)
    sums: dict[str, float] = {}
    for d, cat in zip(diffs, CATEGORIES, strict=True):
        sums[cat] = sums.get(cat, 0.0) + (d - mean)
    g = len(sums)
    se = math.sqrt(g / (g - 1) * sum(s * s for s in sums.values())) / n
    return 2 * scipy.stats.norm.sf(abs(mean) / se)


def hand_holm(ps: list[float], alpha: float = 0.05) -> list[bool]:
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    significant = [False] * len(ps)
    for rank, i in enumerate(order):
        if ps[i] * (len(ps) - rank) >= alpha:
            break
        significant[i] = True
    return significant


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_each_category_has_each_runs_pass_at_k_with_its_interval(pytester, xdist):
    files = [grade(pytester, m, EVERYDAY, f"--codegen-samples={SAMPLES}", *xdist) for m in MODELS]
    result = pytester.runpytest_subprocess(
        "--codegen-compare", *files, "--codegen-k=1,2", "--codegen-compare-out=cmp.json", *xdist
    )
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    data = json.loads((pytester.path / "cmp.json").read_text())
    assert set(data) == {"runs", "pairs", "breakdowns"}

    parts = data["breakdowns"]
    assert [p["value"] for p in parts] == sorted(set(CATEGORIES))
    assert {(p["facet"], p["suite"]) for p in parts} == {("category", "everyday")}
    for part in parts:
        members = [i for i, cat in enumerate(CATEGORIES) if cat == part["value"]]
        assert part["problems"] == len(members)
        runs = {r["name"]: r["pass@k"] for r in part["runs"]}
        assert list(runs) == files
        for model in MODELS:
            for k in (1, 2):
                values = [chen_pass_at_k(SAMPLES, passed(model, i), k) for i in members]
                got = runs[f"{model}.jsonl"][str(k)]
                assert got["value"] == pytest.approx(statistics.fmean(values))
                assert got["ci"] == pytest.approx(hand_interval(values))

    lines = result.stdout.lines
    head = lines.index(
        "by category (everyday): pass@k ± its 95% interval over the category's problems"
    )
    assert lines[head + 1].split() == ["category", "problems", "k", *files]
    # dates: 7 problems; alpha solves them all, gamma one of them in both samples.
    dates = [ln.split() for ln in lines[head + 2 : head + 14] if ln.startswith("dates ")]
    assert dates[0][:4] == ["dates", "7", "1", "1.000"]
    assert dates[0][9:12] == ["0.143", "[0.000,", "0.423]"]  # alpha, beta: 3 words each
    assert "worker" not in result.stdout.str()


def test_every_requested_k_has_its_pairs(pytester):
    files = [grade(pytester, m, EVERYDAY, f"--codegen-samples={SAMPLES}") for m in MODELS]
    result = pytester.runpytest_subprocess(
        "--codegen-compare", *files, "--codegen-k=1,2", "--codegen-compare-out=cmp.json"
    )
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    pairs = json.loads((pytester.path / "cmp.json").read_text())["pairs"]
    assert len(pairs) == 6
    for pair in pairs:
        assert set(pair["by_k"]) == {"1", "2"}
        # The pair's own fields are its pass@1 comparison, as before.
        assert pair["by_k"]["1"] == {key: pair[key] for key in pair["by_k"]["1"]}
    hand_p = []
    for pair in pairs:
        a, b = pair["a"][: -len(".jsonl")], pair["b"][: -len(".jsonl")]
        diffs = [
            chen_pass_at_k(SAMPLES, passed(a, i), 2) - chen_pass_at_k(SAMPLES, passed(b, i), 2)
            for i in range(len(TASKS))
        ]
        at2 = pair["by_k"]["2"]
        assert at2["diff"] == pytest.approx(statistics.fmean(diffs))
        assert at2["p"] == pytest.approx(hand_clustered_p(diffs))
        assert at2["ci"][0] <= at2["diff"] <= at2["ci"][1]
        hand_p.append(at2["p"])
    assert [p["by_k"]["2"]["significant"] for p in pairs] == hand_holm(hand_p)
    # delta solves every problem with one of its two samples: ahead of gamma at pass@2.
    gamma_delta = next(p for p in pairs if (p["a"], p["b"]) == ("gamma.jsonl", "delta.jsonl"))
    assert gamma_delta["diff"] < 0 and gamma_delta["by_k"]["2"]["diff"] < gamma_delta["diff"]
    assert "pairs at pass@2 (Holm's correction over its 6 pairs)" in result.stdout.lines


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_livecodebench_problems_are_broken_down_by_difficulty(pytester, xdist):
    rows = [
        row(f"abc10{i}_a", [stdin_case("1\n5\n", "5\n")], [stdin_case("1\n-5\n", "-5\n")], **kw)
        for i, kw in enumerate([{"difficulty": "easy"}] * 2 + [{"difficulty": "hard"}] * 3)
    ]
    release = write_release(pytester.path / "release.jsonl", rows)
    ids = [r["question_id"] for r in rows]
    # careful solves all five; careless gets the two easy ones and fails the hard ones'
    # hidden negative number.
    answers = {
        "careful": [SUM_RIGHT] * 5,
        "careless": [SUM_RIGHT] * 2 + [SUM_POSITIVE_ONLY] * 3,
    }
    for model, codes in answers.items():
        replay = write_samples(
            pytester.path / f"{model}-replay.jsonl", list(zip(ids, codes, strict=True))
        )
        graded = pytester.runpytest_subprocess(
            str(release),
            f"--codegen-model=replay:{replay}",
            f"--codegen-results={model}.jsonl",
            "--codegen-samples=1",
            *xdist,
        )
        assert graded.ret in (0, 1), graded.stdout.str()
    result = pytester.runpytest_subprocess(
        "--codegen-compare",
        "careful.jsonl",
        "careless.jsonl",
        "--codegen-k=1",
        "--codegen-compare-out=cmp.json",
        *xdist,
    )
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    parts = json.loads((pytester.path / "cmp.json").read_text())["breakdowns"]
    # One platform (AtCoder): no category breakdown; two difficulties.
    assert [(p["facet"], p["value"], p["problems"]) for p in parts] == [
        ("difficulty", "easy", 2),
        ("difficulty", "hard", 3),
    ]
    scores = {(p["value"], r["name"]): r["pass@k"]["1"]["value"] for p in parts for r in p["runs"]}
    assert scores == {
        ("easy", "careful.jsonl"): 1.0,
        ("easy", "careless.jsonl"): 1.0,
        ("hard", "careful.jsonl"): 1.0,
        ("hard", "careless.jsonl"): 0.0,
    }
    suite = parts[0]["suite"]
    assert f"by difficulty ({suite}): pass@k ± its 95% interval over the difficulty's problems" in (
        result.stdout.lines
    )
