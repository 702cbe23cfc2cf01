"""Grading React samples with real Jest, in a warm, sandboxed Node process.

:class:`JestRunner` keeps one long-lived ``node/runner.js`` per pytest(-xdist) worker. It calls
Jest's per-file runner with a config built once, so a sample costs one jsdom window and one test
file (~0.1 s) instead of a Jest start-up (~1.5 s). Between files it keeps only what no sample can
change: the toolchain's compiled code, Babel's output for files seen before (``transformer.js``)
and the deep-frozen exports of pure-data packages (``runtime.js``; the sample's own modules see
them through ``shared_view.js``, which notes its writes).

Isolation, from the outside in:

- **time**: the wall-clock limit is enforced here; on expiry the runner's process group is
  killed and a fresh runner starts on the next sample;
- **memory**: ``RLIMIT_DATA`` and V8's heap limit; an out-of-memory runner dies -> ``crashed``;
- **files, processes**: Node's permission model (``--permission``, or
  ``--experimental-permission`` on Node 20): reads of the toolchain, our JS and the work root
  only, writes to Jest's cache in it only, no child processes, workers, native addons or
  inspector; as root, the runner also drops to an otherwise unused uid that owns nothing but Jest's
  transform cache, so it can write nowhere else and signal no other process;
- **environment**: an allowlist (PATH, HOME = the work root, TMPDIR = Jest's cache, locale,
  TZ); no API keys;
- **results**: answers come on a private pipe and must carry a secret the runner read before any
  sample existed; per-test results come from ``node/guard.js``, which locks the test framework
  before the sample loads (see its docstring) and are cross-checked against Jest's own; a
  sample writing to the answer pipe is detected. ``process.exit`` becomes an exception.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import secrets
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from ...outcomes import CRASHED, ERROR, TIMEOUT, Verdict
from ...problems import MODE_JEST
from .. import scratch
from .confinement import (
    choose_uid,
    jest_cache,
    landlock_rules,
    limit_resources,
    node_permission_flag,
    permission_args,
    runner_env,
)
from .console import OutputTail
from .node_env import PACKAGE_DIR, NodeInfo, ensure_toolchain, find_node
from .verdicts import answer_verdict

RUNNER_JS = PACKAGE_DIR / "runner.js"
# The warm-up test and its component, copied into each runner's work root: Babel skips files
# under PACKAGE_DIR (jest.config.js), and the warm-up must be transformed like any sample.
WARMUP_DIR = PACKAGE_DIR / "warmup"
WARMUP_FILES = ("Warmup.test.js", "Warmup.js")
# The test and solution file names the runner writes (no "..": a name, never a way out).
SAFE_NAME = re.compile(r"^(?!.*\.\.)[A-Za-z0-9_][A-Za-z0-9_.\-]*\.(?:js|jsx|mjs|cjs|ts|tsx)$")


class RunnerError(RuntimeError):
    """The runner could not be started (toolchain or Node broken); not a sample's fault."""


class JestRunner:
    """A warm Jest runner; :meth:`run` grades one sample. Not thread-safe: one per worker.

    ``sandbox_uid``: ``"auto"`` drops to an unused uid when running as root and the toolchain
    is reachable by other users; an int forces that uid; None never drops.
    """

    def __init__(
        self,
        node: NodeInfo | None = None,
        toolchain: Path | None = None,
        *,
        cache_root: Path | None = None,
        sandbox_uid: int | str | None = "auto",
        memory_mb: int = 2048,
        output_limit: int = 32_000,
        startup_timeout_s: float = 120.0,
        recycle_after: int = 500,
        hardened: bool = True,
    ) -> None:
        self.node = node or find_node()
        self.toolchain = Path(toolchain or ensure_toolchain(self.node, cache_root)).resolve()
        self.memory_mb = memory_mb
        self.output_limit = output_limit
        self.startup_timeout_s = startup_timeout_s
        self.recycle_after = recycle_after
        self.hardened = hardened
        self.permission_flag = node_permission_flag(self.node.path)
        self.sandbox_uid = choose_uid(sandbox_uid, self.node.path, self.toolchain)
        self.starts = 0  # how many runner processes were started (replacements included)
        self._proc: subprocess.Popen[bytes] | None = None
        self._results_fd: int | None = None
        self._pending = b""
        self._secret = ""
        self._work: Path | None = None
        self._stdout: OutputTail | None = None
        self._stderr: OutputTail | None = None
        self._served = 0
        self._baseline_resources = 0
        self._next_id = 0
        self.last_profile: dict[str, Any] = {}  # runner.js's profile() of the last file

    # -- isolation facts
    @property
    def isolation(self) -> dict[str, Any]:
        """How samples are confined (for reports and tests)."""
        return {
            "node": self.node.version,
            "permission_model": self.permission_flag,
            "uid": self.sandbox_uid,
            "memory_mb": self.memory_mb,
            "hardened": self.hardened,
        }

    # -- process management
    def _node_args(self, work: Path) -> list[str]:
        # No incremental marking: marking a full heap while test files keep running retains the
        # windows that die meanwhile, and each collection then starts from a bigger heap (what
        # survived a full collection grew by ~3 MB per file, to ~300 MB in 100 files). Collected
        # all at once, it stays under ~100 MB, and the runner spends ~10% less CPU per file,
        # its GC threads included (benchmarks/perf/jest_runner.py).
        # And no GC helper threads: each runner shares the cores with the other workers'
        # runners, so parallel scavenges and sweeps buy no time and cost their coordination.
        # Alternating -n 2 runs of the React suite (benchmarks/perf/react_plugin.py): 1-9% less
        # CPU in three A/Bs, never more; 4-17% less peak memory (benchmarks/perf/jest_runner.py).
        args = [
            self.node.path,
            f"--max-old-space-size={max(256, self.memory_mb // 2)}",
            "--no-incremental-marking",
            "--single-threaded-gc",
        ]
        if self.permission_flag:
            args += permission_args(self.permission_flag, self.toolchain, work)
        return [*args, str(RUNNER_JS), str(self.toolchain), str(work)]

    def start(self) -> None:
        """Start (or restart) the runner and wait until its warm-up file has passed."""
        self.close()
        work = Path(scratch.make("pytest-codegen-jest-")).resolve()
        os.chmod(work, 0o755)
        cache = jest_cache(work)
        cache.mkdir()
        warm = work / "warmup"
        warm.mkdir()
        try:
            for name in WARMUP_FILES:
                shutil.copyfile(WARMUP_DIR / name, warm / name)
        except OSError as exc:
            scratch.remove(work)
            raise RunnerError(f"cannot lay out the warm-up test: {exc}") from exc
        uid = self.sandbox_uid
        if uid is not None and os.geteuid() == 0:
            os.chown(cache, uid, uid)
        os.chmod(cache, 0o700)
        read_fd, write_fd = os.pipe()
        env = runner_env(work)
        extra: dict[str, Any] = {}
        if uid is not None and os.geteuid() == 0:
            extra = {"user": uid, "group": uid, "extra_groups": []}
        try:
            proc = subprocess.Popen(
                [*self._node_args(work), str(write_fd)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(write_fd,),
                cwd=work,
                env=env,
                start_new_session=True,  # its own process group: one kill ends it all
                preexec_fn=functools.partial(
                    limit_resources,
                    self.memory_mb,
                    landlock_rules(self.node.path, self.toolchain, work),
                ),
                **extra,
            )
        except OSError as exc:
            os.close(read_fd)
            os.close(write_fd)
            scratch.remove(work)
            raise RunnerError(f"cannot start {self.node.path}: {exc}") from exc
        os.close(write_fd)
        self.starts += 1
        self._proc, self._results_fd, self._work = proc, read_fd, work
        self._pending = b""
        self._stdout = OutputTail(proc.stdout, self.output_limit)
        self._stderr = OutputTail(proc.stderr, self.output_limit)
        self._served = 0
        self._secret = secrets.token_hex(24)
        hello = {
            "secret": self._secret,
            "warmup": str(warm / "Warmup.test.js"),
            "hardened": self.hardened,
        }
        self._send(hello)
        deadline = time.monotonic() + self.startup_timeout_s
        warmup = self._receive(deadline, lambda m: "warmup" in m or "fatal" in m)
        ready = self._receive(deadline, lambda m: "ready" in m or "fatal" in m)
        shutil.rmtree(warm, ignore_errors=True)
        problem = ""
        if warmup is None or ready is None:
            problem = "no answer"
        elif "fatal" in warmup or "fatal" in ready:
            problem = str(warmup.get("fatal") or ready.get("fatal"))
        else:
            result = warmup["warmup"]
            tests = (result.get("guard") or {}).get("tests", [{"end": "ok"}])
            if result.get("execError") or any(
                t.get("status") != "passed" for t in result["circus"]
            ):
                problem = result.get("execError") or result.get("failureMessage", "")
            elif not all(t.get("end") == "ok" for t in tests):
                problem = f"the guard did not record the warm-up test: {tests}"
        if problem:
            stderr = self._stderr.take() if self._stderr else ""
            self.close()
            raise RunnerError(f"the Jest runner failed its warm-up: {problem}\n{stderr[-2000:]}")
        self._baseline_resources = int(ready.get("resources", 0))
        self._stdout.take()
        self._stderr.take()

    def close(self) -> None:
        """Kill the runner (its whole process group) and remove its work directory."""
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
        if self._results_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._results_fd)
            self._results_fd = None
        if self._work is not None:
            scratch.remove(self._work)
            self._work = None

    def __enter__(self) -> JestRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _send(self, message: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write((json.dumps(message) + "\n").encode())
        self._proc.stdin.flush()

    def _receive(self, deadline: float, accept: Any, forged: list[str] | None = None) -> Any:
        """The next answer line carrying our secret that ``accept`` takes, or None on
        timeout/EOF. Lines without the secret are someone else's writes: noted in ``forged``."""
        assert self._results_fd is not None
        while True:
            while b"\n" in self._pending:
                line, self._pending = self._pending.split(b"\n", 1)
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
                if not isinstance(message, dict) or message.get("secret") != self._secret:
                    if forged is not None:
                        forged.append(line[:200].decode("utf-8", "replace"))
                    continue
                if accept(message):
                    return message
                if forged is not None:
                    forged.append("an answer to another request")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self._results_fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(self._results_fd, 1 << 20)
            if not chunk:
                return None  # the runner is gone
            self._pending += chunk

    # -- grading
    def run(
        self,
        test_source: str,
        test_filename: str,
        solution_filename: str,
        solution_code: str,
        timeout_s: float,
    ) -> Verdict:
        """Grade ``solution_code`` (saved as ``solution_filename``) against the Jest test
        ``test_source`` (saved as ``test_filename`` next to it)."""
        started = time.monotonic()
        for name in (test_filename, solution_filename):
            if not SAFE_NAME.match(name):
                return Verdict(ERROR, f"unusable file name {name!r}", mode=MODE_JEST)
        if test_filename == solution_filename:
            return Verdict(ERROR, "the test and the solution share a file name", mode=MODE_JEST)
        if not self.alive:
            self.start()
        assert self._work is not None
        self._next_id += 1
        request_id = self._next_id
        # Every sample of a problem is graded at the same path, so the runner's memo of
        # transformed files (transformer.js) knows the test file from the sample before.
        digest = hashlib.sha256(f"{test_filename}\0{test_source}".encode()).hexdigest()[:16]
        sample_dir = self._work / f"p{digest}"
        shutil.rmtree(sample_dir, ignore_errors=True)
        sample_dir.mkdir(mode=0o755)
        (sample_dir / test_filename).write_text(test_source)
        (sample_dir / solution_filename).write_text(solution_code)
        forged: list[str] = []
        self._send({"id": request_id, "test": str(sample_dir / test_filename)})
        answer = self._receive(
            time.monotonic() + timeout_s,
            lambda m: m.get("id") == request_id or "fatal" in m,
            forged,
        )
        duration = time.monotonic() - started
        if answer is None:
            verdict = self._lost(timeout_s, duration)
        else:
            verdict = answer_verdict(
                answer,
                forged,
                self._stdout.take() if self._stdout else "",
                self._stderr.take() if self._stderr else "",
                hardened=self.hardened,
                output_limit=self.output_limit,
            )
            verdict.duration_s = duration
            self.last_profile = {**answer.get("profile", {}), "runner": answer.get("durationMs")}
            self._served += 1
            leaked = int(answer.get("resources", 0)) > self._baseline_resources
            spent = "fatal" in answer or self._served >= self.recycle_after  # it exits, or is due
            if forged or leaked or answer.get("violations") or spent:
                self.close()  # a sample may have left something behind: start clean
        shutil.rmtree(sample_dir, ignore_errors=True)
        if self._work is not None:
            cache = jest_cache(self._work)
            for child in cache.iterdir() if cache.is_dir() else []:
                shutil.rmtree(child, ignore_errors=True)
        return verdict

    def _lost(self, timeout_s: float, duration: float) -> Verdict:
        """No answer: a timeout (we kill the runner) or a crash (it died by itself)."""
        proc = self._proc
        returncode = proc.poll() if proc is not None else None
        if returncode is None and proc is not None and duration < timeout_s:
            # The answer pipe closed early: the runner is exiting (hung only if it lives on).
            with contextlib.suppress(subprocess.TimeoutExpired):
                returncode = proc.wait(timeout=5)
        stdout = self._stdout.take() if self._stdout else ""
        if returncode is None:
            self.close()
            stderr = self._stderr.take() if self._stderr else ""
            return Verdict(
                TIMEOUT,
                f"no result within {timeout_s:g} s (infinite loop or hang); runner replaced",
                stdout=stdout,
                stderr=stderr,
                duration_s=duration,
                mode=MODE_JEST,
            )
        if self._stderr is not None:
            self._stderr.join(2.0)
        stderr = self._stderr.take() if self._stderr else ""
        self.close()
        if returncode < 0:
            how = f"killed by {signal.Signals(-returncode).name}"
        else:
            how = f"exited with status {returncode}"
        if "heap out of memory" in stderr or "Allocation failed" in stderr:
            how += " (out of memory)"
        died = f"the Jest runner died: {how}"
        return Verdict(
            CRASHED, died, stdout=stdout, stderr=stderr, duration_s=duration, mode=MODE_JEST
        )
