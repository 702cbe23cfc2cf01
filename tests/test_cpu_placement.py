"""Where Python samples are graded: with one xdist worker per usable CPU, each worker grades
on a CPU of its own and its samples run there too (``execution.cpus.worker_cpus``)."""

from __future__ import annotations

import json
import os

import pytest

from pytest_codegen.execution.cpus import pinned_to, worker_cpus
from pytest_codegen.execution.python.sandbox import Limits, Sandbox, call_remote

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity"), reason="CPU affinity is Linux's"
)

CPUS_OF = "import os\ndef f():\n    return sorted(os.sched_getaffinity(0))\n"


def cpus_of_a_sample(limits: Limits) -> list[int]:
    with Sandbox(limits) as box:
        return call_remote(box, {"op": "load", "source": CPUS_OF, "entry": "f"})()


def test_a_sample_runs_on_the_cpus_of_its_limits():
    usable = sorted(os.sched_getaffinity(0))
    assert cpus_of_a_sample(Limits(timeout_s=10, memory_mb=512, cpus=(usable[-1],))) == [usable[-1]]
    # Unpinned limits get a launcher of their own, which runs anywhere.
    assert cpus_of_a_sample(Limits(timeout_s=10, memory_mb=512)) == usable


def test_worker_i_of_one_per_cpu_gets_the_ith_cpu():
    usable = sorted(os.sched_getaffinity(0))
    n = len(usable)
    assert [worker_cpus(f"gw{i}", n) for i in range(n)] == [(cpu,) for cpu in usable]
    # More or fewer workers than CPUs, no xdist, or ids not xdist's own: nothing is pinned.
    assert worker_cpus("gw0", n + 1) == ()
    assert worker_cpus(f"gw{n}", n) == ()
    assert worker_cpus(None, None) == ()
    assert worker_cpus("popen-1", n) == ()


def test_grading_pins_this_process_only_for_its_duration():
    before = os.sched_getaffinity(0)
    cpu = max(before)
    with pinned_to((cpu,)):
        assert os.sched_getaffinity(0) == {cpu}
    assert os.sched_getaffinity(0) == before
    with pytest.raises(ZeroDivisionError), pinned_to((cpu,)):
        1 / 0  # noqa: B018
    assert os.sched_getaffinity(0) == before
    with pinned_to(()):
        assert os.sched_getaffinity(0) == before


@pytest.fixture
def two_cpus():
    """This process (and so the pytest it starts) on two CPUs, for one worker per CPU."""
    usable = os.sched_getaffinity(0)
    if len(usable) < 2:
        pytest.skip("needs two CPUs")
    os.sched_setaffinity(0, sorted(usable)[:2])
    yield
    os.sched_setaffinity(0, usable)


def suite_checking_cpus(path, expected: int):
    """A problem whose tests (run by the grader) check that the sample runs on the grader's
    own CPUs, ``expected`` of them."""
    tests = (
        "import os\n\n\ndef check(candidate):\n"
        "    mine = sorted(os.sched_getaffinity(0))\n"
        "    assert candidate() == mine\n"
        f"    assert len(mine) == {expected}, mine\n"
    )
    rows = [
        {
            "task_id": f"cpus/{i}",
            "prompt": "import os\n\n\ndef f():\n",
            "canonical_solution": "    return sorted(os.sched_getaffinity(0))\n",
            "test": tests,
            "entry_point": "f",
        }
        for i in range(4)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-n", "2"], 1),
        (["-n", "2", "--codegen-cpu-pinning=off"], 2),
        ([], 2),  # no xdist: one process grades, and nothing is pinned
        (["-n", "1"], 2),  # fewer workers than CPUs
    ],
)
def test_one_worker_per_cpu_grades_on_its_own_cpu(pytester, two_cpus, args, expected):
    suite = suite_checking_cpus(pytester.path / "cpus.jsonl", expected)
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-samples=3", str(suite), *args
    )
    result.assert_outcomes(passed=12)
