"""Runs a whole program once per test case, inside a sample's sandbox (LiveCodeBench, APPS).

Not imported by the plugin: :mod:`.io_grader` reads this file as text and loads it as the
sample's module, with the program and its mode appended as ``PROGRAM``, ``FUNC_NAME`` and
``IMPORTS``. It then calls ``run_stdin(text)`` (a program reading stdin: what it printed) or
``call(*args)`` (a LeetCode ``class Solution`` method: what it returned) once per test case,
all in this one process. The expected outputs never come here: the trusted side compares.

The program runs as the suite's grader runs it: after the suite's own imports (``IMPORTS``,
LiveCodeBench's ``import_string``), ``exit()`` ending only the test case (its ``SystemExit``
is caught, as upstream catches it), stdin the test's input, stdout captured up to a cap.
"""

import builtins
import io
import sys

OUTPUT_CAP_BYTES = 16 * 1024 * 1024  # more output than any expected one: a flood, cut here


class OutputLimitExceeded(Exception):
    """The program printed more than the cap."""


class _CappedBytes(io.BytesIO):
    def write(self, data):
        if self.tell() + len(data) > OUTPUT_CAP_BYTES:
            raise OutputLimitExceeded(f"printed more than {OUTPUT_CAP_BYTES // 2**20} MiB")
        return super().write(data)


# A lone surrogate (JSON's "\ud800") in a test's input or the program's output passes through,
# as through upstream's StringIO: it is the data, not an error of the program's.
_UTF8 = {"encoding": "utf-8", "errors": "surrogatepass"}


def _stdin_of(text):
    return io.TextIOWrapper(io.BytesIO(text.encode(**_UTF8)), **_UTF8)


def _opener(stdin):
    real_open = builtins.open

    def open_stdin_too(file, *args, **kwargs):
        # open(0) and open("/dev/stdin") read the test's input, as upstream's patched open does.
        if file == 0 or file == "/dev/stdin":
            return stdin.buffer if "b" in (args[0] if args else kwargs.get("mode", "")) else stdin
        return real_open(file, *args, **kwargs)

    return open_stdin_too


def _prepared_globals():
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    exec(compile(IMPORTS, "<imports>", "exec"), namespace)  # noqa: F821 - appended
    return namespace


_CODE = compile(PROGRAM, "solution.py", "exec")  # noqa: F821 - appended; a SyntaxError fails the sample
_BASE = _prepared_globals()


def run_stdin(text):
    """What the program prints given ``text`` on stdin (an exception is the sample's error)."""
    saved = sys.stdin, sys.stdout, builtins.input, builtins.open
    captured = _CappedBytes()
    stdout = io.TextIOWrapper(captured, write_through=True, **_UTF8)
    stdin = _stdin_of(text)
    namespace = dict(_BASE)
    namespace["open"] = _opener(stdin)
    namespace["stdin"], namespace["stdout"] = stdin, stdout  # from sys import * bound the old ones
    sys.stdin, sys.stdout = stdin, stdout
    builtins.open = namespace["open"]
    try:
        exec(_CODE, namespace)
    except SystemExit:
        pass  # exit() inside the program: the run ends there, its output stands
    finally:
        try:
            stdout.flush()
        except Exception:  # noqa: BLE001 - a closed or broken stdout: what reached it counts
            pass
        sys.stdin, sys.stdout, builtins.input, builtins.open = saved
    try:
        return captured.getvalue().decode(**_UTF8)
    except UnicodeDecodeError:  # bytes written to sys.stdout.buffer that are not UTF-8
        return captured.getvalue().decode("utf-8", "replace")


def _method():
    namespace = dict(_BASE)
    namespace["__name__"] = "tmp_sol"
    exec(_CODE, namespace)
    owner = namespace["Solution"]() if "class Solution" in PROGRAM else None  # noqa: F821
    if owner is None:
        if FUNC_NAME not in namespace:  # noqa: F821
            raise NameError(f"the code does not define {FUNC_NAME!r}")  # noqa: F821
        return namespace[FUNC_NAME]  # noqa: F821
    return getattr(owner, FUNC_NAME)  # noqa: F821


_METHOD = _method() if FUNC_NAME else None  # noqa: F821


def call(*args):
    """The method's result on ``args`` (a tuple as a list, as upstream compares it)."""
    result = _METHOD(*args)  # exit() here ends the process, as it ends upstream's
    return list(result) if isinstance(result, tuple) else result
