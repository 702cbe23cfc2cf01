"""Time limits from the problem, not the host: each problem's limit is derived from its
reference's run time on this host (calibrated once per host, cached), --codegen-timeout caps
it, and a timeout is run again before it counts."""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import evalplus_data
import pytest
from conftest import XDIST_MODES, read_results, write_replay
from test_shards import write_suite as write_gen_suite

from pytest_codegen.execution.time_limits import FACTOR


@pytest.fixture
def calibration_cache(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache directory of the test's own: calibrations start from nothing."""
    cache = pytester.path / "codegen-cache"
    cache.mkdir(mode=0o755)
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(cache))
    return cache


def write_suite(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def problem(name: str, body: str, test: str, reference: str | None = None) -> dict:
    row = {
        "task_id": f"t/{name}",
        "prompt": f"def {name}(x):\n",
        "test": test,
        "entry_point": name,
    }
    if reference is not None:
        row["canonical_solution"] = reference
    return {**row, "body": body}


def suite_and_replay(pytester: pytest.Pytester, problems: list[dict]) -> list[str]:
    write_suite(
        pytester.path / "t.jsonl", [{k: v for k, v in p.items() if k != "body"} for p in problems]
    )
    write_replay(
        pytester.path / "replay.jsonl",
        [{"task_id": p["task_id"], "completion": p["body"]} for p in problems],
    )
    return ["t.jsonl", "--codegen-model=replay:replay.jsonl", "--codegen-results=r.jsonl"]


def records(pytester: pytest.Pytester) -> dict[str, dict]:
    return {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}


def busy_loops_per_second() -> float:
    """How many iterations of the loop below this host runs in a second of CPU."""
    n, started = 200_000, time.process_time()
    total = 0
    for i in range(n):
        total += i * i % 7
    return n / max(time.process_time() - started, 1e-3)


@contextlib.contextmanager
def on_one_cpu() -> Iterator[None]:
    """This thread, and every process it starts meanwhile, on one CPU: a hog there slows
    what the test runs as a hog on every CPU would, and leaves the other CPUs to the rest of
    the machine (the tests of another xdist worker, some of them timed)."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {max(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


@contextlib.contextmanager
def cpu_hog() -> Iterator[None]:
    """A real CPU-burning process on every CPU this process may use, for the duration."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    hogs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(usable or 1)
    ]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def test_a_sample_three_times_slower_than_its_reference_passes_idle_and_under_a_cpu_hog(
    pytester, calibration_cache
):
    # The reference loops for ~1.2 s here, the sample three times as long: past the floor of
    # 3 s, so only the factor lets it pass. A 60 s cap leaves the derived limit in charge.
    n = int(busy_loops_per_second() * 1.2)
    loop = "    total = 0\n    for i in range({n}):\n        total += i * i % 7\n    return x + 1\n"
    args = suite_and_replay(
        pytester,
        [
            problem(
                "slow",
                loop.format(n=3 * n),
                "def check(candidate):\n    assert candidate(1) == 2\n",
                reference=loop.format(n=n),
            )
        ],
    )
    with on_one_cpu():  # the runs, their samples and the hog
        idle = pytester.runpytest_subprocess(*args, "--codegen-timeout=60")
        first = records(pytester)["t/slow"]
        assert first["outcome"] == "passed", first["error"]
        limit = first["time_limit"]
        assert limit["source"] == "reference" and limit["limit_s"] > 3.0 and limit["cap_s"] == 60
        assert limit["limit_s"] == pytest.approx(FACTOR * limit["reference_s"], rel=1e-3)
        assert first["duration_s"] > 2 * limit["reference_s"]  # it is the slower one
        assert idle.ret == 0
        # The hog starts after calibration: the reference's idle time stands, the sample is
        # slowed.
        with cpu_hog():
            loaded = pytester.runpytest_subprocess(*args, "--codegen-timeout=60")
    again = records(pytester)["t/slow"]
    assert again["outcome"] == "passed", again["error"]
    assert again["time_limit"]["calibration"]["cached"] is True
    assert again["time_limit"]["limit_s"] == limit["limit_s"]
    assert loaded.ret == 0


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_sample_that_loops_forever_times_out_at_its_derived_limit(
    pytester, calibration_cache, xdist
):
    args = suite_and_replay(
        pytester,
        [
            problem(
                "inc",
                "    while True:\n        pass\n",
                "def check(candidate):\n    assert candidate(1) == 2\n",
                reference="    return x + 1\n",
            ),
            problem(  # no reference: the cap is its limit
                "noref",
                "    return x + 1\n",
                "def check(candidate):\n    assert candidate(1) == 2\n",
            ),
            problem(  # a reference that fails here: no time to go by either
                "badref",
                "    return x + 1\n",
                "def check(candidate):\n    assert candidate(1) == 2\n",
                reference="    return x\n",
            ),
        ],
    )
    result = pytester.runpytest_subprocess(*args, "--codegen-timeout=30", *xdist)
    looping, noref = records(pytester)["t/inc"], records(pytester)["t/noref"]
    assert looping["outcome"] == "timeout"
    assert looping["time_limit"]["limit_s"] == 3.0 and looping["time_limit"]["source"] == "floor"
    assert looping["time_limit"]["cap_s"] == 30.0
    assert looping["error"].startswith(
        "no result within 3 s; this problem's limit: the floor of 3 s ("
    )
    assert looping["timeout_rerun"] is True  # a timeout counts only when it happens twice
    assert noref["outcome"] == "passed"
    assert noref["time_limit"] == {
        "limit_s": 30.0,
        "source": "cap",
        "cap_s": 30.0,
        "why": "the problem has no reference solution",
    }
    badref = records(pytester)["t/badref"]
    assert badref["outcome"] == "passed"
    assert badref["time_limit"]["limit_s"] == 30.0
    assert badref["time_limit"]["why"] == "its reference does not pass on this host (failed)"
    result.stdout.fnmatch_lines(
        ["timeouts run again: 1 samples timed out once; 1 timed out again*"]
    )


def test_the_flat_rule_gives_every_sample_the_cap(pytester, calibration_cache):
    args = suite_and_replay(
        pytester,
        [
            problem(
                "inc",
                "    return x + 1\n",
                "def check(candidate):\n    assert candidate(1) == 2\n",
                reference="    return x + 1\n",
            )
        ],
    )
    pytester.runpytest_subprocess(*args, "--codegen-timeout=7", "--codegen-timeout-rule=flat")
    limit = records(pytester)["t/inc"]["time_limit"]
    assert limit == {
        "limit_s": 7.0,
        "source": "cap",
        "cap_s": 7.0,
        "why": "--codegen-timeout-rule=flat",
    }
    assert not (calibration_cache / "calibration").exists()  # nothing measured


def test_a_timeout_is_run_again_and_the_second_run_counts(pytester, calibration_cache):
    # The tests run in the trusted process and count the sample's runs in a file (the sample
    # says who it is; the reference's calibration may take one run or several): run 1 loops
    # on -1, run 2 does not.
    counter = pytester.path / "runs"
    test = (
        "def check(candidate):\n"
        "    if candidate(0) == 'sample':\n"
        f"        path = {str(counter)!r}\n"
        "        import os\n"
        "        runs = int(open(path).read()) + 1 if os.path.exists(path) else 1\n"
        "        open(path, 'w').write(str(runs))\n"
        "        if runs == 1:\n"
        "            assert candidate(-1) == 0\n"
        "    assert candidate(1) == 2\n"
    )
    args = suite_and_replay(
        pytester,
        [
            problem(
                "inc",
                "    if x == 0:\n        return 'sample'\n"
                "    while x < 0:\n        pass\n    return x + 1\n",
                test,
                reference="    return x + 1\n",
            )
        ],
    )
    result = pytester.runpytest_subprocess(*args)
    record = records(pytester)["t/inc"]
    assert counter.read_text() == "2"
    assert record["outcome"] == "passed" and record["timeout_rerun"] is True
    result.stdout.fnmatch_lines(
        ["timeouts run again: 1 samples timed out once; 0 timed out again, 1 did not*"]
    )
    assert result.ret == 0


def gen_suite(pytester: pytest.Pytester) -> list[str]:
    write_gen_suite(pytester.path / "gen.jsonl", 4)
    return ["gen.jsonl", "--codegen-model=reference", "--codegen-samples=3"]


def calibrations(pytester: pytest.Pytester, results: str) -> dict[str, list[dict]]:
    by_task: dict[str, list[dict]] = {}
    for r in read_results(pytester.path / results):
        by_task.setdefault(r["task_id"], []).append(r["time_limit"]["calibration"])
    return by_task


def test_calibration_is_measured_once_per_host_and_reused(pytester, calibration_cache):
    args = gen_suite(pytester)
    pytester.runpytest_subprocess(*args, "-n", "2", "--codegen-results=first.jsonl")
    first = calibrations(pytester, "first.jsonl")
    assert len(first) == 4
    for seen in first.values():  # two workers, three samples: one measurement
        assert [c["cached"] for c in seen].count(False) == 1
        assert len({c["measured_at"] for c in seen}) == 1
    pytester.runpytest_subprocess(*args, "--codegen-results=second.jsonl")
    second = calibrations(pytester, "second.jsonl")
    for task, seen in second.items():
        assert all(c["cached"] for c in seen)
        assert {c["measured_at"] for c in seen} == {first[task][0]["measured_at"]}
    hosts = list((calibration_cache / "calibration").iterdir())
    assert len(hosts) == 1

    # Another host (a UTS namespace of its own, under another name) measures for itself.
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("another host name needs unshare and root")
    command = " ".join(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", *args]
        + ["--codegen-results=other.jsonl"]
    )
    subprocess.run(
        ["unshare", "--uts", "sh", "-c", f"hostname codegen-other-host && exec {command}"],
        cwd=pytester.path,
        check=True,
        capture_output=True,
    )
    other = calibrations(pytester, "other.jsonl")
    for seen in other.values():
        assert [c["cached"] for c in seen] == [False, True, True]
        assert {c["host"] for c in seen} == {"codegen-other-host"}
    assert len(list((calibration_cache / "calibration").iterdir())) == 2


GUARD_CONFTEST = """
import json, pytest

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    marker = item.get_closest_marker("timeout")
    with open("guards.jsonl", "a") as out:
        out.write(json.dumps({"node": item.nodeid, "guard_s": marker.args[0]}) + "\\n")
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_pytest_timeout_leaves_a_suite_with_its_own_limits_all_of_them(
    pytester, calibration_cache, xdist
):
    # The guard is pytest-timeout's limit of an item's call, as the item gets it.
    # APPS gives each of a problem's 30 tests 4 s, a sample (4 + 1) x 30 + 5 = 155 s in all:
    # a right answer taking 3 s a test passes there, and must not be cut here by the outer
    # guard (it was 80 s, from the 10 s cap), nor must its rerun after a timeout.
    pytester.makeconftest(GUARD_CONFTEST)
    io = {"inputs": [f"{i}\n" for i in range(30)], "outputs": [f"{i + 1}\n" for i in range(30)]}
    row = {
        "problem_id": 4000,
        "question": "Add one.",
        "solutions": json.dumps(["print(int(input()) + 1)\n"]),
        "input_output": json.dumps(io),
        "difficulty": "introductory",
        "url": "https://example.org/4000",
        "starter_code": "",
    }
    write_suite(pytester.path / "apps.jsonl", [row])
    write_suite(pytester.path / "HumanEvalPlus-tiny.jsonl", evalplus_data.HUMANEVAL[:1])
    inc = "    return x + 1\n"
    suite_and_replay(pytester, [problem("inc", inc, "def check(c):\n    assert c(1) == 2\n", inc)])
    result = pytester.runpytest_subprocess(
        "apps.jsonl",
        "HumanEvalPlus-tiny.jsonl",
        "t.jsonl",
        "--codegen-model=reference",
        "--codegen-results=r.jsonl",
        *xdist,
    )
    assert result.ret == 0
    guards = {
        g["node"]: g["guard_s"]
        for g in map(json.loads, (pytester.path / "guards.jsonl").read_text().splitlines())
    }
    assert guards["apps.jsonl::4000[s0]"] >= 2 * ((4 + 1) * 30 + 5)
    # EvalPlus: the base and the plus inputs, each set up to 60 + 2 s
    assert guards["HumanEvalPlus-tiny.jsonl::HumanEval_0[s0]"] >= 2 * 2 * 62
    assert guards["t.jsonl::t_inc[s0]"] == 2 * 10 + 60  # the cap's, as before


SHORT_GUARD_CONFTEST = """
import pytest

@pytest.hookimpl(trylast=True)
def pytest_runtest_setup(item):
    if "loops" in item.nodeid:
        item.add_marker(pytest.mark.timeout(0.5, func_only=True), append=False)
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_sample_cut_by_pytest_timeout_says_so(pytester, calibration_cache, xdist):
    # A guard shorter than the sample's limit (a user's marker): the record says what ended
    # the grading, not where in the plugin's code it was.
    pytester.makeconftest(SHORT_GUARD_CONFTEST)
    check = "def check(candidate):\n    assert candidate(1) == 2\n"
    inc = "    return x + 1\n"
    args = suite_and_replay(
        pytester,
        [
            problem("loops", "    while True:\n        pass\n", check, inc),
            problem("inc", inc, check, inc),
        ],
    )
    result = pytester.runpytest_subprocess(*args, *xdist)
    cut, graded = records(pytester)["t/loops"], records(pytester)["t/inc"]
    assert cut["outcome"] == "crashed"
    assert cut["error"] == "grading did not complete: Failed: Timeout (>0.5s) from pytest-timeout."
    assert graded["outcome"] == "passed"
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_reference_that_does_not_pass_is_graded_once_per_process(
    pytester, calibration_cache, xdist
):
    # The tests run in the trusted process and count the reference's gradings in a file.
    # One that failed (or ran past the cap, the costly case) gave no time to go by; it was
    # graded again for every sample, and for every rerun of a timeout.
    counter = pytester.path / "reference-runs"
    test = (
        "def check(candidate):\n"
        "    if candidate(0) == 'reference':\n"
        f"        path = {str(counter)!r}\n"
        "        import os\n"
        "        runs = int(open(path).read()) + 1 if os.path.exists(path) else 1\n"
        "        open(path, 'w').write(str(runs))\n"
        "        assert False, 'the reference fails here'\n"
        "    assert candidate(1) == 2\n"
    )
    reference = "    if x == 0:\n        return 'reference'\n    return x\n"
    args = suite_and_replay(pytester, [problem("inc", "    return x + 1\n", test, reference)])
    answer = {"task_id": "t/inc", "completion": "    return x + 1\n"}
    write_replay(pytester.path / "replay.jsonl", [answer] * 3)
    result = pytester.runpytest_subprocess(*args, "--codegen-samples=3", *xdist)
    assert result.ret == 0
    processes = 2 if xdist else 1
    assert 1 <= int(counter.read_text()) <= processes
    for record in read_results(pytester.path / "r.jsonl"):
        assert record["outcome"] == "passed"
        assert record["time_limit"]["why"] == "its reference does not pass on this host (failed)"


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_calibration_file_that_says_nan_is_measured_again(pytester, calibration_cache, xdist):
    # JSON files may hold NaN (Python writes and reads it): such a time made the limit NaN,
    # and every sample of the problem failed ("ValueError: Invalid value NaN").
    inc = "    return x + 1\n"
    check = "def check(candidate):\n    assert candidate(1) == 2\n"
    args = suite_and_replay(pytester, [problem("inc", inc, check, inc)])
    pytester.runpytest_subprocess(*args)
    files = list((calibration_cache / "calibration").glob("*/*.json"))
    assert len(files) == 1
    entry = json.loads(files[0].read_text())
    files[0].write_text(json.dumps({**entry, "reference_s": math.nan, "runs": 3}))
    result = pytester.runpytest_subprocess(*args, *xdist)
    record = records(pytester)["t/inc"]
    assert record["outcome"] == "passed", record["error"]
    assert record["time_limit"]["limit_s"] == 3.0
    assert record["time_limit"]["calibration"]["cached"] is False
    assert math.isfinite(json.loads(files[0].read_text())["reference_s"])
    assert result.ret == 0


OWN_GUARD_SHORTENED_CONFTEST = """
import pytest

@pytest.hookimpl(trylast=True)
def pytest_runtest_setup(item):
    if "loops" in item.nodeid:  # the plugin's own guard, as it is, but short
        guard = item.get_closest_marker("timeout")
        item.add_marker(pytest.mark.timeout(0.5, **guard.kwargs), append=False)
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_plugins_guard_ends_a_sample_not_the_run_whatever_the_timeout_method(
    pytester, calibration_cache, xdist
):
    # pytest-timeout's thread method ends the whole process: without xdist, the samples
    # after the one cut were never graded, and the run ended without a summary or results.
    pytester.makeconftest(OWN_GUARD_SHORTENED_CONFTEST)
    check = "def check(candidate):\n    assert candidate(1) == 2\n"
    inc = "    return x + 1\n"
    args = suite_and_replay(
        pytester,
        [problem("loops", "    while True:\n        pass\n", check, inc)]
        + [problem(name, inc, check, inc) for name in ("inc", "add")],
    )
    result = pytester.runpytest_subprocess(
        *args, "--timeout-method=thread", "-p", "no:randomly", *xdist
    )
    found = records(pytester)
    assert found["t/loops"]["outcome"] == "crashed"
    assert "Timeout (>0.5s) from pytest-timeout" in found["t/loops"]["error"]
    assert found["t/inc"]["outcome"] == found["t/add"]["outcome"] == "passed"
    result.stdout.fnmatch_lines(["t *(all) *3 *3 *2 *0 *0 *0 *1 *"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED
