"""Runs a program's build and run steps inside a sample's sandbox (loaded there as the
sample's module: it must import nothing of the plugin).

Every step is a process of the sample's own, confined as the sample is (its uid, limits,
namespaces and Landlock rules are inherited), in a process group of its own that is killed
when the step ends or runs out of time; whatever escapes the group dies with the sample when
the sandbox ends (every process of its uid, or without root every descendant). Output comes
through pipes into files that have no name (capped by the sandbox's file-size limit, so a flood
ends the step with SIGXFSZ instead of filling memory); the first bytes of each are returned,
with how many bytes each holds.
"""

import codecs
import os
import select
import signal
import subprocess
import time


def run(files, steps, budget_s, output_cap):
    """Write ``files`` (name -> text) here, then run ``steps`` in order (each ``argv``,
    ``env``, ``timeout_s``) until one fails; returns what each did, as plain data."""
    for name, text in files.items():
        folder = os.path.dirname(name)
        if folder:
            os.makedirs(folder, exist_ok=True)
        with open(name, "w", encoding="utf-8") as f:
            f.write(text)
    started = time.monotonic()
    done = []
    for index, step in enumerate(steps):
        left = budget_s - (time.monotonic() - started)
        result = _step(index, step, min(step["timeout_s"], max(left, 0.05)), output_cap)
        done.append(result)
        if result["timeout"] or result["exit_code"] != 0:
            break
    return done


def _step(index, step, timeout_s, output_cap):
    began = time.monotonic()
    # Each stream reaches a file of its own through a pipe this process drains, and the file
    # loses its name at once: no process of the sample's (a detached child that outlives the
    # step among them) can rename, truncate or rewrite what the program printed before it is
    # read, as none can take back what it wrote to upstream's pipes.
    files = {stream: _nameless(f".step{index}.{stream}") for stream in ("stdout", "stderr")}
    pipes = {stream: os.pipe() for stream in files}
    try:
        try:
            proc = subprocess.Popen(
                step["argv"],
                env=step["env"],
                stdin=subprocess.DEVNULL,
                stdout=pipes["stdout"][1],
                stderr=pipes["stderr"][1],
                start_new_session=True,
            )
        except OSError as e:
            return _result(-1, False, "", f"cannot start {step['argv'][0]}: {e}", began)
        finally:
            for _, write_end in pipes.values():
                os.close(write_end)
        relay = {read_end: files[stream] for stream, (read_end, _) in pipes.items()}
        code = _relay(proc, relay, timeout_s)
        timed_out = code is None
        code = -1 if code is None else code
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # what it forked goes with it
        except (ProcessLookupError, PermissionError):
            pass
        if timed_out:
            proc.wait()
        heads = {stream: _head(fd, output_cap) for stream, fd in files.items()}
        result = _result(code, timed_out, heads["stdout"], heads["stderr"], began)
        # The text kept drops what is not UTF-8: a stream of such bytes alone is not empty.
        result["bytes"] = {stream: os.fstat(fd).st_size for stream, fd in files.items()}
        if step.get("strict_utf8"):
            result["utf8"] = {stream: _utf8(fd) for stream, fd in files.items()}
        markers = step.get("markers")
        if markers:
            result["found"] = {
                stream: _seen(files[stream], words) for stream, words in markers.items()
            }
        return result
    finally:
        for fd in files.values():
            os.close(fd)
        for read_end, _ in pipes.values():
            os.close(read_end)


def _nameless(name):
    """A file open for reading and writing, already unlinked from its folder ``name``."""
    fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    os.unlink(name)
    return fd


def _relay(proc, relay, timeout_s):
    """Copy what ``proc`` writes on each pipe of ``relay`` (read end -> file) to its file
    until it ends; its exit code, or None if it runs past ``timeout_s``. Woken by its exit
    through a pidfd where there is one: ``Popen.wait(timeout)`` polls with sleeps that grow
    to 50 ms, so a 90 ms compile was seen to end at 115 ms."""
    deadline = time.monotonic() + max(timeout_s, 0.0)
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # before Linux 5.3 or Python 3.9
        pidfd = None
    poll = select.poll()
    for fd in relay:
        os.set_blocking(fd, False)
        poll.register(fd, select.POLLIN)
    if pidfd is not None:
        poll.register(pidfd, select.POLLIN)
    full = set()  # files past the file-size limit: the rest of their stream is dropped
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            # Without a pidfd the exit is seen within 50 ms.
            ready = poll.poll(left * 1000 if pidfd is not None else min(left, 0.05) * 1000)
            ended = (
                proc.poll() is not None if pidfd is None else any(fd == pidfd for fd, _ in ready)
            )
            for fd, _ in ready:
                if fd in relay and not _copy(fd, relay[fd], full, proc, 1 << 16):
                    poll.unregister(fd)
            if ended:
                # What it wrote before it ended is in the pipes; a child it left behind may
                # write on, so only so much more is read.
                for fd in relay:
                    _copy(fd, relay[fd], full, proc, 1 << 20)
                return proc.wait()
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _copy(pipe, file, full, proc, most):
    """Move up to ``most`` bytes waiting in ``pipe`` to ``file``; False once the pipe is
    closed. A file the file-size limit stops ends the step as writing it would have
    (SIGXFSZ)."""
    moved = 0
    while moved < most:
        try:
            chunk = os.read(pipe, 1 << 16)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        moved += len(chunk)
        while chunk and file not in full:
            try:
                chunk = chunk[os.write(file, chunk) :]
            except OSError:
                full.add(file)
                try:
                    os.killpg(proc.pid, signal.SIGXFSZ)
                except (ProcessLookupError, PermissionError):
                    pass
    return True


def _result(code, timed_out, stdout, stderr, began):
    return {
        "exit_code": code,
        "timeout": timed_out,
        "stdout": stdout,
        "stderr": stderr,
        "seconds": round(time.monotonic() - began, 4),
    }


def _seen(fd, words):
    """Which of ``words`` occur anywhere in the file ``fd``, read a MiB at a time."""
    wanted = {word: word.encode("utf-8") for word in words}
    overlap = max(len(b) for b in wanted.values()) - 1
    found, tail, offset = set(), b"", 0
    while len(found) < len(wanted):
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            break
        offset += len(chunk)
        window = tail + chunk
        found.update(word for word, b in wanted.items() if b in window)
        tail = window[len(window) - overlap :]
    return [word for word in words if word in found]


def _utf8(fd):
    """Whether the file ``fd`` decodes as UTF-8 throughout, read a MiB at a time."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    try:
        while chunk := os.pread(fd, 1 << 20, offset):
            offset += len(chunk)
            decoder.decode(chunk)
        decoder.decode(b"", True)
    except UnicodeDecodeError:
        return False
    return True


def _head(fd, cap):
    return os.pread(fd, cap, 0).decode("utf-8", "ignore")
