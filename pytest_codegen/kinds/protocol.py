"""The interface every benchmark kind implements, and what grading a sample is given."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..models.base import SamplingDefaults
from ..outcomes import Verdict
from ..problems import Problem

PYTHON = "python"  # graded by Python children in the sandbox, on this worker's CPUs
NODE = "node"  # graded by Jest in the managed Node environment


@dataclasses.dataclass(frozen=True)
class GradingRun:
    """What grading one sample is given besides its problem and code: the sandbox's
    ``limits`` (``execution.python.sandbox.Limits``), the files to ``hide``, how the code
    was taken (``policy``, see ``execution.extract``), and the Jest runner (made on first
    use; raises ``SampleFailed`` where there is no Node)."""

    limits: Any
    hide: tuple[str, ...] = ()
    policy: str = "extract"
    jest: Callable[[], Any] | None = None


class Kind:
    """A kind of benchmark problem. Subclass it, set ``name`` and implement :meth:`load`
    and :meth:`grade`; the rest has defaults that suit a Python function benchmark.

    Problems say their kind by ``Problem.mode == kind.name``.
    """

    name: str = ""  # the Problem.mode of its problems, and the record's "mode"
    runtime: str = PYTHON  # PYTHON or NODE
    # The suite grader's own limit per sample, the least a derived limit can be (seconds).
    time_floor_s: float = 3.0
    # The benchmark's own per-test limits, which apply instead of one derived per sample
    # (named for the record, e.g. "EvalPlus's per-input limits"); "" for none.
    own_time_limits: str = ""
    # A "completion" answer continues the prompt (HumanEval's prompts are code to go on).
    continues_prompt: bool = False
    # A reply's code is its first fitting fenced block, not its longest (see extract_code).
    first_block: bool = False
    # Whether tests that raise on an empty solution reject it (Python tests raise on its
    # None); where False, an error means the tests cannot run at all (a broken Jest file).
    errors_reject_empty: bool = True
    # The samples per problem and temperature of the benchmark's own runner, used where the
    # user set neither (``Settings.samples_for``/``params_for``); none by default.
    sampling_defaults: SamplingDefaults = SamplingDefaults()

    def claims(self, path: Path, explicit: bool) -> bool:
        """Whether this kind reads the file ``path``, found while collecting (``explicit``:
        named on the command line). Only files that are suites of this kind."""
        return False

    def suite_root(self, path: Path) -> Path:
        """The file or directory a suite is known by (its name, its data identity)."""
        return path

    def load(self, path: Path, suite: str) -> list[Problem]:
        """The problems of ``path`` (a file this kind claims, or a suite directory);
        raises ``problems.SuiteError`` naming what is wrong and where."""
        raise NotImplementedError

    def holds_release(self, path: Path, release: int) -> bool:
        """Whether the suite file ``path`` may hold problems of releases up to ``release``
        (``--codegen-release``): a run of that release does not collect or read one that
        cannot, found in a directory."""
        return True

    def entry_name(self, problem: Problem) -> str | None:
        """The function a model's reply must define, which code extraction prefers."""
        return None

    def system_message(self, problem: Problem) -> str | None:
        """The benchmark's own system message, sent where ``--codegen-system-prompt`` gives
        none; None for no system message."""
        return None

    def extract(self, problem: Problem, reply: str) -> str | None:
        """The code of a raw ``reply`` as the benchmark's own runner takes it; None for the
        plugin's extraction (``execution.extract``). Raises ``ExtractionError`` for a reply
        with no code by the benchmark's rule."""
        return None

    def template_fields(self, problem: Problem) -> dict[str, str]:
        """What a prompt template's ``{entry_point}`` and ``{file}`` stand for."""
        return {"entry_point": self.entry_name(problem) or "", "file": ""}

    def repair_text(self, problem: Problem, failed_code: str, log: str) -> str | None:
        """An error-debugging round's prompt in the benchmark's own words; None for the
        plugin's (the first prompt, the failed code and the test log)."""
        return None

    def empty_solution(self, problem: Problem) -> str:
        """A valid answer that does nothing, which the problem's tests must reject."""
        return "    pass\n"

    def record_fields(self, verdict: Verdict) -> dict[str, Any]:
        """Fields of its own that a graded sample's record carries (JSON-safe)."""
        return {}

    def facets(self, problem: Problem) -> dict[str, str]:
        """What a problem is, for selection (``--codegen-contest-after`` and the like):
        ``contest_date`` (ISO), ``release`` (a number), ``platform``, ``difficulty``; only
        those it has."""
        return {}

    def toolchain(self, problem: Problem) -> str | None:
        """The compiler or interpreter that grades ``problem``'s samples, with its version
        (part of what makes runs comparable); None where the plugin's own Python does."""
        return None

    def check(self, problem: Problem) -> list[str]:
        """Why ``problem`` cannot be solved as shipped (empty: it can)."""
        return []

    def host_lacks(self, problem: Problem) -> str | None:
        """What this host lacks to grade ``problem``'s samples, in one line (None: nothing).
        Asked of the selected samples' problems only, before any is graded: a missing
        compiler stops the run for the languages the run grades, not for every file's."""
        return None

    def prepare(self, problem: Problem) -> None:
        """Make, once per host, what grading ``problem``'s samples needs besides the sample
        (a toolchain's libraries): called before a sample's call, whose time limit is for
        the sample."""

    def grading_s(self, problem: Problem, limit_s: float) -> float:
        """The longest one grading of a sample of ``problem`` may take when its limit is
        ``limit_s``: what pytest-timeout's outer guard leaves it. The limit, unless the
        benchmark's own limits add up to more (APPS: 4 s for each of its tests)."""
        return limit_s

    def grade(self, problem: Problem, code: str, run: GradingRun) -> Verdict:
        """Run ``code`` against ``problem``'s tests; the verdict's ``mode`` is ``name``."""
        raise NotImplementedError
