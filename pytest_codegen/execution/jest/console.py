"""The Jest runner's console output: drained from its pipes as it comes, cleaned of colours."""

from __future__ import annotations

import re
import threading
from collections import deque
from typing import Any

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


class OutputTail:
    """Drains a pipe in a thread, keeping the last ``limit`` characters (the pipe never fills)."""

    def __init__(self, stream: Any, limit: int) -> None:
        self._buffer: deque[str] = deque()
        self._size = 0
        self._limit = limit
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: Any) -> None:
        for chunk in iter(lambda: stream.read1(8192), b""):
            text = chunk.decode("utf-8", "replace")
            with self._lock:
                self._buffer.append(text)
                self._size += len(text)
                while self._size > self._limit and len(self._buffer) > 1:
                    self._size -= len(self._buffer.popleft())

    def take(self) -> str:
        """Everything kept since the last call, capped to the limit."""
        with self._lock:
            text = "".join(self._buffer)
            self._buffer.clear()
            self._size = 0
        return text[-self._limit :]

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)
