"""Trusted side of Python execution: one fresh, limited child process per sample.

A :class:`Sandbox` takes a confined process from the zygote (:mod:`.zygote`): an allowlisted
environment, a private working directory removed afterwards, memory/CPU/file-size/process caps
and, when we run as root, namespaces and a uid of its own (see ``child.py``). Requests and
replies cross two pipes as plain data (:mod:`.wire`); the child's stdout/stderr go to a capped
file we read the tail of. Every wait has a deadline: at the deadline the sample times out, and
when it ends for any reason the zygote kills every process it started. Objects that are not
plain data stay in the sample, behind :class:`Remote` handles. A whole program with its tests
runs in a *sealed* sandbox (:meth:`Sandbox.run_program`): it passes only with a proof its
sample cannot forge (see ``verdict_seal.py``).
"""

from __future__ import annotations

import collections
import dataclasses
import hmac
import os
import secrets
import select
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ... import attempts
from . import wire
from .call_plan import NO_PLAN, Plan, PlannedCall, arguments_key, same_objects
from .errors import PlanDiverged, SampleCrashed, SampleTampered, SampleTimeout
from .handles import Remote, call_remote, result_of
from .verdict_seal import KEY_SIZE
from .zygote import Zygote

OUTPUT_TAIL_BYTES = 4096
DRAIN_BYTES = 1 << 20  # what is read of a channel left unread for attempts, at most


@dataclasses.dataclass(frozen=True)
class Limits:
    timeout_s: float
    memory_mb: int
    max_procs: int = 32
    file_size: int = 8 * 1024 * 1024  # caps the sample's output and any file it writes
    cpus: tuple[int, ...] = ()  # where its processes run (see cpus.worker_cpus); () any
    # python-program mode: a run whose stderr holds one of these fails (the rule of the
    # suite's own harness: Exec-CSN's rejects "error" in any case it writes it).
    stderr_fail_words: tuple[str, ...] = ()


class Sandbox:
    """A running child for one sample. Use as a context manager; it is killed on exit."""

    def __init__(
        self,
        limits: Limits,
        hide: tuple[str, ...] = (),
        preload: Iterable[str] = (),
        stderr_apart: bool = False,
        sealed: bool = False,
        reads: tuple[str, ...] = (),
    ) -> None:
        """``preload``: modules the sample's code is likely to import (of PRELOADABLE); the
        zygote imports them for later samples, so they find them loaded. ``stderr_apart``:
        the sample's stderr goes to a file of its own (:meth:`stderr`), not with its stdout.
        ``sealed``: the sample gets a key of this sandbox's own, for :meth:`run_program`.
        ``reads``: trees the sample may read besides the system's (a toolchain's)."""
        self.limits = limits
        self.deadline = time.monotonic() + limits.timeout_s
        self.zygote = zygote = Zygote.get(hide, limits.cpus, reads)
        self.workdir = Path(tempfile.mkdtemp(prefix="sample-", dir=zygote.workroot))
        self.output = tempfile.TemporaryFile()
        self.errors = tempfile.TemporaryFile() if stderr_apart else None
        self.ended: str | None = None
        # Read by the sample's process before its sample exists, then out of its reach.
        self._key = secrets.token_hex(KEY_SIZE // 2) if sealed else None
        # What the sample tried (attempt_watch.py), and the mark of the harness's replies.
        self.attempts: list[dict[str, str]] = []
        self._mark = b"" if sealed else secrets.token_hex(8).encode("ascii")
        req_r, self._req_w = os.pipe()
        self._resp_r, resp_w = os.pipe()
        key_r = self._key_pipe() if self._key is not None else None
        config = {
            "timeout_s": limits.timeout_s,
            "memory_mb": limits.memory_mb,
            "max_procs": limits.max_procs,
            "file_size": limits.file_size,
        }
        try:
            fds = [req_r, resp_w, self.output.fileno()]
            if self.errors is not None:
                fds.append(self.errors.fileno())
            if key_r is not None:
                fds.append(key_r)
            spare = zygote.spawn(
                config, self.workdir, fds, preload, sealed=sealed, mark=self._mark.decode()
            )
        except BaseException:
            # No sample holds them, and no caller gets this object to close.
            self._release()
            raise
        finally:
            for fd in (req_r, resp_w, key_r):
                if fd is not None:
                    os.close(fd)
        self.pid, self.uid, self.isolation = spare.pid, spare.uid, spare.isolation
        # What the sample wrote past the last reply read; no newline before _scanned in it.
        self._buffer, self._scanned = bytearray(), 0
        self._planned: collections.deque[PlannedCall] = collections.deque()
        self.diverged = False
        # Whether the last reply's value stands for an object of a subclass of its type.
        self.subclass_answer = False
        # The first timeout, crash or tampering raised to the grader: a test that catches it
        # (a bare ``except:``) must not turn it into a pass (see grader.grade_in_sandbox).
        self.failure: BaseException | None = None
        self._poll = select.poll()
        self._poll.register(self._resp_r, select.POLLIN)
        # Requests are written as the sample reads them, within its deadline: one that stops
        # reading (and shrinks its pipe to a page) must not block the grader for good.
        os.set_blocking(self._req_w, False)
        self._poll_out = select.poll()
        self._poll_out.register(self._req_w, select.POLLOUT)
        self.started = time.monotonic()

    def _key_pipe(self) -> int:
        """A pipe holding the key (written whole: it is far below a pipe's buffer); the read
        end, for the sample."""
        assert self._key is not None
        key_r, key_w = os.pipe()
        try:
            os.write(key_w, self._key.encode("ascii"))
        finally:
            os.close(key_w)
        return key_r

    # -- protocol -------------------------------------------------------------------------
    def load(self, sources: tuple[str, ...], entry: str, plan: Plan = NO_PLAN) -> Any:
        """Load the candidate module (the first of ``sources`` that compiles) and return its
        ``entry``.

        The sample then makes the ``plan``'s calls of it (see :meth:`Plan.of`), in order
        and without waiting to be asked, and queues their replies: one round trip for all of
        them instead of one each. Each call the tests make must be the next planned one and
        takes its reply. The sample stops its plan at the first call that raises or returns
        an object, as the tests could act on it before the next call. So the tests see the
        answers to the very calls, in the same order, that they would have made one by one;
        calls planned beyond where they stop are never read. Anything else asked first
        raises :class:`PlanDiverged`."""
        entry_point = call_remote(
            self,
            {
                "op": "load",
                "source": sources[0],
                "fallbacks": list(sources[1:]),
                "entry": entry,
                "then": list(plan.calls),
            },
        )
        if isinstance(entry_point, Remote):
            self._planned.extend(
                (entry_point._id, key, given)
                for key, given in zip(plan.keys, plan.given, strict=True)
            )
        return entry_point

    def call(self, target: int, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if self.planned:
            planned_target, _, given = self._planned[0]
            if planned_target == target and given is not None and same_objects(args, kwargs, given):
                return self.next_planned()
        message = {
            "op": "call",
            "target": target,
            "args": wire.encode(args),
            "kwargs": wire.encode(kwargs),
        }
        if not self._planned:
            return call_remote(self, message)
        planned_target, key, _ = self._planned.popleft()
        expected = arguments_key(message["args"], message["kwargs"])
        if self.diverged or (planned_target, key) != (target, expected):
            self.diverged = True
            raise PlanDiverged("the tests made a call other than the planned one")
        return result_of(self, self._receive(), planned=True)

    @property
    def planned(self) -> bool:
        """Whether a planned call's reply is still to be taken."""
        return bool(self._planned) and not self.diverged

    def next_planned(self) -> Any:
        """What the next planned call returned, for a grader that makes exactly the plan's
        calls, in its order (the plan is its own list of inputs): taken without matching
        its arguments against the plan's, as :meth:`call` does for tests it cannot foresee."""
        if not self.planned:
            raise PlanDiverged("no planned call left")
        self._planned.popleft()
        return result_of(self, self._receive(), planned=True)

    def run_program(self, sample: str, program: str) -> None:
        """Run a whole ``program`` with its tests (``sample`` is its candidate's part, compiled
        alone first). Returns if its tests ended; raises what it raised, or
        :class:`SampleTampered` for any pass but the sealed one of its real end."""
        if self._key is None:
            raise ValueError("a program runs only in a sealed sandbox")
        reply = self.request({"op": "program", "sample": sample, "program": program})
        if "tampered" in reply:
            raise SampleTampered(str(reply["tampered"])[:300])
        if "ok" in reply:
            proof = reply.get("proof")
            if type(proof) is str and proof.isascii() and hmac.compare_digest(proof, self._key):
                return
            raise SampleTampered(
                "it wrote a pass itself, without the proof only the real end of its tests can write"
            )
        result_of(self, reply)

    def end_plan(self) -> None:
        """The sample stopped its plan (the last planned reply raised or returned an object)."""
        self._planned.clear()

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        if self._planned or self.diverged:
            self.diverged = True
            raise PlanDiverged(f"the tests asked for {message.get('op')!r} during the plan")
        try:
            self._write(wire.dumps_request(message))
        except SampleTimeout as e:
            raise self.failed(e) from None
        except OSError:
            raise self.failed(SampleCrashed(self._death_reason())) from None
        return self._receive()

    def _write(self, data: bytes) -> None:
        while data:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise self._timeout()
            if not self._poll_out.poll(remaining * 1000):
                continue
            try:
                data = data[os.write(self._req_w, data) :]
            except BlockingIOError:
                continue

    def _receive(self) -> dict[str, Any]:
        try:
            while True:
                message = self._receive_line()
                if "attempt" not in message:
                    self.subclass_answer = message.get("subclass") is True
                    return message
                self._note_attempt(message["attempt"])
        except (SampleTimeout, SampleCrashed, SampleTampered) as e:
            raise self.failed(e) from None

    def _timeout(self) -> SampleTimeout:
        return SampleTimeout(f"no result within {self.limits.timeout_s:g} s")

    def failed(self, exc: BaseException) -> BaseException:
        """``exc``, kept as the sample's failure if it is the first (see :attr:`failure`)."""
        if self.failure is None:
            self.failure = exc
        return exc

    def _receive_line(self) -> dict[str, Any]:
        # Only what arrived is searched, and the buffer grows in place: a reply of tens of MiB
        # comes in thousands of chunks, and copying and searching it whole at each one took
        # the grader minutes (the sample's time ran out on a right answer).
        while (end := self._buffer.find(b"\n", self._scanned)) < 0:
            self._scanned = len(self._buffer)
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise self._timeout()
            if not self._poll.poll(remaining * 1000):
                continue
            chunk = os.read(self._resp_r, 1 << 16)
            if not chunk:
                raise SampleCrashed(self._death_reason())
            self._buffer += chunk
            if len(self._buffer) > 64 * 1024 * 1024:
                raise SampleCrashed("reply larger than 64 MiB")
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        self._scanned = 0
        if self._mark:
            if line.startswith(self._mark):
                line = line[len(self._mark) :]
            else:  # read as before: the flag changes no verdict
                self._note_attempt(
                    [attempts.FORGERY, f"wrote on the harness's reply channel: {line[:80]!r}"]
                )
        try:
            message = wire.loads(line)
        except wire.WireError as e:
            if self._key is not None:  # the harness of a program writes only whole replies
                raise SampleTampered(f"it wrote on the harness's reply channel ({e})") from None
            raise SampleCrashed(f"broke the result protocol: {e}") from None
        if "crash" in message:
            raise SampleCrashed(str(message["crash"]))
        return message

    def _death_reason(self) -> str:
        reason = self.end(status=True) or "its process ended before returning a result"
        if reason.startswith("exited with status") and not any(
            a["category"] == attempts.EXIT_EARLY for a in self.attempts
        ):
            self._note_attempt([attempts.EXIT_EARLY, f"its process {reason}"])
        return reason

    def _note_attempt(self, attempt: Any) -> None:
        found = attempts.attempt_of(attempt)
        if found is not None and found not in self.attempts:
            if len(self.attempts) < attempts.MAX_PER_SAMPLE:
                self.attempts.append(found)

    def collect_attempts(self) -> list[dict[str, str]]:
        """Every attempt the sample reported, those after the last reply read among them:
        read once the sample has ended (:meth:`end`), from what its channel still holds."""
        self.end()
        held = bytes(self._buffer)
        while len(held) < DRAIN_BYTES and self._poll.poll(0):
            try:
                chunk = os.read(self._resp_r, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            held += chunk
        self._buffer, self._scanned = bytearray(), 0
        for line in held.split(b"\n"):
            if self._mark and line.startswith(self._mark):
                line = line[len(self._mark) :]
            if b'"attempt"' not in line:
                continue
            try:
                message = wire.loads(line)
            except wire.WireError:
                continue
            if "attempt" in message:
                self._note_attempt(message["attempt"])
        return self.attempts

    def end(self, status: bool = False) -> str | None:
        """Kill the sample and all it started (once); with ``status``, returns how its
        process ended."""
        if self.ended is None:
            self.ended = self.zygote.end(self.pid, status) or ""
        return self.ended

    # -- lifetime -------------------------------------------------------------------------
    def output_tail(self) -> str:
        self.output.flush()
        size = self.output.seek(0, os.SEEK_END)
        self.output.seek(max(0, size - OUTPUT_TAIL_BYTES))
        tail = self.output.read().decode("utf-8", "replace")
        return ("[...]\n" if size > OUTPUT_TAIL_BYTES else "") + tail

    def stderr(self) -> str:
        """All the sample wrote to its stderr so far (with ``stderr_apart``; it is capped by
        the file-size limit)."""
        if self.errors is None:
            return ""
        self.errors.seek(0)
        return self.errors.read().decode("utf-8", "replace")

    def close(self) -> None:
        try:
            self.end()
        except SampleCrashed:
            pass  # the zygote is gone, and every sample of it
        self._release()

    def _release(self) -> None:
        """Close this side's pipe ends and files, and remove the sample's working directory."""
        for fd in (self._req_w, self._resp_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.output.close()
        if self.errors is not None:
            self.errors.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
