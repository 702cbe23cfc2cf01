"""Go samples run ``go test``'s own steps without ``go test`` (``execution/native/gotest.go``)
where that is what go test would do. Every program here is run both ways in the sandbox,
and what the two print and exit with must be the same (times and addresses aside); those
the driver replays itself must also run with no ``go`` to fall back on, and the others must
be left to go test."""

from __future__ import annotations

import json
import re

import pytest
from conftest import FIXTURES

from pytest_codegen.execution.native import programs
from pytest_codegen.execution.native.program_run import SUPERVISOR, language_limits
from pytest_codegen.execution.native.toolchains import ToolchainMissing, find
from pytest_codegen.execution.python.sandbox import Limits, Sandbox
from pytest_codegen.kinds.humaneval_x import HumanEvalXKind, load_humaneval_x
from pytest_codegen.kinds.multipl_e import MultiPLEKind, load_multipl_e

try:
    find("go")
except ToolchainMissing:
    pytest.skip("no Go toolchain here", allow_module_level=True)

HEAD = 'package main\n\nimport (\n    "testing"\n    "github.com/stretchr/testify/assert"\n{})\n'

TEST = "func TestAdd(t *testing.T) {{\n    assert := assert.New(t)\n    _ = assert\n    {}\n}}\n"
OK = "assert.Equal(5, Add(2, 3))"
ADD = "func Add(x int, y int) int {\n    return x + y\n}\n"


def program(body: str = ADD, check: str = OK, imports: str = "", more: str = "") -> str:
    return HEAD.format(imports) + body + more + TEST.format(check)


# (program, whether the driver builds it itself). The rest are go test's to build and judge.
HUMANEVAL_X = {
    "passes": (program(), True),
    "fails": (program(check="assert.Equal(6, Add(2, 3))"), True),
    "prints FAIL and passes": (
        program(ADD + 'func init() { fmt.Println("FAIL") }\n', imports='    "fmt"\n'),
        True,
    ),
    "prints FAIL to stderr and fails": (
        program(ADD + 'func init() { println("FAIL") }\n', check="t.Fail()"),
        True,
    ),
    "no newline at the end of its output": (
        program(ADD + 'func init() { fmt.Print("x") }\n', imports='    "fmt"\n'),
        True,
    ),
    "says no tests ran": (
        program(
            ADD + 'func init() { fmt.Println("\\ntesting: warning: no tests to run") }\n',
            imports='    "fmt"\n',
        ),
        True,
    ),
    "panics": (program(check='panic("boom")'), True),
    "exits 3": (program(check="os.Exit(3)", imports='    "os"\n'), True),
    "exits 0 in a test": (program(check="os.Exit(0)", imports='    "os"\n'), True),
    "exits 0 before the tests": (
        program(ADD + "func init() { os.Exit(0) }\n", imports='    "os"\n'),
        True,
    ),
    "a second test that fails": (program(more="func TestZ(t *testing.T) { t.Fatal(1) }\n"), True),
    "skips": (program(check='t.Skip("later")'), True),
    "sees go test's environment": (
        program(check='t.Fatal(os.Getenv("PATH"), os.Getenv("PWD"))', imports='    "os"\n'),
        True,
    ),
    "imports what solutions use": (
        program(
            "func Add(x int, y int) int {\n    h := md5.Sum([]byte(strconv.Itoa(x)))\n"
            "    _ = h\n    return int(math.Abs(float64(x + y)))\n}\n",
            imports='    "crypto/md5"\n    "math"\n    "strconv"\n',
        ),
        True,
    ),
    "does not compile": (program("func Add(x int, y int) int {\n    return z\n}\n"), False),
    "vet finds a wrong format": (
        program(ADD + 'func init() { fmt.Printf("%d", "x") }\n', imports='    "fmt"\n'),
        False,
    ),
    "does not parse": (program("func Add(x int, y int) int {\n"), False),
    "build constraint excludes it": ("//go:build ignore\n\n" + program(), False),
    "imports a package the probe did not": (
        program(ADD + "var _ = tar.TypeReg\n", imports='    "archive/tar"\n'),
        False,
    ),
    "a malformed test": (program(more="func TestBad(x int) {}\n"), False),
    "an example with output": (
        program(
            more="func ExampleAdd() {\n    fmt.Println(Add(1, 1))\n    // Output: 3\n}\n",
            imports='    "fmt"\n',
        ),
        False,
    ),
    "its own TestMain": (
        program(more="func TestMain(m *testing.M) { m.Run() }\n"),
        False,
    ),
    "testing under another name": (
        program().replace('"testing"', 'tt "testing"').replace("*testing.T", "*tt.T"),
        False,
    ),
    "an external test package": (program().replace("package main", "package add_test"), False),
}


def normalised(text: str, workdir: str) -> str:
    """What may differ between two runs of one program: times, addresses, folders."""
    text = text.replace(workdir, "WORKDIR")
    text = re.sub(r"\d+\.\d+s\b", "T", text)
    text = re.sub(r"0x[0-9a-f]+", "0x?", text)
    return re.sub(r"goroutine \d+", "goroutine N", text)


def run_both(kind, problem, source: str, benchmark: str) -> tuple[dict, dict, dict]:
    """(go test's step, ours, ours with no go to fall back on) for ``source``."""
    tool = find("go")
    libs = kind.libraries(problem)
    assert libs.go_test_driver and libs.go_test_recipe, "the driver was not made"
    limits = language_limits(Limits(timeout_s=120.0, memory_mb=1024), "go")
    ran = []
    for way in ("go test", "ours", "ours alone"):
        with Sandbox(limits, reads=tool.roots + libs.trees()) as box:
            made = programs.build(tool, source, str(box.workdir), 100.0, libs, benchmark)
            (step,) = made.steps
            assert step["argv"][:3] == [libs.go_test_driver, libs.go_test_recipe, tool.tools["go"]]
            if way == "go test":
                step["argv"] = [tool.tools["go"], "test", *step["argv"][3:]]
            elif way == "ours alone":
                step["argv"][2] = "/nonexistent/go"
            (done,) = box.load((SUPERVISOR,), "run")(made.files, [step], 100.0, 1 << 20)
            for stream in ("stdout", "stderr"):
                done[stream] = normalised(done[stream], str(box.workdir))
            ran.append(done)
    return ran[0], ran[1], ran[2]


def assert_as_go_test(theirs: dict, ours: dict, alone: dict, replayed: bool) -> None:
    """Ours printed and exited as go test did; with no go test to fall back on, the same
    where the driver replays the program itself, else it could not run."""
    keys = ("exit_code", "stdout", "stderr", "timeout")
    assert {k: ours[k] for k in keys} == {k: theirs[k] for k in keys}
    if replayed:
        assert {k: alone[k] for k in keys} == {k: theirs[k] for k in keys}
    else:
        assert alone["exit_code"] == 2 and "cannot run go test" in alone["stderr"], alone


def humaneval_x_problem():
    (problem, *_) = load_humaneval_x(FIXTURES / "humaneval_x" / "humaneval_go.jsonl", "hx")
    return problem


@pytest.mark.parametrize("case", list(HUMANEVAL_X))
def test_humaneval_x_go_programs_run_as_go_test_runs_them(case):
    source, replayed = HUMANEVAL_X[case]
    problem = humaneval_x_problem()
    assert_as_go_test(*run_both(HumanEvalXKind(), problem, source, "humaneval-x"), replayed)


MULTIPL_E = {
    "passes": ("return x + y", True),
    "fails": ("return x - y", True),
    "panics": ('panic("boom")', True),
    "a type error": ('return "x"', False),
}


@pytest.mark.parametrize("case", list(MULTIPL_E))
def test_multipl_e_go_programs_run_as_go_test_runs_them(case, tmp_path):
    body, replayed = MULTIPL_E[case]
    rows = [json.loads(x) for x in (FIXTURES / "multipl_e" / "add.jsonl").read_text().splitlines()]
    (row,) = [r for r in rows if r["language"] in ("go", "go_test.go")]
    suite = tmp_path / "add.jsonl"
    suite.write_text(json.dumps(row) + "\n")
    (problem,) = load_multipl_e(suite, "add")
    source = problem.prompt + f"    {body}\n" + problem.tests  # its tests close the function
    assert_as_go_test(*run_both(MultiPLEKind(), problem, source, "multipl-e"), replayed)
