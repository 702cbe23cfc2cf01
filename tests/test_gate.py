from __future__ import annotations

import math
from typing import Any

import pytest

from pytest_codegen.gates.baseline import BOOTSTRAP, MCNEMAR, compare_to_baseline
from pytest_codegen.gates.thresholds import (
    Threshold,
    check_thresholds,
    parse_threshold,
    required_ks,
)
from pytest_codegen.gates.tripwire import Tripwire, failure_kind, unstable
from pytest_codegen.scoring.paired import bootstrap_ci, mcnemar_exact, sign_flip_p
from pytest_codegen.scoring.passk import summarize


def rec(
    task: str, outcome: str, *, suite: str = "humaneval", index: int = 0, error: str = ""
) -> dict[str, Any]:
    return {
        "suite": suite,
        "task_id": task,
        "category": "",
        "sample_index": index,
        "outcome": outcome,
        "passed": outcome == "passed",
        "error": error,
    }


def binom_two_sided(b: int, c: int) -> float:
    """Reference: 2 * P(X <= min(b, c)) for X ~ Bin(b + c, 1/2), from the pmf."""
    n = b + c
    return min(1.0, 2 * sum(math.comb(n, i) * 0.5**n for i in range(min(b, c) + 1)))


# -- thresholds -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("pass@1=0.80", Threshold(k=1, value=0.8)),
        (" pass@10 = 1 ", Threshold(k=10, value=1.0)),
        ("PASS@5=0", Threshold(k=5, value=0.0)),
        ("humaneval:pass@1=0.9", Threshold(k=1, value=0.9, suite="humaneval")),
        ("webapp1k-react:pass@3=.5", Threshold(k=3, value=0.5, suite="webapp1k-react")),
    ],
)
def test_parse_threshold(text, expected):
    assert parse_threshold(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "pass@1",
        "0.8",
        "=0.8",
        "pass@1=",
        "pass@1=0.8=0.9",
        "pass@0=0.5",
        "pass@-1=0.5",
        "pass@x=0.5",
        "pass1=0.5",
        "accuracy=0.5",
        "pass@1=high",
        "pass@1=1.5",
        "pass@1=-0.1",
        "pass@1=nan",
        ":pass@1=0.5",
        "pass@1.5=0.5",
    ],
)
def test_parse_threshold_rejects_bad_text_naming_it(text):
    with pytest.raises(ValueError) as info:
        parse_threshold(text)
    message = str(info.value)
    assert repr(text) in message
    assert "expected METRIC=VALUE like pass@1=0.80" in message


def test_parse_threshold_percentage_hint():
    with pytest.raises(ValueError, match=r"a fraction: 0\.8, not 80"):
        parse_threshold("pass@1=80")


def test_threshold_str_round_trips():
    for text in ("pass@1=0.8", "humaneval:pass@10=0.95"):
        assert str(parse_threshold(text)) == text
        assert parse_threshold(str(parse_threshold(text))) == parse_threshold(text)
    assert required_ks(
        [
            parse_threshold("pass@10=0.1"),
            parse_threshold("a:pass@1=0.1"),
            parse_threshold("pass@1=0.2"),
        ]
    ) == [1, 10]


def five_problems(passing: int, suite: str = "humaneval") -> list[dict[str, Any]]:
    return [rec(f"T/{i}", "passed" if i < passing else "failed", suite=suite) for i in range(5)]


def test_gate_passes_exactly_at_the_boundary():
    rows = summarize(five_problems(4), [1])  # pass@1 = 0.8
    [result] = check_thresholds(rows, [parse_threshold("pass@1=0.80")])
    assert result.passed and result.actual == pytest.approx(0.8)
    assert result.suite == "humaneval"
    assert result.message == "humaneval pass@1 = 0.800 >= 0.800"


def test_gate_boundary_survives_float_rounding():
    # Three problems with 3 samples each: 2/3 + 2/3 + 2/3 averaged is not exactly 2/3.
    records = [
        rec(f"T/{t}", "passed" if i < 2 else "failed", index=i) for t in range(3) for i in range(3)
    ]
    rows = summarize(records, [1])
    [result] = check_thresholds(rows, [Threshold(k=1, value=rows[0].pass_at_k[1] + 1e-12)])
    assert result.passed


def test_gate_fails_just_below_with_the_shortfall():
    rows = summarize(five_problems(3), [1])  # 0.6
    [result] = check_thresholds(rows, [parse_threshold("pass@1=0.61")])
    assert not result.passed
    assert result.actual == pytest.approx(0.6)
    assert result.message == "humaneval pass@1 = 0.600 < 0.610 (short by 0.010)"


def test_gate_shows_more_digits_when_three_would_hide_the_failure():
    rows = summarize(five_problems(4), [1])
    [result] = check_thresholds(rows, [Threshold(k=1, value=0.8002)])
    assert not result.passed
    assert "0.800000 < 0.800200" in result.message


def test_na_score_fails_the_gate():
    rows = summarize(five_problems(5), [1, 10])  # 1 sample per problem: pass@10 is n/a
    [result] = check_thresholds(rows, [parse_threshold("pass@10=0.1")])
    assert not result.passed and result.actual is None
    assert result.message == (
        "pass@10 is n/a for humaneval (fewer than 10 samples for some problem)"
    )


def test_no_graded_samples_and_uncomputed_k_fail():
    rows = summarize([rec("T/0", "missing"), rec("T/1", "api_error")], [1])
    [result] = check_thresholds(rows, [parse_threshold("pass@1=0")])
    assert not result.passed and "no graded samples" in result.message
    [result] = check_thresholds(rows, [parse_threshold("pass@5=0")])
    assert not result.passed and "was not computed" in result.message


def test_threshold_without_suite_applies_to_every_suite():
    records = five_problems(5, "alpha") + five_problems(2, "beta")
    rows = summarize(records, [1])
    results = check_thresholds(rows, [parse_threshold("pass@1=0.5")])
    assert [(r.suite, r.passed) for r in results] == [("alpha", True), ("beta", False)]
    assert results[1].message == "beta pass@1 = 0.400 < 0.500 (short by 0.100)"


def test_threshold_with_suite_checks_only_that_suite():
    rows = summarize(five_problems(5, "alpha") + five_problems(2, "beta"), [1])
    results = check_thresholds(rows, [parse_threshold("alpha:pass@1=0.9")])
    assert [(r.suite, r.passed) for r in results] == [("alpha", True)]
    [missing] = check_thresholds(rows, [parse_threshold("gamma:pass@1=0.1")])
    assert not missing.passed and missing.message == "no results for suite gamma"


def test_category_rows_are_not_gated():
    records = [{**r, "category": "easy"} for r in five_problems(1)]
    rows = summarize(records, [1])
    assert any(r.category == "easy" for r in rows)
    assert len(check_thresholds(rows, [parse_threshold("pass@1=0.1")])) == 1


def test_no_rows_fails():
    [result] = check_thresholds([], [parse_threshold("pass@1=0.1")])
    assert not result.passed


# -- McNemar --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "b, c, expected",
    [
        (0, 5, 0.0625),  # 2 * (1/2)^5
        (5, 0, 0.0625),
        (1, 9, 0.021484375),  # 2 * (1 + 10) / 1024
        (10, 0, 0.001953125),  # 2 / 1024
        (0, 0, 1.0),
        (3, 3, 1.0),
        (4, 6, 0.75390625),  # 2 * (1 + 10 + 45 + 120 + 210) / 1024
    ],
)
def test_mcnemar_exact_matches_hand_computed_binomial(b, c, expected):
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)
    assert mcnemar_exact(b, c) == pytest.approx(binom_two_sided(b, c), rel=1e-12)


def test_mcnemar_large_counts_do_not_overflow():
    assert mcnemar_exact(600, 400) == pytest.approx(3.3e-10, rel=0.2)


def regression_run(failing: int, problems: int = 164) -> tuple[list[dict], list[dict]]:
    baseline = [rec(f"HumanEval/{i}", "passed") for i in range(problems)]
    current = [
        rec(f"HumanEval/{i}", "failed" if i % 30 == 7 and i // 30 < failing else "passed")
        for i in range(problems)
    ]
    if failing > 6:  # 164 // 30 gives 6 slots; spread any more over the first problems
        current = [
            rec(f"HumanEval/{i}", "failed" if i < failing else "passed") for i in range(problems)
        ]
    return current, baseline


def test_five_regressions_of_164_are_listed_but_not_significant():
    current, baseline = regression_run(5)
    result = compare_to_baseline(current, baseline)
    assert result.test == MCNEMAR
    assert result.paired == 164
    expected = {f"HumanEval/{i}" for i in (7, 37, 67, 97, 127)}
    assert {c.task_id for c in result.regressed} == expected
    assert all((c.before, c.after) == (1.0, 0.0) for c in result.regressed)
    assert result.improved == [] and result.unchanged == 159
    assert result.p_value == pytest.approx(0.0625)
    assert result.ci is None
    assert result.mean_before == 1.0
    assert result.delta == pytest.approx(-5 / 164)
    assert not result.significant_drop
    text = "\n".join(result.lines())
    assert "McNemar exact" in text and "p = 0.0625" in text
    assert "no significant drop" in text
    assert "humaneval HumanEval/7: 1.000 -> 0.000" in text


def test_ten_regressions_of_164_are_significant():
    current, baseline = regression_run(10)
    result = compare_to_baseline(current, baseline)
    assert len(result.regressed) == 10
    assert result.p_value == pytest.approx(0.001953125)
    assert result.significant_drop
    assert "-> significant drop at alpha = 0.05" in "\n".join(result.lines())


def test_improvements_are_never_a_significant_drop():
    baseline, current = regression_run(10)  # swapped: ten problems now pass
    result = compare_to_baseline(current, baseline)
    assert len(result.improved) == 10 and not result.regressed
    assert result.p_value < 0.05 and result.delta > 0
    assert not result.significant_drop


def test_pairing_ignores_ungraded_and_counts_unpaired():
    baseline = [rec("A", "passed"), rec("B", "passed"), rec("C", "api_error"), rec("D", "passed")]
    current = [rec("A", "failed"), rec("B", "missing"), rec("C", "passed"), rec("E", "passed")]
    result = compare_to_baseline(current, baseline)
    assert result.paired == 1
    assert [c.task_id for c in result.regressed] == ["A"]
    # B and D graded only in the baseline, C and E only now
    assert result.unpaired == {"only_current": 2, "only_baseline": 2}
    assert "not paired: 2 only in the current run, 2 only in the baseline" in result.lines()[-1]


def test_same_task_in_two_suites_is_two_problems():
    baseline = [rec("T/0", "passed", suite="a"), rec("T/0", "passed", suite="b")]
    current = [rec("T/0", "failed", suite="a"), rec("T/0", "passed", suite="b")]
    result = compare_to_baseline(current, baseline)
    assert [(c.suite, c.task_id) for c in result.regressed] == [("a", "T/0")]
    assert result.unchanged == 1


def test_a_resampled_sample_counts_once_as_its_last_record():
    baseline = [rec("A", "passed")]
    current = [rec("A", "crashed"), rec("A", "passed")]  # same sample index, graded again
    result = compare_to_baseline(current, baseline)
    assert result.test == MCNEMAR and not result.regressed and result.unchanged == 1


def test_no_paired_problems():
    result = compare_to_baseline([rec("A", "passed")], [rec("B", "passed")])
    assert result.paired == 0 and result.p_value == 1.0 and not result.significant_drop
    assert "no problem graded in both runs" in result.lines()[0]


def test_problems_graded_in_both_runs_but_all_n_a_are_not_called_ungraded():
    result = compare_to_baseline([rec("A", "passed")], [rec("A", "failed")], k=2)
    assert (result.paired, result.undefined, result.significant_drop) == (0, 1, False)
    assert result.lines() == [
        "baseline comparison (pass@2): no problem has pass@2 in both runs -> the run fails:"
        " nothing showed it holds its baseline",
        "unchanged: 0; 1 left out (pass@2 n/a: fewer than 2 graded samples)",
    ]


def test_long_lists_are_cut_at_twenty():
    current, baseline = regression_run(25)
    lines = compare_to_baseline(current, baseline).lines()
    listed = [line for line in lines if line.startswith("  humaneval ")]
    assert len(listed) == 20
    assert "  ... and 5 more" in lines
    assert "regressed (25):" in lines


# -- several samples per problem: sign-flip p-value, bootstrap CI ------------------------------


def multi_sample_run(
    drop_tasks: int, problems: int = 60, n: int = 5, before: int = 4, after: int = 1
) -> tuple[list, list]:
    """Every problem passes ``before`` of ``n`` samples; ``drop_tasks`` now pass ``after``."""
    baseline, current = [], []
    for t in range(problems):
        now_passing = after if t < drop_tasks else before
        for i in range(n):
            baseline.append(rec(f"T/{t}", "passed" if i < before else "failed", index=i))
            current.append(rec(f"T/{t}", "passed" if i < now_passing else "failed", index=i))
    return current, baseline


@pytest.mark.parametrize("b, c", [(0, 5), (1, 9), (10, 0), (4, 6), (3, 3), (17, 40)])
def test_sign_flip_on_pass_fail_differences_is_mcnemar(b, c):
    p, exact = sign_flip_p([-1.0] * b + [1.0] * c + [0.0] * 100)
    assert exact
    assert p == pytest.approx(mcnemar_exact(b, c), rel=1e-12)


@pytest.mark.parametrize("failing, p, significant", [(5, 0.0625, False), (10, 0.001953125, True)])
def test_many_samples_gate_like_one_sample(failing, p, significant):
    # 164 problems, 5 samples each: the same story as the one-sample McNemar scenario.
    current, baseline = multi_sample_run(failing, problems=164, n=5, before=5, after=0)
    result = compare_to_baseline(current, baseline)
    assert result.test == BOOTSTRAP
    assert len(result.regressed) == failing
    assert result.p_value == pytest.approx(p, rel=1e-12)
    assert result.significant_drop is significant


def test_a_drop_of_thirds_is_gated_on_its_exact_p_value():
    # Three samples a problem, 22 problems: the exact sign-flip p is 0.0674 (counted over the
    # 2**22 sign vectors in fractions); sums that tie, such as 1/3 + 1/3 and 2/3, once fell
    # out of the tail, giving p = 0.0443 and a significant drop.
    before = [1, 1, 2, 1, 2, 2, 3, 2, 3, 3, 0, 0, 2, 3, 2, 3, 1, 2, 0, 2, 1, 3]
    after = [2, 3, 0, 1, 1, 1, 0, 2, 0, 0, 0, 0, 3, 0, 2, 1, 2, 0, 1, 2, 2, 0]
    baseline, current = [], []
    for t, (b, a) in enumerate(zip(before, after, strict=True)):
        for i in range(3):
            baseline.append(rec(f"T/{t}", "passed" if i < b else "failed", index=i))
            current.append(rec(f"T/{t}", "passed" if i < a else "failed", index=i))
    result = compare_to_baseline(current, baseline)
    assert result.test == BOOTSTRAP and result.delta < 0
    assert result.p_value == pytest.approx(282752 / 2**22, rel=1e-9)
    assert not result.significant_drop


def test_bootstrap_ci_is_deterministic_and_independent_of_record_order():
    current, baseline = multi_sample_run(drop_tasks=3)
    first = compare_to_baseline(current, baseline, seed=7)
    again = compare_to_baseline(list(reversed(current)), list(reversed(baseline)), seed=7)
    assert first.test == BOOTSTRAP
    assert (first.p_value, first.ci, first.statistic) == (again.p_value, again.ci, again.statistic)
    assert first.p_value == pytest.approx(2 / 8)  # three equal drops: all-negative or all-positive
    low, high = first.ci
    assert low <= first.delta <= high <= 0
    diffs = [((i * 37) % 11 - 5) / 10 for i in range(200)]
    one, same, other = (bootstrap_ci(diffs, seed=seed, resamples=2000) for seed in (1, 1, 2))
    assert one == same and one != other


def test_few_drops_among_many_problems_are_not_significant():
    # A bootstrap p-value would call this significant (a resample misses all three drops
    # with probability ~0.05); the sign-flip test does not.
    current, baseline = multi_sample_run(drop_tasks=3, problems=1000)
    result = compare_to_baseline(current, baseline, resamples=1000)
    assert result.p_value == pytest.approx(0.25)
    assert not result.significant_drop


def test_bootstrap_clear_drop_is_significant():
    current, baseline = multi_sample_run(drop_tasks=30)
    result = compare_to_baseline(current, baseline)
    assert result.test == BOOTSTRAP
    assert result.delta == pytest.approx(-0.3)
    assert len(result.regressed) == 30
    assert result.regressed[0].before == pytest.approx(0.8)
    assert result.regressed[0].after == pytest.approx(0.2)
    assert result.p_value == pytest.approx(2 / 2**30)
    assert result.significant_drop
    low, high = result.ci
    assert low < -0.2 and high < -0.1
    text = "\n".join(result.lines())
    assert "paired bootstrap" in text and "sign-flip test (exact)" in text
    assert "95% CI of the change" in text and "-> significant drop" in text


def test_single_drop_is_not_significant():
    current, baseline = multi_sample_run(drop_tasks=1)
    result = compare_to_baseline(current, baseline)
    assert result.delta < 0
    assert result.p_value == 1.0 and not result.significant_drop


def test_identical_runs():
    current, baseline = multi_sample_run(drop_tasks=0)
    result = compare_to_baseline(current, baseline)
    assert result.test == BOOTSTRAP and result.p_value == 1.0 and result.ci == (0.0, 0.0)
    assert result.unchanged == 60 and not result.significant_drop


def test_sign_flip_monte_carlo_agrees_with_exact_and_is_seeded():
    diffs = [-(i % 7 + 1) / 9 for i in range(12)] + [(i % 5 + 1) / 9 for i in range(8)]
    exact, is_exact = sign_flip_p(diffs)
    assert is_exact
    estimate, is_exact = sign_flip_p(diffs, max_exact=0, seed=3)
    assert not is_exact
    assert estimate == pytest.approx(exact, abs=0.01)
    assert sign_flip_p(diffs, max_exact=0, seed=3) == (estimate, False)
    assert sign_flip_p(diffs, max_exact=0, seed=4)[0] != estimate
    # all 40 distinct magnitudes negative: far in the tail, but never p = 0
    p, is_exact = sign_flip_p([-(1 + i / 1000) for i in range(40)], max_exact=1000)
    assert not is_exact and p == pytest.approx(1 / 10_001)


def test_pass_at_k_above_one_and_undefined_problems():
    current, baseline = multi_sample_run(drop_tasks=2)
    baseline.append(rec("short", "passed"))
    current.append(rec("short", "failed"))
    result = compare_to_baseline(current, baseline, k=2)
    assert result.undefined == 1 and result.paired == 60
    assert "1 left out (pass@2 n/a" in result.lines()[-1]
    # pass@2 of 4/5 is 1.0; of 1/5 is 0.4
    assert [(c.before, c.after) for c in result.regressed] == [(1.0, pytest.approx(0.4))] * 2


def test_bad_arguments():
    with pytest.raises(ValueError):
        compare_to_baseline([], [], k=0)
    with pytest.raises(ValueError):
        compare_to_baseline([], [], alpha=1.5)


# -- tripwire -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "outcome, error, words",
    [
        (
            "unextractable",
            "no code block in the reply",
            "every one unextractable — the replies contain no code",
        ),
        (
            "error",
            "the code raised SyntaxError: invalid syntax (<candidate>, line 3)",
            "every one a SyntaxError",
        ),
        ("error", "the code raised IndentationError: unexpected indent", "every one a SyntaxError"),
        (
            "error",
            "the code raised ModuleNotFoundError: No module named 'numpy'",
            "every one a missing module",
        ),
        ("timeout", "no result within 3 s", "every one timed out"),
        ("crashed", "killed by SIGKILL (memory limit)", "every one crashed"),
        ("api_error", "HTTP 401: invalid api key", "every one an API error"),
        (
            "error",
            "test suite failed to run: Cannot find module 'react' from 'App.test.js'",
            "the Node/Jest environment",
        ),
        (
            "crashed",
            "grading did not complete: RunnerError: the Jest runner failed its warm-up",
            "the Node/Jest environment",
        ),
        (
            "error",
            "Test environment jest-environment-jsdom cannot be found",
            "the Node/Jest environment",
        ),
    ],
)
def test_tripwire_diagnoses_each_kind_once(outcome, error, words):
    wire = Tripwire(first_n=20)
    replies = [wire.observe(rec(f"T/{i}", outcome, error=error)) for i in range(19)]
    assert replies == [None] * 19 and not wire.tripped("humaneval")
    diagnosis = wire.observe(rec("T/19", outcome, error=error))
    assert diagnosis is not None and wire.tripped("humaneval")
    assert diagnosis.startswith("first 20 samples of humaneval: ")
    assert words in diagnosis
    assert "\n" not in diagnosis
    assert wire.observe(rec("T/20", outcome, error=error)) is None  # said once


def test_tripwire_names_the_first_error():
    wire = Tripwire(first_n=2)
    wire.observe(
        rec(
            "T/0",
            "error",
            error="the code raised ModuleNotFoundError: No module named 'numpy'\ntraceback...",
        )
    )
    diagnosis = wire.observe(rec("T/1", "error", error="ModuleNotFoundError: No module named 'x'"))
    assert diagnosis.endswith(
        "(first: the code raised ModuleNotFoundError: No module named 'numpy')"
    )


def test_tripwire_exact_unextractable_message():
    wire = Tripwire(first_n=3)
    out = [wire.observe(rec(f"T/{i}", "unextractable", error="no code")) for i in range(3)]
    assert (
        out[-1] == "first 3 samples of humaneval: every one unextractable — the replies "
        "contain no code"
    )


@pytest.mark.parametrize(
    "breaker",
    [
        rec("T/5", "passed"),
        rec("T/5", "timeout"),
        rec("T/5", "failed", error="check failed at line 3: assert f(1) == 2"),
        rec("T/5", "error", error="the code raised ZeroDivisionError: division by zero"),
    ],
)
def test_a_pass_or_another_kind_disarms(breaker):
    wire = Tripwire(first_n=10)
    for i in range(5):
        assert wire.observe(rec(f"T/{i}", "unextractable")) is None
    assert wire.observe(breaker) is None
    assert all(wire.observe(rec(f"U/{i}", "unextractable")) is None for i in range(30))
    assert not wire.tripped("humaneval")


def test_plain_failures_never_trip():
    wire = Tripwire(first_n=3)
    assert all(
        wire.observe(rec(f"T/{i}", "failed", error="check failed")) is None for i in range(10)
    )


def test_tripwire_is_per_suite_and_skips_missing():
    wire = Tripwire(first_n=3)
    wire.observe(rec("T/0", "passed", suite="good"))
    diagnoses = []
    for i in range(3):
        diagnoses.append(wire.observe(rec(f"T/{i}", "missing", suite="bad")))
        diagnoses.append(wire.observe(rec(f"T/{i}", "api_error", suite="bad", error="HTTP 500")))
        diagnoses.append(wire.observe(rec(f"T/{i}", "unextractable", suite="good")))
    assert [d for d in diagnoses if d] == [
        "first 3 samples of bad: every one an API error — the model API is failing "
        "(key, model name, quota?) (first: HTTP 500)"
    ]
    assert wire.tripped("bad") and not wire.tripped("good")


def test_tripwires_sharing_a_file_count_the_first_samples_of_the_run(tmp_path):
    # Two xdist workers: the suite stops after the run's first 4, not each worker's.
    first, second = (Tripwire(first_n=4, state_file=tmp_path / "tripwire.json") for _ in "ab")
    api = {"error": "connection error from ollama: Connection refused"}
    said = [
        wire.observe(rec(f"T/{i}", "api_error", **api))
        for i, wire in enumerate([first, second, second, first])
    ]
    assert said[:3] == [None] * 3 and said[3] is not None
    assert said[3].startswith("first 4 samples of humaneval: every one an API error")
    assert first.reason("humaneval") == second.reason("humaneval") == said[3]
    assert second.observe(rec("T/4", "api_error", **api)) is None  # said once, by one
    # A pass in either disarms the other's count too.
    assert first.observe(rec("T/0", "passed", suite="other")) is None
    assert all(second.observe(rec(f"U/{i}", "api_error", suite="other")) is None for i in range(9))
    assert not first.tripped("other") and not second.tripped("other")


def test_failure_kind():
    assert failure_kind(rec("T", "passed")) is None
    assert failure_kind(rec("T", "missing")) is None
    # a SyntaxError counts only when the sample itself errored, not in a failed check's text
    assert failure_kind(rec("T", "failed", error="SyntaxError in expected output")) is None
    with pytest.raises(ValueError):
        Tripwire(first_n=0)


# -- unstable -------------------------------------------------------------------------------


def test_unstable():
    first = {"a": "passed", "b": "failed", "c": "timeout", "d": "passed"}
    reruns = {
        "a": ["passed", "passed"],  # stable
        "b": ["failed", "passed"],  # flips on the second rerun
        "c": ["crashed"],  # timeout, then crashed: a different outcome
        "e": ["failed", "failed"],  # no first outcome, stable reruns
        "f": ["passed", "failed"],
    }
    assert unstable(first, reruns) == {"b", "c", "f"}
    assert unstable(first, {}) == set()
    assert unstable({}, {"x": []}) == set()
