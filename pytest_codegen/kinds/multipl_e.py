"""MultiPL-E prompt files (``<benchmark>-<lang>-reworded.jsonl`` as nuprl/MultiPL-E ships
them, or the Parquet file of a configuration of its published dataset, ``humaneval-cpp``,
``mbpp-rs``, ...): rows of ``name``, ``language``, ``prompt``, ``tests`` and
``stop_tokens``. The program run is the prompt, the completion cut at its first stop token,
then the tests, as MultiPL-E assembles it (a chat reply that restates the function replaces
the prompt's, see ``native_restated``; a ``solution`` is all that precedes the tests); it
passes when its evaluator's rules say ``OK`` (see ``execution/native/programs.py``). MultiPL-E
ships no solutions: ``reference`` cannot pass."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..execution.extract import EXTRACT, WHOLE
from ..execution.native import programs
from ..execution.native.libraries import (
    go_modules,
    go_test_driver,
    javac_archive,
    javatuples,
    typescript,
    typescript_driver,
)
from ..jsonl import JSONLinesError, open_text, read_objects
from ..problems import MODE_MULTIPL_E, Problem, SuiteError, SuiteLimits
from .fields import native_fields
from .native_program import (
    FUNCTION_END,
    NativeProgramKind,
    cpp_libraries,
    cut_at_stop,
    language_key,
    language_problem,
)
from .native_restated import go_merged, restated, without_class_end, without_closer
from .protocol import GradingRun

FIELDS = ("name", "language", "prompt", "tests", "stop_tokens")
SUFFIXES = (".jsonl", ".jsonl.gz")
PARQUET = ".parquet"
PARQUET_NEEDS = "reading a Parquet file needs pyarrow (pip install 'pytest-codegen[multipl-e]')"
# Its evaluator's limits: 15 s a step, some runs 5 s, Go's one step 30 s (programs.py); the
# suite's own limit for a sample, unless --codegen-timeout says otherwise.
UPSTREAM_TIMEOUT_S = programs.MULTIPL_E_SAMPLE_S


def looks_like_multipl_e(path: Path) -> bool:
    """Whether the first row of ``path`` has MultiPL-E's fields (a Parquet file: its
    columns; without pyarrow to read them, any Parquet file, which then fails in one line)."""
    if path.name.endswith(PARQUET) and path.is_file():
        columns = parquet_columns(path)
        return columns is None or set(FIELDS) <= columns
    if not path.name.endswith(SUFFIXES) or not path.is_file():
        return False
    try:
        with open_text(path) as fh:
            first = next((line for line in fh if line.strip()), "")
    except (OSError, UnicodeDecodeError, EOFError):
        return False
    # A first row that lacks one of them is still one of its rows, which its loader names
    # as such (HumanEval's loader would ask for its fields instead).
    return sum(f'"{field}"' in first for field in FIELDS) >= len(FIELDS) - 1


class MultiPLEKind(NativeProgramKind):
    name = MODE_MULTIPL_E
    time_floor_s = UPSTREAM_TIMEOUT_S

    def claims(self, path: Path, explicit: bool) -> bool:
        # Named on the command line, any Parquet file: its loader says what is wrong (no
        # other kind reads one, and pytest's "not found" is said without xdist only).
        parquet = explicit and path.name.endswith(PARQUET) and path.is_file()
        return parquet or looks_like_multipl_e(path)

    def load(self, path: Path, suite: str) -> list[Problem]:
        return load_multipl_e(path, suite)

    def installed(self, problem: Problem) -> None:
        if problem.language == "ts":  # its compiler is an npm package
            typescript()

    def libraries(self, problem: Problem) -> programs.Libraries:
        if problem.language == "java":
            return programs.Libraries(jars=(javatuples(),), javac_archive=javac_archive())
        if problem.language == "go":
            driver, recipe = go_test_driver(humaneval_x=False)
            return programs.Libraries(
                go_cache=go_modules()[1], go_test_driver=driver, go_test_recipe=recipe
            )
        if problem.language == "ts":
            return programs.Libraries(
                typescript=typescript()[0], typescript_driver=typescript_driver()
            )
        if problem.language == "cpp":
            return cpp_libraries(self.name, problem.prompt)
        return programs.Libraries()

    def toolchain(self, problem: Problem) -> str | None:
        node = super().toolchain(problem)
        # TypeScript's compiler is a package of its own: its version is part of the run.
        return f"tsc {typescript()[1]} on node {node}" if problem.language == "ts" else node

    def program(self, problem: Problem, code: str, run: GradingRun) -> str:
        if run.policy == WHOLE:  # the prompt and its completion: all that precedes the tests
            return code + "\n" + problem.tests
        fit = restated(problem.language, problem.prompt, code) if run.policy == EXTRACT else None
        if fit is not None:  # the whole function, which closes itself
            tests = without_closer(problem.tests, FUNCTION_END.get(problem.language, "}"))
            before, own = fit.before, fit.code
            if problem.language == "go":
                before, own = go_merged(before, own)
            own = without_class_end(own) if fit.whole_class else own
            return before + own + "\n" + tests
        stops = list(native_fields(problem).get("stop_tokens", []))
        return problem.prompt + cut_at_stop(code, stops) + "\n" + problem.tests


def parquet_columns(path: Path) -> set[str] | None:
    """The column names of a Parquet file (empty: not one); None without pyarrow."""
    try:
        import pyarrow.parquet as pq  # heavy and optional: only for a Parquet suite
    except ImportError:
        return None
    try:
        return set(pq.read_schema(path).names)
    except (OSError, ValueError):  # pyarrow's ArrowInvalid is a ValueError
        return set()


def parquet_rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, row)`` of each row of a Parquet file; ``where`` is ``path: row N``."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise SuiteError(f"{path}: {PARQUET_NEEDS}") from None
    try:
        missing = [f for f in FIELDS if f not in pq.read_schema(path).names]
        rows = [] if missing else pq.read_table(path, columns=list(FIELDS)).to_pylist()
    except (OSError, ValueError) as e:
        said = str(e).split("\n", 1)[0]  # pyarrow's may go on to list the schema
        raise SuiteError(f"{path}: not a readable MultiPL-E Parquet file ({said})") from None
    if missing:
        raise SuiteError(
            f"{path}: a MultiPL-E Parquet file needs the column(s) {', '.join(missing)}"
        )
    for index, row in enumerate(rows, 1):
        yield f"{path}: row {index}", row


def _malformed(row: dict[str, Any]) -> list[str]:
    stops = row.get("stop_tokens")
    text = [f for f in FIELDS if f != "stop_tokens" and not isinstance(row.get(f), str)]
    if not isinstance(stops, list) or not all(isinstance(t, str) for t in stops):
        return [*text, "stop_tokens"]
    return text


def load_multipl_e(path: Path, suite: str) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[str] = set()
    rows = parquet_rows(path) if path.name.endswith(PARQUET) else read_objects(path, text_only=True)
    try:
        for where, row in rows:
            malformed = _malformed(row)
            if malformed:
                raise SuiteError(
                    f"{where}: missing or malformed field(s) {', '.join(malformed)} "
                    "(a MultiPL-E row's are text, its stop_tokens a list of text)"
                )
            name = row["name"]
            if name in seen:
                raise SuiteError(f"{where}: {name!r} is there twice")
            seen.add(name)
            key = language_key(row["language"], where)
            problems.append(
                language_problem(
                    name,
                    suite,
                    key,
                    MODE_MULTIPL_E,
                    prompt=row["prompt"],
                    tests=row["tests"],
                    extra={
                        "stop_tokens": row["stop_tokens"],
                        **SuiteLimits(timeout_s=UPSTREAM_TIMEOUT_S).to_extra(),
                    },
                )
            )
    except JSONLinesError as e:
        raise SuiteError(str(e)) from None
    except OSError as e:  # a .gz file that is not one, or is cut short
        raise SuiteError(f"{path}: cannot read ({e})") from None
    if not problems:
        raise SuiteError(f"{path}: no MultiPL-E rows")
    return problems
