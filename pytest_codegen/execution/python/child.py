"""The sandboxed side of Python execution: ``python -I child.py --zygote FD VIEW``.

It is started once per grading process as a *zygote* by :mod:`.sandbox` and forks
one fresh child per sample, one sample ahead: the child is confined before its sample exists
and waits for the grader to hand it over. It must not import the plugin. As root the zygote
first builds, once, the world samples see: an empty network namespace, a PID namespace of which
the zygote is PID 1 (so no sample can signal it, and all that is left dies with it), and a
mount namespace where ``/tmp``, ``/var/tmp``, ``/dev/shm`` and the home directory are empty and
read-only, the suite files are hidden, and only the Python installation and the samples' own
working directories are bound back. Each sample's process drops to an unprivileged uid that no
other live sample has and applies resource limits; when the sample ends, every process of that
uid is killed. Then it serves requests on two pipes it is handed (see :mod:`wire`: marshal
frames in, JSON lines out): ``load`` a candidate module, ``call`` a function or method in it,
``getattr`` of an object, or ``program`` (a whole program with its tests).

Everything between trusted processes (grader, zygote, a spare before its sample exists) is
marshal, not JSON: a fresh fork copies every page the code it runs touches, and JSON's Python
layers touch many more (they were a sixth of a trivial sample's page faults). Nothing a
sample writes is ever read back with marshal.
"""

import ctypes
import json
import marshal
import os
import resource
import signal
import sys
import traceback

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
PR_SET_NAME, PR_SET_CHILD_SUBREAPER = 15, 36
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND = 1, 2, 4, 32, 4096
MS_REC, MS_PRIVATE = 16384, 1 << 18
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
_LIBC = []


def _libc():
    # Loaded once, in the zygote: every CDLL instance builds new ctypes classes.
    if not _LIBC:
        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def build_view(cfg):
    """In the zygote, once: no network, and the mount view every sample will see.
    Returns False where namespaces are not permitted (then samples only get a uid and limits).

    Masked directories become empty tmpfs that an unprivileged uid cannot write; ``keep``
    paths under them (the Python installation, site-packages, this package, the samples'
    working directories) are bound back at the same place, read-only except the last.
    """
    libc = _libc()
    if libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID) != 0:
        return _failed("unshare")
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return _failed("making mounts private")
    masks = []
    for m in sorted(set(cfg["mask"]), key=len):  # a mask inside another one is redundant
        if os.path.isdir(m) and not any(_under(m, outer) for outer in masks):
            masks.append(m)
    writable = cfg["workroot"]
    keep = {}
    for path in cfg["keep"] + [writable]:
        # Only what lies strictly inside a masked directory needs binding back (a keep path
        # like /tmp itself, from sys.path, would undo the mask).
        inside = any(_under(path, m) and path != m for m in masks)
        if inside and os.path.isdir(path) and not (path != writable and _under(writable, path)):
            keep[path] = os.open(path, os.O_PATH)
    # A hidden directory under a masked one is already out of sight.
    hides = [h for h in cfg["hide"] if os.path.isdir(h) and not any(_under(h, m) for m in masks)]
    for target in masks + hides:
        if (
            libc.mount(
                b"tmpfs", target.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, b"size=1m,mode=0755"
            )
            != 0
        ):
            return _failed(f"mounting a tmpfs on {target}")
    for path, fd in sorted(keep.items()):
        os.makedirs(path, exist_ok=True)
        source = f"/proc/self/fd/{fd}".encode()
        if libc.mount(source, path.encode(), None, MS_BIND | MS_REC, None) != 0:
            return _failed(f"binding {path}")
        if path != writable:
            libc.mount(None, path.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        os.close(fd)
    return True


def _failed(step):
    err = ctypes.get_errno()
    print(f"sandbox: no namespaces ({step}: {os.strerror(err)})", file=sys.stderr)
    return False


def _under(path, parent):
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def drop_privileges(uid):
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def apply_limits(cfg):
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
        resource.setrlimit(resource.RLIMIT_NPROC, (cfg["max_procs"], cfg["max_procs"]))


class Server:
    """Serves requests from the trusted side; the objects it hands out stay here."""

    def __init__(self, rfd, wfd, wire):
        self.rfd = rfd
        self.wfd = wfd
        self.wire = wire
        self.objects = []

    def ref(self, obj):
        self.objects.append(obj)
        return len(self.objects) - 1

    def send(self, message):
        data = self.wire.dumps(message)
        while data:
            data = data[os.write(self.wfd, data) :]

    def reply_exception(self, exc):
        # Only the candidate's frames: ours would only distract from its mistake.
        te = traceback.TracebackException.from_exception(exc)
        te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename != __file__])
        tb = list(te.format())
        self.send(
            {
                "raise": {
                    "type": type(exc).__name__,
                    "builtin": type(exc).__module__ == "builtins",
                    "message": str(exc)[:2000],
                    "traceback": "".join(tb[-6:])[-4000:],
                }
            }
        )

    def serve(self):
        for request in self.wire.read_requests(self.rfd):
            known = len(self.objects)
            if self.answer(request) and request.get("then") and len(self.objects) > known:
                # The loaded entry point's planned calls, answered before they are asked
                # for; the plan stops where the tests could act on a reply first.
                target = known
                for args, kwargs in request["then"]:
                    call = {"op": "call", "target": target, "args": args, "kwargs": kwargs}
                    if not self.answer(call, plain=True):
                        break

    def answer(self, request, plain=False):
        """Reply to one request; False if it raised (or, with ``plain``, handed out an
        object: the reply is not plain data)."""
        try:
            result = getattr(self, "op_" + request["op"])(request)
            known = len(self.objects)
            self.send({"ok": self.wire.encode(result, self.ref)})
            return not plain or len(self.objects) == known
        except MemoryError:
            self.send({"crash": "out of memory (MemoryError)"})
        except Exception as exc:  # the candidate's exception goes back to the tests
            self.reply_exception(exc)
        return False

    def decode(self, data):
        return self.wire.decode_value(data, lambda i: self.objects[i])

    def op_load(self, req):
        # The first source that compiles; if none does, the first one's error.
        sources = [req["source"], *req.get("fallbacks", ())]
        errors = []
        for source in sources:
            try:
                code = compile(source, "candidate.py", "exec")
                break
            except (SyntaxError, ValueError) as exc:
                errors.append(exc)
        else:
            raise errors[0]
        namespace = {"__name__": "candidate", "__builtins__": __builtins__}
        exec(code, namespace)
        if req["entry"] not in namespace:
            raise NameError(f"the code does not define {req['entry']!r}")
        return namespace[req["entry"]]

    def op_call(self, req):
        target = self.objects[req["target"]]
        args = self.decode(req["args"])
        kwargs = self.decode(req["kwargs"])
        return target(*args, **kwargs)

    def op_getattr(self, req):
        return getattr(self.objects[req["target"]], req["name"])

    def op_program(self, req):
        # The sample compiles on its own first: code that only parses when glued to what
        # follows it (a dangling decorator that would wrap the tests) is a syntax error.
        compile(req["sample"], "sample.py", "exec")
        namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        try:
            exec(compile(req["program"], "program.py", "exec"), namespace)
        except SystemExit as exc:
            raise RuntimeError(
                f"the program called exit({exc.code!r}) before its tests finished"
            ) from None
        return None


def _receive_handover(sock):
    """Block until the grader hands this sample its work: the config (working directory)
    and its three fds (requests in, replies out, output)."""
    import socket

    # recvmsg itself, not socket.recv_fds: its 64 KiB buffer and array copy touch pages
    # this fresh fork would have to copy.
    message, ancillary, _, _ = sock.recvmsg(1 << 13, socket.CMSG_SPACE(3 * FD_SIZE))
    fds = [
        int.from_bytes(data[i : i + FD_SIZE], sys.byteorder)
        for level, kind, data in ancillary
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS
        for i in range(0, len(data) - FD_SIZE + 1, FD_SIZE)
    ]
    if not message or len(fds) != 3:
        os._exit(0)  # the zygote is gone, or retired this spare
    return marshal.loads(message), fds


def spare(sock, cfg, wire):
    """A sample process made ready before it is needed: confined first (process group,
    unprivileged uid, limits), then it waits for the sample to serve.

    Nothing of the sample exists until the handover, so preparing it ahead is safe; it takes
    the fork and confinement off the time a sample waits to start.
    """
    os.setsid()  # a process group of its own: without a uid, the group is what gets killed
    _name_sample()
    if os.getuid() == 0:
        drop_privileges(cfg["uid"])  # never run a sample as root
    apply_limits(cfg)
    work, fds = _receive_handover(sock)
    sock.close()
    _serve_sample(work, fds, wire)


def _serve_sample(work, fds, wire):
    req_r, resp_w, out = fds
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    os.chdir(work["workdir"])
    # Scratch files go to the sample's own directory: /tmp is not writable.
    os.environ["HOME"] = os.environ["TMPDIR"] = work["workdir"]
    sys.argv = ["candidate.py"]
    Server(req_r, resp_w, wire).serve()
    os._exit(0)


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


def _name_process(name):
    # What ps, top and perf show instead of a row of indistinguishable "python" processes.
    _libc().prctl(PR_SET_NAME, ctypes.c_char_p(name), 0, 0, 0)


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


def _signal_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def describe(status):
    """How a sample's process ended, for the grader's crash message."""
    if status is None:
        return None
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        hint = " (CPU time limit)" if sig == signal.SIGXCPU else ""
        return f"killed by {signal.Signals(sig).name}{hint}"
    return f"exited with status {os.WEXITSTATUS(status)} before returning a result"


def zygote(sock_fd, view):
    """Fork confined sample processes on request, from a process that has already paid for
    the interpreter start-up, the imports and the mount view (a few ms per sample instead of
    tens). Requests, one message each: ``prepare`` gets back a spare (its pid, and a
    socket on which the grader hands it a sample; the grader asks for the next one while the
    current sample runs), ``end`` kills a sample and everything it started and answers with
    how the sample's process ended. Messages are marshal (trusted to trusted)."""
    import _socket
    import socket

    wire = _import_wire()
    _name_process(b"codegen-zygote")
    if view.get("cpus"):
        # Before anything is forked: every sample inherits the placement.
        try:
            os.sched_setaffinity(0, view["cpus"])
        except OSError:
            pass  # a CPU gone from our set: run anywhere rather than not at all
    as_root = os.getuid() == 0
    namespaces = as_root and build_view(view)
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
        _libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    isolation = "namespaces+uid" if namespaces else "uid" if as_root else "rlimits"
    # Output past a sample's file-size cap fails the write instead of killing the process:
    # ignored here once, inherited by every sample.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    reaper = Reaper(pid_one=namespaces)
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
            if request.get("status"):
                sock.send(marshal.dumps({"status": status}))
            continue
        cfg = request["prepare"]
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


def _import_wire():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import wire

    del sys.path[0]
    return wire


def main():
    zygote(int(sys.argv[2]), json.loads(sys.argv[3]))


if __name__ == "__main__":
    main()
