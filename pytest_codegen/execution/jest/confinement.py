"""How the warm Jest runner is confined: Node's permission model, Landlock, its uid and its
environment.

The runner (:mod:`.warm_runner`) is started with Node's file-system permissions (reads of the
toolchain, our JS and the work root only, writes to Jest's cache in it only), as root under an
otherwise unused uid that owns nothing, and with an allowlisted environment (no API keys).
Node's permissions are checked inside the process the samples run in; where the kernel has
Landlock, the same allowlist (plus the system libraries Node itself loads) is also enforced
by the kernel (:func:`landlock_rules`), with root or without: no suite, result, cache or
other file of the grader's can be opened even if a sample gets past Node's checks.
"""

from __future__ import annotations

import os
import resource
import stat
import subprocess
from pathlib import Path

from ..python import landlock
from .node_env import PACKAGE_DIR

ENV_ALLOWLIST = ("LANG", "LC_ALL", "TZ")
SANDBOX_UID_BASE = 64000  # + pid % 1000: an unused uid per runner, owning nothing


def node_permission_flag(node: str) -> str | None:
    for flag in ("--permission", "--experimental-permission"):
        try:
            proc = subprocess.run(
                [node, flag, "-e", "0"], capture_output=True, timeout=30, check=False
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if proc.returncode == 0:
            return flag
    return None


def _world_accessible(path: Path) -> bool:
    """Whether an unrelated uid can reach ``path`` (every parent searchable, it readable)."""
    path = path.resolve()
    for parent in reversed(path.parents):
        try:
            if not os.stat(parent).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    return mode & need == need


def choose_uid(wanted: int | str | None, node_path: str, toolchain: Path) -> int | None:
    """The uid to run as: see :class:`~.runner.JestRunner`'s ``sandbox_uid``."""
    if wanted is None or not hasattr(os, "geteuid"):
        return None
    if isinstance(wanted, int):
        return wanted
    if os.geteuid() != 0:
        return None  # already unprivileged
    needed = [Path(node_path), toolchain, PACKAGE_DIR]
    if not all(_world_accessible(p) for p in needed):
        return None
    return SANDBOX_UID_BASE + os.getpid() % 1000


def limit_resources(memory_mb: int, files: list[tuple[str, int]] | None = None) -> None:
    """Run in the child before Node starts: data segment, no core dumps, file size, and the
    Landlock allowlist ``files`` (see :func:`landlock_rules`) where the kernel has it."""
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024 * 1024, 64 * 1024 * 1024))
    if files is not None:
        ruleset = landlock.ruleset(files)
        if ruleset is not None and not landlock.enforce(ruleset):
            raise OSError("Landlock refused to confine the Jest runner")


def jest_cache(work: Path) -> Path:
    """Jest's cache in a runner's work root: the one place the runner may write."""
    return work / ".jest-cache"


def landlock_rules(node_path: str, toolchain: Path, work: Path) -> list[tuple[str, int]]:
    """What the runner may open: Node's installation, the toolchain, our JS and its work root
    (the samples' files) to read, Jest's cache alone to write, and ``/proc/self`` (Node reads
    its own memory use there; it names the runner's own process once it starts)."""
    install = Path(os.path.realpath(node_path)).parent.parent
    read = [str(install), str(toolchain), str(PACKAGE_DIR), str(work), *landlock.SYSTEM_READ]
    rules = landlock.allowlist(read, [str(jest_cache(work)), *landlock.DEVICES], [])
    # Unresolved: the child opens it, and so finds its own pid's directory.
    return [*rules, ("/proc/self", landlock.READ_FILE | landlock.READ_DIR)]


def permission_args(flag: str, toolchain: Path, work: Path) -> list[str]:
    """Node's permission flags: read the toolchain, our JS and ``work``; write Jest's cache
    only. A sample's own directory and the work root stay read-only to it, so that a sample
    cannot leave files (a ``node_modules`` of its own) where the next sample's lookups go."""
    args: list[str] = []
    reads = [toolchain, PACKAGE_DIR, work]
    # Jest looks for package.json and node_modules in every directory above a file.
    for parent in work.parents:
        for name in ("package.json", "node_modules", "node_modules/*"):
            reads.append(Path(parent, name))
    args.append(flag)
    args += [f"--allow-fs-read={p}" for p in reads]
    args.append(f"--allow-fs-write={jest_cache(work)}")
    return args


def runner_env(work: Path) -> dict[str, str]:
    """The runner's environment: an allowlist, with ``work`` as its home and Jest's cache as
    its temp directory."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "TMPDIR": str(jest_cache(work))}
    env["NODE_ENV"] = "test"
    # fetch-mock makes new loggers of the `debug` package on every call, and each asks
    # whether stderr is a terminal unless told its colours (its output is never enabled).
    env["DEBUG_COLORS"] = "no"
    env.update({k: os.environ[k] for k in ENV_ALLOWLIST if k in os.environ})
    return env
