"""HumanEval-X files (``humaneval_<lang>.jsonl.gz`` as THUDM/CodeGeeX ships them): rows of
``task_id`` (``CPP/0``), ``prompt``, ``declaration``, ``canonical_solution``, ``test`` (Go adds
``import`` and ``test_setup``). The program is assembled as CodeGeeX's
``evaluate_humaneval_x.py`` assembles it (a chat reply that restates the function replaces
the prompt's, see ``native_restated``; a ``solution`` replaces the prompt), and it passes as
its ``execution.py`` says (see ``humaneval_x_passed``); ``reference`` runs the canonical
solutions."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..collect.builtin_suites import read_rows
from ..execution.extract import EXTRACT, WHOLE
from ..execution.native import programs
from ..execution.native.libraries import (
    go_modules,
    go_test_driver,
    javac_archive,
    node_modules,
    rust_crates,
)
from ..jsonl import open_text
from ..problems import MODE_HUMANEVAL_X, Problem
from .fields import native_fields
from .native_program import (
    EMPTY_BODY,
    NativeProgramKind,
    cpp_libraries,
    language_key,
    language_problem,
)
from .native_restated import go_merged, restated, rust_without_declared_uses
from .protocol import GradingRun

FIELDS = ("task_id", "prompt", "declaration", "canonical_solution", "test")
# The headers CodeGeeX puts before a C++ program when its prompt lacks them (IMPORT_HELPER).
CPP_HEADERS = (
    "#include<stdlib.h>",
    "#include<algorithm>",
    "#include<math.h>",
    "#include<stdio.h>",
    "#include<vector>",
    "#include<string>",
    "#include<climits>",
    "#include<cstring>",
    "#include<iostream>",
)
# Go packages it imports when the code uses them and the tests' set-up does not.
GO_PACKAGES = (
    "math",
    "strings",
    "fmt",
    "strconv",
    "time",
    "bytes",
    "regexp",
    "sort",
    "math/rand",
    "crypto/md5",
)
# Its evaluator's status -> MultiPL-E's words, which the outcomes use.
STATUSES = {
    "passed": programs.OK,
    "failed": programs.EXCEPTION,
    "compilation error": programs.SYNTAX_ERROR,
    "timed out": programs.TIMEOUT,
}


def looks_like_humaneval_x(path: Path) -> bool:
    if not path.name.endswith((".jsonl", ".jsonl.gz")) or not path.is_file():
        return False
    try:
        with open_text(path) as fh:
            first = next((line for line in fh if line.strip()), "")
    except (OSError, UnicodeDecodeError, EOFError):
        return False
    # Its Python file is graded as HumanEval is (kinds/humaneval.py). A first row that lacks
    # one field besides the declaration (which HumanEval's rows lack) is still one of its
    # rows, which its loader names as such.
    named = sum(f'"{f}"' in first for f in FIELDS)
    return (
        '"declaration"' in first and named >= len(FIELDS) - 1 and '"task_id": "Python/' not in first
    )


def assemble(problem: Problem, code: str, prompt: str | None = None) -> str:
    """The program CodeGeeX's ``process_humaneval_test`` makes of ``code`` (after ``prompt``,
    by default the problem's)."""
    lang, test = problem.language, problem.tests
    prompt = problem.prompt if prompt is None else prompt
    extra = native_fields(problem)
    if lang == "cpp":
        setup = "".join(h + "\n" for h in CPP_HEADERS if h not in prompt)
        return setup + "\n" + prompt + code + "\n" + test
    if lang == "go":
        prompt = prompt.replace(str(extra.get("go_import", "")), "")
        setup = str(extra.get("test_setup", ""))
        imports = _go_used_imports(setup, code)
        return setup + "\n" + (imports + "\n" if imports else "") + prompt + code + "\n" + test
    if lang == "rs":
        declaration = str(extra.get("declaration", ""))
        return "\nfn main(){ \n } \n" + declaration + prompt + code + test
    return prompt + code + "\n" + test  # Java, JavaScript


def _go_used_imports(setup: str, code: str) -> str:
    """The import declaration CodeGeeX adds for the packages ``code`` uses (empty: none)."""
    used = [
        f'"{pkg}"' for pkg in GO_PACKAGES if pkg not in setup and pkg.split("/")[-1] + "." in code
    ]
    return "import (\n" + "    ".join(p + "\n" for p in used) + ")" if used else ""


def fitted(problem: Problem, code: str, policy: str) -> str:
    """The program of an answer taken by ``policy``: a ``solution`` (WHOLE) in place of the
    prompt; an extracted answer that restates the prompt's function in place of that
    function (see ``native_restated``); anything else after the prompt, as CodeGeeX does."""
    lang = problem.language
    if policy == WHOLE:
        before, whole_class = "", True
    elif policy == EXTRACT and (fit := restated(lang, problem.prompt, code)) is not None:
        before, code, whole_class = fit.before, fit.code, fit.whole_class
    else:
        return assemble(problem, code)
    if lang == "rs" and policy == EXTRACT:
        code = rust_without_declared_uses(code, str(native_fields(problem).get("declaration", "")))
    if lang == "go":
        setup = str(native_fields(problem).get("test_setup", ""))
        before, code = go_merged(before, code, setup + "\n" + _go_used_imports(setup, code))
    if lang == "java" and not whole_class:
        code = code.rstrip() + "\n}\n"  # the method only: the prompt's class still open
    elif lang == "java":  # Main.java holds it: a public class of another name cannot be there
        code = re.sub(r"^([ \t]*)public\s+(?=(?:final\s+)?class\s)", r"\1", code, flags=re.M)
    return assemble(problem, code, before)


class HumanEvalXKind(NativeProgramKind):
    name = MODE_HUMANEVAL_X
    # Its evaluator's command (scripts/evaluate_humaneval_x.sh) gives a build and a run 5 s
    # each; above that, limits come from the canonical solution's time on this host
    # (execution/time_limits.py), which counts the compiler's start too.
    time_floor_s = 5.0

    def claims(self, path: Path, explicit: bool) -> bool:
        return looks_like_humaneval_x(path)

    def load(self, path: Path, suite: str) -> list[Problem]:
        return load_humaneval_x(path, suite)

    def libraries(self, problem: Problem) -> programs.Libraries:
        if problem.language == "rs":
            deps, crates = rust_crates()
            return programs.Libraries(rust_deps=deps, rust_crates=tuple(sorted(crates.items())))
        if problem.language == "go":
            module, cache = go_modules()
            driver, recipe = go_test_driver(humaneval_x=True)
            return programs.Libraries(
                go_module=module, go_cache=cache, go_test_driver=driver, go_test_recipe=recipe
            )
        if problem.language == "js":
            return programs.Libraries(node_modules=node_modules())
        if problem.language == "cpp":
            return cpp_libraries(self.name, assemble(problem, ""))
        if problem.language == "java":
            return programs.Libraries(javac_archive=javac_archive())
        return programs.Libraries()

    def program(self, problem: Problem, code: str, run: GradingRun) -> str:
        return fitted(problem, code, run.policy)

    def empty_solution(self, problem: Problem) -> str:
        # Closed as the canonical solution closes what the prompt opened (Java's class too).
        lines = (problem.reference or "").rstrip().split("\n")
        closing: list[str] = []
        while lines and lines[-1].strip() == "}":
            closing.insert(0, lines.pop())
        return EMPTY_BODY[problem.language] + "".join(line + "\n" for line in closing)

    def status(self, problem: Problem, made: programs.Build, steps: list[dict[str, Any]]) -> str:
        return STATUSES[humaneval_x_passed(problem.language, made, steps)]

    def time_decided(
        self, problem: Problem, made: programs.Build, steps: list[dict[str, Any]], status: str
    ) -> tuple[bool | None, str]:
        last = steps[-1]
        if problem.language == "js" and not last["timeout"] and undecodable(last):
            # CodeGeeX's outcome, for a reason of its own: not run again as a timeout.
            return False, "its output is not UTF-8, which CodeGeeX's check reports as timed out"
        return None, ""


def humaneval_x_passed(language: str, made: programs.Build, results: list[dict[str, Any]]) -> str:
    """HumanEval-X's verdict (``execution.py`` of CodeGeeX): ``passed`` when every step ran
    and the last exited 0 (JavaScript: when it printed nothing at all, whatever its exit
    status, as console.assert only prints), ``compilation error``, ``timed out`` or
    ``failed``."""
    last = results[-1]
    if last["timeout"]:
        return "timed out"
    if made.compiled and len(results) == 1 and last["exit_code"] != 0:
        return "compilation error"
    if language == "js":
        if undecodable(last):
            return "timed out"
        printed = programs.wrote(last, "stderr") or programs.wrote(last, "stdout")
        return "failed" if printed else "passed"
    return "passed" if last["exit_code"] == 0 and len(results) == len(made.steps) else "failed"


def undecodable(result: dict[str, Any]) -> bool:
    """HumanEval-X JavaScript: its check decodes stderr, then stdout (the first that holds
    anything) strictly, and output that is not UTF-8 raises in the check's process, which
    then leaves no result: CodeGeeX's "timed out", though no limit was reached."""
    written = [s for s in ("stderr", "stdout") if programs.wrote(result, s)]
    return bool(written) and not result.get("utf8", {}).get(written[0], True)


def _lacking(row: dict[str, Any]) -> list[str]:
    # Go's rows add its imports and its tests' set-up.
    given = [f for f in ("import", "test_setup") if f in row]
    return [f for f in (*FIELDS, *given) if not isinstance(row.get(f), str)]


def load_humaneval_x(path: Path, suite: str) -> list[Problem]:
    problems: list[Problem] = []
    for where, row in read_rows(path, _lacking):
        task_id = row["task_id"]
        key = language_key(task_id.split("/", 1)[0], where)
        extra: dict[str, Any] = {}
        if key == "go":
            extra = {"go_import": row.get("import", ""), "test_setup": row.get("test_setup", "")}
        if key == "rs":
            extra = {"declaration": row["declaration"]}
        problems.append(
            language_problem(
                task_id,
                suite,
                key,
                MODE_HUMANEVAL_X,
                prompt=row["prompt"],
                tests=row["test"],
                reference=row["canonical_solution"],
                extra=extra,
            )
        )
    return problems
