"""Where pytest-codegen keeps what outlives a run: the Node/Jest toolchain, rewritten tests."""

from __future__ import annotations

import os
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
