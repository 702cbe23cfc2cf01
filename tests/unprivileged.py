"""Running pytest as an unprivileged user from tests that run as root.

The plugin confines samples differently as root (namespaces, a uid per sample) and without
(Landlock only): the unprivileged path is tested by running pytest itself as ``nobody``.
That user may be unable to reach the Python installation (a pyenv install under ``/root``
is private to root) or the checkout the plugin is imported from (a clone in a ``mktemp -d``
directory is 0700): the run gets a mount namespace of its own in which each such directory
is an empty tmpfs with what the run needs bound back, as the sandbox itself does for samples.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

NOBODY = 65534
# The plugin's package, as imported (in a checkout, for an editable install): nobody must
# reach it.
_PLUGIN = Path(__import__("pytest_codegen").__file__).resolve().parent

# Run as root in a fresh mount namespace (argv: uid, workdir, more paths the run needs joined
# by os.pathsep, the command), then the command as ``uid``: every directory that uid could
# not pass through on the way to Python or those paths becomes a tmpfs with them bound back.
_ENTER = r"""
import os, subprocess, sys, tempfile
uid, cwd, more, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
wanted = [sys.prefix, sys.base_prefix, sys.executable, *filter(None, more.split(os.pathsep))]
needed = sorted({os.path.realpath(p) for p in wanted})
blocked = []
for path in needed:
    parts = path.split("/")
    for i in range(2, len(parts)):
        ancestor = "/".join(parts[:i])
        if not os.stat(ancestor).st_mode & 0o001:
            if ancestor not in blocked:
                blocked.append(ancestor)
            break
for ancestor in blocked:
    stash = tempfile.mkdtemp()
    subprocess.run(["mount", "--rbind", ancestor, stash], check=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755", "tmpfs", ancestor], check=True)
    for path in needed:
        if path.startswith(ancestor + "/"):
            rel = os.path.relpath(path, ancestor)
            top = rel.split("/")[0]
            src, dst = os.path.join(stash, top), os.path.join(ancestor, top)
            if not os.path.exists(dst):
                os.makedirs(dst) if os.path.isdir(src) else open(dst, "w").close()
                subprocess.run(["mount", "--rbind", src, dst], check=True)
os.chdir(cwd)
os.setgroups([])
os.setgid(uid)
os.setuid(uid)
os.execv(cmd[0], cmd)
"""


def available() -> str | None:
    """Why unprivileged runs cannot be tested here (None when they can)."""
    if os.getuid() != 0:
        return "already unprivileged"
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return "needs unshare and mount"
    return None


def workdir() -> Path:
    """A directory the unprivileged user owns (pytest's own tmp dirs are private to root)."""
    path = Path(tempfile.mkdtemp(prefix="codegen-nobody-"))
    os.chown(path, NOBODY, NOBODY)
    return path


def run_pytest(
    cwd: Path,
    *args: str,
    timeout: float = 300,
    pytest_command: tuple[str, ...] = (sys.executable, "-m", "pytest"),
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """``python -m pytest args`` (or ``pytest_command args``) in ``cwd`` as ``nobody``, in
    ``env`` (default: this process's); output captured as text."""
    env = dict(os.environ if env is None else env)
    env = {k: v for k, v in env.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update(HOME=str(cwd), PYTHONDONTWRITEBYTECODE="1")
    command = [*pytest_command, "-p", "no:randomly", *args]
    return subprocess.run(
        ["unshare", "-m", "--propagation", "private", sys.executable, "-c", _ENTER]
        + [str(NOBODY), str(cwd), str(_PLUGIN), *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )
