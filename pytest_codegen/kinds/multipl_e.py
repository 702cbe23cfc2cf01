"""MultiPL-E prompt files (``<benchmark>-<lang>-reworded.jsonl`` as nuprl/MultiPL-E ships
them): rows of ``name``, ``language``, ``prompt``, ``tests`` and ``stop_tokens``. The program
run is the prompt, the completion cut at its first stop token, then the tests, as MultiPL-E
assembles it; it passes when its evaluator's rules say ``OK`` (see
``execution/native/programs.py``). MultiPL-E ships no solutions: ``reference`` cannot pass."""

from __future__ import annotations

from pathlib import Path

from ..execution.native import programs
from ..execution.native.libraries import go_modules, javatuples, typescript
from ..jsonl import JSONLinesError, open_text, read_objects
from ..problems import MODE_MULTIPL_E, Problem, SuiteError, SuiteLimits
from .fields import native_fields
from .native_program import (
    NativeProgramKind,
    cut_at_stop,
    language_key,
    made_or_stop,
    toolchain_of,
)
from .protocol import GradingRun

FIELDS = ("name", "language", "prompt", "tests", "stop_tokens")
SUFFIXES = (".jsonl", ".jsonl.gz")
# Its evaluator gives the build and the run 15 s each (Go's one step 30 s): the suite's own
# limit for a sample, unless --codegen-timeout says otherwise.
UPSTREAM_TIMEOUT_S = 30.0


def looks_like_multipl_e(path: Path) -> bool:
    """Whether the first row of ``path`` has MultiPL-E's fields."""
    if not path.name.endswith(SUFFIXES) or not path.is_file():
        return False
    try:
        with open_text(path) as fh:
            first = next((line for line in fh if line.strip()), "")
    except (OSError, UnicodeDecodeError, EOFError):
        return False
    return all(f'"{field}"' in first for field in FIELDS)


class MultiPLEKind(NativeProgramKind):
    name = MODE_MULTIPL_E
    time_floor_s = UPSTREAM_TIMEOUT_S

    def claims(self, path: Path, explicit: bool) -> bool:
        return looks_like_multipl_e(path)

    def load(self, path: Path, suite: str) -> list[Problem]:
        problems = load_multipl_e(path, suite)
        if any(problem.language == "ts" for problem in problems):
            # Its compiler is installed now: a failed install stops the run in one line.
            made_or_stop(typescript, str(path))
        return problems

    def libraries(self, problem: Problem) -> programs.Libraries:
        if problem.language == "java":
            return programs.Libraries(jars=(javatuples(),))
        if problem.language == "go":
            return programs.Libraries(go_cache=go_modules()[1])
        if problem.language == "ts":
            return programs.Libraries(typescript=typescript()[0])
        return programs.Libraries()

    def toolchain(self, problem: Problem) -> str | None:
        node = super().toolchain(problem)
        # TypeScript's compiler is a package of its own: its version is part of the run.
        return f"tsc {typescript()[1]} on node {node}" if problem.language == "ts" else node

    def program(self, problem: Problem, code: str, run: GradingRun) -> str:
        stops = list(native_fields(problem).get("stop_tokens", []))
        return problem.prompt + cut_at_stop(code, stops) + "\n" + problem.tests


def load_multipl_e(path: Path, suite: str) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[str] = set()
    try:
        for where, row in read_objects(path):
            missing = [f for f in FIELDS if f not in row]
            if missing:
                raise SuiteError(f"{where}: a MultiPL-E row needs {', '.join(missing)}")
            name = str(row["name"])
            if name in seen:
                raise SuiteError(f"{where}: {name!r} is there twice")
            seen.add(name)
            key = language_key(str(row["language"]), where)
            toolchain_of(key, str(path))  # a missing one stops the run here, in one line
            problems.append(
                Problem(
                    id=name,
                    suite=suite,
                    category=key,
                    language=key,
                    mode=MODE_MULTIPL_E,
                    prompt=str(row["prompt"]),
                    tests=str(row["tests"]),
                    extra={
                        "stop_tokens": [str(t) for t in row["stop_tokens"]],
                        **SuiteLimits(timeout_s=UPSTREAM_TIMEOUT_S).to_extra(),
                    },
                )
            )
    except JSONLinesError as e:
        raise SuiteError(str(e)) from None
    if not problems:
        raise SuiteError(f"{path}: no MultiPL-E rows")
    return problems
