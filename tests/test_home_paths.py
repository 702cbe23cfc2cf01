"""A path option that starts with ``~`` (given with ``=`` or in an ini file, where no shell
expands it) is taken from the user's home directory, as pytest's own ``--junitxml=~/x.xml``
is: a flag or an ini key, with and without xdist, never a folder named ``~``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TINY, XDIST_MODES, read_results, write_replay

from pytest_codegen.options import OPTIONS
from pytest_codegen.settings import PATH_OPTIONS, resolve


@pytest.fixture
def home(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``HOME`` set to a folder of the pytester directory, holding a replay of the tiny
    suite's references as ``x.jsonl``; pytest runs in ``sub`` below an ini file."""
    home = pytester.mkdir("home")
    monkeypatch.setenv("HOME", str(home))
    rows = [json.loads(line) for line in TINY.read_text().splitlines() if line.strip()]
    answers = [{"task_id": r["task_id"], "completion": r["canonical_solution"]} for r in rows]
    write_replay(home / "x.jsonl", answers)
    (home / "tiny.jsonl").write_text(TINY.read_text())
    monkeypatch.chdir(pytester.mkdir("sub"))
    return home


def no_tilde_folder(pytester: pytest.Pytester) -> None:
    assert not list(pytester.path.rglob("~")), "a folder named ~ was made"


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_flags_starting_with_a_tilde_are_in_the_home_directory(pytester, home, xdist):
    flags = ["--codegen-model=replay:~/x.jsonl", "--codegen-results=~/runs/r.jsonl"]
    result = pytester.runpytest_subprocess(
        str(home / "tiny.jsonl"), *flags, "--codegen-html=~/runs/r.html", *xdist
    )
    result.assert_outcomes(passed=3)
    assert len(read_results(home / "runs" / "r.jsonl")) == 3
    assert (home / "runs" / "r.html").is_file()
    result.stdout.fnmatch_lines([f"results: {home / 'runs' / 'r.jsonl'}"])
    no_tilde_folder(pytester)
    # The earlier run as a baseline, then merged: both read from the home directory.
    again = pytester.runpytest_subprocess(
        str(home / "tiny.jsonl"), flags[0], "--codegen-baseline=~/runs/r.jsonl", *xdist
    )
    again.assert_outcomes(passed=3)
    again.stdout.fnmatch_lines([f"*compared with baseline {home / 'runs' / 'r.jsonl'}*"])
    merged = pytester.runpytest_subprocess("--codegen-merge=~/runs/r.jsonl", *xdist)
    assert merged.ret == 0, merged.stdout.str() + merged.stderr.str()
    merged.stdout.fnmatch_lines(["*pass@k of replay:~/x.jsonl on tiny*"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_ini_keys_starting_with_a_tilde_are_in_the_home_directory(pytester, home, xdist):
    pytester.makeini(
        "[pytest]\ncodegen_model = replay:~/x.jsonl\ncodegen_results = ~/runs/r.jsonl\n"
    )
    result = pytester.runpytest_subprocess(str(home / "tiny.jsonl"), *xdist)
    result.assert_outcomes(passed=3)
    assert len(read_results(home / "runs" / "r.jsonl")) == 3
    no_tilde_folder(pytester)


def test_every_path_option_starting_with_a_tilde_is_in_the_home_directory(
    pytester, home, monkeypatch
):
    (home / "t.txt").write_text("{prompt}")
    keys = {name: f"~/d/{name}" for name in PATH_OPTIONS} | {"build": "~/d/build::a*"}
    keys |= {"data_dir": "~/data", "prompt_template": "~/t.txt", "model": "replay:~/x.jsonl"}
    flags = [f"{o.flag_name}={keys[o.name]}" for o in OPTIONS if o.name in keys]
    ini = "[pytest]\n" + "".join(f"codegen_{k} = {v}\n" for k, v in keys.items())
    for where in ("ini file", "flags", "ini file beside"):
        if where == "ini file beside":  # pytest runs where the ini file is
            monkeypatch.chdir(pytester.path)
        pytester.makeini(ini)
        settings = resolve(pytester.parseconfig(*(flags if where == "flags" else ())))
        for name in PATH_OPTIONS:
            value = getattr(settings, name)
            (entry,) = value if isinstance(value, tuple) else (value,)
            expected = f"{home / 'd' / name}" + ("::a*" if name == "build" else "")
            assert str(entry) == expected, (where, name)
        assert settings.data_dir == home / "data", where
        assert settings.prompt_template == {None: "{prompt}"}, where
        assert settings.model == "replay:~/x.jsonl", where  # named as written
