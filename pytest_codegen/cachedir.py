"""Where pytest-codegen keeps what outlives a run (the Node/Jest toolchain, rewritten tests,
generations), and how its files are written."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def default_cache_root() -> Path:
    """``$PYTEST_CODEGEN_CACHE``, else ``$XDG_CACHE_HOME/pytest-codegen``, else ``~/.cache/...``.

    As root the default is ``/var/cache/pytest-codegen`` instead: root's home is private, and
    the toolchain must be readable by the unprivileged uid samples run as.
    """
    configured = os.environ.get("PYTEST_CODEGEN_CACHE")
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if not xdg and hasattr(os, "geteuid") and os.geteuid() == 0:
        return Path("/var/cache/pytest-codegen")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "pytest-codegen"


def run_scratch(started_at: float) -> Path:
    """Files the processes of one xdist run share for that run alone (a build's claims and
    results; the generation claims of ``-p no:cacheprovider``), named after the run's start
    and removed by the controller when the run ends."""
    return default_cache_root() / "runs" / f"{started_at:.6f}"


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``path`` whole or not at all: to a temporary file, then renamed into place, so a
    concurrent reader (another xdist worker or pytest run) never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
