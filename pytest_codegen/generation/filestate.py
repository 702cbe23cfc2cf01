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
    """The JSON object in ``path`` (or in memory when ``path`` is None), changed in turns."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()  # the threads of this process take turns here
        self._memory: dict[str, Any] = {}

    @contextlib.contextmanager
    def edit(self) -> Iterator[dict[str, Any]]:
        """The current state, to change in place; written back when the block ends without
        an exception. No other process or thread edits it meanwhile."""
        with self._lock, self._turn():
            state = self._load()
            yield state
            self._save(state)

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        """This process's turn at the file."""
        if self.path is None:
            yield
            return
        if fcntl is None:  # pragma: no cover - Windows: filelock polls for its turn
            import filelock

            with filelock.FileLock(f"{self.path}.lock"):
                yield
            return
        fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # lets go of the lock

    def _load(self) -> dict[str, Any]:
        if self.path is None:
            return copy.deepcopy(self._memory)  # a copy, as a file would give
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # absent or unreadable: start afresh
        return data if isinstance(data, dict) else {}

    def _save(self, state: dict[str, Any]) -> None:
        if self.path is None:
            self._memory = state
            return
        # In place, not renamed into place: every reader holds the lock, and a rename costs
        # more than the rest of a turn together (it runs twice per model request).
        blob = json.dumps(state).encode("utf-8")
        with contextlib.suppress(OSError):
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644)
            try:
                os.pwrite(fd, blob, 0)
                os.ftruncate(fd, len(blob))
            finally:
                os.close(fd)
