"""Working folders of a process in the system's temporary directory, gone with it.

The sample launcher's work root and the Jest runner's work folder are removed when their
process closes them. A process killed first (SIGKILL, the out-of-memory killer, a worker xdist
gave up on) cannot: each folder therefore holds a file its process keeps an ``flock`` on,
which the kernel drops when the process ends, and the next process that makes a folder of the
same kind removes those whose lock is free.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import time

OWNER = ".owner"
# A lock file younger than this may not be locked yet (its maker creates it, then locks it):
# its folder is left alone, however free the lock looks.
SETTLE_S = 60.0
# A folder without its lock file (its maker has not made it yet, or a sample removed it) is
# removed only once untouched this long: a live one changes with every sample.
UNLOCKED_STALE_S = 24 * 3600

_held: dict[str, int] = {}  # folder -> the descriptor that holds its lock


def make(prefix: str) -> str:
    """A new folder ``<tmp>/<prefix>XXXXXXXX`` of this process, after removing those of
    ``prefix`` whose process has ended."""
    sweep(prefix)
    folder = tempfile.mkdtemp(prefix=prefix)
    fd = os.open(os.path.join(folder, OWNER), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    _held[os.path.realpath(folder)] = fd
    return folder


def remove(folder: str | os.PathLike[str]) -> None:
    """Remove a folder :func:`make` made (and let go of its lock)."""
    shutil.rmtree(folder, ignore_errors=True)
    fd = _held.pop(os.path.realpath(folder), None)
    if fd is not None:
        os.close(fd)


def sweep(prefix: str) -> int:
    """Remove the folders of ``prefix`` whose process has ended; how many."""
    removed = 0
    root = tempfile.gettempdir()
    try:
        entries = [e for e in os.scandir(root) if e.name.startswith(prefix)]
    except OSError:
        return 0
    for entry in entries:
        if os.path.realpath(entry.path) in _held or not entry.is_dir(follow_symlinks=False):
            continue
        if _ended(entry.path):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed += 1
    return removed


def _ended(folder: str) -> bool:
    try:
        fd = os.open(os.path.join(folder, OWNER), os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        with contextlib.suppress(OSError):
            return time.time() - os.stat(folder, follow_symlinks=False).st_mtime > UNLOCKED_STALE_S
        return False
    except OSError:
        return False  # cannot tell: keep it
    try:
        if time.time() - os.fstat(fd).st_mtime <= SETTLE_S:
            return False
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # its process holds it
    finally:
        os.close(fd)
    return True
