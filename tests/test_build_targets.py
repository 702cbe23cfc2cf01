"""Targets whose name a module defines more than once (a property's getter and setter,
typing.overload stubs before the implementation): the build masks and judges the def that
grading takes from the example's code, so every kept example's reference passes when the
suite file is graded."""

from __future__ import annotations

import json

import pytest
from conftest import XDIST_MODES
from fake_builder import BuildModel, run_build

TWICE_DEFINED = '''from typing import overload


class Box:
    def __init__(self):
        self._v = 0

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        """Store value doubled, never below zero."""
        value = value * 2
        if value < 0:
            value = 0
        self._v = value


@overload
def bump(x: int) -> int: ...
@overload
def bump(x: str) -> str: ...
def bump(x):
    """One more: x + 1 for a number, x + "!" for a string."""
    if isinstance(x, int):
        return x + 1
    text = str(x)
    return text + "!"
'''
BOX_TEST = """def test_v():
    box = Box()
    box.v = 3
    assert box.v == 6
    box.v = -1
    assert box.v == 0
    assert Box().v == 0
"""
BUMP_TEST = """def test_bump():
    assert bump(1) == 2
    assert bump(-1) == 0
    assert bump("a") == "a!"
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_name_defined_twice_builds_the_def_grading_takes(
    pytester: pytest.Pytester, xdist: list
) -> None:
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "store.py").write_text(TWICE_DEFINED)
    answers = {"Box.v": {"test": BOX_TEST}, "bump": {"test": BUMP_TEST}}
    with BuildModel(answers=answers) as model:
        built = run_build(
            pytester,
            model,
            "src",
            "--codegen-build-out=bench.json",
            *xdist,
        )
    built.assert_outcomes(passed=2)
    rows = {r["func_name"]: r for r in json.loads((pytester.path / "bench.json").read_text())}
    # The setter is masked (the longest def, as grading extracts it), not the getter, and
    # the prompt's context does not show its body.
    assert "@v.setter\n    __MASK__\n" in rows["Box.v"]["masked_code"]
    assert "value * 2" not in rows["Box.v"]["masked_method_no_test"]
    assert "def bump(x: str) -> str: ...\n__MASK__\n" in rows["bump"]["masked_code"]
    graded = pytester.runpytest_subprocess("bench.json", "--codegen-model=validate", *xdist)
    graded.assert_outcomes(passed=2)


# A form feed (old modules separate their parts with one) and a U+2028 inside a string end a
# line for str.splitlines but not for Python: the target after them is still masked whole.
SEPARATED = '''"""Pages of a report."""

PAGE_BREAK = "\\x0c"
LINE_SEPARATOR = "\u2028"
\x0c

def shout(text):
    """Upper-case text, with a bang."""
    text = text.strip()
    if not text:
        return ""
    loud = text.upper()
    return loud + "!"
'''
SHOUT_TEST = """def test_shout():
    assert shout(" hi ") == "HI!"
    assert shout("") == ""
    assert LINE_SEPARATOR == chr(0x2028)
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_target_after_a_form_feed_or_line_separator_is_masked_whole(
    pytester: pytest.Pytester, xdist: list
) -> None:
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "pages.py").write_text(SEPARATED, encoding="utf-8")
    with BuildModel(answers={"shout": {"test": SHOUT_TEST}}) as model:
        built = run_build(
            pytester,
            model,
            "src",
            "--codegen-build-out=bench.json",
            *xdist,
        )
    built.assert_outcomes(passed=1)
    row = json.loads((pytester.path / "bench.json").read_text(encoding="utf-8"))[0]
    assert 'LINE_SEPARATOR = "\u2028"\n\x0c\n\n__MASK__\n' in row["masked_code"]
    assert "def shout(text):\n" not in row["masked_code"]
    assert "text.upper()" not in row["masked_method_no_test"]
    graded = pytester.runpytest_subprocess("bench.json", "--codegen-model=reference", *xdist)
    graded.assert_outcomes(passed=1)


# Code whose own helpers are named test*: the target calls them, so they are part of the
# example's context, not tests to leave out of it.
TEST_NAMED_HELPERS = '''import os


def testable(path):
    """Whether a path names a test file."""
    return os.path.basename(path).startswith(test_prefix())


def test_prefix():
    return "test_"


def count_tests(paths):
    """How many of the paths name test files."""
    found = 0
    for path in paths:
        if testable(path):
            found += 1
    return found
'''
COUNT_TEST = """def test_count_tests():
    assert count_tests([]) == 0
    assert count_tests(["a/test_x.py", "b.py"]) == 1
    assert count_tests(["test_a.py", "test_b.py"]) == 2
"""
COUNT_AUGMENTED = """def test_extra_count_tests():
    assert count_tests(["x/y/test_z.py"]) == 1
    assert count_tests(["test"]) == 0
    assert count_tests(["my_test_a.py"]) == 0
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_helpers_named_test_that_the_code_uses_stay_in_the_context(
    pytester: pytest.Pytester, xdist: list
) -> None:
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "finder.py").write_text(TEST_NAMED_HELPERS)
    answers = {"count_tests": {"test": COUNT_TEST, "aug": COUNT_AUGMENTED}}
    with BuildModel(answers=answers) as model:
        built = run_build(
            pytester,
            model,
            "src::count_tests",
            "--codegen-build-out=bench.json",
            *xdist,
        )
    built.assert_outcomes(passed=1)
    row = json.loads((pytester.path / "bench.json").read_text())[0]
    # the augmented tests ran against the context, helpers and all
    assert row["aug_test_code"] == COUNT_AUGMENTED
    context = row["masked_method_no_test"]
    assert "def testable(path):" in context and "def test_prefix():" in context
    assert "def test_count_tests" not in context and "__main__" not in context
    graded = pytester.runpytest_subprocess("bench.json", "--codegen-model=reference", *xdist)
    graded.assert_outcomes(passed=1)


# Python names need not be ASCII: the suite built from them is graded like any other.
UNICODE_NAMES = '''class Área:
    def __init__(self, w, h):
        self.w, self.h = w, h

    def größe(self):
        """Width times height."""
        w = self.w
        h = self.h
        total = w * h
        return total
'''
GROESSE_TEST = """def test_größe():
    assert Área(2, 3).größe() == 6
    assert Área(0, 3).größe() == 0
    assert Área(1, 1).größe() == 1
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_suite_built_from_unicode_names_is_graded(pytester: pytest.Pytester, xdist: list) -> None:
    (pytester.path / "src").mkdir()
    (pytester.path / "src" / "shapes.py").write_text(UNICODE_NAMES, encoding="utf-8")
    with BuildModel(answers={"Área.größe": {"test": GROESSE_TEST}}) as model:
        built = run_build(
            pytester,
            model,
            "src",
            "--codegen-build-out=bench.json",
            *xdist,
        )
    built.assert_outcomes(passed=1)
    graded = pytester.runpytest_subprocess("bench.json", "--codegen-model=reference", *xdist)
    graded.assert_outcomes(passed=1)
    empty = pytester.runpytest_subprocess("bench.json", "--codegen-model=empty", *xdist)
    empty.assert_outcomes(failed=1)
