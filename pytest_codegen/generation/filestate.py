"""A small JSON object shared by every process of the machine.

The rate limit's token buckets (:mod:`.ratelimit`) and the budget of requests in flight
(:mod:`.budget`) keep their state this way: read, changed and written back whole under a file
lock, so processes take turns; in memory when no file is given (one process alone).
"""

from __future__ import annotations

import contextlib
import copy
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import filelock

from ..cachedir import atomic_write


class SharedState:
    """The JSON object in ``path`` (or in memory when ``path`` is None), changed in turns."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()  # one FileLock instance must not be shared by threads
        self._file_lock = filelock.FileLock(f"{path}.lock", thread_local=False) if path else None
        self._memory: dict[str, Any] = {}

    @contextlib.contextmanager
    def edit(self) -> Iterator[dict[str, Any]]:
        """The current state, to change in place; written back when the block ends without
        an exception. No other process or thread edits it meanwhile."""
        with self._lock, self._file_lock or contextlib.nullcontext():
            state = self._load()
            yield state
            self._save(state)

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
        with contextlib.suppress(OSError):
            atomic_write(self.path, json.dumps(state))
