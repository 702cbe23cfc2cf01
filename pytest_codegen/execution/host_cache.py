"""Values measured once per host and kept for later runs: a problem's reference time
(:mod:`.time_limits`), the canonical outputs of HumanEval+/MBPP+ problems
(:mod:`.python.evalplus_grader`).

One rule for both: in memory for the process, one small JSON file per key on disk under
``<cache>/<name>/<host>/`` (written whole, so readers need no lock), and a lock per key while
it is measured, so that the workers of a run (and concurrent runs) measure it once. A cache
that cannot be written (read-only, or no cache at all) costs a measurement in each process,
never a failure.
"""

from __future__ import annotations

import contextlib
import json
import platform
import re
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..cachedir import atomic_write

LOCK_WAIT_S = 600  # another process measuring longer than this is presumed gone


def host_name() -> str:
    return socket.gethostname() or "localhost"


def host_key() -> str:
    """This host as measurements are kept: its name, machine and Python (what is measured
    holds for the interpreter that measured it)."""
    implementation = platform.python_implementation().lower()
    major_minor = ".".join(platform.python_version_tuple()[:2])
    key = f"{host_name()}-{platform.machine()}-{implementation}{major_minor}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", key)


class HostMeasurements:
    """The measurements called ``name`` of this host, kept under ``root`` (None: kept in
    this process only)."""

    def __init__(self, root: Path | None, name: str) -> None:
        self.dir = root / name / host_key() if root is not None else None
        self._known: dict[str, dict[str, Any]] = {}

    def get(
        self,
        key: str,
        measure: Callable[[], dict[str, Any] | Any],
        usable: Callable[[dict[str, Any]], bool] = lambda entry: True,
    ) -> tuple[Any, bool]:
        """``(entry, cached)``: the ``usable`` entry kept for ``key``, else what ``measure``
        returns now (kept if it is a dict; anything else, such as why it could not be
        measured, is returned and not kept). Exceptions of ``measure`` propagate."""
        found = self._usable(key, usable)  # no lock to read: files are written whole
        if found is not None:
            return found, True
        with self._lock(key):
            found = self._usable(key, usable)  # measured by another process meanwhile?
            if found is not None:
                return found, True
            measured = measure()
            if isinstance(measured, dict):
                self._known[key] = measured
                self._write(key, measured)
            return measured, False

    def _usable(self, key: str, usable: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        entry = self._known.get(key) or self._read(key)
        if entry is None or not usable(entry):
            return None
        self._known[key] = entry
        return entry

    def _path(self, key: str) -> Path | None:
        return self.dir / f"{key}.json" if self.dir is not None else None

    def _read(self, key: str) -> dict[str, Any] | None:
        path = self._path(key)
        try:
            entry = json.loads(path.read_text()) if path is not None else None
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) else None

    def _write(self, key: str, entry: dict[str, Any]) -> None:
        path = self._path(key)
        if path is not None:
            with contextlib.suppress(OSError):  # a read-only cache: measured again next run
                atomic_write(path, json.dumps(entry))

    @contextlib.contextmanager
    def _lock(self, key: str) -> Iterator[None]:
        """Held while ``key`` is measured; none where the cache cannot be written."""
        import filelock

        path, lock = self._path(key), None
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                lock = filelock.FileLock(f"{path}.lock", timeout=LOCK_WAIT_S)
                lock.acquire()
            except (OSError, filelock.Timeout):
                lock = None
        try:
            yield
        finally:
            if lock is not None:
                lock.release()
