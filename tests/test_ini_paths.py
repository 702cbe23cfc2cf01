"""A relative path in a ``codegen_*`` ini key is taken from the ini file's directory, one on
the command line from where pytest runs (pytest's own rule for its ini paths), wherever in
the project pytest is started, with and without xdist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TINY, XDIST_MODES, read_results, write_replay

from pytest_codegen.options import OPTIONS
from pytest_codegen.settings import PATH_OPTIONS, resolve


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An ini file at the project's root, the tiny suite and a replay of its references in
    ``suites/``; pytest runs in the subdirectory ``sub``."""
    (pytester.mkdir("suites") / "tiny.jsonl").write_text(TINY.read_text())
    rows = [json.loads(line) for line in TINY.read_text().splitlines() if line.strip()]
    answers = [{"task_id": r["task_id"], "completion": r["canonical_solution"]} for r in rows]
    write_replay(pytester.path / "suites" / "x.jsonl", answers)
    monkeypatch.chdir(pytester.mkdir("sub"))
    return pytester.path


def ini(pytester: pytest.Pytester, **keys: str) -> None:
    pytester.makeini("[pytest]\n" + "".join(f"codegen_{k} = {v}\n" for k, v in keys.items()))


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_ini_paths_are_taken_from_the_ini_files_directory(pytester, project, xdist):
    ini(pytester, model="replay:suites/x.jsonl", results="out/r.jsonl", html="out/r.html")
    result = pytester.runpytest_subprocess("../suites/tiny.jsonl", *xdist)
    result.assert_outcomes(passed=3)
    assert len(read_results(project / "out" / "r.jsonl")) == 3
    assert (project / "out" / "r.html").is_file()
    assert list((project / "sub").iterdir()) == []
    result.stdout.fnmatch_lines([f"results: {project / 'out' / 'r.jsonl'}"])
    # The model is named as the ini file gives it, in the summary and in each record.
    result.stdout.fnmatch_lines(["*pass@k of replay:suites/x.jsonl on tiny*"])
    assert {r["model"] for r in read_results(project / "out" / "r.jsonl")} == {
        "replay:suites/x.jsonl"
    }


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_flags_are_taken_from_where_pytest_runs(pytester, project, xdist):
    ini(pytester, model="replay:nowhere.jsonl", results="out/r.jsonl")
    flags = ["--codegen-model=replay:../suites/x.jsonl", "--codegen-results=r.jsonl"]
    result = pytester.runpytest_subprocess("../suites/tiny.jsonl", *flags, *xdist)
    result.assert_outcomes(passed=3)
    assert len(read_results(project / "sub" / "r.jsonl")) == 3
    assert not (project / "out").exists()
    result.stdout.fnmatch_lines(["results: r.jsonl"])  # as it was given


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_model_spec_of_the_ini_file_that_fails_names_the_ini_key(pytester, project, xdist):
    # Its one line says where the spec came from: the ini key and its file, not the flag.
    ini(pytester, model="replay:suites/missing.jsonl")
    result = pytester.runpytest_subprocess("../suites/tiny.jsonl", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert len(errors) == 1, errors
    assert errors[0].startswith(
        f"ERROR: ini key codegen_model in {project / 'tox.ini'} replay:suites/missing.jsonl: "
        f"cannot read replay file {project / 'suites' / 'missing.jsonl'}"
    ), errors
    ini(pytester, model="nosuch-model")
    result = pytester.runpytest_subprocess("../suites/tiny.jsonl", *xdist)
    result.stderr.fnmatch_lines(
        [f"ERROR: ini key codegen_model in {project / 'tox.ini'}: unknown model 'nosuch-model'*"]
    )
    flag = pytester.runpytest_subprocess("../suites/tiny.jsonl", "--codegen-model=nope-model")
    flag.stderr.fnmatch_lines(["ERROR: --codegen-model: unknown model 'nope-model'*"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_key_set_with_o_is_named_as_given_there(pytester, project, xdist):
    # Its line named the ini file, which does not hold the key: "ini key codegen_samples in
    # .../tox.ini". Its relative paths are still taken from the ini file's directory.
    ini(pytester, model="replay:suites/x.jsonl")
    result = pytester.runpytest_subprocess(
        "../suites/tiny.jsonl", "-o", "codegen_samples=0", *xdist
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == ["ERROR: -o codegen_samples: invalid value '0' (must be at least 1)"]
    result = pytester.runpytest_subprocess(
        "../suites/tiny.jsonl", "-o", "codegen_model=replay:suites/missing.jsonl", *xdist
    )
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == [
        "ERROR: -o codegen_model replay:suites/missing.jsonl: cannot read replay file "
        f"{project / 'suites' / 'missing.jsonl'}: No such file or directory"
    ]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_absolute_ini_paths_are_kept(pytester, project, tmp_path, xdist):
    out = tmp_path / "elsewhere.jsonl"
    ini(pytester, model=f"replay:{project / 'suites' / 'x.jsonl'}", results=str(out))
    result = pytester.runpytest_subprocess("../suites/tiny.jsonl", *xdist)
    result.assert_outcomes(passed=3)
    assert len(read_results(out)) == 3
    result.stdout.fnmatch_lines([f"results: {out}"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_ini_baseline_and_merge_are_read_from_the_ini_files_directory(pytester, project, xdist):
    ini(pytester, model="replay:suites/x.jsonl", results="out/r.jsonl")
    pytester.runpytest_subprocess("../suites/tiny.jsonl").assert_outcomes(passed=3)
    ini(pytester, model="replay:suites/x.jsonl", baseline="out/r.jsonl")
    result = pytester.runpytest_subprocess("../suites/tiny.jsonl", *xdist)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines([f"*compared with baseline {project / 'out' / 'r.jsonl'}*"])
    ini(pytester, merge="out/r.jsonl", html="out/merged.html")
    result = pytester.runpytest_subprocess(*xdist)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["*pass@k of replay:suites/x.jsonl on tiny*"])
    assert (project / "out" / "merged.html").is_file()


def settings_from(pytester: pytest.Pytester, *args: str):
    return resolve(pytester.parseconfig(*args))


def test_every_path_option_from_the_ini_file_is_under_its_directory(pytester, project):
    here = project / "sub"
    keys = {name: f"d/{name}" for name in PATH_OPTIONS if name != "build"}
    keys |= {"build": "src::a*", "merge": "d/merge", "compare": "d/compare"}
    ini(pytester, **keys)
    settings = settings_from(pytester)
    for name in PATH_OPTIONS:
        value = getattr(settings, name)
        (entry,) = value if isinstance(value, tuple) else (value,)
        if name == "build":
            assert entry == f"{project / 'src'}::a*"
        else:
            assert here / entry == project / "d" / name, name
    # The same keys as flags: as given, taken from where pytest runs.
    flags = [f"{o.flag_name}={keys[o.name]}" for o in OPTIONS if o.name in keys]
    settings = settings_from(pytester, *flags)
    for name in PATH_OPTIONS:
        value = getattr(settings, name)
        assert str(value[0] if isinstance(value, tuple) else value) == keys[name], name


def test_an_ini_path_below_where_pytest_runs_stays_relative(pytester, project, monkeypatch):
    monkeypatch.chdir(project.parent)
    ini(pytester, results="out/r.jsonl", node="tools/node")
    settings = settings_from(pytester, "-c", str(project / "tox.ini"))
    assert settings.results == Path(project.name, "out", "r.jsonl")
    assert settings.node == str(Path(project.name, "tools", "node"))


def test_a_node_command_name_is_looked_up_on_path(pytester, project):
    ini(pytester, node="node22")
    assert settings_from(pytester).node == "node22"
    ini(pytester, node="tools/node")
    assert settings_from(pytester).node == str(project / "tools" / "node")


def test_data_dir_and_prompt_templates_of_the_ini_file_likewise(pytester, project):
    (project / "t.txt").write_text("{prompt}")
    ini(pytester, data_dir="data", prompt_template="t.txt", model="replay:suites/x.jsonl")
    settings = settings_from(pytester)
    assert settings.data_dir == project / "data"
    assert settings.prompt_template == {None: "{prompt}"}
    assert settings.model_base == project
    (project / "sub" / "t.txt").write_text("here: {prompt}")
    flags = ["--codegen-data-dir=data", "--codegen-prompt-template=t.txt", "--codegen-model=x"]
    settings = settings_from(pytester, *flags)
    assert settings.data_dir == project / "sub" / "data"
    assert settings.prompt_template == {None: "here: {prompt}"}
    assert settings.model_base == project / "sub"
