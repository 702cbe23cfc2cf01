"""--codegen-compare on real runs: four models replayed on the everyday suite (the replays in
fixtures/replays/compare/), graded, then compared plain, with -n 2 and from merged shards;
the intervals of the summary, JUnit properties and refusals of runs that are not alike."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import scipy.stats
from conftest import FIXTURES, ROOT, XDIST_MODES

from pytest_codegen.reporting.comparison import SIGN_FLIP, Z_CLUSTERED
from pytest_codegen.scoring.paired import MCNEMAR

MODELS = ("alpha", "beta", "gamma", "delta")
EVERYDAY = ROOT / "benchmarks" / "python" / "everyday.jsonl"
TASKS = [json.loads(line)["task_id"] for line in EVERYDAY.read_text().splitlines()]


def solves(model: str, problem: int, sample: int) -> bool:
    """How the replays were written: each model's right answers (the reference solution;
    the others raise NotImplementedError)."""
    if model == "alpha":
        return problem not in (3, 20)
    if model == "beta":
        return problem not in (3, 20, 7, 11, 25, 30, 33) or (problem == 33 and sample == 1)
    if model == "gamma":
        return problem < 14 and problem != 3
    return problem % 2 == sample  # delta: one sample of two, alternately


@pytest.fixture
def uncategorised(pytester: pytest.Pytester) -> Path:
    """The everyday suite without its categories: problems taken as independent."""
    rows = [json.loads(line) for line in EVERYDAY.read_text().splitlines()]
    path = pytester.path / "everyday.jsonl"
    path.write_text("".join(json.dumps({**r, "category": ""}) + "\n" for r in rows))
    return path


def grade(pytester: pytest.Pytester, model: str, suite: Path, *args: str) -> str:
    """Grade a model's replay; its results file's name."""
    out = f"{model}.jsonl"
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{FIXTURES / 'replays' / 'compare' / f'{model}.jsonl'}",
        str(suite),
        f"--codegen-results={out}",
        *args,
    )
    assert result.ret in (0, 1), result.stdout.str()
    return out


def compare(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    result = pytester.runpytest_subprocess(
        "--codegen-compare", *args, "--codegen-k=1", "--codegen-compare-out=cmp.json"
    )
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    return result, json.loads((pytester.path / "cmp.json").read_text())


def hand_table(a: str, b: str) -> tuple[int, int]:
    """Problems only ``a`` solves and only ``b`` solves, with one sample each."""
    only_a = sum(solves(a, i, 0) and not solves(b, i, 0) for i in range(len(TASKS)))
    only_b = sum(solves(b, i, 0) and not solves(a, i, 0) for i in range(len(TASKS)))
    return only_a, only_b


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_four_models_with_one_sample_compared_by_mcnemar(pytester, uncategorised, xdist):
    files = [grade(pytester, m, uncategorised, "--codegen-samples=1", *xdist) for m in MODELS]
    result, data = compare(pytester, *files, *xdist)

    runs = {r["name"]: r["pass@k"]["1"] for r in data["runs"]}
    for model in MODELS:
        solved = sum(solves(model, i, 0) for i in range(len(TASKS)))
        assert runs[f"{model}.jsonl"]["value"] == pytest.approx(solved / len(TASKS))
    lines = result.stdout.lines
    board = lines[lines.index(next(ln for ln in lines if ln.startswith("rank "))) :][1:5]
    assert [ln.split()[1] for ln in board] == [
        "alpha.jsonl",
        "beta.jsonl",
        "delta.jsonl",
        "gamma.jsonl",
    ]

    pairs = {(p["a"][:-6], p["b"][:-6]): p for p in data["pairs"]}
    assert len(pairs) == 6
    for (a, b), pair in pairs.items():
        only_a, only_b = hand_table(a, b)
        assert pair["test"] == MCNEMAR
        assert pair["diff"] == pytest.approx((only_a - only_b) / len(TASKS))
        assert pair["p"] == pytest.approx(
            scipy.stats.binomtest(only_a, only_a + only_b, 0.5).pvalue
        )
    # Holm over the six p-values: alpha-beta (5 to 0, p = 0.0625) and gamma-delta (6 to 12)
    # are not settled; the others are.
    assert {pair for pair, p in pairs.items() if p["significant"]} == {
        ("alpha", "gamma"),
        ("alpha", "delta"),
        ("beta", "gamma"),
        ("beta", "delta"),
    }
    assert (
        "flips alpha.jsonl vs beta.jsonl: 5 only alpha.jsonl solves, 0 only beta.jsonl solves"
        in lines
    )
    assert any(
        ln.startswith("  alpha.jsonl: everyday/deep_merge, everyday/format_number") for ln in lines
    )
    assert "worker" not in result.stdout.str()  # reading files: one process, even with -n


def test_more_samples_use_the_sign_flip_test_and_categories_cluster(pytester, uncategorised):
    plain = [grade(pytester, m, uncategorised, "--codegen-samples=2") for m in MODELS]
    _, data = compare(pytester, *plain)
    assert {p["test"] for p in data["pairs"]} == {SIGN_FLIP}
    beta = next(r for r in data["runs"] if r["name"] == "beta.jsonl")["pass@k"]["1"]
    assert beta["value"] == pytest.approx((31 + 0.5) / 38)  # 33 passes one sample of two

    (pytester.path / "plain").mkdir()
    for name in plain:
        (pytester.path / name).rename(pytester.path / "plain" / name)
    clustered = [grade(pytester, m, EVERYDAY, "--codegen-samples=2") for m in MODELS]
    result, by_category = compare(pytester, *clustered)
    assert {p["test"] for p in by_category["pairs"]} == {Z_CLUSTERED}
    assert "intervals clustered by 6 categories" in result.stdout.str()
    # The same scores; intervals that account for problems of a category going together.
    for run, same in zip(by_category["runs"], data["runs"], strict=True):
        assert run["pass@k"]["1"]["value"] == pytest.approx(same["pass@k"]["1"]["value"])
    assert by_category["runs"][0]["pass@k"]["1"]["ci"] != data["runs"][0]["pass@k"]["1"]["ci"]


def test_a_run_merged_from_shards_compares_as_the_whole_run(pytester, uncategorised):
    files = [grade(pytester, m, uncategorised, "--codegen-samples=2") for m in MODELS]
    _, whole = compare(pytester, *files)
    replay = FIXTURES / "replays" / "compare" / "alpha.jsonl"
    for i in (1, 2):
        shard = pytester.runpytest_subprocess(
            f"--codegen-model=replay:{replay}",
            str(uncategorised),
            "--codegen-samples=2",
            f"--codegen-shard={i}/2",
            f"--codegen-results=shard{i}.jsonl",
        )
        assert shard.ret in (0, 1)
    merged = pytester.runpytest_subprocess(
        "--codegen-merge=shard1.jsonl", "--codegen-merge=shard2.jsonl", "--codegen-results=m.jsonl"
    )
    assert merged.ret in (0, 1)
    _, from_shards = compare(pytester, "m.jsonl", *files[1:])
    for data in (whole, from_shards):
        for run in data["runs"]:
            run["name"] = run["name"].replace("m.jsonl", "alpha.jsonl")
        for pair in data["pairs"]:
            pair["a"] = pair["a"].replace("m.jsonl", "alpha.jsonl")
    assert from_shards == whole


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_runs_that_are_not_alike_are_refused_with_one_line(pytester, uncategorised, xdist):
    grade(pytester, "alpha", uncategorised)
    pytester.runpytest_subprocess(
        f"--codegen-model=replay:{FIXTURES / 'replays' / 'compare' / 'beta.jsonl'}",
        str(uncategorised),
        "--codegen-results=slow.jsonl",
        "--codegen-timeout=30",
    )
    result = pytester.runpytest_subprocess("--codegen-compare", "alpha.jsonl", "slow.jsonl", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [ln for ln in result.stderr.lines if ln.startswith("ERROR:")]
    assert len(errors) == 1
    assert errors[0].startswith(
        "ERROR: --codegen-compare: slow.jsonl is not comparable with alpha.jsonl: timeout policy"
    )
    for args, said in (
        (["alpha.jsonl"], "--codegen-compare compares two or more results files; got 1"),
        (["alpha.jsonl", "gone.jsonl"], "--codegen-compare: "),
        (["alpha.jsonl", "alpha.jsonl", "--codegen-model=reference"], "would not be used"),
    ):
        result = pytester.runpytest_subprocess("--codegen-compare", *args, *xdist)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        (error,) = [ln for ln in result.stderr.lines if ln.startswith("ERROR:")]
        assert said in error


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_summary_and_junit_give_every_pass_at_k_with_its_interval(pytester, xdist):
    replay = FIXTURES / "replays" / "compare" / "beta.jsonl"
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        str(EVERYDAY),
        "--codegen-samples=2",
        "--codegen-k=1,2",
        "--junitxml=junit.xml",
        *xdist,
    )
    lines = result.stdout.lines
    header = next(ln for ln in lines if ln.startswith("suite ")).split()
    row = next(ln for ln in lines if ln.startswith("everyday ")).split()
    cells = dict(zip(header[::-1], row[::-1], strict=False))  # from the right: pass@k, ci95
    assert header[-4:] == ["pass@1", "ci95", "pass@2", "ci95"]
    assert row[-4] == f"{31.5 / 38:.3f}"
    low, high = (float(x) for x in row[-3].strip("[]").split(","))
    assert low < 31.5 / 38 < high
    assert cells["pass@2"] == f"{32 / 38:.3f}"
    assert (
        "ci95: the 95% interval of the pass@k before it (standard error over problems; "
        "clustered: everyday by its 6 categories)" in lines
    )
    props = {
        p.get("name"): p.get("value")
        for p in ET.parse(pytester.path / "junit.xml").iter("property")
    }
    assert props["codegen:everyday:pass@1"] == f"{31.5 / 38:.4f}"
    junit_low, junit_high = (float(x) for x in props["codegen:everyday:pass@1:ci95"].split())
    assert (junit_low, junit_high) == pytest.approx((low, high), abs=5e-4)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_three_problems_in_three_categories_are_no_significant_difference(pytester, xdist):
    """Run a solves the three problems, run b none, one problem a category: the clustered
    differences have no spread, and p is the sign-flip test's over three categories (2/8),
    not a normal tail's 0."""
    for name, outcome in (("a", "passed"), ("b", "failed")):
        lines = [
            {
                "nodeid": f"tiny.jsonl::{task}[s0]",
                "suite": "tiny",
                "task_id": f"tiny/{task}",
                "category": category,
                "sample_index": 0,
                "outcome": outcome,
                "model": name,
            }
            for task, category in (("add", "arith"), ("rev", "text"), ("Counter", "stateful"))
        ]
        (pytester.path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    result, data = compare(pytester, "a.jsonl", "b.jsonl", *xdist)
    (pair,) = data["pairs"]
    assert (pair["diff"], pair["test"], pair["significant"]) == (1.0, Z_CLUSTERED, False)
    assert pair["p"] == pytest.approx(0.25)
    (row,) = [ln.split() for ln in result.stdout.lines if ln.startswith("a.jsonl ")]
    assert row[5:8] == ["0.25", "0.25", "0.000"]  # p, p (Holm), no "*", mdd
