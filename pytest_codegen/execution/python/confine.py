"""Confinement of sample processes, for ``child.py`` (run as a plain module next to it: it
must not import the plugin either).

As root the zygote first builds, once, the world samples see (:func:`build_view`): an empty
network namespace, a PID namespace of which the zygote is PID 1 (so no sample can signal it,
and all that is left dies with it), and a mount namespace where ``/tmp``, ``/var/tmp``,
``/dev/shm``, the home directory and the user's project (the grader's working directory and
``sys.path`` entries outside the installation) are empty and read-only, only what samples may
read of the Python installation (``importable.py``) and the samples' own working directories
are bound back, and the files the grader knows are covered; and an IPC namespace of its own,
out of the host's reach. Each sample's process drops to an unprivileged uid that no other
live sample has (:func:`drop_privileges`) and applies resource limits (:func:`apply_limits`);
when the sample ends, every process of that uid is killed and the System V objects it made
are removed (:class:`Reaper`); without root, every process descended from it. With root or
without, where the kernel has Landlock, each sample's process also puts itself under the
file allowlist the zygote built (``landlock.py``): what holds when there are no namespaces.
"""

import ctypes
import errno
import os
import resource
import signal
import struct
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
CLONE_NEWIPC = 0x08000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND = 1, 2, 4, 32, 4096
MS_REC, MS_PRIVATE = 16384, 1 << 18

_LIBC = []


def load_libc():
    # Loaded once, in the zygote: every CDLL instance builds new ctypes classes.
    if not _LIBC:
        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def build_view(cfg):
    """In the zygote, once: no network, and the mount view every sample will see.
    Returns None where namespaces are not permitted (then samples only get a uid and limits),
    False if the view could not be completed: then this process is in namespaces already (its
    next child would become PID 1) and must serve no sample.

    Masked directories become empty tmpfs that an unprivileged uid cannot write; ``keep``
    paths under them (the Python installation, site-packages, an editable install's packages,
    the samples' working directories) are bound back at the same place, read-only except the
    last. Then the ``hide`` paths still in sight (under a path bound back, or never masked)
    are covered: a directory by an empty tmpfs, a file by ``/dev/null``. A hidden directory
    that holds a ``keep`` path (a virtualenv in the suite's directory) is masked like ``/tmp``
    instead.
    """
    libc = load_libc()
    if libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC) != 0:
        _failed("unshare")
        return None
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return _failed("making mounts private")
    writable = cfg["workroot"]
    hides = sorted(set(cfg["hide"]), key=len)
    holders = [h for h in hides if any(_under(k, h) and k != h for k in cfg["keep"] + [writable])]
    masks = []
    for m in sorted(set(cfg["mask"]) | set(holders), key=len):
        # A mask inside another one is redundant.
        if os.path.isdir(m) and not any(_under(m, outer) for outer in masks):
            masks.append(m)
    keep = {}
    for path in cfg["keep"] + [writable]:
        # Only what lies strictly inside a masked directory needs binding back (a keep path
        # like /tmp itself would undo the mask). A file too (a module of an editable install).
        inside = any(_under(path, m) and path != m for m in masks)
        if inside and os.path.exists(path) and not (path != writable and _under(writable, path)):
            keep[path] = (os.open(path, os.O_PATH), os.path.isdir(path))
    for target in masks:
        if not _mount_empty(libc, target):
            return _failed(f"mounting a tmpfs on {target}")
    for path, (fd, is_dir) in sorted(keep.items()):
        os.makedirs(path if is_dir else os.path.dirname(path), exist_ok=True)
        if not is_dir and not os.path.exists(path):
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))  # what the file is bound on
        source = f"/proc/self/fd/{fd}".encode()
        if libc.mount(source, path.encode(), None, MS_BIND | MS_REC, None) != 0:
            return _failed(f"binding {path}")
        if path != writable:
            libc.mount(None, path.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        os.close(fd)
    # What is still in sight after the masks (a path that is gone is hidden already, and a
    # keep path itself stays: only what is hidden inside it goes).
    for target in hides:
        if target in masks or any(_under(k, target) for k in cfg["keep"]):
            continue
        if os.path.isdir(target):
            if not _mount_empty(libc, target):
                return _failed(f"mounting a tmpfs on {target}")
        elif os.path.exists(target):
            if libc.mount(b"/dev/null", target.encode(), None, MS_BIND, None) != 0:
                return _failed(f"covering {target}")
    return True


def _mount_empty(libc, target):
    flags = MS_NOSUID | MS_NODEV
    return libc.mount(b"tmpfs", target.encode(), b"tmpfs", flags, b"size=1m,mode=0755") == 0


def _failed(step):
    err = ctypes.get_errno()
    print(f"sandbox: no mount view ({step}: {os.strerror(err)})", file=sys.stderr)
    return False


def _under(path, parent):
    return path == parent or path.startswith(parent.rstrip("/") + "/")


# System V objects of each kind: where the kernel lists them, the call that controls them,
# its *_INFO command, and where in the struct of ints that fills the count of objects is
# (shm_info.used_ids, msginfo.msgpool, seminfo.semusz).
_IPC_KINDS = (("shm", "shmctl", 14, 0), ("msg", "msgctl", 12, 0), ("sem", "semctl", 19, 7))
_IPC_RMID = 0
_INFO = []


def _ipc_ctl(libc, call, ident, command, arg):
    # semctl takes a semaphore's number before the command.
    if call == "semctl":
        return libc.semctl(ident, 0, command, arg)
    return getattr(libc, call)(ident, command, arg)


def _any_ipc(libc):
    # Asked of the kernel before anything is read: nearly every sample makes none, and
    # reading the tables here (after each fork) copies pages the spare shares with us.
    if not _INFO:
        _INFO.append((ctypes.c_int * 16)())
    info = _INFO[0]
    for _, call, command, at in _IPC_KINDS:
        info[at] = 0
        if _ipc_ctl(libc, call, 0, command, info) < 0 or info[at]:
            return True
    return False


def remove_ipc_of(uid):
    """Remove the System V shared memory, message queues and semaphores a sample made (their
    creator uid, which their owner cannot change, is the sample's). They outlive the processes
    that made them: in the launcher's IPC namespace, shared by its samples, a later sample
    could find them. (A namespace of each sample's own would cost ~0.25 ms a sample.)"""
    libc = load_libc()
    if not _any_ipc(libc):
        return
    for table, call, _, _ in _IPC_KINDS:
        try:
            with open(f"/proc/sysvipc/{table}") as fh:
                header, *rows = fh.read().splitlines()
        except OSError:
            continue
        creator = header.split().index("cuid")
        for row in rows:
            fields = row.split()
            if int(fields[creator]) == uid:
                _ipc_ctl(libc, call, int(fields[1]), _IPC_RMID, None)


def drop_privileges(uid):
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def apply_limits(cfg, running=0):
    """Limit this process and all it starts; ``running``: the processes and threads its uid
    has already, elsewhere."""
    mem = cfg["memory_mb"] * 1024 * 1024
    cpu = int(cfg["timeout_s"]) + 2
    for limit, value in (
        (resource.RLIMIT_AS, mem),
        (resource.RLIMIT_CPU, cpu),
        (resource.RLIMIT_FSIZE, cfg["file_size"]),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NOFILE, 256),
    ):
        resource.setrlimit(limit, (value, value))
    if os.getuid() != 0:  # root is exempt from RLIMIT_NPROC; a dropped uid is not
        # It counts every process and thread of the uid: without root, the user's shell,
        # browser and other pytest workers too. The sample may start max_procs more.
        procs = cfg["max_procs"] + running
        hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
        if hard != resource.RLIM_INFINITY:
            procs = min(procs, hard)
        resource.setrlimit(resource.RLIMIT_NPROC, (procs, procs))


def tasks_of(uid):
    """How many processes and threads ``uid`` runs (what RLIMIT_NPROC counts)."""
    count = 0
    for entry in os.scandir("/proc"):
        try:
            if not entry.name.isdigit() or entry.stat().st_uid != uid:
                continue
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                count += int(f.read().rsplit(b")", 1)[1].split()[17])  # num_threads
        except (OSError, ValueError, IndexError):
            continue
    return count


# Seccomp, per machine: its audit architecture, then the numbers of ptrace,
# process_vm_readv and process_vm_writev.
_TRACING_CALLS = {
    "x86_64": (0xC000003E, 101, 310, 311),
    "aarch64": (0xC00000B7, 117, 270, 271),
}
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_LD_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06  # BPF: ld [k], jeq k, jge k, ret k
_ALLOW, _REFUSE = 0x7FFF0000, 0x00050000 | errno.EPERM
_X32 = 0x40000000  # x86_64's x32 system calls


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def deny_tracing():
    """A seccomp filter on this process and all it starts: none may trace a process or read
    or write another's memory (ptrace, process_vm_readv/writev), and system calls of another
    architecture (32-bit, x32) fail. What keeps a sealed sample's helpers from its memory
    (see ``verdict_seal.py``). False where it cannot be had: an unknown machine, or a kernel
    without seccomp."""
    known = _TRACING_CALLS.get(os.uname().machine)
    if known is None:
        return False
    arch, ptrace, vm_read, vm_write = known
    program = [
        (_LD_ABS, 0, 0, 4),  # 0: the architecture
        (_JEQ, 1, 0, arch),  # 1: ours -> 3
        (_RET, 0, 0, _REFUSE),  # 2
        (_LD_ABS, 0, 0, 0),  # 3: the system call
        (_JGE, 4, 0, _X32),  # 4: x32 -> 9
        (_JEQ, 3, 0, ptrace),  # 5 -> 9
        (_JEQ, 2, 0, vm_read),  # 6 -> 9
        (_JEQ, 1, 0, vm_write),  # 7 -> 9
        (_RET, 0, 0, _ALLOW),  # 8
        (_RET, 0, 0, _REFUSE),  # 9
    ]
    code = ctypes.create_string_buffer(b"".join(struct.pack("=HBBI", *op) for op in program))
    fprog = _SockFprog(len(program), ctypes.addressof(code))
    libc = load_libc()
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0


class Reaper:
    """Ends samples and collects their exit statuses (the zygote is their parent, and PID 1
    of their namespace: it also inherits whatever they started)."""

    def __init__(self, pid_one):
        self.pid_one = pid_one
        self.statuses = {}  # pid -> wait status, for samples whose end is not asked yet
        self.samples = {}  # pid -> the uid its processes run as (None: not root, no uid)

    def reap(self):
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid in self.samples:
                self.statuses[pid] = status

    def end(self, pid, wait=True):
        """Kill everything the sample started; with ``wait``, returns how its own process
        ended (otherwise it is reaped later)."""
        uid = self.samples.get(pid)
        if uid is None:
            _signal_group(pid)
            _kill_descendants(pid, self.samples)
        elif self.pid_one:
            self._kill_uid(uid)
        else:
            # Not PID 1, this process could be signalled by the sample while it wears the
            # sample's uid: a throwaway child does the killing.
            killer = os.fork()
            if killer == 0:
                try:
                    self._kill_uid(uid)
                finally:
                    os._exit(0)
            os.waitpid(killer, 0)
        if uid is not None:
            remove_ipc_of(uid)  # killed first: nothing of the sample's makes more
        if wait and pid not in self.statuses:
            try:
                _, status = os.waitpid(pid, 0)
                self.statuses[pid] = status
            except ChildProcessError:
                pass
        self.reap()
        del self.samples[pid]
        return describe(self.statuses.pop(pid, None))

    @staticmethod
    def _kill_uid(uid):
        # kill(-1) as the sample's uid reaches exactly that uid's processes, wherever they
        # moved (new sessions, re-parented orphans). The kernel walks the process list under
        # the lock fork() needs, so a process forking meanwhile is either reached or killed
        # before its child exists. The saved uid 0 lets this process take its privileges back.
        os.setresuid(uid, uid, 0)
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        finally:
            os.setresuid(0, 0, 0)


def _signal_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_descendants(pid, samples):
    """Without a uid of its own, what a sample started is found by descent. This process is
    a subreaper: once the sample's process has exited, all it left (a detached child in a
    session of its own, a program step in its own group) is a child of ours or below one.
    Every child that is no sample or spare is killed and reaped, a generation at a time, until
    none is left. (Samples are graded one at a time: one ending takes with it the orphans of
    any other then live.)"""
    try:
        os.kill(pid, signal.SIGKILL)  # a session leader: its group cannot have taken it away
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # its children are ours from here
    except (ProcessLookupError, ChildProcessError):
        pass
    beyond_reach = set()  # never seen: a real uid of the sample's own lets us signal it
    while strays := [c for c in _children() if c not in samples and c not in beyond_reach]:
        for child in strays:
            try:
                os.kill(child, signal.SIGKILL)
            except PermissionError:
                beyond_reach.add(child)
        for child in set(strays) - beyond_reach:
            try:
                os.waitpid(child, 0)
            except ChildProcessError:
                pass


def _children():
    """The pids of this process's children (zombies included)."""
    me = os.getpid()
    try:
        found = set()
        for tid in os.listdir(f"/proc/{me}/task"):
            with open(f"/proc/{me}/task/{tid}/children") as f:
                found.update(int(child) for child in f.read().split())
        return found
    except OSError:  # a kernel without CONFIG_PROC_CHILDREN: every process's parent is read
        pass
    found = set()
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == me:
            found.add(int(entry))
    return found


def describe(status):
    """How a sample's process ended, for the grader's crash message."""
    if status is None:
        return None
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        hint = " (CPU time limit)" if sig == signal.SIGXCPU else ""
        return f"killed by {signal.Signals(sig).name}{hint}"
    return f"exited with status {os.WEXITSTATUS(status)} before returning a result"
