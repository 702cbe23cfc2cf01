"""The Python sandbox's process lifecycle, through its own API, with real child processes.

As root each sample runs as a uid no other live sample has, in namespaces whose PID 1 is the
launcher; when a sample ends, every process of its uid is killed, wherever it moved.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_codegen.execution.python.errors import SampleCrashed
from pytest_codegen.execution.python.sandbox import Limits, Remote, Sandbox, call_remote
from pytest_codegen.execution.python.zygote import Zygote

LIMITS = Limits(timeout_s=10, memory_mb=512)
needs_root = pytest.mark.skipif(os.getuid() != 0, reason="uids and namespaces need root")


def load(box: Sandbox, source: str, entry: str = "f"):
    return call_remote(box, {"op": "load", "source": source, "entry": entry})


def processes_of(uid: int) -> list[str]:
    """Live processes of ``uid`` (a zombie has ended; its parent just has not reaped it)."""
    out = subprocess.run(
        ["ps", "-o", "pid=,stat=,args=", "-u", str(uid)], capture_output=True, text=True
    ).stdout
    return [line.strip() for line in out.splitlines() if not line.split()[1].startswith("Z")]


def gone(uid: int) -> bool:
    """Whether every process of ``uid`` has ended; SIGKILLed processes take a moment (a
    minute at most here: a hang guard, not a speed bound)."""
    for _ in range(1200):
        if not processes_of(uid):
            return True
        time.sleep(0.05)
    return False


DETACHED = """
import os, time
def f():
    child = os.fork()
    if child == 0:
        os.setsid()  # leaves the sample's process group and session
        if os.fork() == 0:
            time.sleep(300)
        os._exit(0)
    os.waitpid(child, 0)  # it has forked the grandchild and left
    return os.getuid()
"""


@needs_root
def test_processes_that_left_the_sample_die_with_it():
    with Sandbox(LIMITS) as box:
        uid = load(box, DETACHED)()
        assert uid == box.uid
        assert len(processes_of(uid)) == 2  # the sample and its detached grandchild
    assert gone(uid), processes_of(uid)


@needs_root
def test_samples_in_a_row_never_share_a_uid():
    with Sandbox(LIMITS) as first:
        with Sandbox(LIMITS) as second:
            assert first.uid != second.uid
        third_uid = None
        with Sandbox(LIMITS) as third:
            third_uid = third.uid
        assert first.uid != third_uid


@needs_root
def test_a_sample_cannot_signal_the_launcher():
    with Sandbox(LIMITS) as box:
        if not box.isolation.startswith("namespaces+uid"):
            pytest.skip("no namespaces here")
        attack = load(
            box,
            "import os, signal\ndef f():\n    hit = []\n"
            "    for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT):\n"
            "        try:\n            os.kill(1, sig); hit.append(sig)\n"
            "        except OSError:\n            pass\n"
            "    return os.getppid(), len(hit)\n",
        )
        parent, _ = attack()
        assert parent == 1  # the launcher is PID 1 of the samples' namespace
    launcher = Zygote.get()
    with Sandbox(LIMITS) as box:
        assert load(box, "def f(x):\n    return x + 1\n")(1) == 2
    assert Zygote.get() is launcher and launcher.proc.poll() is None


def test_a_crash_names_the_signal():
    with Sandbox(LIMITS) as box:
        crash = load(box, "import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGSEGV)\n")
        with pytest.raises(SampleCrashed, match="killed by SIGSEGV"):
            crash()


def test_a_sample_that_exits_reports_its_status():
    with Sandbox(LIMITS) as box:
        leave = load(box, "import os\ndef f():\n    os._exit(3)\n")
        with pytest.raises(SampleCrashed, match="exited with status 3"):
            leave()


def test_each_sample_gets_a_fresh_process():
    pids = set()
    for _ in range(3):
        with Sandbox(LIMITS) as box:
            pids.add(load(box, "import os\ndef f():\n    return os.getpid()\n")())
    assert len(pids) == 3


LOADED = "import sys\ndef f(*names):\n    return [n in sys.modules for n in names]\n"


def test_modules_a_suite_imports_are_loaded_before_its_samples_start():
    # `statistics` and `wave` are not loaded at start; of the two only `statistics` may be
    # imported ahead (PRELOADABLE), so `wave` stays the sample's own business.
    Zygote.shutdown()
    with Sandbox(LIMITS) as box:
        assert load(box, LOADED)("statistics", "wave") == [False, False]
    with Sandbox(LIMITS, preload=("statistics", "wave")) as box:
        # This spare was forked before the request: it has nothing new yet.
        assert load(box, LOADED)("statistics", "wave") == [False, False]
    with Sandbox(LIMITS) as box:
        assert load(box, LOADED)("statistics", "wave") == [True, False]


def test_a_problems_imports_are_read_from_its_prompt_reference_and_program():
    from pytest_codegen.execution.python.grader import imported_modules, problem_imports
    from pytest_codegen.problems import MODE_PYTHON_CALL, Problem

    # A prompt that does not parse on its own is read import line by import line.
    prompt = "from typing import List\nimport os.path, re as regex\ndef f(x: List[int]):\n"
    assert imported_modules(prompt) == {"typing", "os.path", "re"}
    assert imported_modules("from . import sibling\nfrom .pkg import x\n") == set()
    problem = Problem(
        id="p",
        category="c",
        prompt=prompt,
        tests="import json\n",
        language="python",
        reference="    import heapq\n    return x\n",
        suite="s",
        mode=MODE_PYTHON_CALL,
    )
    # A body-only reference is read line by line too; tests that run in the grader do not count.
    assert problem_imports(problem) == ("heapq", "os.path", "re", "typing")


OBJECTS = """
def f(n):
    return range(n)
def g():
    yield from (1, [2], range(3))
def a():
    import numpy
    return numpy.array([1, 2])
"""


def test_an_objects_truth_length_and_items_are_its_own():
    # As the benchmark's tests see them: `assert candidate(x)` of a range(0) fails, and a
    # NumPy array's truth raises as it does there.
    with Sandbox(LIMITS) as box:
        f, g, a = (load(box, OBJECTS, name) for name in "fga")
        assert [bool(f(0)), bool(f(2)), len(f(3)), tuple(f(3))] == [False, True, 3, (0, 1, 2)]
        one, two, three = g()
        assert (one, two) == (1, [2])
        assert isinstance(three, Remote) and list(three) == [0, 1, 2]
        with pytest.raises(ValueError, match="truth value of an array"):
            bool(a())
        with pytest.raises(TypeError, match="has no len"):
            len(load(box, "def h():\n    return object()\n", "h")())


class AnswersWith:
    """A sandbox whose process answers every request with ``value``."""

    def __init__(self, value):
        self.value = value

    def request(self, message):
        return {"ok": self.value}

    def failed(self, exc):
        return exc


@pytest.mark.parametrize("ask", [bool, len, list])
def test_an_answer_of_the_wrong_type_is_malformed_data(ask):
    with pytest.raises(SampleCrashed, match="malformed data"):
        ask(Remote(AnswersWith("yes"), 0))


def test_replies_of_tens_of_mib_are_read_whole_and_in_order():
    """A reply arrives in thousands of pipe-sized chunks, a line ending inside one of them
    and the next reply starting there: each call gets its own answer, whole."""
    source = "def f(n, c):\n    return c * n\n"
    with Sandbox(Limits(timeout_s=300, memory_mb=1024)) as box:
        f = load(box, source)
        big = 40 * 1024 * 1024 + 7  # not a multiple of a chunk
        assert f(big, "a") == "a" * big
        assert f(3, "b") == "bbb"
        assert f(big // 2, "c") == "c" * (big // 2)


@pytest.mark.parametrize("flags", [["-B"], ["-X", "pycache_prefix=PREFIX"]])
def test_the_launcher_writes_bytecode_only_where_its_grader_would(tmp_path, flags):
    """The launcher runs isolated from the environment (``-I``): it takes the grading
    process's ``-B`` (or PYTHONDONTWRITEBYTECODE) and pycache prefix from its flags, and
    writes no ``__pycache__`` into a checkout or site-packages the user keeps clean."""
    import pytest_codegen

    package = tmp_path / "site" / "pytest_codegen"
    shutil.copytree(
        Path(pytest_codegen.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__")
    )
    prefix = tmp_path / "prefix"
    flags = [flag.replace("PREFIX", str(prefix)) for flag in flags]
    grade = (
        "from pytest_codegen.execution.python.sandbox import Limits, Sandbox, call_remote\n"
        "with Sandbox(Limits(timeout_s=60, memory_mb=512)) as box:\n"
        "    f = call_remote(box, {'op': 'load', 'source': 'def f(): return 7', 'entry': 'f'})\n"
        "    assert f() == 7\n"
    )
    env = {**os.environ, "PYTHONPATH": str(package.parent)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(
        [sys.executable, *flags, "-c", grade], cwd=tmp_path, env=env, check=True, timeout=300
    )
    assert list(package.rglob("__pycache__")) == []


def test_a_launch_that_fails_leaves_no_pipe_file_or_folder_behind():
    """When the launcher cannot hand out a process, the sandbox's pipes, its output file and
    the sample's working directory are released at once, not left for each failed launch."""
    Zygote.shutdown()
    launcher = Zygote.get()
    workroot = Path(launcher.workroot)
    try:
        launcher.sock.shutdown(socket.SHUT_RDWR)  # the launcher can no longer be asked
        open_before = set(os.listdir("/proc/self/fd"))
        for _ in range(3):
            with pytest.raises(SampleCrashed, match="launcher died"):
                Sandbox(LIMITS, stderr_apart=True, sealed=True)
        assert set(os.listdir("/proc/self/fd")) == open_before
        assert list(workroot.glob("sample-*")) == []
    finally:
        Zygote.shutdown()
