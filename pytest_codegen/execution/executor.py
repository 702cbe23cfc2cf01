"""What one process needs to execute samples, set up once and kept for the run: the sandbox
limits, the CPUs it grades on, the paths samples must not see, and the warm Jest runner."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..outcomes import SampleFailed, Verdict
from ..problems import MODE_JEST, Problem
from ..settings import Settings


class Executor:
    """Executes samples for one pytest process (an xdist worker, or the only process)."""

    def __init__(self, settings: Settings, workerinput: Mapping[str, Any]) -> None:
        self.settings = settings
        self._worker = (workerinput.get("workerid"), workerinput.get("workercount"))
        self._jest: Any = None
        self._jest_error: str | None = None
        self._hide: tuple[str, ...] | None = None
        self._cpus: tuple[int, ...] | None = None
        self._reference_checks: dict[tuple[str, str], str | None] = {}

    def limits(self) -> Any:
        from .python.sandbox import Limits

        return Limits(
            timeout_s=self.settings.timeout, memory_mb=self.settings.memory, cpus=self.cpus
        )

    @property
    def cpus(self) -> tuple[int, ...]:
        """Where this process grades Python samples (see :func:`.cpus.worker_cpus`)."""
        if self._cpus is None:
            from .cpus import worker_cpus

            self._cpus = () if self.settings.cpu_pinning == "off" else worker_cpus(*self._worker)
        return self._cpus

    def hidden(self, sample_path: Path, suites: list[Path]) -> tuple[str, ...]:
        """The suite files samples must not see (worked out once, for the first sample)."""
        if self._hide is None:
            from .dispatch import hidden_paths

            self._hide = hidden_paths(
                [p.parent if p.is_file() else p for p in suites] + [Path(sample_path)]
            )
        return self._hide

    def execute(
        self, problem: Problem, text: str, sample_path: Path, *, suites: list[Path]
    ) -> tuple[str, Verdict]:
        """Grade ``text`` as an answer to ``problem``: ``(code run, verdict)``."""
        from .dispatch import execute

        return execute(
            problem,
            text,
            self.limits(),
            jest=self.jest_runner() if problem.mode == MODE_JEST else None,
            hide=self.hidden(sample_path, suites),
        )

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
            from .jest.runner import JestRunner

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

    def close(self) -> None:
        zygote = sys.modules.get(f"{__package__}.python.zygote")
        if zygote is not None:  # stop the sample launcher, if started
            zygote.Zygote.shutdown()
        if self._jest is not None:
            self._jest.close()
