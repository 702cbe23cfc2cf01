"""A small JSON object shared by every process of the machine.

The rate limit's token buckets (:mod:`.ratelimit`) and the budget of requests in flight
(:mod:`.budget`) keep their state this way: read, changed and written back (in place) under
an ``flock`` on ``<state>.lock``, so processes take turns; in memory when no file is given (one
process alone). A process waiting for its turn sleeps in the kernel until the holder lets go:
no polling, so no CPU spent and no turn missed by a polling interval.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class SharedState:
    """The JSON object in ``path`` (or in memory when ``path`` is None), changed in turns.

    The lock file and the state file stay open between turns (a model request takes a turn
    or two: opening and closing them each time cost more than the rest of the turn).
    """

    READ_CHUNK = 1 << 16

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()  # the threads of this process take turns here
        self._memory: dict[str, Any] = {}
        self._fds: tuple[int, int] | None = None  # (lock file, state file)
        self._pid = os.getpid()  # a forked child opens its own

    @contextlib.contextmanager
    def edit(self) -> Iterator[dict[str, Any]]:
        """The current state, to change in place; written back when the block ends without
        an exception. No other process or thread edits it meanwhile."""
        with self._lock, self._turn() as fd:
            state = self._load(fd)
            yield state
            self._save(fd, state)

    def close(self) -> None:
        """Close the files (a later turn opens them again)."""
        with self._lock:
            self._close_files()

    def __del__(self) -> None:  # a rate limit's state is dropped, never closed
        if hasattr(self, "_fds"):
            self._close_files()

    def _close_files(self) -> None:
        fds, self._fds = self._fds, None
        if fds is not None and self._pid == os.getpid():  # a forked child's are the parent's
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)

    @contextlib.contextmanager
    def _turn(self) -> Iterator[int | None]:
        """This process's turn at the file; the state file's descriptor (None: in memory,
        or no file could be opened)."""
        if self.path is None:
            yield None
            return
        if fcntl is None:  # pragma: no cover - Windows: filelock polls for its turn
            import filelock

            with filelock.FileLock(f"{self.path}.lock"):
                yield None
            return
        fds = self._open()
        if fds is None:
            yield None  # no file to share: this turn works on an empty state
            return
        lock_fd, state_fd = fds
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        try:
            yield state_fd
        finally:
            fcntl.flock(lock_fd, fcntl.LOCK_UN)

    def _open(self) -> tuple[int, int] | None:
        if self._pid != os.getpid():
            self._fds, self._pid = None, os.getpid()  # the parent's descriptors are not ours
        if self._fds is None:
            try:
                lock_fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                return None
            try:
                state_fd = os.open(str(self.path), os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                os.close(lock_fd)
                return None
            self._fds = (lock_fd, state_fd)
        return self._fds

    def _load(self, fd: int | None) -> dict[str, Any]:
        if self.path is None:
            return copy.deepcopy(self._memory)  # a copy, as a file would give
        try:
            if fd is None:
                blob = self.path.read_bytes()
            else:
                blob = b""
                while len(chunk := os.pread(fd, self.READ_CHUNK, len(blob))) > 0:
                    blob += chunk
            data = json.loads(blob) if blob else {}
        except (OSError, ValueError):
            return {}  # absent or unreadable: start afresh
        return data if isinstance(data, dict) else {}

    def _save(self, fd: int | None, state: dict[str, Any]) -> None:
        if self.path is None:
            self._memory = state
            return
        # In place, not renamed into place: every reader holds the lock, and a rename costs
        # more than the rest of a turn together.
        blob = json.dumps(state, separators=(",", ":")).encode("utf-8")
        with contextlib.suppress(OSError):
            if fd is None:
                self.path.write_bytes(blob)
                return
            os.pwrite(fd, blob, 0)
            os.ftruncate(fd, len(blob))
