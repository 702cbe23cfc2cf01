"""A sealed program (python-program mode) through the sandbox's own API: what proves its pass
is out of its reach until its tests end, and a pass it writes itself is tampering.

Each program below passes only if what it looks for is not there: its run returning is the
assertion that the sandbox holds.
"""

from __future__ import annotations

import os
import textwrap

import pytest

from pytest_codegen.execution.python import landlock
from pytest_codegen.execution.python import sandbox as sandbox_module
from pytest_codegen.execution.python.errors import SampleTampered
from pytest_codegen.execution.python.sandbox import Limits, Sandbox

LIMITS = Limits(timeout_s=20, memory_mb=1024)
KEY = "0123456789abcdef" * 2


def run(program: str) -> None:
    with Sandbox(LIMITS, stderr_apart=True, sealed=True) as box:
        box.run_program("", textwrap.dedent(program))


def test_a_program_whose_tests_end_passes_and_one_whose_tests_fail_raises():
    run("assert sum([1, 2]) == 3\n")
    with pytest.raises(AssertionError):
        run("assert sum([1, 2]) == 4\n")


def test_a_pass_the_program_writes_itself_is_tampering():
    forge = """
        import os
        for fd in range(3, 256):
            try:
                os.write(fd, b'{"ok": null}\\n')
            except OSError:
                pass
        os._exit(0)
    """
    with pytest.raises(SampleTampered, match="without the proof"):
        run(forge)


def test_the_key_is_nowhere_the_program_can_look(monkeypatch):
    """Not in argv, the environment, or anything a descriptor of its own leads to (its memory:
    see the hostile samples of test_forgery.py)."""
    monkeypatch.setattr(sandbox_module.secrets, "token_hex", lambda n: KEY)
    run(
        f"""
        import os, sys
        key = {KEY!r}.encode()
        seen = [repr(sys.orig_argv), repr(dict(os.environ))]
        for fd in range(256):
            try:
                os.set_blocking(fd, False)
                seen.append(repr(os.read(fd, 1 << 16)))
            except OSError:
                pass
        for path in ("/proc/self/cmdline", "/proc/self/environ"):
            try:
                with open(path, "rb") as f:
                    seen.append(repr(f.read(1 << 16)))
            except OSError:
                pass
        assert not any(key.decode() in text for text in seen), "the key is in sight"
        """
    )


def test_a_program_has_no_ctypes_to_reach():
    """ctypes' calls raise no audit event: it must not be loaded at all, not even as types
    found through object.__subclasses__(); a library's guarded import of it fails."""
    run(
        """
        import sys

        def every_class(cls=object, seen=None):
            seen = set() if seen is None else seen
            for sub in type.__subclasses__(cls):
                if sub not in seen:
                    seen.add(sub)
                    every_class(sub, seen)
            return seen

        assert not [c for c in every_class() if c.__module__.startswith(("_ctypes", "ctypes"))]
        assert sys.modules.get("ctypes") is None and sys.modules.get("_ctypes") is None
        import importlib
        try:
            importlib.import_module("ctypes")
        except ImportError:
            pass
        else:
            raise AssertionError("a library could import ctypes")
        """
    )


@pytest.mark.skipif(
    os.uname().machine not in ("x86_64", "aarch64"), reason="the seccomp filter knows its machine"
)
def test_no_process_the_program_starts_can_trace_it_or_read_its_memory():
    """A fresh interpreter the program starts has ctypes and no audit hook; it still cannot
    attach to the program's process, nor read its memory (seccomp), nor open its
    /proc/<pid>/mem (Landlock, where the kernel has it)."""
    helper = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
parent = os.getppid()
attach = libc.ptrace(16, parent, None, None)  # PTRACE_ATTACH
attached = (attach, ctypes.get_errno())
buffer = ctypes.create_string_buffer(8)
class IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
local, remote = IOVec(ctypes.addressof(buffer), 8), IOVec(int(sys.argv[1]), 8)
libc.process_vm_readv.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong,
                                  ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
read = libc.process_vm_readv(parent, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
try:
    with open(f"/proc/{parent}/mem", "rb") as memory:
        memory.seek(int(sys.argv[1]))
        opened = memory.read(8)
except OSError:
    opened = "refused"
print(attached[0], read, opened)
"""
    run(
        f"""
        import subprocess, sys
        marker = bytearray(b"readable")
        out = subprocess.run(
            [sys.executable, "-c", {helper!r}, str(id(marker))],
            capture_output=True, text=True,
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.split()[:2] == ["-1", "-1"], out.stdout
        assert out.stdout.split()[2] == "refused" or not {landlock.abi()}, out.stdout
        """
    )
