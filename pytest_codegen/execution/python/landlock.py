"""Landlock (Linux >= 5.13): a file-system allowlist the kernel enforces on a process and all
it starts, that any user may put on itself: what keeps samples from the files the grader
knows when we are not root (and, under the namespaces, when we are).

A plain module: ``child.py`` loads it as a sibling (it must not import the plugin), and the
Jest runner imports it to confine its Node process.

The allowlist grants reading of some trees (the Python installation, system libraries) with
exceptions (:func:`allowlist`): Landlock cannot deny inside a granted tree, so a tree holding
a hidden path is granted entry by entry, except the hidden one, and listing (not reading)
on the tree itself, so ``import`` still finds what is left. A ruleset is built once
(:func:`ruleset`); each confined process enforces it on itself (:func:`enforce`).
"""

import ctypes
import os

# System call numbers, the same on every architecture.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1, 2, 4, 8
TRUNCATE, IOCTL_DEV = 1 << 14, 1 << 15
READ = READ_FILE | READ_DIR | EXECUTE
# The rights that apply to a file itself (the others are about a directory's entries).
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
ALL_FS = (1 << 16) - 1
# File-system rights handled by each ABI version: 13 in v1, REFER in v2, TRUNCATE in v3,
# IOCTL_DEV in v5. TCP bind/connect since v4; signals and abstract sockets scoped in v6.
_FS_BITS = {1: 13, 2: 14, 3: 15, 4: 15}
_NET_ALL, _SCOPE_ALL = 3, 3

# Outside the Python installation: what a program needs to run (shared libraries, the
# dynamic loader's cache, time zones, user names, CPU counts), and nothing a grader writes.
SYSTEM_READ = (
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/bin",
    "/sbin",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/ssl",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/stat",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_LIBC = []


def _libc():
    if not _LIBC:
        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def abi():
    """The kernel's Landlock ABI version; 0 where it has none (too old, or disabled)."""
    try:
        version = _libc().syscall(
            _CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION
        )
    except (OSError, AttributeError):
        return 0
    return max(0, version)


def _under(path, parent):
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def allowlist(read, write, hidden, listed=()):
    """``[(path, rights)]``: ``read`` trees readable and ``write`` trees writable, except every
    path in ``hidden`` and what lies below it (all absolute, resolved paths); the ``listed``
    directories may be listed, their entries not read (unless granted on their own).

    A tree named in ``read`` is granted even inside a hidden directory (a virtualenv in the
    project directory that holds the suite): what it needs to run wins over hiding its
    surroundings, and what is hidden inside it stays hidden."""
    hidden = sorted({os.path.realpath(h) for h in hidden})
    rules = [(path, ALL_FS) for path in write if os.path.exists(path)]
    for path in read:
        if os.path.exists(path):
            _grant(os.path.realpath(path), READ, hidden, rules)
    rules += [(os.path.realpath(p), READ_DIR) for p in listed if os.path.isdir(p)]
    return rules


def _grant(path, rights, hidden, rules, seen=None):
    seen = set() if seen is None else seen
    if path in seen:
        return  # a link back up the tree
    seen.add(path)
    inside = [h for h in hidden if h != path and _under(h, path)]
    if not inside or not os.path.isdir(path):
        rules.append((path, rights))
        return
    # Something below is hidden: the entries are granted one by one, the hidden one left
    # out; the directory itself only listed (imports look for modules by listing).
    rules.append((path, READ_DIR))
    try:
        entries = sorted(os.listdir(path))
    except OSError:
        return
    for name in entries:
        # Where a link leads is what a rule grants (``lib64 -> lib`` in a virtualenv).
        real = os.path.realpath(os.path.join(path, name))
        if not any(_under(real, h) for h in hidden):
            _grant(real, rights, hidden, rules, seen)


def ruleset(rules, version=None):
    """A Landlock ruleset fd granting ``rules`` (see :func:`allowlist`) and no other file
    access, TCP connection or signal outside it; None where Landlock is unavailable."""
    version = abi() if version is None else version
    if version < 1:
        return None
    libc = _libc()
    fs = ALL_FS if version >= 5 else (1 << _FS_BITS[version]) - 1
    attr = _RulesetAttr(fs, _NET_ALL if version >= 4 else 0, _SCOPE_ALL if version >= 6 else 0)
    size = 24 if version >= 6 else 16 if version >= 4 else 8
    fd = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if fd < 0:
        return None
    for path, rights in rules:
        try:
            target = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if not os.path.isdir(path):
                rights &= FILE_RIGHTS
            rule = _PathBeneath(rights & fs, target)
            libc.syscall(_ADD_RULE, fd, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
        finally:
            os.close(target)
    return fd


def enforce(fd):
    """Put this process (and all it will start) under ruleset ``fd``, for good; closes it.
    Returns whether it holds. Call it as late as possible: nothing outside the rules opens."""
    libc = _libc()
    try:
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(_RESTRICT_SELF, fd, 0) == 0
    finally:
        os.close(fd)
