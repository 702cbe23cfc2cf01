"""What of this machine's Python a sample may read: the installation (interpreter, standard
library, site-packages) and the packages installed there whose code lives elsewhere
(editable installs), as far as ``import`` reaches into them.

Not ``sys.path`` as such: under ``python -m pytest``, ``PYTHONPATH=.`` or with a conftest.py
in the rootdir, it holds the user's project directory (``.env``, earlier results, JUnit and
replay files), and a sample imports nothing from there anyway: its interpreter runs with
``-I``, whose ``sys.path`` is the installation's and what its ``.pth`` files add. Those
directories of the grading process (:func:`user_dirs`) are what the mount view covers.
"""

from __future__ import annotations

import importlib.machinery
import os
import site
import sys
import sysconfig
from collections.abc import Iterable, Iterator

from . import landlock

# Directories a sample's process needs whole: a user directory holding one of them (``/``)
# is never covered.
_SYSTEM = (*landlock.SYSTEM_READ, "/etc", "/proc", "/sys", "/dev")


def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _holds_system(path: str) -> bool:
    return any(_under(system, path) for system in _SYSTEM)


def installation() -> list[str]:
    """The Python installation: its prefixes (a virtualenv's and the one it was made from),
    the interpreter's directory, the standard library and site-packages."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    paths.add(os.path.dirname(os.path.realpath(sys.executable)))
    scheme = sysconfig.get_paths()
    paths.update(scheme.get(key, "") for key in ("stdlib", "platstdlib", "purelib", "platlib"))
    paths.update(site.getsitepackages())
    return sorted({os.path.realpath(p) for p in paths if p and os.path.isdir(p)})


def pth_entries(sitedirs: Iterable[str]) -> Iterator[str]:
    """The directories the ``.pth`` files of ``sitedirs`` put on ``sys.path`` (as ``site``
    reads them: a line that is not a comment or an ``import``)."""
    for sitedir in sitedirs:
        try:
            names = sorted(n for n in os.listdir(sitedir) if n.endswith(".pth"))
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(sitedir, name), encoding="utf-8") as fh:
                    lines = fh.read().splitlines()
            except (OSError, UnicodeDecodeError):
                continue
            for line in lines:
                if not line.strip() or line.startswith(("#", "import ", "import\t")):
                    continue
                path = os.path.realpath(os.path.join(sitedir, line.rstrip()))
                if os.path.isdir(path):
                    yield path


def editable_packages() -> Iterator[str]:
    """The package directories and modules setuptools' editable finders map names to
    (``__editable___NAME_finder.MAPPING``: installs that put no directory on ``sys.path``)."""
    for name, module in list(sys.modules.items()):
        mapping = getattr(module, "MAPPING", None)
        if name.startswith("__editable__") and isinstance(mapping, dict):
            for path in mapping.values():
                if isinstance(path, str) and os.path.exists(path):
                    yield os.path.realpath(path)


def importable(entry: str) -> list[str]:
    """What ``import`` can load from the ``sys.path`` entry ``entry``: packages (directories
    named as identifiers), modules, and distributions' metadata; not the other files of the
    tree (a project's ``.env``, its results or data)."""
    suffixes = tuple(importlib.machinery.all_suffixes())
    found = []
    try:
        names = sorted(os.listdir(entry))
    except OSError:
        return []
    for name in names:
        path = os.path.join(entry, name)
        if os.path.isdir(path):
            if name.isidentifier() or name.endswith((".dist-info", ".egg-info")):
                found.append(path)
        elif name.endswith(suffixes) and name.split(".", 1)[0].isidentifier():
            found.append(path)
    return found


def readable(plugin: str) -> tuple[list[str], list[str]]:
    """``(read, listed)``: the trees and files a sample may read, and the directories it may
    only list (a ``.pth`` entry's, where ``import`` looks for names).

    The installation whole; an editable install's package directories; of a directory a
    ``.pth`` file adds, what :func:`importable` finds. Nothing of a tree holding the plugin
    ``plugin`` (its own editable install): samples need none of it."""
    read = installation()
    listed: list[str] = []

    def wanted(path: str) -> bool:
        return not (
            any(_under(path, root) for root in read)
            or _under(plugin, path)
            or _under(path, plugin)
            or _holds_system(path)
        )

    for path in editable_packages():
        if wanted(path):
            read.append(path)
    for entry in pth_entries(site.getsitepackages()):
        if wanted(entry):
            listed.append(entry)
            read += [p for p in importable(entry) if wanted(p)]
    return sorted(set(read)), sorted(set(listed))


def user_dirs(readable_paths: Iterable[str]) -> list[str]:
    """The directories of this process's ``sys.path`` (and its working directory) that are
    not the installation's: the user's project, for the mount view to cover (what a sample
    may read of them is bound back). Never one holding a system directory (``/``, ``/usr``)."""
    kept = list(readable_paths)
    cwd = os.getcwd()
    found = set()
    for path in [cwd, *sys.path]:
        real = os.path.realpath(path or cwd)
        if not os.path.isdir(real) or _holds_system(real):
            continue
        if any(_under(real, k) for k in kept):
            continue
        found.add(real)
    return sorted(found)
