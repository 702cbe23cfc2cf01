"""Runs a program's build and run steps inside a sample's sandbox (loaded there as the
sample's module: it must import nothing of the plugin).

Every step is a process of the sample's own, confined as the sample is (its uid, limits,
namespaces and Landlock rules are inherited), in a process group of its own that is killed
when the step ends or runs out of time; whatever escapes the group dies with the sample's uid
when the sandbox ends. Output goes to files (capped by the sandbox's file-size limit, so a
flood fails its writes instead of filling memory); the first bytes of each are returned.
"""

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
    out_path, err_path = f".step{index}.out", f".step{index}.err"
    began = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        try:
            proc = subprocess.Popen(
                step["argv"],
                env=step["env"],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        except OSError as e:
            return _result(-1, False, "", f"cannot start {step['argv'][0]}: {e}", began)
        code = _wait(proc, timeout_s)
        timed_out = code is None
        code = -1 if code is None else code
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # what it forked goes with it
        except (ProcessLookupError, PermissionError):
            pass
        if timed_out:
            proc.wait()
    result = _result(
        code, timed_out, _head(out_path, output_cap), _head(err_path, output_cap), began
    )
    markers = step.get("markers")
    if markers:
        paths = {"stdout": out_path, "stderr": err_path}
        result["found"] = {stream: _seen(paths[stream], words) for stream, words in markers.items()}
    return result


def _wait(proc, timeout_s):
    """``proc``'s exit code, or None if it runs past ``timeout_s``. Woken by its exit through
    a pidfd: ``Popen.wait(timeout)`` polls with sleeps that grow to 50 ms, so a 90 ms compile
    was seen to end at 115 ms."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # before Linux 5.3 or Python 3.9
        try:
            return proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None
    try:
        poll = select.poll()
        poll.register(fd, select.POLLIN)
        if not poll.poll(max(timeout_s, 0.0) * 1000):
            return None
    finally:
        os.close(fd)
    return proc.wait()


def _result(code, timed_out, stdout, stderr, began):
    return {
        "exit_code": code,
        "timeout": timed_out,
        "stdout": stdout,
        "stderr": stderr,
        "seconds": round(time.monotonic() - began, 4),
    }


def _seen(path, words):
    """Which of ``words`` occur anywhere in the file at ``path``, read a MiB at a time."""
    wanted = {word: word.encode("utf-8") for word in words}
    overlap = max(len(b) for b in wanted.values()) - 1
    found, tail = set(), b""
    try:
        with open(path, "rb") as f:
            while len(found) < len(wanted):
                chunk = f.read(1 << 20)
                if not chunk:
                    break
                window = tail + chunk
                found.update(word for word, b in wanted.items() if b in window)
                tail = window[len(window) - overlap :]
    except OSError:
        pass
    return [word for word in words if word in found]


def _head(path, cap):
    try:
        with open(path, "rb") as f:
            return f.read(cap).decode("utf-8", "ignore")
    except OSError:
        return ""
