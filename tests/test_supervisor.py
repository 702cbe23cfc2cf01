"""The supervisor of a non-Python sample's steps (``execution/native/supervisor.py``), run here
directly: exit codes and time-outs as each step's result, and a step's end noticed when it
happens (through the process's pidfd), not at the next turn of a sleeping poll."""

from __future__ import annotations

import importlib.util
import os
import sys
import time

import pytest

import pytest_codegen.execution.native as native


def load_supervisor():
    path = os.path.join(os.path.dirname(native.__file__), "supervisor.py")
    spec = importlib.util.spec_from_file_location("codegen_supervisor_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def step(script: str, timeout_s: float = 30.0) -> dict:
    return {"argv": [sys.executable, "-c", script], "env": {}, "timeout_s": timeout_s}


@pytest.fixture
def supervisor(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return load_supervisor()


def test_a_step_is_waited_for_without_sleeping(supervisor, monkeypatch):
    naps = []
    real_sleep = time.sleep
    monkeypatch.setattr(time, "sleep", lambda s: (naps.append(s), real_sleep(s)))
    done = supervisor.run({}, [step("import time, sys; time.sleep(0.3); sys.exit(3)")], 30, 100)
    assert [d["exit_code"] for d in done] == [3]
    assert not done[0]["timeout"]
    # Popen.wait(timeout) would have slept in turns of up to 50 ms while the step ran.
    assert naps == []


def test_steps_run_in_order_until_one_fails(supervisor):
    steps = [
        step("print('built')"),
        step("import sys; print('ran'); sys.exit(1)"),
        step("print('never')"),
    ]
    done = supervisor.run({"main.txt": "x"}, steps, 30, 100)
    assert [(d["exit_code"], d["stdout"]) for d in done] == [(0, "built\n"), (1, "ran\n")]


def test_a_step_past_its_time_is_ended_with_what_it_forked(supervisor, tmp_path):
    script = (
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "open('child.pid', 'w').write(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    (done,) = supervisor.run({}, [step(script, timeout_s=1.0)], 30, 100)
    assert done["timeout"] and done["exit_code"] == -1
    child = int((tmp_path / "child.pid").read_text())
    for _ in range(100):  # SIGKILL is delivered at once; its reaping by init may lag
        try:
            with open(f"/proc/{child}/stat") as f:
                if f.read().split(") ")[1][0] == "Z":
                    break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the step's child {child} outlived it")
