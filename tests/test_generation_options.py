"""Repair rounds, prompt templates, prices and rate limits, through a real HTTP model server."""

from __future__ import annotations

import json

import pytest
from conftest import TINY, XDIST_MODES, read_results, run_vllm, write_replay
from fake_providers import FakeProviders, Reply

from pytest_codegen.generation.cost import parse_prices
from pytest_codegen.generation.prompts import build_prompt, repair_prompt
from pytest_codegen.models.base import Prompt
from pytest_codegen.problems import MODE_JEST, Problem
from pytest_codegen.scoring.passk import repair_curve

PROBLEMS = [json.loads(line) for line in TINY.read_text().splitlines()]
REPAIR_MARK = "This earlier answer failed the tests"


def answer(request, right: bool) -> str:
    for p in PROBLEMS:
        if json.dumps(p["prompt"])[1:-1] in json.dumps(request.body):
            body = p["canonical_solution"] if right else "    return None\n"
            return f"```python\n{p['prompt']}{body}```"
    return "no idea"


def wrong_then_fixed(request, index: int) -> str:
    """A model that gets every problem wrong first and fixes it when shown its failure."""
    return answer(request, right=REPAIR_MARK in request.user_text)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_repair_rounds_ask_again_with_the_failure(pytester, tiny, xdist):
    with FakeProviders(reply=wrong_then_fixed, openai_key=None) as server:
        result = run_vllm(pytester, server, str(tiny), "--codegen-repair-rounds=2", *xdist)
        # The first answer decides the sample (and pass@k); the rounds are reported apart.
        result.assert_outcomes(failed=3)
        result.stdout.fnmatch_lines(
            ["*tiny*0.000*", "repair rounds, pass@1 of tiny: 0.000 -> 1.000 -> 1.000"]
        )
        records = read_results(pytester.path / "r.jsonl")
        assert {r["outcome"] for r in records} <= {"failed", "error"}
        assert all([x["round"] for x in r["repairs"]] == [1] for r in records)  # stops on pass
        assert {r["repairs"][0]["outcome"] for r in records} == {"passed"}
        repairs = [r for r in server.requests if REPAIR_MARK in r.user_text]
        assert len(repairs) == 3 and len(server.requests) == 6
        add = next(r.user_text for r in repairs if "def add(" in r.user_text)
        assert "    return None" in add  # the failed code ...
        assert "Below is the test log\n" in add and "assert" in add  # ... and why it failed
        assert add.startswith(PROBLEMS[0]["prompt"])  # the task itself comes first
        before = len(server.requests)
        run_vllm(pytester, server, str(tiny), "--codegen-repair-rounds=2", *xdist)
        assert len(server.requests) == before  # repairs are cached like first answers


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_repair_round_asked_as_the_one_before_is_asked_again(pytester, tiny, xdist):
    # A model that repeats its wrong answer once: round 2's prompt is round 1's (the same
    # code, the same log), and was answered with round 1's answer instead of asked again.
    asked: dict[str, int] = {}

    def fixed_on_second_repair(request, index: int) -> str:
        if REPAIR_MARK in request.user_text:
            asked[request.user_text] = asked.get(request.user_text, 0) + 1
        return answer(request, right=asked.get(request.user_text, 0) >= 2)

    with FakeProviders(reply=fixed_on_second_repair, openai_key=None) as server:
        result = run_vllm(pytester, server, str(tiny), "--codegen-repair-rounds=2", *xdist)
        result.stdout.fnmatch_lines(["repair rounds, pass@1 of tiny: 0.000 -> 0.000 -> 1.000"])
        assert len(server.requests) == 9  # each problem: its first answer and two rounds
        before = len(server.requests)
        run_vllm(pytester, server, str(tiny), "--codegen-repair-rounds=2", *xdist)
        assert len(server.requests) == before  # each round's answer is cached as its own


def test_repair_rounds_from_a_replay(pytester, tiny):
    add, rev = PROBLEMS[0], PROBLEMS[1]
    write_replay(
        pytester.path / "s.jsonl",
        [
            {"task_id": add["task_id"], "completion": "    return 0\n"},
            {
                "task_id": add["task_id"],
                "sample_index": 0,
                "repair_round": 1,
                "completion": "    return 1\n",
            },
            {
                "task_id": add["task_id"],
                "sample_index": 0,
                "repair_round": 2,
                "completion": add["canonical_solution"],
            },
            {"task_id": rev["task_id"], "completion": "    return s\n"},  # no repair recorded
        ],
    )
    result = pytester.runpytest_subprocess(
        str(tiny),
        "--codegen-model=replay:s.jsonl",
        "--codegen-repair-rounds=3",
        "--codegen-results=r.jsonl",
    )
    result.stdout.fnmatch_lines(["repair rounds, pass@1 of tiny: 0.000 -> 0.000 -> 0.500 -> 0.500"])
    records = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert [x["outcome"] for x in records["tiny/add"]["repairs"]] == ["failed", "passed"]
    assert [x["outcome"] for x in records["tiny/reverse_words"]["repairs"]] == ["missing"]


def test_replay_repair_line_needs_its_sample(pytester, tiny):
    write_replay(
        pytester.path / "s.jsonl", [{"task_id": "tiny/add", "repair_round": 1, "completion": "x"}]
    )
    result = pytester.runpytest_subprocess(str(tiny), "--codegen-model=replay:s.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*s.jsonl:1: a repair answer needs its 'sample_index'*"])


def test_repair_curve_counts_a_sample_passed_from_its_round_on():
    records = [
        {"suite": "s", "task_id": "a", "outcome": "passed"},
        {
            "suite": "s",
            "task_id": "a",
            "outcome": "failed",
            "repairs": [{"round": 1, "outcome": "failed"}, {"round": 2, "outcome": "passed"}],
        },
        {
            "suite": "s",
            "task_id": "b",
            "outcome": "error",
            "repairs": [{"round": 1, "outcome": "passed"}],
        },
        {"suite": "s", "task_id": "b", "outcome": "missing"},  # not graded: not counted
    ]
    assert repair_curve(records, 2) == {"s": [0.25, 0.75, 1.0]}


def test_webapp1k_repair_prompt_is_the_papers():
    problem = Problem(
        id="blogging/addComment",
        suite="react",
        category="blogging",
        language="javascript",
        mode=MODE_JEST,
        prompt="Generate ...",
        tests="test('a', ...);\ntest('b', ...);\n",
        extra={"solution_filename": "addComment.js"},
    )
    prompt = repair_prompt(
        problem,
        Prompt("Generate ...", system="You are a code generator."),
        "export default () => null;",
        "\x1b[31mTestingLibraryElementError\n",
    )
    assert prompt.system == "You are a code generator."
    assert prompt.text == (
        "export default () => null;\n"
        "The above code is the implementation of addComment.js. It failed the tests below\n"
        "test('a', ...);\ntest('b', ...);\n\n"
        "Below is the test log\n\x1b[31mTestingLibraryElementError\n"
        "Try to generate addComment.js again to pass the tests. RETURN CODE ONLY."
    )


def test_repair_prompt_quotes_the_end_of_a_long_log():
    problem = Problem(
        id="p",
        suite="s",
        category="c",
        language="python",
        mode="python-call",
        prompt="def f():\n",
        tests="",
    )
    text = repair_prompt(
        problem, Prompt("def f():\n"), "def f(): pass", "x" * 10_000 + "LAST LINE"
    ).text
    assert "LAST LINE" in text and len(text) < 4000


# -- prompt templates


def test_prompt_templates_fill_fields_and_keep_code_braces(pytester, tiny):
    (pytester.path / "all.txt").write_text("[{task_id}] {category}\n{prompt}\nconst x = {a: 1};")
    (pytester.path / "tiny.txt").write_text("Suite {suite}: {prompt}")
    with FakeProviders(reply=lambda r, i: answer(r, True), openai_key=None) as server:
        run_vllm(
            pytester, server, "tiny.jsonl::tiny_add", "--codegen-prompt-template=all.txt"
        ).assert_outcomes(passed=1)
        assert server.requests[-1].user_text == (
            f"[tiny/add] arith\n{PROBLEMS[0]['prompt']}\nconst x = {{a: 1}};"
        )
        pytester.makeini("[pytest]\ncodegen_prompt_template =\n    all.txt\n    tiny=tiny.txt\n")
        run_vllm(pytester, server, "tiny.jsonl::tiny_add").assert_outcomes(passed=1)
        assert server.requests[-1].user_text == f"Suite tiny: {PROBLEMS[0]['prompt']}"


def test_build_prompt_without_template_is_the_suites_own():
    problem = Problem(
        id="p",
        suite="s",
        category="c",
        language="python",
        mode="python-call",
        prompt="def f():\n",
        tests="",
    )
    assert build_prompt(problem, "sys", {"other": "{task_id}"}) == Prompt("def f():\n", "sys")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "--codegen-prompt-template: cannot read prompt template *nope.txt*"),
        ("no fields here", "--codegen-prompt-template: prompt template *uses none of the fields*"),
    ],
)
def test_bad_prompt_template_fails_at_start(pytester, tiny, content, message):
    if content is not None:
        (pytester.path / "nope.txt").write_text(content)
    result = pytester.runpytest_subprocess(
        str(tiny), "--codegen-model=reference", "--codegen-prompt-template=nope.txt"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}"])


# -- cost, latency and rate limits


def test_prices_give_cost_per_sample_and_in_summary(pytester, tiny):
    with FakeProviders(
        reply=lambda r, i: answer(r, True), openai_key=None, latency_s=0.05
    ) as server:
        result = run_vllm(pytester, server, str(tiny), "--codegen-prices=vllm:tiny-coder = 1 2")
    result.assert_outcomes(passed=3)
    records = read_results(pytester.path / "r.jsonl")
    for r in records:
        assert r["cost_usd"] == pytest.approx(
            (r["prompt_tokens"] * 1 + r["completion_tokens"] * 2) / 1e6
        )
    total = sum(r["cost_usd"] for r in records)
    # Latencies as measured (each at least the server's delay; no upper bound: a loaded
    # machine may take any time), and the summary's quantiles of those very values.
    latencies = sorted(r["latency_s"] for r in records)
    assert len(latencies) == 3 and latencies[0] >= 0.05
    result.stdout.fnmatch_lines(
        [
            f"latency per sample: median {latencies[1]:.2f} s, p95 {latencies[2]:.2f} s"
            " (3 samples generated in this run)",
            f"cost: ${total:.4f} for these 3 samples, ${total:.4f} spent in this run*",
        ]
    )


def cut_on_add(request, index: int) -> Reply:
    """Right answers, the one to tiny/add cut at the token limit (a wrong one)."""
    if "def add(" in request.user_text:
        return Reply("```python\ndef add(a, b):\n    return", finish_reason="length")
    return Reply(answer(request, True))


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_answer_cut_at_the_token_limit_is_recorded_and_counted(pytester, tiny, xdist):
    with FakeProviders(reply=cut_on_add, openai_key=None) as server:
        for run in ("asked", "cached"):  # the cache keeps why each answer stopped
            result = run_vllm(pytester, server, str(tiny), "--codegen-max-tokens=64", *xdist)
            result.assert_outcomes(passed=2, failed=1)
            reasons = {
                r["task_id"]: r["finish_reason"] for r in read_results(pytester.path / "r.jsonl")
            }
            assert reasons == {
                "tiny/add": "length",
                "tiny/reverse_words": "stop",
                "tiny/Counter": "stop",
            }, run
            result.stdout.fnmatch_lines(
                ["truncated: 1 of 3 answers stopped at the token limit (finish_reason length,*"]
            )
        assert len(server.requests) == 3
    # Replayed, the results file's answers keep why they stopped.
    replayed = pytester.runpytest_subprocess(
        str(tiny), "--codegen-model=replay:r.jsonl", "--codegen-results=again.jsonl", *xdist
    )
    replayed.assert_outcomes(passed=2, failed=1)
    again = {
        r["task_id"]: r.get("finish_reason") for r in read_results(pytester.path / "again.jsonl")
    }
    assert again == reasons


def test_bad_price_fails_at_start(pytester, tiny):
    result = pytester.runpytest_subprocess(
        str(tiny), "--codegen-model=reference", "--codegen-prices=gpt = cheap"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--codegen-prices: bad price 'gpt = cheap'*"])


def test_parse_prices_by_alias_or_spec():
    assert parse_prices(["coder = 0.9 0.9", "openai:gpt-4o = 2.5 10"]) == {
        "coder": (0.9, 0.9),
        "openai:gpt-4o": (2.5, 10.0),
    }


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_requests_per_minute_is_shared_by_workers(pytester, tiny, xdist):
    with FakeProviders(reply=lambda r, i: answer(r, True), openai_key=None) as server:
        run_vllm(
            pytester, server, str(tiny), "--codegen-requests-per-minute=30", *xdist
        ).assert_outcomes(passed=3)
    arrivals = sorted(r.time for r in server.requests)
    assert len(arrivals) == 3
    # One request every two seconds, whichever process sends it: the third leaves about four
    # seconds after the first. A bucket per worker would let it leave after two (one worker
    # sends two); the margin between is for a loaded machine, where a request may reach the
    # server a while after the bucket let it go.
    assert arrivals[-1] - arrivals[0] >= 3.0


def test_react_repair_round_uses_webapp1k_retry_prompt(pytester):
    from conftest import ROOT

    test_file = ROOT / "benchmarks" / "react" / "blogging" / "publishPost.test.js"
    reference = (test_file.parent / "publishPost.js").read_text()
    empty = "import React from 'react';\nexport default function App() { return null; }\n"

    def reply(request, index):
        text = request.user_text
        return (
            reference
            if text.endswith(
                "Try to generate publishPost.js again to pass the tests. RETURN CODE ONLY."
            )
            else empty
        )

    with FakeProviders(reply=reply, openai_key=None) as server:
        result = run_vllm(
            pytester, server, str(test_file), "--codegen-repair-rounds=1", timeout=600
        )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["repair rounds, pass@1 of react: 0.000 -> 1.000"])
    retry = server.requests[-1].user_text
    assert retry.startswith(
        empty.rstrip() + "\nThe above code is the implementation of "
        "publishPost.js. It failed the tests below\n" + test_file.read_text()
    )
    log = retry.split("Below is the test log\n", 1)[1]
    assert "publish" in log.lower()  # the failing Jest test's name and message
    [record] = read_results(pytester.path / "r.jsonl")
    assert record["repairs"][0]["outcome"] == "passed" and record["repairs"][0]["code"]
