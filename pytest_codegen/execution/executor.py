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

    def limits(self, problem: Problem | None = None) -> Any:
        """The sandbox limits for ``problem``'s samples: a suite that brings its harness's
        own (Exec-CSN: 10 s, 4 GiB, the stderr rule) gets them, unless the user set the
        option; otherwise the options'."""
        from .python.sandbox import Limits

        settings, extra = self.settings, problem.extra if problem is not None else {}
        timeout, memory = settings.timeout, settings.memory
        if "timeout_s" in extra and "timeout" not in settings.explicit:
            timeout = float(extra["timeout_s"])
        if "memory_limit_bytes" in extra and "memory" not in settings.explicit:
            memory = -(-int(extra["memory_limit_bytes"]) // (1024 * 1024))
        words = extra.get("stderr_fail_words", ()) if settings.stderr_rule == "harness" else ()
        return Limits(
            timeout_s=timeout, memory_mb=memory, cpus=self.cpus, stderr_fail_words=tuple(words)
        )

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
        from .dispatch import execute

        return execute(
            problem,
            text,
            self.limits(problem),
            policy=self.code_policy(problem, form),
            jest=self.jest_runner() if problem.mode == MODE_JEST else None,
            hide=self.hidden(sample_path, suites, also_hidden),
        )

    def code_policy(self, problem: Problem, form: str | None) -> str:
        """How the code of an answer of ``form`` to ``problem`` is taken: the record's
        ``code_policy`` (see :func:`.extract.code_policy` and ``--codegen-extract``)."""
        from .extract import code_policy

        return code_policy(form, self.settings.extract, problem.mode)

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
