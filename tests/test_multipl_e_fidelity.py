"""MultiPL-E's own evaluators beside ours on the same programs: every status compared.

Its ``evaluation/src`` (``eval_<lang>.py``, ``generic_eval.py``, ``libeval.py``,
``safe_subprocess``) is kept unchanged in ``multipl_e_official/`` beside this file (its README
names the commit); ``$MULTIPL_E_EVALUATION_SRC`` may name another checkout of that folder to
compare with instead. Each language is a test of its own, skipped where its toolchain is not
on this host. The programs are the self-test's (both completions) and the right, wrong and
empty answers of ``fixtures/multipl_e/add.jsonl``, with those whose statuses used to differ
and those whose status upstream reads from the whole output; each is graded here in the
sandbox, then given, as the same text, to upstream's ``eval_script`` run as upstream runs it,
with the toolchains on this machine. Statuses upstream names apart (JavaScript's and
TypeScript's ``AssertionError`` and ``ReferenceError``, R's and OCaml's ``AssertionError``)
are ``Exception`` here.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import read_results
from test_multipl_e import (
    RIGHT,
    RUST_2021_ONLY,
    SELF_TESTS,
    WHOLE_OUTPUT,
    WRONG,
    add_row,
    input_language,
    suite_and_replay,
)

from pytest_codegen.execution.native.libraries import javatuples, typescript
from pytest_codegen.execution.native.toolchains import (
    ToolchainMissing,
    find,
    search_path,
    tool_env,
)
from pytest_codegen.kinds.native_program import cut_at_stop

SOURCE = Path(
    os.environ.get("MULTIPL_E_EVALUATION_SRC") or Path(__file__).with_name("multipl_e_official")
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
# Upstream's Go runs in the user's build cache (pytester moves HOME): a cold one (a fresh
# machine's) makes its 30 s a compile of the standard library, so the fixture fills it first.
GO_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "go-build")


def toolchain_missing(lang: str) -> str:
    """Why language ``lang`` cannot be compared here ("" if it can): its toolchain, or the
    Maven that fetches the javatuples MultiPL-E's Java programs import."""
    try:
        find(lang)
    except ToolchainMissing as missing:
        return str(missing)
    if lang == "java" and shutil.which("mvn", path=search_path()) is None:
        return "Java's javatuples needs mvn (install the Debian package maven)"
    return ""


def upstream_status(lang: str, program: str) -> str:
    module_name, ending = UPSTREAM[lang]
    module = importlib.import_module(module_name)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"program{ending}"
        path.write_text(program)
        status = module.eval_script(path)["status"]
    return NAMED_APART.get(status, status)


@pytest.fixture
def upstream(monkeypatch, tmp_path, lang):
    """Upstream's evaluators importable, with what the evaluator of ``lang`` expects on PATH
    (``tsc``, ``lua``) and javatuples where its Java evaluator looks for it."""
    monkeypatch.syspath_prepend(str(SOURCE))
    path = [search_path()]
    if lang == "ts":
        package, _version = typescript()
        path.insert(0, str(Path(package).parent / ".bin"))
    if lang == "lua":
        lua = tmp_path / "lua"
        lua.symlink_to(find("lua").tools["lua5.3"])  # MultiPL-E's image calls lua5.3 ``lua``
        path.insert(0, str(tmp_path))
    monkeypatch.setenv("PATH", os.pathsep.join(path))
    monkeypatch.setenv("GOCACHE", GO_CACHE)
    for name, value in tool_env().items():
        if name in ("RUSTUP_HOME", "CARGO_HOME"):  # rustup's proxy, wherever HOME is
            monkeypatch.setenv(name, value)
    if lang == "go":
        row = json.loads(add_row(tmp_path, "go").read_text())
        warm = tmp_path / "warm_test.go"
        warm.write_text(
            row["prompt"] + cut_at_stop(RIGHT["go"], row["stop_tokens"]) + "\n" + row["tests"]
        )
        subprocess.run([find("go").tools["go"], "test", str(warm)], capture_output=True)
    if lang == "java":
        eval_java = importlib.import_module("eval_java")
        jar = javatuples()
        real = eval_java.Path
        monkeypatch.setattr(
            eval_java, "Path", lambda p: real(jar) if "javatuples" in str(p) else real(p)
        )
    yield
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", "") or "").startswith(str(SOURCE)):
            del sys.modules[name]


def graded(pytester, suite: Path, model: str, name: str, samples: int = 1) -> list[dict]:
    """Records of grading ``suite`` with ``model``."""
    result = pytester.runpytest_subprocess(
        f"--codegen-model={model}",
        f"--codegen-samples={samples}",
        str(suite),
        f"--codegen-results={name}",
        timeout=900,
    )
    assert result.ret in (0, 1), (result.stdout.str() + result.stderr.str())[-2000:]
    return read_results(pytester.path / name)


def rows_of(suite: Path) -> dict[str, dict]:
    return {row["name"]: row for row in map(json.loads, suite.read_text().splitlines())}


# Answers whose statuses used to differ from upstream's: a Rust body only the 2021 edition
# compiles (upstream's rustc takes the default, 2015); a right JavaScript answer that first
# spends 6 s (upstream gives node 5 s); a wrong Ruby answer whose stderr is one byte that is
# not UTF-8 (upstream counts the bytes: SyntaxError; the text kept of it is empty); a right
# Perl answer whose stdout ends in "ERR" and stderr starts with "OR" (ERROR is in neither);
# a wrong OCaml answer that writes "Syntax error" to stderr (its Assert_failure is read first).
APART = {
    "ml": ' prerr_string "Syntax error"; x - y\n',
    "pl": '    END { print "ERR"; print STDERR "OR"; }\n    return $x + $y;\n}\n',
    "rb": '    $stderr.write("\\xff".b)\n    x - y\nend\n',
    "rs": RUST_2021_ONLY.format(type="isize"),
    "js": "    if (!globalThis.spun) {\n        globalThis.spun = true;\n"
    "        const end = Date.now() + 6000;\n        while (Date.now() < end) {}\n"
    "    }\n    return x + y;\n}\n",
}


def answers(lang: str) -> list[str]:
    """The answers to ``lang``'s row of fixtures/multipl_e/add.jsonl: right, wrong, the one
    apart, and those whose status upstream reads from a run's whole output."""
    apart = [APART[lang]] if lang in APART else []
    return [RIGHT[lang], WRONG[lang], *apart, *(t for x, t, _ in WHOLE_OUTPUT if x == lang)]


@pytest.mark.parametrize(
    "lang",
    [
        pytest.param(lang, marks=pytest.mark.skipif(bool(why), reason=why))
        for lang, why in ((lang, toolchain_missing(lang)) for lang in sorted(UPSTREAM))
    ],
)
def test_every_status_equals_upstream_evaluators(pytester, upstream, lang):
    (self_test,) = [path for path in SELF_TESTS if input_language(path) == lang]
    self_suite, self_replay = suite_and_replay(pytester.path, [self_test])
    runs = [(self_suite, graded(pytester, self_suite, f"replay:{self_replay}", "s.jsonl", 2))]
    # The language's row alone: a suite of several languages needs all their toolchains.
    add = add_row(pytester.path, lang)
    texts = answers(lang)
    replay = pytester.path / "replay-add.jsonl"
    replay.write_text(
        "".join(
            json.dumps({"task_id": f"HumanEval_53_add_{lang}", "sample_index": i, "completion": t})
            + "\n"
            for i, t in enumerate(texts)
        )
    )
    runs.append((add, graded(pytester, add, f"replay:{replay}", "a.jsonl", len(texts))))
    runs.append((add, graded(pytester, add, "empty", "empty.jsonl")))
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
    assert len(compared) == 2 + len(texts) + 1
    differ = [c for c in compared if c[2] != c[3]]
    assert differ == [], "\n".join(map(str, differ))
