"""MultiPL-E's own evaluators beside ours on the same programs: every status compared.

Its ``evaluation/src`` (``eval_<lang>.py``, ``safe_subprocess``) is read from
``$MULTIPL_E_EVALUATION_SRC``, a checkout of nuprl/MultiPL-E's folder of that name; without it
this test is skipped (the project ships none of its code). The programs are the self-test's
(both completions of each language) and the right, wrong and empty answers of
``fixtures/multipl_e/add.jsonl``; each is graded here in the sandbox, then given, as the same
text, to upstream's ``eval_script`` run as upstream runs it, with the toolchains on this
machine. Statuses upstream names apart (JavaScript's and TypeScript's ``AssertionError`` and
``ReferenceError``, R's and OCaml's ``AssertionError``) are ``Exception`` here.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import read_results
from test_multipl_e import (
    ADD,
    RIGHT,
    RUST_2021_ONLY,
    SELF_TESTS,
    WHOLE_OUTPUT,
    WRONG,
    answers_replay,
    suite_and_replay,
    toolchain_here,
)

from pytest_codegen.execution.native.libraries import javatuples, typescript
from pytest_codegen.execution.native.toolchains import search_path, tool_env
from pytest_codegen.kinds.native_program import cut_at_stop

SOURCE = os.environ.get("MULTIPL_E_EVALUATION_SRC", "")
pytestmark = pytest.mark.skipif(
    not (SOURCE and (Path(SOURCE) / "eval_cpp.py").is_file()),
    reason="no MultiPL-E evaluation/src (set MULTIPL_E_EVALUATION_SRC)",
)
# Our language key -> upstream's module and the file name ending it gives programs
# (``containerized_eval.py``).
UPSTREAM = {
    "cpp": ("eval_cpp", ".cpp"),
    "js": ("eval_javascript", ".js"),
    "ts": ("eval_ts", ".ts"),
    "go": ("eval_go", "_test.go"),
    "rs": ("eval_rust", ".rs"),
    "java": ("eval_java", ".java"),
    "pl": ("eval_pl", ".pl"),
    "rb": ("eval_ruby", ".rb"),
    "php": ("eval_php", ".php"),
    "lua": ("eval_lua", ".lua"),
    "r": ("eval_r", ".r"),
    "rkt": ("eval_racket", ".rkt"),
    "ml": ("eval_ocaml", ".ml"),
    "sh": ("eval_sh", ".sh"),
}
NAMED_APART = {"AssertionError": "Exception", "ReferenceError": "Exception"}
# Upstream's Go runs in the user's build cache (pytester moves HOME): a cold one makes its 30 s
# a compile of the standard library.
GO_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "go-build")


def upstream_status(lang: str, program: str) -> str:
    module_name, ending = UPSTREAM[lang]
    module = importlib.import_module(module_name)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"program{ending}"
        path.write_text(program)
        status = module.eval_script(path)["status"]
    return NAMED_APART.get(status, status)


@pytest.fixture
def upstream(monkeypatch, tmp_path):
    """Upstream's evaluators importable, with what they expect on PATH (``tsc``, ``lua``)
    and javatuples where its Java evaluator looks for it."""
    monkeypatch.syspath_prepend(SOURCE)
    package, _version = typescript()
    tsc = Path(package).parent / ".bin"
    lua = tmp_path / "lua"
    lua.symlink_to("/usr/bin/lua5.3")  # MultiPL-E's image calls Debian's lua5.3 ``lua``
    monkeypatch.setenv("PATH", os.pathsep.join((str(tsc), str(lua.parent), search_path())))
    monkeypatch.setenv("GOCACHE", GO_CACHE)
    for name, value in tool_env().items():
        if name in ("RUSTUP_HOME", "CARGO_HOME"):  # rustup's proxy, wherever HOME is
            monkeypatch.setenv(name, value)
    eval_java = importlib.import_module("eval_java")
    jar = javatuples()
    real = eval_java.Path
    monkeypatch.setattr(
        eval_java, "Path", lambda p: real(jar) if "javatuples" in str(p) else real(p)
    )
    yield
    for name in [m for m in sys.modules if m.startswith("eval_") or m == "safe_subprocess"]:
        del sys.modules[name]


def graded(
    pytester, suite: Path, model: str, name: str, samples: int = 1, only: str = ""
) -> list[dict]:
    """Records of grading ``suite`` (its problem ``only`` if given) with ``model``."""
    result = pytester.runpytest_subprocess(
        f"--codegen-model={model}",
        f"--codegen-samples={samples}",
        f"{suite}::{only}" if only else str(suite),
        f"--codegen-results={name}",
        timeout=900,
    )
    assert result.ret in (0, 1), result.stdout.str()[-2000:]
    return read_results(pytester.path / name)


def rows_of(suite: Path) -> dict[str, dict]:
    return {row["name"]: row for row in map(json.loads, suite.read_text().splitlines())}


def test_every_status_equals_upstream_evaluators(pytester, upstream):
    self_suite, self_replay = suite_and_replay(pytester.path, SELF_TESTS)
    runs = [(self_suite, graded(pytester, self_suite, f"replay:{self_replay}", "s.jsonl", 2))]
    for answers, name in ((RIGHT, "right.jsonl"), (WRONG, "wrong.jsonl")):
        replay = answers_replay(pytester.path / f"replay-{name}", answers)
        runs.append((ADD, graded(pytester, ADD, f"replay:{replay}", name)))
    # A Rust body only the 2021 edition compiles (upstream's rustc takes the default, 2015),
    # and a right JavaScript answer that first spends 6 s (upstream gives node 5 s).
    apart = {
        "rs": RUST_2021_ONLY.format(type="isize"),
        "js": "    if (!globalThis.spun) {\n        globalThis.spun = true;\n"
        "        const end = Date.now() + 6000;\n        while (Date.now() < end) {}\n"
        "    }\n    return x + y;\n}\n",
    }
    for lang, answer in apart.items():
        replay = answers_replay(pytester.path / f"replay-apart-{lang}.jsonl", {lang: answer})
        only = f"HumanEval_53_add_{lang}"
        records = graded(pytester, ADD, f"replay:{replay}", f"apart-{lang}.jsonl", only=only)
        runs.append((ADD, records))
    # Statuses upstream reads from a run's whole output, one answer a run.
    whole = [(lang, text) for lang, text, _ in WHOLE_OUTPUT if toolchain_here(lang)]
    for index, (lang, answer) in enumerate(whole):
        replay = answers_replay(pytester.path / f"replay-whole-{index}.jsonl", {lang: answer})
        only = f"HumanEval_53_add_{lang}"
        records = graded(pytester, ADD, f"replay:{replay}", f"whole-{index}.jsonl", only=only)
        runs.append((ADD, records))
    runs.append((ADD, graded(pytester, ADD, "empty", "empty.jsonl")))
    compared = []
    for suite, records in runs:
        rows = rows_of(suite)
        for record in records:
            row = rows[record["task_id"]]
            # The code graded: the completion (a replay's) or the empty answer's body.
            code = cut_at_stop(record["code"], row["stop_tokens"])
            program = row["prompt"] + code + "\n" + row["tests"]
            ours, theirs = record["program_status"], upstream_status(record["category"], program)
            compared.append((record["task_id"], record["sample_index"], ours, theirs))
    assert len(compared) == 2 * len(SELF_TESTS) + 3 * len(RIGHT) + len(apart) + len(whole)
    differ = [c for c in compared if c[2] != c[3]]
    assert differ == [], "\n".join(map(str, differ))
