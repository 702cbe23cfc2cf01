"""Working folders in the temporary directory do not outlive their process: the sample
launcher's work root and the Jest runner's folder are removed when closed, at interpreter
exit, and, for a process killed first, by the next process that makes one."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from pytest_codegen.execution import scratch

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def prefix():
    """A prefix of this test alone, and whatever folders of it are left afterwards removed."""
    name = f"codegen-scratch-test-{secrets.token_hex(4)}-"
    yield name
    for folder in Path(tempfile.gettempdir()).glob(f"{name}*"):
        scratch.remove(folder)


def holder(prefix: str) -> tuple[subprocess.Popen[str], Path]:
    """A live process that made a folder of ``prefix`` and waits; the folder."""
    code = (
        "import sys, time\n"
        "from pytest_codegen.execution import scratch\n"
        f"print(scratch.make({prefix!r}), flush=True)\n"
        "time.sleep(300)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=REPO
    )
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def settled(folder: Path) -> None:
    """Make ``folder``'s lock file as old as one its maker has surely locked by now."""
    long_ago = time.time() - scratch.SETTLE_S - 1
    os.utime(folder / scratch.OWNER, (long_ago, long_ago))


def test_a_killed_process_folder_is_removed_by_the_next_and_a_live_one_is_kept(prefix):
    killed, killed_folder = holder(prefix)
    alive, alive_folder = holder(prefix)
    try:
        (killed_folder / "sample-1").mkdir()
        (killed_folder / "sample-1" / "out.txt").write_text("left behind")
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        assert killed_folder.is_dir()  # nothing ran at its end
        assert scratch.sweep(prefix) == 0  # a lock file just made may not be locked yet
        for folder in (killed_folder, alive_folder):
            settled(folder)

        mine = scratch.make(prefix)

        assert not killed_folder.exists()
        assert alive_folder.is_dir()
        assert Path(mine).is_dir()
    finally:
        alive.kill()
        alive.wait()
    scratch.remove(mine)
    assert not Path(mine).exists()
    assert scratch.sweep(prefix) == 1  # the other one, now that its process has ended
    assert not alive_folder.exists()


def test_a_folder_without_its_lock_file_goes_only_once_long_untouched(prefix):
    young = Path(tempfile.mkdtemp(prefix=prefix))
    old = Path(tempfile.mkdtemp(prefix=prefix))
    long_ago = time.time() - scratch.UNLOCKED_STALE_S - 60
    os.utime(old, (long_ago, long_ago))

    assert scratch.sweep(prefix) == 1

    assert young.is_dir()
    assert not old.exists()


def test_a_sweep_leaves_its_own_folders_and_whatever_else_is_named_alike(prefix):
    mine = Path(scratch.make(prefix))
    plain_file = Path(tempfile.gettempdir()) / f"{prefix}file"
    plain_file.write_text("not a folder")
    try:
        assert scratch.sweep(prefix) == 0
        assert mine.is_dir()
        assert plain_file.read_text() == "not a folder"
    finally:
        plain_file.unlink()


def test_a_sandbox_user_that_never_shuts_it_down_leaves_no_work_root():
    code = (
        "from pytest_codegen.execution.python.sandbox import Limits, Sandbox, call_remote\n"
        "with Sandbox(Limits(timeout_s=10, memory_mb=512)) as box:\n"
        "    call_remote(box, {'op': 'load', 'source': 'def f(): return 1', 'entry': 'f'})\n"
        "    print(box.workdir.parent, flush=True)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    ).stdout
    workroot = Path(out.strip())
    assert workroot.name.startswith("codegen-samples-")
    assert not workroot.exists()
