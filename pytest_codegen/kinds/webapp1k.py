"""WebApp1K-style React suites: ``<category>/<name>.test.js`` files graded by Jest.

Each test file imports the component the model must write (``import App from './addComment'``).
The solution's file name comes from that import line, not from the test's file name: 16 of
WebApp1K's tests differ in letter case (``displayProductDetails.test.js`` imports
``./DisplayProductDetails``). Duo/trio layouts (``<a>_<b>.test.js``) work the same way.
Samples are graded by Jest in the
managed Node environment (``jest``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..outcomes import Verdict
from ..problems import MODE_JEST, Problem, SuiteError
from ..sample_text import first_surrogate, visible
from .fields import WebApp1KFields, webapp1k_fields
from .protocol import NODE, GradingRun, Kind

EMPTY_COMPONENT = "import React from 'react';\nexport default function App() { return null; }\n"

# import X from './Name' | import {X} from "./Name.js" | require('./Name')
_IMPORT = re.compile(
    r"""(?:^|\n)\s*import\s+(?:[^'";]*?\s+from\s+)?['"](?P<a>[^'"]+)['"]"""
    r"""|require\(\s*['"](?P<b>[^'"]+)['"]\s*\)"""
)
# A string literal (kept) or a comment (blanked): an import in a comment imports nothing.
_STRING_OR_COMMENT = re.compile(
    r"""'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`"""
    r"""|(?P<comment>//[^\n]*|/\*.*?(?:\*/|$))""",
    re.S,
)
_EXTENSIONS = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx")
TEST_SUFFIX = ".test.js"


def relative_imports(test_code: str) -> list[str]:
    """The relative module specifiers a test imports (``./addComment``, ``../x``), in order."""
    found: list[str] = []
    for match in _IMPORT.finditer(_without_comments(test_code)):
        spec = match.group("a") or match.group("b")
        if spec.startswith(".") and spec not in found:
            found.append(spec)
    return found


def _without_comments(code: str) -> str:
    """``code`` with each comment blanked out (its line breaks kept), its strings as they are."""

    def blank(match: re.Match[str]) -> str:
        if match.group("comment") is None:
            return match.group(0)
        return re.sub(r"[^\n]", " ", match.group(0))

    return _STRING_OR_COMMENT.sub(blank, code)


def solution_filename(test_code: str, test_filename: str) -> str:
    """The file the model writes, as the test imports it (``./Name`` -> ``Name.js``).

    Falls back to the test's own name (``name.test.js`` -> ``name.js``) when the test has no
    relative import.
    """
    for spec in relative_imports(test_code):
        if spec.startswith("./") and "/" not in spec[2:]:
            name = spec[2:]
            return name if name.endswith(_EXTENSIONS) else f"{name}.js"
    return test_filename[: -len(TEST_SUFFIX)] + ".js"


def make_prompt(solution_file: str, test_code: str) -> str:
    """WebApp1K's prompt (generate_code.py), naming the file with its ``.js`` as they do."""
    return f"Generate {solution_file} to pass the tests below:\n\n{test_code}. RETURN CODE ONLY."


def load_webapp1k(root: Path, suite: str) -> list[Problem]:
    """Every ``<category>/<name>.test.js`` under ``root`` as a :data:`MODE_JEST` problem.

    The problem id is ``<category>/<name>``; ``reference`` is the file next to the test named
    like the import (``<category>/<Component>.js``), when present.
    """
    root = Path(root)
    if not root.is_dir():
        raise SuiteError(f"{root}: not a directory of WebApp1K-style tests")
    problems = [load_test_file(p, suite) for p in sorted(root.glob(f"*/*{TEST_SUFFIX}"))]
    if not problems:
        raise SuiteError(f"{root}: no <category>/<name>{TEST_SUFFIX} files")
    return problems


def load_test_file(test_path: Path, suite: str) -> Problem:
    """One ``<category>/<name>.test.js`` file as a problem (see :func:`load_webapp1k`)."""
    category = test_path.parent.name
    name = test_path.name[: -len(TEST_SUFFIX)]
    if first_surrogate(f"{category}/{name}") is not None:  # bytes the file system could not decode
        raise SuiteError(f"{visible(str(test_path))}: the file name is not UTF-8 (the problem id)")
    test_code = _read(test_path)
    solution_file = solution_filename(test_code, test_path.name)
    reference_path = test_path.parent / solution_file
    reference = _read(reference_path) if reference_path.is_file() else None
    return Problem(
        id=f"{category}/{name}",
        suite=suite,
        category=category,
        language="javascript",
        mode=MODE_JEST,
        prompt=make_prompt(solution_file, test_code),
        tests=test_code,
        reference=reference,
        extra=dict(WebApp1KFields(test_filename=test_path.name, solution_filename=solution_file)),
    )


def _read(path: Path) -> str:
    """A suite file's text; a byte order mark is not part of it (Babel drops it too)."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{path}: cannot read ({exc})") from exc


def check_problem(problem: Problem) -> list[str]:
    """Why a problem cannot be solved as shipped (empty list: it can).

    The sample is one file next to a copy of the test, so the test may import only that one
    module, and only from its own directory.
    """
    issues: list[str] = []
    specs = relative_imports(problem.tests)
    outside = [s for s in specs if not s.startswith("./") or "/" in s[2:]]
    for spec in outside:
        issues.append(f"imports {spec!r} from outside the sample's directory")
    local = {s[2:].removesuffix(".js") for s in specs if s not in outside}
    if len(local) > 1:
        issues.append(f"imports {len(local)} different solution modules: {sorted(local)}")
    if not specs:
        issues.append("imports no solution module")
    from ..execution.jest.warm_runner import SAFE_NAME  # the runner writes only such names

    files = webapp1k_fields(problem)
    for name in (files["test_filename"], files["solution_filename"]):
        if not SAFE_NAME.match(name):
            issues.append(
                f"its file name {name!r} is not one the Jest runner writes (ASCII letters,"
                " digits, '_', '.', '-')"
            )
    return issues


class WebApp1KKind(Kind):
    name = MODE_JEST
    runtime = NODE
    errors_reject_empty = False  # a Jest file that cannot run is broken, not rejecting
    first_block = True  # WebApp1K's harness takes a reply's first code, not its tests after
    # Jest's default per test, for a file's tests together (WebApp1K's files give each test
    # 10 s, and have no solution to derive a limit from: they get the cap).
    time_floor_s = 5.0

    def claims(self, path: Path, explicit: bool) -> bool:
        return path.name.endswith(".test.js") or (explicit and path.is_dir())

    def suite_root(self, path: Path) -> Path:
        # <suite dir>/<category>/<name>.test.js: the suite is named after its directory.
        return path.parent.parent if path.is_file() else path

    def load(self, path: Path, suite: str) -> list[Problem]:
        if path.is_dir():
            return load_webapp1k(path, suite)
        return [load_test_file(path, suite)]

    def template_fields(self, problem: Problem) -> dict[str, str]:
        return {"entry_point": "", "file": webapp1k_fields(problem)["solution_filename"]}

    def repair_text(self, problem: Problem, failed_code: str, log: str) -> str:
        # WebApp1K's retry prompt, word for word: the failed code, the test file, the Jest log.
        file = webapp1k_fields(problem)["solution_filename"]
        return (
            f"{failed_code.rstrip()}\nThe above code is the implementation of {file}. "
            f"It failed the tests below\n{problem.tests}\nBelow is the test log\n{log}\n"
            f"Try to generate {file} again to pass the tests. RETURN CODE ONLY."
        )

    def empty_solution(self, problem: Problem) -> str:
        return EMPTY_COMPONENT

    def check(self, problem: Problem) -> list[str]:
        return check_problem(problem)

    def grade(self, problem: Problem, code: str, run: GradingRun) -> Verdict:
        if run.jest is None:
            raise RuntimeError("React problems need the Jest runner")
        return run_in(run.jest(), problem, code, run.limits.timeout_s)


def run_in(runner: Any, problem: Problem, code: str, timeout_s: float = 30.0) -> Verdict:
    """Grade ``code`` for ``problem`` with a Jest ``runner`` (``execution.jest``'s warm one)."""
    files = webapp1k_fields(problem)
    return runner.run(
        test_source=problem.tests,
        test_filename=files["test_filename"],
        solution_filename=files["solution_filename"],
        solution_code=code,
        timeout_s=timeout_s,
    )
