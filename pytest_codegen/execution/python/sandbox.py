"""Trusted side of Python execution: one fresh, limited child process per sample.

The child (``child.py``) gets an allowlisted environment, a private working directory
removed afterwards, memory/CPU/file-size/process caps and, when we run as root, namespaces and
a uid of its own (see that module). Requests and replies cross two pipes as plain data
(:mod:`.wire`); the child's stdout/stderr go to a capped file we read the tail of.
Every wait has a deadline: at the deadline the sample times out, and when it ends for any
reason the zygote kills every process it started (by its uid as root, else its process group).
"""

from __future__ import annotations

import builtins
import collections
import dataclasses
import json
import marshal
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from . import wire

CHILD_SCRIPT = Path(__file__).with_name("child.py")

# Variables a Python child needs to behave normally; everything else (API keys, tokens,
# the user's PATH additions, proxies) stays behind.
ENV_ALLOWLIST = ("LANG", "LC_ALL", "LC_CTYPE", "TZ")
OUTPUT_TAIL_BYTES = 4096
# As root, samples run as an unprivileged uid of their grading process's own:
# UID_BASE + pid + k * PID_SPAN, k = 0, 1, ...; two live samples never share one.
UID_BASE = 200_000
PID_SPAN = 1 << 22  # Linux's largest pid_max
MASKED_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
# Standard-library modules the zygote imports ahead for samples when a suite's own code
# (prompt, reference, tests) imports them: pure computation, no side effects on import.
PRELOADABLE = frozenset(
    {
        "abc",
        "array",
        "base64",
        "binascii",
        "bisect",
        "calendar",
        "cmath",
        "collections",
        "collections.abc",
        "copy",
        "csv",
        "dataclasses",
        "datetime",
        "decimal",
        "difflib",
        "enum",
        "fnmatch",
        "fractions",
        "functools",
        "hashlib",
        "heapq",
        "html",
        "io",
        "ipaddress",
        "itertools",
        "json",
        "math",
        "numbers",
        "operator",
        "pprint",
        "random",
        "re",
        "statistics",
        "string",
        "struct",
        "textwrap",
        "time",
        "typing",
        "unicodedata",
        "urllib.parse",
        "uuid",
        "zlib",
    }
)


class SampleTimeout(BaseException):
    """The sample ran past its wall-clock limit (BaseException: tests must not catch it)."""


class SampleCrashed(BaseException):
    """The sample's process died, ran out of memory, or broke the protocol."""


class PlanDiverged(BaseException):
    """The tests asked for something other than the next planned call (see
    :meth:`Sandbox.load`): the sample must be graded again, call by call."""


@dataclasses.dataclass(frozen=True)
class Plan:
    """Calls of a candidate foreseen before it is loaded (see :meth:`Sandbox.load`), encoded
    once: a problem's plan serves every one of its samples."""

    calls: tuple[list[Any], ...] = ()  # [args, kwargs] each, as wire data
    keys: tuple[str, ...] = ()  # what a call must encode to, to be the planned one

    @classmethod
    def of(cls, calls: Iterable[tuple[list[Any], dict[str, Any]]]) -> Plan:
        encoded = tuple([wire.encode(list(args)), wire.encode(kwargs)] for args, kwargs in calls)
        return cls(encoded, tuple(_arguments_key(*call) for call in encoded))


NO_PLAN = Plan()


class CandidateException(Exception):
    """An exception raised by the candidate whose type is not a built-in one."""


@dataclasses.dataclass(frozen=True)
class Limits:
    timeout_s: float
    memory_mb: int
    max_procs: int = 32
    file_size: int = 8 * 1024 * 1024  # caps the sample's output and any file it writes
    cpus: tuple[int, ...] = ()  # where its processes run (see execute.worker_cpus); () any


class Sandbox:
    """A running child for one sample. Use as a context manager; it is killed on exit."""

    def __init__(
        self, limits: Limits, hide: tuple[str, ...] = (), preload: Iterable[str] = ()
    ) -> None:
        """``preload``: modules the sample's code is likely to import (of PRELOADABLE); the
        zygote imports them for later samples, so they find them loaded."""
        self.limits = limits
        self.deadline = time.monotonic() + limits.timeout_s
        self.zygote = zygote = Zygote.get(hide, limits.cpus)
        self.workdir = Path(tempfile.mkdtemp(prefix="sample-", dir=zygote.workroot))
        self.output = tempfile.TemporaryFile()
        self.ended: str | None = None
        req_r, self._req_w = os.pipe()
        self._resp_r, resp_w = os.pipe()
        config = {
            "timeout_s": limits.timeout_s,
            "memory_mb": limits.memory_mb,
            "max_procs": limits.max_procs,
            "file_size": limits.file_size,
        }
        try:
            spare = zygote.spawn(
                config, self.workdir, [req_r, resp_w, self.output.fileno()], preload
            )
        finally:
            os.close(req_r)
            os.close(resp_w)
        self.pid, self.uid, self.isolation = spare.pid, spare.uid, spare.isolation
        self._buffer = b""
        # Planned calls whose replies are on their way: (target, encoded arguments).
        self._planned: collections.deque[tuple[int, str]] = collections.deque()
        self.diverged = False
        self._poll = select.poll()
        self._poll.register(self._resp_r, select.POLLIN)
        self.started = time.monotonic()

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
            self._planned.extend((entry_point._id, key) for key in plan.keys)
        return entry_point

    def call(self, target: int, args: list[Any], kwargs: dict[str, Any]) -> Any:
        message = {
            "op": "call",
            "target": target,
            "args": wire.encode(args),
            "kwargs": wire.encode(kwargs),
        }
        if not self._planned:
            return call_remote(self, message)
        expected = (target, _arguments_key(message["args"], message["kwargs"]))
        if self.diverged or self._planned.popleft() != expected:
            self.diverged = True
            raise PlanDiverged("the tests made a call other than the planned one")
        return result_of(self, self._receive(), planned=True)

    def end_plan(self) -> None:
        """The sample stopped its plan (the last planned reply raised or returned an object)."""
        self._planned.clear()

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        if self._planned or self.diverged:
            self.diverged = True
            raise PlanDiverged(f"the tests asked for {message.get('op')!r} during the plan")
        data = wire.dumps_request(message)
        try:
            while data:
                data = data[os.write(self._req_w, data) :]
        except (BrokenPipeError, OSError):
            raise SampleCrashed(self._death_reason()) from None
        return self._receive()

    def _receive(self) -> dict[str, Any]:
        while b"\n" not in self._buffer:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise SampleTimeout(f"no result within {self.limits.timeout_s:g} s")
            if not self._poll.poll(remaining * 1000):
                continue
            chunk = os.read(self._resp_r, 1 << 16)
            if not chunk:
                raise SampleCrashed(self._death_reason())
            self._buffer += chunk
            if len(self._buffer) > 64 * 1024 * 1024:
                raise SampleCrashed("reply larger than 64 MiB")
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            message = wire.loads(line)
        except wire.WireError as e:
            raise SampleCrashed(f"broke the result protocol: {e}") from None
        if "crash" in message:
            raise SampleCrashed(str(message["crash"]))
        return message

    def _death_reason(self) -> str:
        return self.end(status=True) or "its process ended before returning a result"

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

    def close(self) -> None:
        try:
            self.end()
        except SampleCrashed:
            pass  # the zygote is gone, and every sample of it
        for fd in (self._req_w, self._resp_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.output.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _paths_to_keep() -> list[str]:
    """Where the child's Python finds its code: stdlib, site-packages, this package."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(CHILD_SCRIPT.parent)}
    paths.add(os.path.dirname(os.path.realpath(sys.executable)))
    paths.update(p for p in sys.path if p and os.path.isdir(p))
    return sorted(os.path.realpath(p) for p in paths)


def _dirs_to_mask(keep: list[str]) -> list[str]:
    """Private scratch dirs, the user's home, and any directory an unprivileged uid could
    not pass through on the way to the Python it must run (``/root`` for a pyenv install):
    those become empty tmpfs with the ``keep`` paths bound back inside."""
    masks = set(MASKED_DIRS) | {os.path.expanduser("~")}
    for path in keep:
        parts = Path(path).parts
        for i in range(2, len(parts)):
            ancestor = os.path.join(*parts[:i])
            try:
                if not os.stat(ancestor).st_mode & 0o001:
                    masks.add(ancestor)
                    break
            except OSError:
                break
    return sorted(masks)


def sample_uids(grader_pid: int) -> Iterator[int]:
    """The uids samples of one grading process run as, in order of preference."""
    uid = UID_BASE + grader_pid
    while True:
        yield uid
        uid += PID_SPAN


def grader_of(uid: int) -> int:
    """The pid of the grading process a sample uid belongs to."""
    return (uid - UID_BASE) % PID_SPAN


# What a spare sample process is confined with; a sample with other limits needs another.
SPARE_KEY = ("timeout_s", "memory_mb", "max_procs", "file_size")


@dataclasses.dataclass
class Spare:
    """A confined sample process waiting for its sample (see ``child.spare``)."""

    key: tuple[Any, ...]  # the limits it was confined with (SPARE_KEY)
    uid: int
    pid: int
    handle: socket.socket
    isolation: str  # what confines it: "namespaces+uid", "uid" or "rlimits"


class Zygote:
    """The per-process parent of all sample processes (see ``child.zygote``)."""

    _instance: Zygote | None = None
    _lock = threading.Lock()

    def __init__(self, hide: tuple[str, ...], cpus: tuple[int, ...] = ()) -> None:
        self.hide = hide
        self.cpus = cpus
        # The samples' working directories live here; other uids may pass, not list.
        self.workroot = tempfile.mkdtemp(prefix="codegen-samples-")
        os.chmod(self.workroot, 0o711)
        keep = _paths_to_keep()
        view = {
            "mask": _dirs_to_mask(keep),
            "keep": keep,
            "hide": list(hide),
            "workroot": self.workroot,
            "cpus": list(cpus),
        }
        parent_sock, child_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {k: os.environ[k] for k in ENV_ALLOWLIST if k in os.environ}
        env.update(PATH="/usr/bin:/bin", HOME="/tmp", PYTHONHASHSEED="0")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-I",
                str(CHILD_SCRIPT),
                "--zygote",
                str(child_sock.fileno()),
                json.dumps(view),
            ],
            pass_fds=(child_sock.fileno(),),
            env=env,
            cwd="/",
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        child_sock.close()
        self.sock = parent_sock
        self.owner = os.getpid()
        # A spare sample process ready for the next sample, and one requested but not yet
        # read back; the samples handed over and not yet ended (pid -> uid).
        self._spare: Spare | None = None
        self._pending: tuple[tuple[Any, ...], int] | None = None
        self._live: dict[int, int] = {}
        self._preloaded: set[str] = set()  # modules already asked of the zygote

    @classmethod
    def get(cls, hide: tuple[str, ...] = (), cpus: tuple[int, ...] = ()) -> Zygote:
        with cls._lock:
            z = cls._instance
            if (
                z is None
                or z.owner != os.getpid()
                or z.proc.poll() is not None
                or (z.hide, z.cpus) != (hide, cpus)
            ):
                if z is not None and z.owner == os.getpid():
                    z.stop()
                cls._instance = z = cls(hide, cpus)
            return z

    def stop(self) -> None:
        if self._spare is not None:
            self._spare.handle.close()
            self._spare = None
        self.sock.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.workroot, ignore_errors=True)

    def spawn(
        self, config: dict[str, Any], workdir: Path, fds: list[int], preload: Iterable[str] = ()
    ) -> Spare:
        """Start a sample in ``workdir``: hand ``fds`` (requests in, replies out, output) to a
        ready spare, and return it (its pid is what :meth:`end` takes).

        The spare was confined while the previous sample ran; the next one is requested
        now, so the zygote forks it off this sample's critical path.
        """
        key = tuple(config[k] for k in SPARE_KEY)
        with self._lock:
            for _attempt in range(2):
                spare = self._take(config, key, preload)
                if os.getuid() == 0:
                    os.chown(workdir, spare.uid, spare.uid)
                try:
                    socket.send_fds(spare.handle, [marshal.dumps({"workdir": str(workdir)})], fds)
                except OSError:
                    continue  # that spare died while waiting: take a fresh one
                finally:
                    spare.handle.close()
                self._live[spare.pid] = spare.uid
                self._request(config, key, preload)
                return spare
        raise SampleCrashed("the sandbox launcher died")

    def end(self, pid: int, status: bool = False) -> str | None:
        """Kill sample ``pid`` and every process it started. With ``status``, wait for its
        process and say how it ended; without, the zygote does the killing while the next
        sample is prepared (it handles requests in order, so before that spare exists)."""
        with self._lock:
            if self._live.pop(pid, None) is None:
                return None
            self._collect()  # replies come in request order
            try:
                self.sock.send(marshal.dumps({"end": pid, "status": status}))
                reply = self.sock.recv(4096) if status else None
            except OSError:
                reply = b""
            if reply is None:
                return None
            if not reply:
                raise SampleCrashed("the sandbox launcher died")
            ended = marshal.loads(reply)["status"]
            return None if ended is None else str(ended)

    def _free_uid(self) -> int:
        """A uid no live sample and no spare has: kill-by-uid then hits one sample only."""
        if os.getuid() != 0:
            return os.getuid()
        taken = set(self._live.values())
        if self._spare is not None:
            taken.add(self._spare.uid)
        if self._pending is not None:
            taken.add(self._pending[1])
        return next(uid for uid in sample_uids(self.owner) if uid not in taken)

    def _collect(self) -> None:
        if self._pending is not None:
            (key, uid), self._pending = self._pending, None
            self._spare = Spare(key, uid, *self._read_spare())

    def _take(
        self, config: dict[str, Any], key: tuple[Any, ...], preload: Iterable[str] = ()
    ) -> Spare:
        self._collect()
        if self._spare is not None and self._spare.key != key:
            self._spare.handle.close()  # prepared for other limits: it exits
            self._spare = None
        if self._spare is None:
            self._request(config, key, preload)
            self._collect()
        assert self._spare is not None
        spare, self._spare = self._spare, None
        return spare

    def _request(
        self, config: dict[str, Any], key: tuple[Any, ...], preload: Iterable[str] = ()
    ) -> None:
        uid = self._free_uid()
        prepare: dict[str, Any] = {**{k: config[k] for k in SPARE_KEY}, "uid": uid}
        new = sorted((set(preload) & PRELOADABLE) - self._preloaded)
        if new:
            # Imported before this spare is forked: it and every later sample have them.
            prepare["preload"] = new
            self._preloaded.update(new)
        try:
            self.sock.send(marshal.dumps({"prepare": prepare}))
        except OSError:
            raise SampleCrashed("the sandbox launcher died") from None
        self._pending = (key, uid)

    def _read_spare(self) -> tuple[int, socket.socket, str]:
        try:
            message, fds, _, _ = socket.recv_fds(self.sock, 4096, 1)
        except OSError:
            message, fds = b"", []
        if not message or len(fds) != 1:
            raise SampleCrashed("the sandbox launcher died")
        reply = marshal.loads(message)
        return int(reply["pid"]), socket.socket(fileno=fds[0]), str(reply["isolation"])

    @classmethod
    def shutdown(cls) -> None:
        with cls._lock:
            if cls._instance is not None and cls._instance.owner == os.getpid():
                cls._instance.stop()
            cls._instance = None


class Remote:
    """A handle on an object living in the sandbox: calls and attribute reads are forwarded.

    Nothing else is: comparing, hashing or printing a handle never runs the sample's code.
    """

    __slots__ = ("_box", "_id", "_name")

    def __init__(self, box: Sandbox, ident: int) -> None:
        object.__setattr__(self, "_box", box)
        object.__setattr__(self, "_id", ident)
        object.__setattr__(self, "_name", f"<sandboxed object #{ident}>")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._box.call(self._id, list(args), kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return call_remote(self._box, {"op": "getattr", "target": self._id, "name": name})

    def __repr__(self) -> str:
        return self._name


def call_remote(box: Sandbox, message: dict[str, Any]) -> Any:
    """Send one request and turn the reply into a value, or raise what the candidate raised."""
    return result_of(box, box.request(message))


def result_of(box: Sandbox, reply: dict[str, Any], planned: bool = False) -> Any:
    """The value in ``reply``, or raise what the candidate raised. A planned reply that
    raises or hands out an object is the last of its plan (the sample stops there too)."""
    if "ok" in reply:
        handles: list[Remote] = []

        def remote(ident: int) -> Remote:
            handles.append(Remote(box, ident))
            return handles[-1]

        try:
            value = wire.decode_value(reply["ok"], remote)
        except wire.WireError as e:
            raise SampleCrashed(f"returned malformed data: {e}") from None
        if planned and handles:
            box.end_plan()
        return value
    if planned:
        box.end_plan()
    if "raise" in reply:
        raise candidate_exception(reply["raise"])
    raise SampleCrashed(f"unexpected reply {sorted(reply)[:3]}")


def _arguments_key(args: Any, kwargs: Any) -> str:
    # As JSON text: 1, 1.0 and True are different calls, though equal as Python values.
    return json.dumps([args, kwargs], separators=(",", ":"))


def candidate_exception(info: Any) -> BaseException:
    """Rebuild an exception the candidate raised: a built-in type stays that type, so tests
    like ``except ValueError`` work; anything else becomes :class:`CandidateException`."""
    if not isinstance(info, dict):
        return SampleCrashed("malformed exception reply")
    name = str(info.get("type", "Exception"))
    message = str(info.get("message", ""))
    cls = getattr(builtins, name, None) if info.get("builtin") else None
    exc: BaseException
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            exc = cls(message)
        except Exception:
            exc = CandidateException(f"{name}: {message}")
    else:
        exc = CandidateException(f"{name}: {message}")
    exc.candidate_traceback = str(info.get("traceback", ""))  # type: ignore[attr-defined]
    exc.candidate_type = name  # type: ignore[attr-defined]
    return exc
