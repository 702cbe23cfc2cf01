"""A whole program with its tests, run sealed (``python-program``): its pass is a proof that
only the code after the real end of its tests can write. A plain module: ``child.py`` ships
it (compiled, with ``wire``) to the fresh interpreter a sealed sample's process becomes.

The sample runs inside the program that tests it, with every power of its process: it can
write on any descriptor (the reply pipe among them), walk objects and frames, exit at will.
So a pass is not a reply the process sends:

- **A fresh interpreter.** The confined process execs ``python -I -c BOOTSTRAP``: no module of
  the zygote's is loaded, above all not ctypes, whose foreign calls raise no audit event and
  whose types any code finds through ``object.__subclasses__()``. ctypes (and the test and
  subinterpreter modules that read raw memory) stay blocked until the tests end: ``None`` in
  ``sys.modules``, so a library's guarded import fails (numpy runs without it), and the
  program's own import, or loading one from its file, is tampering. A seccomp filter
  (``confine.deny_tracing``) keeps every process the sample starts from tracing it or reading
  its memory; Landlock keeps them from ``/proc/<pid>/mem``.
- **The key.** The grader writes a fresh key into a pipe handed over with the sample's other
  descriptors. :func:`keep` splices it, kernel to kernel, into a memfd mapped with no access
  at all, and closes both: the key is never a Python object, no descriptor leads to it, and
  the page kills whatever touches it (even code that reads raw memory). Once the program
  runs, the only reference to the mapping is held by the audit hook, which hands it over
  (through an audit event of its own) to the code after the end of the tests alone: no frame,
  closure or global the program can walk to leads to it. argv, the environment and ``/proc``
  never hold it.
- **The end.** :func:`run` runs the program; only when it returns normally (its tests ended
  without an exception) does :func:`_finisher`'s code, called by that frame, import ctypes,
  make the page readable and write ``{"ok": null, "proof": <key>}``. The audit hook lets
  ctypes in only with that call on the stack: the same code called by the sample is caught.
- **The audit hook** (PEP 578), installed before any code of the program runs, ends the sample
  at once, saying why in a ``tampered`` reply, when it reaches for what could get past this:
  the garbage collector's object walks, trace and profile functions, every thread's frames, a
  frame of the harness taken with ``sys._getframe``, ctypes, ``/proc/<pid>/mem``, an audit
  hook of its own, a subinterpreter. It never raises and never runs code of the sample's.

A forged ``ok`` on any descriptor, a reply of the harness turned into one, an exit before the
tests: none carries the key, and the grader fails the sample as tampered.
"""

import builtins
import marshal
import mmap
import os
import sys
import traceback
import types

KEY_SIZE = 32  # hex digits: the grader's secrets.token_hex(16)
PROT_READ = 1
PROOF_HEAD, PROOF_TAIL = b'{"ok":null,"proof":"', b'"}\n'
KEY_EVENT = "codegen.seal.key"  # the audit event on which the hook hands the key's page over
TAMPERED_STATUS = 87  # the exit status of a sample the hook caught, once it has said why
EARLY = "ran the harness's code for the end of the tests before they ended"
UNITS = ("wire", "verdict_seal")  # what BOOTSTRAP receives, in this order
OWN_FILES = frozenset({"<wire>", "<verdict_seal>", "<string>"})  # left out of tracebacks

# Audit events that end the sample, and what it did. None is needed to run a program: one
# that profiles or traces itself, or walks the collector's objects, fails here (see
# docs/explanation/execution.md).
DENIED = {
    "gc.get_objects": "walked the interpreter's objects (gc.get_objects)",
    "gc.get_referrers": "walked the interpreter's objects (gc.get_referrers)",
    "gc.get_referents": "walked the interpreter's objects (gc.get_referents)",
    "sys.settrace": "installed a trace function (sys.settrace)",
    "sys.setprofile": "installed a profile function (sys.setprofile)",
    "sys.monitoring.register_callback": "installed a monitoring callback (sys.monitoring)",
    "sys._current_frames": "took every thread's frames (sys._current_frames)",
    "sys._current_exceptions": "took every thread's exceptions (sys._current_exceptions)",
    "sys.addaudithook": "added an audit hook of its own",
    "cpython.PyInterpreterState_New": "started a subinterpreter (it has no audit hook)",
}
# Modules that call C or read raw memory without an audit event, or start interpreters.
BLOCKED = frozenset(
    {
        "ctypes",
        "_ctypes",
        "_ctypes_test",
        "_testcapi",
        "_testinternalcapi",
        "_testbuffer",
        "_testmultiphase",
        "_testsinglephase",
        "_testimportmultiple",
        "_xxsubinterpreters",
        "_xxinterpchannels",
        "_xxtestfuzz",
        "_cffi_backend",
        "cffi",
    }
)

BOOTSTRAP = """\
import marshal, os, sys, types
fd, data = int(sys.argv[1]), b""
while chunk := os.read(fd, 1 << 16):
    data += chunk
os.close(fd)
for name, code in marshal.loads(data):
    exec(code, vars(sys.modules.setdefault(name, types.ModuleType(name))))
del fd, data, chunk, name, code
sys.modules["verdict_seal"].main(*map(int, sys.argv[2:]))
"""


def payload(directory):
    """What BOOTSTRAP runs, marshalled: ``wire`` and this module, compiled from their files in
    ``directory`` (read by the zygote: samples cannot see the plugin's files)."""
    units = []
    for name in UNITS:
        with open(os.path.join(directory, name + ".py"), encoding="utf-8") as source:
            units.append((name, compile(source.read(), f"<{name}>", "exec")))
    return marshal.dumps(units)


def main(req_fd, out_fd, key_fd):
    """The sealed sample's process: keep the key, read the one request (``program``), run it,
    reply. Nothing of the sample's runs before the hook is installed (in :func:`run`)."""
    wire = sys.modules["wire"]
    sys.argv = ["candidate.py"]
    try:
        sealed = [keep(key_fd)]  # popped by the hook's set-up: no frame of ours keeps it
    except OSError as exc:
        _send(out_fd, wire, {"crash": f"the sample's key could not be kept: {exc}"})
        os._exit(1)
    request = next(wire.read_requests(req_fd), None)
    if request is None:
        os._exit(0)  # the grader is gone
    try:
        # The sample compiles on its own first: code that only parses when glued to what
        # follows it (a dangling decorator that would wrap the tests) is a syntax error.
        compile(request["sample"], "sample.py", "exec")
        code = compile(request["program"], "program.py", "exec")
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        try:
            run(code, namespace, out_fd, sealed)
        except SystemExit as exc:
            _send(out_fd, wire, {"attempt": ["exit-early", f"called exit({exc.code!r})"]})
            raise RuntimeError(
                f"the program called exit({exc.code!r}) before its tests finished"
            ) from None
    except MemoryError:
        _send(out_fd, wire, {"crash": "out of memory (MemoryError)"})
    except Exception as exc:  # the program's exception goes back to the grader
        _send(out_fd, wire, _raised(exc))
    os._exit(0)


def keep(fd):
    """The key, from the grader's pipe ``fd`` into a memfd, kernel to kernel, mapped with no
    access; both descriptors closed. Returns the mapping (touching it kills the process)."""
    memfd = os.memfd_create("codegen-seal", os.MFD_CLOEXEC)
    try:
        os.ftruncate(memfd, mmap.PAGESIZE)
        if os.splice(fd, memfd, KEY_SIZE) != KEY_SIZE:
            raise OSError("the key is incomplete")
        return mmap.mmap(memfd, mmap.PAGESIZE, prot=0)
    finally:
        os.close(memfd)
        os.close(fd)


def run(code, namespace, out_fd, sealed):
    """Run the compiled program in ``namespace``. If it returns normally, flush its output and
    write the sealed pass on ``out_fd``; otherwise raise what it raised. ``sealed`` holds the
    key's page, which goes to the audit hook (and the list is left empty)."""
    finish, flush = _finisher(out_fd), flush_output
    _guard(out_fd, sys._getframe(), finish.__code__, sealed.pop())
    exec(code, namespace)
    flush()
    finish()


def flush_output():
    """What the sample printed, written to its files (the grader reads them at the reply)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a stream the sample replaced or closed
            pass


def _finisher(out_fd):
    """The code after the end of the tests: asks the hook for the key's page, reads the key
    back and writes the pass with it."""
    modules, write, size, audit = sys.modules, os.write, mmap.PAGESIZE, sys.audit

    def finish():
        handed = []
        audit(KEY_EVENT, handed)  # the hook appends the page: this frame, called by the run
        if not handed:
            raise OSError("the sample's key was not handed over")
        page = handed.pop()
        for name in ("ctypes", "_ctypes"):
            modules.pop(name, None)  # the blocks, or what the program put in their place
        import ctypes

        at = id(page) + object.__basicsize__  # an mmap object: its data, then its size
        address = ctypes.c_void_p.from_address(at).value
        if ctypes.c_ssize_t.from_address(at + ctypes.sizeof(ctypes.c_void_p)).value != size:
            raise OSError("the sample's key could not be found")
        mprotect = ctypes.CDLL(None)["mprotect"]
        mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        if mprotect(address, size, PROT_READ) != 0:
            raise OSError("the sample's key could not be read")
        write(out_fd, PROOF_HEAD + page[:KEY_SIZE] + PROOF_TAIL)  # one write: kept whole

    return finish


def _guard(out_fd, run_frame, finish_code, page):
    """Block what must wait for the end of the tests, and install the audit hook for the rest
    of the process's life (a hook cannot be removed). Everything the hook uses is bound here,
    before the program runs; it looks only at event names (one that is not exactly a ``str``
    is the sample's own ``sys.audit``) and at arguments of exact built-in types. ``page``, the
    key's, is held by the hook alone from here on."""
    modules = sys.modules
    loaded = sorted(name for name in BLOCKED if modules.get(name) is not None)
    if loaded:
        raise RuntimeError(f"{loaded[0]} was loaded before the program: it cannot be sealed")
    for name in BLOCKED:
        modules[name] = None
    harness, frame = [], run_frame  # this frame and those below it: the grader's own code
    while frame is not None:
        harness.append(frame)
        frame = frame.f_back
    harness, denied, blocked = tuple(harness), types.MappingProxyType(dict(DENIED)), BLOCKED
    exact, text, data, listed, missing = type, str, bytes, list, object()
    key_event = KEY_EVENT
    getframe, write, leave, status, early = (
        sys._getframe,
        os.write,
        os._exit,
        TAMPERED_STATUS,
        EARLY,
    )

    def tampered(reason):
        try:
            write(out_fd, b'{"tampered":"' + reason.encode("ascii", "replace") + b'"}\n')
        except Exception:  # noqa: BLE001 - the process ends either way
            pass
        finally:
            leave(status)

    def end_of_tests(frame):
        """On this stack: the code after the end of the tests, called by the run (True), only
        called by something else (False), or not at all (None)."""
        called = None
        while frame is not None:
            if frame.f_code is finish_code:
                if frame.f_back is run_frame:
                    return True
                called = False
            frame = frame.f_back
        return called

    def by_the_program(frame):
        while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        return frame is not None and frame.f_code.co_filename == "program.py"

    def memory_path(path):
        if exact(path) is data:
            path = path.decode("latin-1")
        if exact(path) is not text:
            return False  # the kernel refuses it anyway (Landlock)
        parts = path.split("/")
        return parts[-1] == "mem" and ("proc" in parts or "fd" in parts)

    def hook(event, args):
        if exact(event) is not text:
            return
        reason = denied.get(event)
        if reason is not None:
            tampered(reason)
        elif event == key_event:
            end = end_of_tests(getframe(1))
            if end is not True:
                tampered(early if end is False else "asked the grader's hook for the key")
            elif len(args) == 1 and exact(args[0]) is listed:
                args[0].append(page)
        elif event == "sys._getframe":
            if args[0] in harness:
                tampered("took a frame of the grader's own code (sys._getframe)")
        elif event == "import" and exact(args[0]) is text:
            first, _, rest = args[0].partition(".")
            name = first if first in blocked else rest.rpartition(".")[2]
            end = end_of_tests(getframe(1)) if name in blocked else True
            if end is True:
                return
            if end is False:
                tampered(early)
            elif args[1] is not None:
                tampered("loaded " + name + " from its file")
            elif modules.get(name, missing) is not None:
                tampered("took " + name + " out of its block")
            elif by_the_program(getframe(1)):
                tampered("imported " + name)
            # else a library's guarded import: it fails on the block
        elif event.startswith("ctypes."):
            end = end_of_tests(getframe(1))
            if end is not True:
                tampered(early if end is False else "used ctypes (" + event + ")")
        elif event == "open" and memory_path(args[0]):
            tampered("opened a process's memory (/proc/<pid>/mem)")

    sys.addaudithook(hook)
    # No trace or profile function can be set, so setting none changes nothing: a program
    # that restores the one it found (doctest does) runs on; setting one is still caught.
    sys.settrace, sys.setprofile = _none_only(sys.settrace), _none_only(sys.setprofile)


def _none_only(setter):
    def set_none_only(function):
        if function is not None:
            setter(function)  # the audit hook ends the sample here

    set_none_only.__name__, set_none_only.__doc__ = setter.__name__, setter.__doc__
    return set_none_only


def _send(out_fd, wire, message):
    flush_output()  # in its files before the grader, having the reply, reads them
    data = wire.dumps(message)
    while data:
        data = data[os.write(out_fd, data) :]


# Taken before any code of a sample's runs (it may rebind or rename them afterwards).
_BUILTIN_TYPES = {name: value for name, value in vars(builtins).items() if isinstance(value, type)}


def builtin_base(cls):
    """The name of the nearest built-in class of an exception's type (its own, for a built-in
    one): what the grader rebuilds, so that ``except ValueError`` in the tests catches a
    ``ValueError`` subclass of the sample's or of a library's (``json.JSONDecodeError``).
    A class is built-in if it is the very one ``builtins`` held by its name before the
    sample ran: a class of the sample's that names itself ``builtins.ValueError`` is not
    one, and the tests do not catch it as one."""
    return next(
        (c.__name__ for c in cls.__mro__ if _BUILTIN_TYPES.get(c.__name__) is c), "Exception"
    )


def _raised(exc):
    """The reply for an exception of the program's: its frames only (ours would distract)."""
    te = traceback.TracebackException.from_exception(exc)
    te.stack = traceback.StackSummary.from_list(
        [f for f in te.stack if f.filename not in OWN_FILES]
    )
    tb = list(te.format())
    return {
        "raise": {
            "type": type(exc).__name__,
            "base": builtin_base(type(exc)),
            "message": str(exc)[:2000],
            "traceback": "".join(tb[-6:])[-4000:],
        }
    }
