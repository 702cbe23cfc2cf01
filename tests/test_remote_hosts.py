"""xdist workers on another host (``--tx socket=...``), and runs resumed after a worker or host
died: a real execnet socket server on 127.0.0.1, in a directory of its own, is the second host;
a real model server on 127.0.0.1 counts the requests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, outcomes_by_node, read_results, write_replay
from fake_providers import FakeProviders
from socket_host import SocketHost

from pytest_codegen.collect.builtin_suites import builtin_suites
from pytest_codegen.scoring.passk import summarize

EVERYDAY = [
    json.loads(line)
    for line in (ROOT / "benchmarks" / "python" / "everyday.jsonl").read_text().splitlines()
]
SAMPLES = 2
ANSWER_KEY = builtin_suites()["everyday"]  # hidden from samples on every host


def answer(request, index: int) -> str:
    """The reference for most problems, a wrong answer for the "dates" ones; a function's
    answer first tries to read the suite file (the answer key) and fails if it can."""
    text = json.dumps(request.body)
    for p in EVERYDAY:
        if json.dumps(p["prompt"])[1:-1] not in text:
            continue
        if p["category"] == "dates":
            return f"```python\n{p['prompt']}    raise NotImplementedError\n```\n"
        probe = ""
        if f"def {p['entry_point']}(" in p["prompt"]:
            probe = (
                f"    try:\n        open({str(ANSWER_KEY)!r}).close()\n"
                "    except OSError:\n        pass\n"
                "    else:\n        return 'the answer key was readable'\n"
            )
        return f"```python\n{p['prompt']}{probe}{p['canonical_solution']}```\n"
    return "no"


@pytest.fixture
def socket_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SocketHost]:
    host = SocketHost(tmp_path_factory.mktemp("far-host"))
    yield host
    host.stop()


@pytest.fixture
def server() -> Iterator[FakeProviders]:
    with FakeProviders(reply=answer, openai_key=None) as fake:
        yield fake


def requested(server: FakeProviders) -> int:
    """Samples the model was asked for so far."""
    return sum(r.n for r in server.requests)


def run(pytester: pytest.Pytester, server: FakeProviders, *args: str, timeout: float = 300):
    return pytester.runpytest_subprocess(
        "--codegen-model=vllm:tiny-coder",
        f"--codegen-base-url={server.openai_url}",
        "--codegen-suite=everyday",
        f"--codegen-samples={SAMPLES}",
        "--codegen-k=1,2",
        "-p",
        "no:randomly",
        *args,
        timeout=timeout,
    )


def pass_at_k(path: Path) -> list[dict]:
    return [row.to_json() for row in summarize(read_results(path), (1, 2))]


def test_socket_host_grades_like_a_local_run_and_a_rerun_requests_nothing(
    pytester, server, socket_host
):
    samples = len(EVERYDAY) * SAMPLES
    local = run(pytester, server, "--codegen-cache=local-cache", "--codegen-results=local.jsonl")
    local.assert_outcomes(passed=samples - 14, failed=14)
    assert requested(server) == samples
    before = requested(server)

    remote_args = (socket_host.tx("far"), "--tx=popen//id=near", "--dist=load", "-v")
    first = run(pytester, server, *remote_args, "--codegen-results=remote.jsonl")
    first.assert_outcomes(passed=samples - 14, failed=14)
    graded_far = [line for line in first.outlines if line.startswith("[far]")]
    assert len(graded_far) > 5, first.outlines[-30:]  # the other host graded its share
    # Each sample requested once, whichever host graded it (each would prefetch them all).
    assert requested(server) - before == samples
    assert outcomes_by_node(pytester.path / "remote.jsonl") == outcomes_by_node(
        pytester.path / "local.jsonl"
    )
    assert pass_at_k(pytester.path / "remote.jsonl") == pass_at_k(pytester.path / "local.jsonl")
    # The sandbox is the same there: the answer key unreadable, the same isolation.
    remote_records = read_results(pytester.path / "remote.jsonl")
    assert {r["isolation"] for r in remote_records} == {
        r["isolation"] for r in read_results(pytester.path / "local.jsonl")
    }

    before = requested(server)
    again = run(pytester, server, *remote_args, "--codegen-results=again.jsonl")
    again.assert_outcomes(passed=samples - 14, failed=14)
    assert requested(server) == before  # zero requests on the rerun
    assert any(line.startswith("[far]") for line in again.outlines)
    assert all(r.get("cached") for r in read_results(pytester.path / "again.jsonl"))
    assert pass_at_k(pytester.path / "again.jsonl") == pass_at_k(pytester.path / "local.jsonl")


# Registered by a conftest.py: kills the process it runs in (the socket host, or one xdist
# worker) while it grades its 10th sample, as a machine that goes away mid-run.
KILLER = """
import os, signal

class Killer:
    graded = 0

    def pytest_runtest_call(self, item):
        self.graded += 1
        if self.graded == 10 and os.environ.get("PYTEST_XDIST_WORKER") in {"far", "gw0"}:
            os.kill(os.getpid(), signal.SIGKILL)

def pytest_configure(config):
    config.pluginmanager.register(Killer())
"""


def verdicts(records: list[dict]) -> list[str]:
    """The node ids of the records that are a sample's verdict (not a record of a sample that
    was lost: its process died, the run ended first)."""
    lost = ("the process grading it died", "the run ended before this sample was graded")
    return [r["nodeid"] for r in records if r.get("error") not in lost]


@pytest.mark.parametrize("dies", ["socket_host", "local_worker"])
def test_a_run_that_lost_a_host_or_worker_is_resumed_grading_each_sample_once(
    pytester, server, tmp_path_factory, dies
):
    samples = len(EVERYDAY) * SAMPLES
    host_dir = tmp_path_factory.mktemp("far-host")
    if dies == "socket_host":
        (host_dir / "grader").mkdir()
        (host_dir / "grader" / "conftest.py").write_text(KILLER)  # only on that host
        hosts = lambda host: (host.tx("far") + "//chdir=grader", "--tx=popen//id=near")  # noqa: E731
    else:
        pytester.makeconftest(KILLER)  # in every worker; only gw0 dies, and is replaced
        hosts = lambda host: ("-n", "2")  # noqa: E731
    args = ("--dist=load", "--codegen-results=r.jsonl", "--codegen-resume")

    host = SocketHost(host_dir)
    try:
        first = run(pytester, server, *hosts(host), *args)
        assert first.ret == pytest.ExitCode.TESTS_FAILED
        assert "INTERNALERROR" not in first.stdout.str() + first.stderr.str()
        if dies == "socket_host":
            assert host.process.wait(timeout=600) == -9  # the host is gone: the run ends in order
            first.stdout.fnmatch_lines(["host far went away and takes no new worker: *"])
        else:  # xdist replaced the worker and went on without the sample it was grading
            first.stdout.fnmatch_lines(["*worker 'gw0' crashed*"])
        records = read_results(pytester.path / "r.jsonl")
        graded_first = verdicts(records)
        # What was graded before is on file: at least the 9 the dead worker finished.
        assert 9 <= len(graded_first) < samples
        assert len(records) == samples  # ... and every other sample is listed as lost
        host.stop()

        # The host is back (without what killed it), or the local workers run again.
        (host_dir / "grader" / "conftest.py").unlink(missing_ok=True)
        pytester.path.joinpath("conftest.py").unlink(missing_ok=True)
        host = SocketHost(host_dir)
        second = run(pytester, server, *hosts(host), *args)
    finally:
        host.stop()
    assert second.ret == pytest.ExitCode.TESTS_FAILED  # the dates answers fail, in either run
    ran = second.parseoutcomes()
    # Only the samples the first run lost were graded again; the rest were deselected.
    assert ran.get("passed", 0) + ran.get("failed", 0) == samples - len(graded_first)
    records = read_results(pytester.path / "r.jsonl")
    graded = verdicts(records)
    assert sorted(graded) == sorted({r["nodeid"] for r in records})  # each exactly once
    assert len(graded) == samples
    second.stdout.fnmatch_lines(
        [
            f"resumed r.jsonl: {len(graded_first)} samples graded before were not graded again",
        ]
    )
    # The summary covers every sample, those of both runs, as one whole run's would.
    second.stdout.fnmatch_lines([f"everyday  (all) *38 *{samples} *{samples - 14} *14 *"])
    if dies == "socket_host":  # the controller generated for it: nothing requested twice
        assert requested(server) == samples


def test_a_problem_crosses_the_wire_once_per_channel():
    from pytest_codegen.generation.jobs import Job
    from pytest_codegen.generation.remote import JobWire
    from pytest_codegen.models.base import Prompt, SamplingParams
    from pytest_codegen.problems import Problem

    problem = Problem("p/1", "s", "c", "python", "python-call", "def f():", "assert 1", "1", {})
    jobs = [
        Job(problem, Prompt("def f():", "sys"), i, SamplingParams(temperature=0.2))
        for i in range(3)
    ]
    sender, receiver = JobWire(), JobWire()
    sent = [sender.dump(job) for job in jobs]
    assert ["problem" in data for data in sent] == [True, False, False]
    assert [receiver.load(data) for data in sent] == jobs


def test_react_samples_are_graded_on_a_socket_host_with_its_own_node_toolchain(
    pytester, socket_host
):
    """Jest runs there from that host's managed Node environment, in the same sandbox."""
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference",
        "--codegen-suite=react",
        "-k",
        "blogging or ecommerce",
        socket_host.tx("far"),
        "--tx=popen//id=near",
        "--dist=load",
        "-v",
        "--codegen-results=r.jsonl",
        timeout=600,
    )
    records = read_results(pytester.path / "r.jsonl")
    assert records and {r["outcome"] for r in records} == {"passed"}
    assert all(r["mode"] == "jest" for r in records)
    assert any(line.startswith("[far] ") and "PASSED" in line for line in result.outlines)


def test_a_local_path_for_a_remote_host_is_one_usage_error_line(pytester, tiny):
    # xdist would fail with an internal error while connecting; this says why, at start.
    result = pytester.runpytest_subprocess(
        "tiny.jsonl", "--codegen-model=reference", "--tx=socket=127.0.0.1:9//id=far"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --tx socket=127.0.0.1:9//id=far: 'tiny.jsonl' is a path on this machine, *"]
    )
    assert "INTERNALERROR" not in result.stderr.str() + result.stdout.str()


@pytest.mark.parametrize("form", ["apart", "joined"])
def test_path_options_reach_a_remote_host_given_either_way(pytester, socket_host, form):
    """``--codegen-results r.jsonl`` as well as ``--codegen-results=r.jsonl``: xdist refuses
    to send another host an argument that names a local path, which the results file is as
    soon as the run starts (and a cache, data directory or baseline before)."""
    replay = write_replay(
        pytester.path / "replay.jsonl",
        [{"task_id": p["task_id"], "completion": p["canonical_solution"]} for p in EVERYDAY],
    )
    (pytester.path / "gen-cache").mkdir()
    (pytester.path / "data").mkdir()

    def grade(*options: tuple[str, str]):
        given = [
            arg
            for name, value in options
            for arg in ([f"{name}={value}"] if form == "joined" else [name, value])
        ]
        result = pytester.runpytest_subprocess(
            "--codegen-suite=everyday",
            "-p",
            "no:randomly",
            socket_host.tx("far"),
            "--tx=popen//id=near",
            "--dist=load",
            "-v",
            *given,
            timeout=300,
        )
        output = result.stdout.str() + result.stderr.str()
        assert "INTERNALERROR" not in output, output[-3000:]
        assert result.ret == pytest.ExitCode.OK, output[-3000:]
        assert any(line.startswith("[far]") for line in result.outlines)
        return result

    model = ("--codegen-model", f"replay:{replay}")
    # Files the run creates (the results file as it starts)...
    results = pytester.path / "out" / "r.jsonl"
    grade(
        model,
        ("--codegen-results", str(results)),
        ("--codegen-html", "report.html"),
        ("--junitxml", "junit.xml"),
    )
    records = read_results(results)
    assert len(records) == len(EVERYDAY)
    assert {r["outcome"] for r in records} == {"passed"}
    assert (pytester.path / "report.html").read_text().strip()
    assert "<testsuite" in (pytester.path / "junit.xml").read_text()

    # ... and files and directories that exist before it starts.
    again = grade(
        model,
        ("--codegen-results", "again.jsonl"),
        ("--codegen-baseline", str(results)),
        ("--codegen-cache", "gen-cache"),
        ("--codegen-data-dir", "data"),
        ("--junitxml", "junit.xml"),
    )
    again.stdout.fnmatch_lines([f"*compared with baseline {results}*"])
    assert len(read_results(pytester.path / "again.jsonl")) == len(EVERYDAY)


def test_option_values_given_apart_are_joined_to_their_options():
    from pytest_codegen.generation.remote_service import join_option_values

    options = {"--codegen-results", "--junitxml"}
    args = ["-v", "--codegen-results", "r.jsonl", "--junitxml=j.xml", "suite.jsonl"]
    assert join_option_values(args, options) == [
        "-v",
        "--codegen-results=r.jsonl",
        "--junitxml=j.xml",
        "suite.jsonl",
    ]
    # Not a value (an option follows, or nothing), and nothing after ``--``.
    assert join_option_values(["--junitxml", "-v"], options) == ["--junitxml", "-v"]
    assert join_option_values(["--junitxml"], options) == ["--junitxml"]
    assert join_option_values(["--", "--junitxml", "j.xml"], options) == [
        "--",
        "--junitxml",
        "j.xml",
    ]
