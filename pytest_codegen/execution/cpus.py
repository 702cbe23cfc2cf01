"""CPU placement of Python grading: which CPU an xdist worker grades on, and pinning the
grading thread (and the sandbox it starts) there for the duration of one sample."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator


def worker_cpus(worker_id: str | None, worker_count: int | None) -> tuple[int, ...]:
    """The CPU xdist worker ``worker_id`` (``gw<i>``) of ``worker_count`` grades Python
    samples on, and runs them on (``Limits.cpus``); ``()`` for anywhere.

    Grading one sample is a string of hand-overs between the grader and the sample's process
    (load, calls, replies, the next spare). On one CPU each is a plain switch; across two it
    wakes the other CPU, which costs more, most of all in a virtual machine. So with exactly
    one xdist worker per usable CPU (``-n auto``), worker *i* gets the *i*-th CPU: the workers
    still share out every CPU. With more workers than CPUs, or fewer (a sample could use an
    idle one), nothing is pinned.
    """
    if not hasattr(os, "sched_setaffinity"):
        return ()
    usable = sorted(os.sched_getaffinity(0))
    index = re.fullmatch(r"gw(\d+)", worker_id or "")
    if index is None or worker_count != len(usable) or int(index[1]) >= len(usable):
        return ()
    return (usable[int(index[1])],)


@contextlib.contextmanager
def pinned_to(cpus: tuple[int, ...]) -> Iterator[None]:
    """The calling thread on ``cpus`` for the duration (and the sandbox it starts); other
    tests of the run, and other threads (model requests), stay unpinned. ``()``: no change."""
    if not cpus:
        yield
        return
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, cpus)
    except OSError:  # the CPU left our set since: grade anywhere
        before = None
    try:
        yield
    finally:
        if before is not None:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, before)
