"""The on-disk generation cache, and the claims that keep processes from doing work twice.

* **Cache.** One JSON file per sample, named by :func:`cache_key` (sha256 of the model spec,
  the endpoint it is served from when not its provider's own, the effective sampling
  parameters, the prompt, the system message and the sample index),
  written to a temporary file and ``os.replace``-d into place, so a reader never sees a torn
  entry. Error completions are never cached: a rerun retries them.
* **Claims.** Before requesting a sample a process takes an exclusive, non-blocking
  ``flock`` on ``claims/<key>.lock`` and checks the cache again (the entry may have appeared
  meanwhile). The kernel drops the lock when its holder exits, so a killed worker leaves no
  stale claim behind. A process that finds a sample claimed waits for the entry instead;
  if the holder gives up without one (an API error) the waiter takes the holder's error note,
  and if the holder dies the waiter claims the sample itself. After ``claim_timeout_s`` a
  waiter generates regardless (see :mod:`pytest_codegen.generation.engine`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import time
from pathlib import Path

from ..cachedir import atomic_write
from ..models.base import Completion, Prompt, SamplingParams
from .jobs import Job

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt

CACHE_FORMAT = 1


def cache_key(
    spec: str,
    params: SamplingParams,
    prompt: Prompt,
    sample_index: int,
    repair_round: int = 0,
    endpoint: str | None = None,
) -> str:
    """The cache key of one sample; ``params`` are the effective (merged) parameters. A
    repair round's answer has a key of its own (a first answer's is as it always was): a
    round asked what the round before it was asked (the same failed code and log) is asked
    again, not given that round's answer. So has the answer of a model served from an
    ``endpoint`` of its own (two vLLM servers of one model name are two models)."""
    material: dict[str, object] = {
        "format": CACHE_FORMAT,
        "model": spec,
        "params": params.as_dict(),
        "prompt": prompt.text,
        "system": prompt.system,
        "sample": sample_index,
    }
    if repair_round:
        material["repair_round"] = repair_round
    if endpoint:
        material["endpoint"] = endpoint
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def lock_fd(fd: int) -> bool:
    """Take an exclusive lock on ``fd`` without waiting; whether it was free. The kernel
    drops it when the holder closes the file or exits."""
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:  # pragma: no cover - Windows
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


class Claim:
    """An exclusive lock on one sample, held while this process generates it."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd: int | None = fd

    def release(self, remove: bool = False) -> None:
        if self.fd is None:
            return
        if remove:
            # Safe only once the entry exists: whoever locks the old file re-reads the cache.
            with contextlib.suppress(OSError):
                os.unlink(self.path)
        with contextlib.suppress(OSError):
            os.close(self.fd)  # closing drops the flock
        self.fd = None


class DiskCache:
    """Entries at ``<root>/<key[:2]>/<key>.json``; claims and error notes in ``claims/``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.claims = self.root / "claims"
        self.claims.mkdir(parents=True, exist_ok=True)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def exists(self, key: str, fresh_after: float | None = None) -> bool:
        try:
            mtime = self.path(key).stat().st_mtime
        except OSError:
            return False
        return fresh_after is None or mtime >= fresh_after

    def read(self, key: str, fresh_after: float | None = None) -> tuple[Completion, float] | None:
        """The entry's completion and mtime, or None (absent, stale, or unreadable: not the
        answer this cache writes, which would be graded as one)."""
        path = self.path(key)
        try:
            mtime = path.stat().st_mtime
            if fresh_after is not None and mtime < fresh_after:
                return None
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("key") != key or not isinstance(data.get("completion"), dict):
                return None
            completion = Completion.from_json(data["completion"])
        except (OSError, ValueError, TypeError, AttributeError):
            return None
        # Only answers are written: a text that is none, a missing sample or an error is not.
        if not isinstance(completion.text, str) or completion.missing or completion.error:
            return None
        return completion, mtime

    def write(self, key: str, job: Job, spec: str, completion: Completion) -> None:
        entry = {
            "format": CACHE_FORMAT,
            "key": key,
            "model": spec,
            "problem": job.problem.id,
            "sample_index": job.sample_index,
            "created": time.time(),
            "completion": dataclasses.replace(completion, cached=False).to_json(),
        }
        atomic_write(self.path(key), json.dumps(entry, ensure_ascii=False))
        with contextlib.suppress(OSError):
            os.unlink(self.claims / f"{key}.err")

    def try_claim(self, key: str) -> Claim | None:
        path = self.claims / f"{key}.lock"
        for _ in range(5):
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                # No way to coordinate (read-only or vanished directory): generate
                # uncoordinated rather than fail the sample.
                return Claim(path, None)
            if not lock_fd(fd):
                os.close(fd)
                return None
            # The holder may have removed the file between our open and lock: then we hold a
            # lock nobody else can see, so start over on the current file.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except OSError:
                same = False
            if same:
                return Claim(path, fd)
            os.close(fd)
        return None

    def write_error(self, key: str, completion: Completion) -> None:
        """Leave an API error for processes waiting on this sample (never read as a hit)."""
        with contextlib.suppress(OSError):
            atomic_write(self.claims / f"{key}.err", json.dumps(completion.to_json()))

    def read_error(self, key: str, newer_than: float) -> Completion | None:
        path = self.claims / f"{key}.err"
        try:
            if path.stat().st_mtime < newer_than:
                return None
            return Completion.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None
