"""The input of a benchmark build (--codegen-build): what it names, and rows it cannot use.

Each bad input is one clear line naming what and where: a usage error for an input that
names nothing to build, the fragment's own failing item for a fragment that cannot be built.
"""

from __future__ import annotations

import json

import pytest
from conftest import XDIST_MODES
from fake_builder import BuildModel, run_build

from pytest_codegen.builder.inputs import fragments_of_rows

DOUBLE = 'def double(x):\n    """Twice x."""\n    return 2 * x\n'


def test_a_row_with_the_idx_of_an_earlier_row_is_an_input_error(tmp_path) -> None:
    """The suite file's ids are the rows' idx: two examples with one id make a suite the
    plugin refuses to grade, so the second row of an idx fails, naming the first."""
    rows = [
        {"context": DOUBLE, "func_name": "double", "idx": 1},
        {"context": DOUBLE, "func_name": "double", "idx": 1},
        {"context": DOUBLE, "func_name": "double"},  # its idx is its index: 2
        {"context": DOUBLE, "func_name": "double", "idx": 2},
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    fragments = fragments_of_rows(path)
    assert [(f.id, f.name) for f in fragments] == [
        ("1", "1"),
        ("1", "1_1"),
        ("2", "2"),
        ("2", "2_3"),
    ]
    assert [f.error.split(": ", 1)[-1] for f in fragments] == [
        "",
        "row 1: duplicate idx '1' (also row 0)",
        "",
        "row 3: duplicate idx '2' (also row 2)",
    ]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_file_that_is_neither_python_nor_json_is_a_usage_error(
    pytester: pytest.Pytester, xdist: list
) -> None:
    """Named on its own it names nothing to build (it was read as Python: a build of
    nothing, or an item failing with `does not parse`); in a glob it is not an input."""
    (pytester.path / "notes.txt").write_text("Remember to double the numbers.\n")
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-build=notes.txt", *xdist
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --codegen-build: 'notes.txt' names no .py file*"])
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "README.md").write_text("How to double a number.\n")
    (pytester.path / "src" / "double.py").write_text(DOUBLE)
    listed = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-build=src/*::double", "--collect-only", "-q"
    )
    assert listed.ret == pytest.ExitCode.OK
    assert [line for line in listed.outlines if "::" in line] == ["src/double.py::double"]


DOUBLING = '''def double(x):
    """Twice x, for numbers and for sequences."""
    if isinstance(x, (list, tuple, str)):
        return x + x
    result = 2 * x
    return result
'''
DOUBLE_TEST = "def test_double():\n" + "".join(
    f"    assert double({arg}) == {want}\n" for arg, want in (("2", "4"), ("-1", "-2"), ("0", "0"))
)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_files_outside_the_rootdir_keep_their_names_in_node_ids(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory, xdist: list
) -> None:
    """pytest names a file it is given outside the rootdir by nothing (`::double`): two
    such files with one function name were one node id, built twice and written once."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    for name in ("a", "b"):
        (elsewhere / f"{name}.py").write_text(DOUBLING)
    with BuildModel(answers={"double": {"test": DOUBLE_TEST}}) as model:
        result = run_build(
            pytester,
            model,
            f"{elsewhere}/*.py",
            "--codegen-build-out=bench.json",
            *xdist,
        )
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*codegen build: 2 of 2 kept*"])
    rows = json.loads((pytester.path / "bench.json").read_text())
    assert [(r["idx"], r["source"]["nodeid"]) for r in rows] == [
        ("a.double", "a.py::double"),
        ("b.double", "b.py::double"),
    ]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_output_that_is_the_builds_input_is_a_usage_error(
    pytester: pytest.Pytester, xdist: list
) -> None:
    """The suite file (or the results) written over the rows or the source being built."""
    rows = pytester.path / "rows.json"
    rows.write_text(json.dumps([{"context": DOUBLING, "func_name": "double", "idx": 1}]))
    before = rows.read_bytes()
    for option in ("--codegen-build-out", "--codegen-results"):
        result = pytester.runpytest_subprocess(
            "--codegen-model=reference", "--codegen-build=rows.json", f"{option}=rows.json", *xdist
        )
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(
            [f"ERROR: {option}: rows.json is an input of the build (--codegen-build)"]
        )
    assert rows.read_bytes() == before


def test_a_json_list_that_does_not_parse_is_one_error(tmp_path) -> None:
    """Not one failing fragment for every line of the file, as if it were JSONL."""
    row = {"context": DOUBLE, "func_name": "double", "idx": 1}
    text = json.dumps([row, row], indent=1).replace('"idx": 1\n }', '"idx": 1,\n }', 1)
    path = tmp_path / "rows.json"
    path.write_text(text)
    (fragment,) = fragments_of_rows(path)
    assert fragment.error == (
        f"{path}: line 6: not valid JSON (Expecting property name enclosed in double quotes, "
        "column 2)"
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_row_with_a_lone_surrogate_is_an_input_error(
    pytester: pytest.Pytester, xdist: list
) -> None:
    """No UTF-8 text can be made of it: it crashed the collection of every row (exit 2, and
    1 with -n 2); now its own item fails and the other rows are built."""
    rows = [
        json.dumps({"context": DOUBLE, "func_name": "double", "idx": 1}).replace(
            "Twice", "\\ud800"
        ),
        json.dumps({"context": DOUBLE, "func_name": "nowhere", "idx": 2}),
    ]
    (pytester.path / "rows.jsonl").write_text("\n".join(rows) + "\n")
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-build=rows.jsonl", *xdist
    )
    result.assert_outcomes(failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "input: rows.jsonl: row 0: field 'context' holds a lone surrogate (\\ud800), "
            "which UTF-8 cannot encode"
        ]
    )
    result.stdout.fnmatch_lines(["input: rows.jsonl: row 1: nowhere is not found in its context"])


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_an_input_with_nothing_to_build_says_why(pytester: pytest.Pytester, mode: list) -> None:
    """A file whose functions the default rule does not take (here: no docstring, one line)
    and an empty list of rows build nothing: pytest's "no tests ran" (exit 5) alone did not
    say why."""
    (pytester.path / "small.py").write_text("def double(x):\n    return 2 * x\n")
    (pytester.path / "rows.json").write_text("[]\n")
    for name in ("small.py", "rows.json"):
        result = pytester.runpytest_subprocess(
            "--codegen-model=reference", f"--codegen-build={name}", *mode
        )
        assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
        result.stdout.fnmatch_lines(
            [f"codegen build: {name} holds nothing to build (a function is taken if public,*"]
        )
    deselected = pytester.runpytest_subprocess(
        "--codegen-model=reference", "--codegen-build=small.py::*", "-k", "nothing", *mode
    )
    assert "holds nothing to build" not in deselected.stdout.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_links_inside_the_input_are_not_followed(pytester: pytest.Pytester, xdist: list) -> None:
    """A link to a parent directory was followed until the OS refused the path (40 copies of
    every fragment, all built, written with one idx); a link to a file built it twice."""
    src = pytester.path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "double.py").write_text(DOUBLING)
    (src / "sub" / "up").symlink_to("..", target_is_directory=True)
    (src / "twice.py").symlink_to("double.py")
    args = ["--codegen-build=src", "--codegen-build-out=bench.json", *xdist]
    listed = pytester.runpytest_subprocess("--codegen-model=reference", "--collect-only", *args)
    listed.stdout.fnmatch_lines(["*<BuildItem double>*", "*1 test collected*"])
    with BuildModel(answers={"double": {"test": DOUBLE_TEST}}) as model:
        result = pytester.runpytest_subprocess(
            "--codegen-model=vllm:tiny-builder",
            f"--codegen-base-url={model.url}",
            f"--codegen-cache={pytester.path / 'gen-cache'}",
            *args,
        )
    result.assert_outcomes(passed=1)
    rows = json.loads((pytester.path / "bench.json").read_text())
    assert [(r["idx"], r["source"]["nodeid"]) for r in rows] == [
        ("double.double", "src/double.py::double")
    ]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_glob_across_directories_gives_each_file_its_own_module(
    pytester: pytest.Pytester, xdist: list
) -> None:
    """Each file a glob named had its module named from its own directory: src/a/util.py
    and src/b/util.py were both `util`, two examples with one idx that grading refuses."""
    for name in ("a", "b"):
        (pytester.path / "src" / name).mkdir(parents=True)
        (pytester.path / "src" / name / "util.py").write_text(DOUBLING)
    with BuildModel(answers={"double": {"test": DOUBLE_TEST}}) as model:
        result = run_build(
            pytester,
            model,
            "src/*/util.py",
            "--codegen-build-out=bench.json",
            *xdist,
        )
    result.assert_outcomes(passed=2)
    rows = json.loads((pytester.path / "bench.json").read_text())
    assert [r["idx"] for r in rows] == ["a.util.double", "b.util.double"]
    graded = pytester.runpytest_subprocess("bench.json", "--codegen-model=validate", *xdist)
    graded.assert_outcomes(passed=2)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_id_two_files_give_is_built_once_and_the_suite_grades(
    pytester: pytest.Pytester, xdist: list
) -> None:
    """Rows of two JSON files with one idx, a method `util.Tool.double` and a function
    `double` in util/Tool.py: each had its example, two with one id in a suite grading
    refuses whole. The first keeps the id; the other fails naming it."""
    (pytester.path / "frags").mkdir()
    for name in ("a", "b"):
        row = {"context": DOUBLING, "func_name": "double", "idx": 7}
        (pytester.path / "frags" / f"{name}.json").write_text(json.dumps([row]))
    (pytester.path / "src" / "util").mkdir(parents=True)
    method = "class Tool:\n" + "".join(f"    {line}\n" for line in DOUBLING.splitlines())
    (pytester.path / "src" / "util.py").write_text(method.replace("(x)", "(self, x)"))
    (pytester.path / "src" / "util" / "Tool.py").write_text(DOUBLING)
    test_method = DOUBLE_TEST.replace("double(", "Tool().double(").replace("Tool().d", "d", 1)
    answers = {"double": {"test": DOUBLE_TEST}, "Tool.double": {"test": test_method}}
    for spec, clash in (
        ("frags/*.json", "  frags/b.json::7  input: id '7' is also the id of frags/a.json::7"),
        ("src", "  src/util.py::Tool.double  input: id 'util.Tool.double' is also the id of *"),
    ):
        with BuildModel(answers=answers) as model:
            result = run_build(
                pytester,
                model,
                f"{spec}",
                f"--codegen-build-out={spec[:4]}.json",
                "-p",
                "no:randomly",
                *xdist,
            )
        result.assert_outcomes(passed=1, failed=1)
        result.stdout.fnmatch_lines([clash])
        graded = pytester.runpytest_subprocess(
            f"{spec[:4]}.json", "--codegen-model=validate", *xdist
        )
        graded.assert_outcomes(passed=1)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_glob_over_a_directory_fails_no_file_that_lacks_its_name(
    pytester: pytest.Pytester, xdist: list
) -> None:
    """`src::double` chooses `double` wherever it is: each other file of src failed with
    `no function or method matches 'double'`. Matching nothing anywhere builds nothing."""
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "maths.py").write_text(DOUBLING)
    (pytester.path / "src" / "words.py").write_text(DOUBLING.replace("double", "repeat"))
    with BuildModel(answers={"double": {"test": DOUBLE_TEST}}) as model:
        for spec, outcome in (("src::double", 0), ("src::halve", 5)):
            result = run_build(
                pytester,
                model,
                f"{spec}",
                "--codegen-build-out=bench.json",
                *xdist,
            )
            assert result.ret == outcome, result.stdout.str()
    result.stdout.fnmatch_lines(["codegen build: src::halve holds nothing to build (*"])
    rows = json.loads((pytester.path / "bench.json").read_text())
    assert [r["idx"] for r in rows] == ["maths.double"]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_code_that_holds_the_mask_is_an_input_error(pytester: pytest.Pytester, xdist: list) -> None:
    """Grading puts the answer at the first `__MASK__` of an example's program: code that
    holds that text had its answer spliced into it, and was rejected after three debug
    rounds for a SyntaxError. It fails at once, naming the file, and asks the model nothing."""
    (pytester.path / "src").mkdir()
    marked = 'MARK = "__MASK__"  # the placeholder\n\n\n' + DOUBLING
    (pytester.path / "src" / "marks.py").write_text(marked)
    with BuildModel(answers={"double": {"test": DOUBLE_TEST}}) as model:
        result = run_build(
            pytester,
            model,
            "src",
            *xdist,
        )
        assert model.requests_for() == []
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["  src/marks.py::double  input: src/marks.py: it holds the text __MASK__, the suite's*"]
    )
