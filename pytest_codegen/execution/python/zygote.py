"""The launcher of Python samples: one zygote process per grading process, which forks every
sample's process, confined before its sample exists.

The zygote is ``child.py`` started with an allowlisted environment; it builds once the view
samples get (masked and hidden directories, see :func:`_dirs_to_mask`) and keeps one confined
*spare* ready, forked while the previous sample runs. :meth:`Zygote.spawn` hands a sample's
pipes to that spare; :meth:`Zygote.end` has the zygote kill every process the sample started
(by its uid as root, else by descent: the zygote is their subreaper). Messages between grader
and zygote are marshal (trusted to trusted).
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import marshal
import os
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .. import scratch
from . import importable
from .errors import SampleCrashed

CHILD_SCRIPT = Path(__file__).with_name("child.py")
PLUGIN_DIR = str(Path(__file__).resolve().parents[2])  # the pytest_codegen package

# Variables a Python child needs to behave normally; everything else (API keys, tokens,
# the user's PATH additions, proxies) stays behind.
ENV_ALLOWLIST = ("LANG", "LC_ALL", "LC_CTYPE", "TZ")
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
        "subprocess",
        "textwrap",
        "time",
        "typing",
        "unicodedata",
        "urllib.parse",
        "uuid",
        "zlib",
    }
)


def _dirs_to_mask(keep: list[str], user: list[str]) -> list[str]:
    """Private scratch dirs, the user's home, the user's project (``user``: the grading
    process's working directory and its ``sys.path`` entries outside the installation), and
    any directory an unprivileged uid could not pass through on the way to the Python it must
    run (``/root`` for a pyenv install): those become empty tmpfs with the ``keep`` paths
    bound back inside."""
    # The temporary directory in use too: other samples' and the Jest runner's work roots.
    masks = set(MASKED_DIRS) | {os.path.expanduser("~"), os.path.realpath(tempfile.gettempdir())}
    masks.update(user)
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


def bytecode_flags() -> list[str]:
    """The grading process's own choice about bytecode (``-B``, PYTHONDONTWRITEBYTECODE,
    PYTHONPYCACHEPREFIX), for the zygote: ``-I`` ignores the environment, and it would
    otherwise write ``__pycache__`` next to the plugin's sources where the grader does not."""
    flags = ["-B"] if sys.dont_write_bytecode else []
    if sys.pycache_prefix:
        flags += ["-X", f"pycache_prefix={sys.pycache_prefix}"]
    return flags


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

    def __init__(
        self, hide: tuple[str, ...], cpus: tuple[int, ...] = (), reads: tuple[str, ...] = ()
    ) -> None:
        self.hide = hide
        self.cpus = cpus
        self.reads = reads
        # The samples' working directories live here; other uids may pass, not list.
        self.workroot = scratch.make("codegen-samples-")
        os.chmod(self.workroot, 0o711)
        # What samples may read of the Python installation (see importable.py); not this
        # package: the zygote has read what it runs before the view exists.
        keep, listed = importable.readable(PLUGIN_DIR)
        # Toolchains outside the system trees (a rustup sysroot under the home directory).
        keep = keep + [r for r in reads if r not in keep]
        view = {
            "mask": _dirs_to_mask(keep + listed, importable.user_dirs(keep)),
            "keep": keep,
            "list": listed,
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
                *bytecode_flags(),
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
        self._ends_unanswered = 0  # ends asked without waiting, whose answers are still due
        self._preloaded: set[str] = set()  # modules already asked of the zygote

    @classmethod
    def get(
        cls, hide: tuple[str, ...] = (), cpus: tuple[int, ...] = (), reads: tuple[str, ...] = ()
    ) -> Zygote:
        with cls._lock:
            z = cls._instance
            if (
                z is None
                or z.owner != os.getpid()
                or z.proc.poll() is not None
                or (z.hide, z.cpus) != (hide, cpus)
                or not set(reads) <= set(z.reads)
            ):
                if z is not None and z.owner == os.getpid():
                    z.stop()
                if z is None:  # a user of the sandbox that never shuts it down leaves nothing
                    atexit.register(cls.shutdown)
                reads = tuple(sorted(set(reads) | set(z.reads if z is not None else ())))
                cls._instance = z = cls(hide, cpus, reads)
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
        scratch.remove(self.workroot)

    def spawn(
        self,
        config: dict[str, Any],
        workdir: Path,
        fds: list[int],
        preload: Iterable[str] = (),
        sealed: bool = False,
        mark: str = "",
    ) -> Spare:
        """Start a sample in ``workdir``: hand ``fds`` (requests in, replies out, output, the
        key last when ``sealed``: see ``verdict_seal.py``) to a ready spare, and return it (its
        pid is what :meth:`end` takes). ``mark`` starts each reply of the harness's and asks
        the sample's process to watch for attempts (see ``attempt_watch.py``).

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
                    work = {"workdir": str(workdir), "sealed": sealed, "mark": mark}
                    socket.send_fds(spare.handle, [marshal.dumps(work)], fds)
                except OSError:
                    continue  # that spare died while waiting: take a fresh one
                finally:
                    spare.handle.close()
                self._live[spare.pid] = spare.uid
                self._request(config, key, preload)
                return spare
        raise SampleCrashed("the sandbox launcher died")

    def end(self, pid: int, status: bool = False) -> str | None:
        """Kill sample ``pid`` and every process it started, and remove what it left in the
        launcher (its System V objects). With ``status``, wait for its process and say how it
        ended; without, the zygote does it while the grader goes on, and its answer is read
        before the next sample is handed over (:meth:`_settle_ends`)."""
        with self._lock:
            if self._live.pop(pid, None) is None:
                return None
            self._collect()  # replies come in request order
            if not status:
                self._send({"end": pid, "status": False})
                self._ends_unanswered += 1
                return None
            self._settle_ends()
            self._send({"end": pid, "status": True})
            ended = marshal.loads(self._answer())["status"]
            return None if ended is None else str(ended)

    def _send(self, request: dict[str, Any]) -> None:
        try:
            self.sock.send(marshal.dumps(request))
        except OSError:
            raise SampleCrashed("the sandbox launcher died") from None

    def _answer(self) -> bytes:
        try:
            reply = self.sock.recv(4096)
        except OSError:
            reply = b""
        if not reply:
            raise SampleCrashed("the sandbox launcher died")
        return reply

    def _settle_ends(self) -> None:
        """Read the answers of the ends not waited for: each sample's processes are dead and
        its objects removed before the next sample exists (no spare is requested meanwhile,
        so these answers are next)."""
        while self._ends_unanswered:
            self._answer()
            self._ends_unanswered -= 1

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
        self._settle_ends()
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
        self._send({"prepare": prepare})
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
