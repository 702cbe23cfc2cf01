"""What one process needs to execute samples, set up once and kept for the run: the sandbox
limits, the CPUs it grades on, the paths samples must not see, and the warm Jest runner."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..kinds.protocol import NODE
from ..kinds.registry import KindRegistry
from ..outcomes import SampleFailed, Verdict
from ..problems import Problem, SuiteLimits, suite_limits
from ..settings import Settings
from . import time_limits
from .dispatch import execute
from .extract import code_policy
from .python.sandbox import Limits


class Executor:
    """Executes samples for one pytest process (an xdist worker, or the only process)."""

    def __init__(
        self, settings: Settings, kinds: KindRegistry, workerinput: Mapping[str, Any]
    ) -> None:
        self.settings = settings
        self.kinds = kinds
        self._worker = (workerinput.get("workerid"), workerinput.get("workercount"))
        self._jest: Any = None
        self._jest_error: str | None = None
        self._hide: tuple[str, ...] | None = None
        self._cpus: tuple[int, ...] | None = None
        self._reference_checks: dict[tuple[str, str], str | None] = {}
        self._calibration: Any = None

    def limits(self, problem: Problem | None = None) -> Any:
        """The sandbox limits for ``problem``'s samples: a suite that brings its harness's
        own (Exec-CSN: 10 s, 4 GiB, the stderr rule) gets them, unless the user set the
        option; otherwise the options'."""

        settings = self.settings
        own = suite_limits(problem) if problem is not None else SuiteLimits()
        timeout, memory = settings.timeout, settings.memory
        if own.timeout_s is not None and "timeout" not in settings.explicit:
            timeout = own.timeout_s
        if own.memory_limit_bytes is not None and "memory" not in settings.explicit:
            memory = -(-own.memory_limit_bytes // (1024 * 1024))
        words = own.stderr_fail_words if settings.stderr_rule == "harness" else ()
        return Limits(timeout_s=timeout, memory_mb=memory, cpus=self.cpus, stderr_fail_words=words)

    @property
    def cpus(self) -> tuple[int, ...]:
        """Where this process grades Python samples (see :func:`.cpus.worker_cpus`)."""
        if self._cpus is None:
            from .cpus import worker_cpus

            self._cpus = () if self.settings.cpu_pinning == "off" else worker_cpus(*self._worker)
        return self._cpus

    def hidden(
        self, sample_path: Path, suites: list[Path], also: tuple[Path | None, ...] = ()
    ) -> tuple[str, ...]:
        """The files samples must not see (worked out once, for the first sample): see
        :mod:`.hidden`; ``also``: more of them (pytest's cache directory)."""
        if self._hide is None:
            from .hidden import grader_files

            self._hide = grader_files(self.settings, [*suites, Path(sample_path)], also)
        return self._hide

    def execute(
        self,
        problem: Problem,
        text: str,
        sample_path: Path,
        *,
        suites: list[Path],
        form: str | None = None,
        also_hidden: tuple[Path | None, ...] = (),
    ) -> tuple[str, Verdict]:
        """Grade ``text``, an answer of ``form`` (see models.base), as an answer to
        ``problem``: ``(code run, verdict)``."""

        kind = self.kinds.of(problem)
        cap = self.limits(problem)
        hide = self.hidden(sample_path, suites, also_hidden)
        if self.grades_on_node(problem):
            self.jest_runner()  # no Node: the sample fails here, before its time limit

        def run_reference() -> Verdict:
            policy = self.code_policy(problem, None)  # as --codegen-check-references grades it
            reference = problem.reference or ""
            return execute(
                problem, reference, cap, kind=kind, policy=policy, jest=self.jest_runner, hide=hide
            )[1]

        limit = self.time_limit(problem, cap.timeout_s, run_reference)
        code, verdict = execute(
            problem,
            text,
            dataclasses.replace(cap, timeout_s=limit.limit_s),
            kind=kind,
            policy=self.code_policy(problem, form),
            jest=self.jest_runner,
            hide=hide,
        )
        verdict.time_limit = limit.to_json()
        if verdict.ran_out_of_time and limit.describe():
            verdict.message = f"{verdict.message}; {limit.describe()}"
        return code, verdict

    def time_limit(
        self, problem: Problem, cap_s: float, run_reference: Callable[[], Verdict]
    ) -> Any:
        """The problem's :class:`~.time_limits.TimeLimit` on this host (see
        :mod:`.time_limits`), calibrating its reference with ``run_reference`` the first time."""

        if self.settings.timeout_rule == "flat":
            return time_limits.TimeLimit(
                cap_s, time_limits.CAP, cap_s, why="--codegen-timeout-rule=flat"
            )
        kind = self.kinds.of(problem)
        if kind.own_time_limits:  # e.g. EvalPlus's per-input limits (python.evalplus_grader)
            return time_limits.TimeLimit(
                cap_s, time_limits.OWN, cap_s, why=f"{kind.own_time_limits} apply instead"
            )
        floor_s = time_limits.floor_of(problem, cap_s, kind.time_floor_s)
        if floor_s >= cap_s:  # (Exec-CSN's 10 s) nothing to derive
            return time_limits.TimeLimit(
                cap_s, time_limits.CAP, cap_s, floor_s=cap_s, why="its floor is the cap"
            )
        if self._calibration is None:
            from ..cachedir import default_cache_root

            self._calibration = time_limits.Calibration(default_cache_root())
        seconds, calibration = self._calibration.reference_time(
            problem, floor_s, cap_s, run_reference
        )
        limit = time_limits.derive(floor_s, cap_s, seconds)
        if isinstance(calibration, str):
            return dataclasses.replace(limit, why=calibration)
        return dataclasses.replace(limit, calibration=calibration)

    def code_policy(self, problem: Problem, form: str | None) -> str:
        """How the code of an answer of ``form`` to ``problem`` is taken: the record's
        ``code_policy`` (see :func:`.extract.code_policy` and ``--codegen-extract``)."""

        return code_policy(form, self.settings.extract, self.kinds.of(problem).continues_prompt)

    def reference_failure(self, problem: Problem, run: Callable[[str], Verdict]) -> str | None:
        """Why the problem's own reference fails here (None when it passes); once per problem.
        ``run`` grades a piece of code as an answer to the problem."""
        key = (problem.suite, problem.id)
        if key not in self._reference_checks:
            if problem.reference is None:
                self._reference_checks[key] = "the problem has no reference solution"
            else:
                verdict = run(problem.reference)
                self._reference_checks[key] = (
                    None
                    if verdict.passed
                    else (
                        f"its reference fails on this machine ({verdict.outcome}: "
                        f"{verdict.message.splitlines()[0] if verdict.message else ''})"
                    )
                )
        return self._reference_checks[key]

    def jest_runner(self) -> Any:
        if self._jest is None:
            from .jest.node_env import NodeNotFoundError, ToolchainError, find_node
            from .jest.warm_runner import JestRunner

            if self._jest_error is not None:
                raise SampleFailed(self._jest_error)
            try:
                self._jest = JestRunner(
                    node=find_node(self.settings.node), memory_mb=self.settings.memory
                )
            except (NodeNotFoundError, ToolchainError) as e:
                # Said once per item, computed once per process: the environment is broken.
                self._jest_error = f"crashed: the Node/Jest environment is unusable: {e}"
                raise SampleFailed(self._jest_error) from None
        return self._jest

    def node_environment_error(self, source: str) -> str | None:
        """Why this host cannot grade React samples, in one line (None: it can): its Node
        does not start, is too old or is no Node (``source`` names the option that set it),
        or the Jest toolchain cannot be installed, or its runner fails the warm-up. Found
        before any sample runs, so it is the machine's, never a sample's: a runner that dies
        later, on a sample, stays that sample's crash."""
        from .jest.node_env import NodeNotFoundError, ToolchainError, find_node
        from .jest.warm_runner import JestRunner, RunnerError

        try:
            node = find_node(self.settings.node)
        except NodeNotFoundError as e:
            return f"{source}: {e}" if self.settings.node else f"React suites: {e}"
        try:
            if self._jest is None:
                self._jest = JestRunner(node=node, memory_mb=self.settings.memory)
            if not self._jest.alive:
                self._jest.start()
        except ToolchainError as e:
            return f"React suites: the Jest toolchain cannot be installed: {_one_line(e)}"
        except RunnerError as e:
            return f"React suites: the Jest environment does not work: {_one_line(e)}"
        return None

    def grades_on_node(self, problem: Problem) -> bool:
        return self.kinds.of(problem).runtime == NODE

    def node_version(self) -> str | None:
        """The version of the Node that runs React samples here, once it runs."""
        return self._jest.node.version if self._jest is not None else None

    def close(self) -> None:
        zygote = sys.modules.get(f"{__package__}.python.zygote")
        if zygote is not None:  # stop the sample launcher, if started
            zygote.Zygote.shutdown()
        if self._jest is not None:
            self._jest.close()


def _one_line(error: Exception) -> str:
    """An error's first line and, when a tool's output follows, that output's last line
    (npm's names its log)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if len(lines) < 2:
        return lines[0] if lines else type(error).__name__
    return f"{lines[0].rstrip(':')}; {lines[-1].removeprefix('npm error ')}"
