"""The trusted side of a non-Python sample: its program built and run in a sandbox.

The sample's sandbox is the Python one (``execution/python/sandbox.py``): a fresh process of
the zygote, confined before the sample exists (namespaces, a uid of its own, Landlock, rlimits),
which loads :mod:`.supervisor` and has it run the compiler and then the program as its own
children, so they are confined alike. The limits a toolchain needs (a JVM's threads and address
space) are raised for its language only. When the sample ends, for any reason, the zygote kills
every process of its uid (without root, every descendant): no compiler, binary or forked child
outlives it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ..python.errors import SampleCrashed, SampleTimeout
from ..python.sandbox import Limits, Sandbox
from . import programs
from .toolchains import LANGUAGES, Toolchain

SUPERVISOR = (Path(__file__).with_name("supervisor.py")).read_text(encoding="utf-8")


@dataclasses.dataclass
class ProgramRun:
    """What running a sample's program established."""

    made: programs.Build | None  # its files and steps (None: the sandbox failed first)
    steps: list[dict[str, Any]]  # what each step that ran did
    timed_out: bool = False  # the sample's own deadline passed
    isolation: str = ""
    crash: str = ""  # why the sandbox itself failed (it died, ran out of memory)


def language_limits(limits: Limits, language: str) -> Limits:
    """``limits`` with what the language's toolchain needs to start at all."""
    lang = LANGUAGES[language]
    return dataclasses.replace(
        limits,
        memory_mb=max(limits.memory_mb, lang.memory_mb),
        max_procs=max(limits.max_procs, lang.max_procs),
        file_size=max(limits.file_size, lang.file_mb << 20),
    )


def run_program(
    tool: Toolchain,
    program: str,
    limits: Limits,
    hide: tuple[str, ...] = (),
    libs: programs.Libraries = programs.NO_LIBRARIES,
    benchmark: str = "multipl-e",
) -> ProgramRun:
    """Build and run ``program`` with ``tool`` under ``limits`` (the deadline covers both),
    as ``benchmark``'s evaluator does, with ``libs``."""
    limits = language_limits(limits, tool.language)
    made, isolation = None, ""
    try:
        # The supervisor's one import, loaded once in the zygote: 4-8 ms a sample else.
        reads = tool.roots + libs.trees()
        with Sandbox(limits, hide, preload=("subprocess",), reads=reads) as box:
            isolation, workdir = box.isolation, str(box.workdir)
            made = programs.build(tool, program, workdir, limits.timeout_s, libs, benchmark)
            supervise = box.load((SUPERVISOR,), "run")
            # The sandbox's own deadline stays the outer bound; the steps share a slightly
            # shorter one, so a step that times out is reported as such.
            steps = supervise(
                made.files, made.steps, max(limits.timeout_s - 0.5, 0.5), programs.OUTPUT_CAP
            )
    except SampleTimeout:
        return ProgramRun(made, [], timed_out=True, isolation=isolation)
    except SampleCrashed as e:
        return ProgramRun(made, [], crash=str(e), isolation=isolation)
    if not isinstance(steps, list) or not steps:
        return ProgramRun(made, [], crash="its supervisor returned no result")
    return ProgramRun(made, steps, isolation=isolation)
