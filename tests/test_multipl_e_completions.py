"""MultiPL-E's own generation output (one ``<name>.json.gz`` a problem with its
``completions``, as its ``automodel.py`` writes them) replayed with
``--codegen-model=replay:PATH``: a directory of them or one file, each completion continuing
the prompt and cut at the problem's stop tokens, as MultiPL-E grades it."""

from __future__ import annotations

import gzip
import json

import pytest
from conftest import FIXTURES, XDIST_MODES, read_results

SUITE = FIXTURES / "multipl_e" / "add.jsonl"
# Its evaluator's self-test inputs: completions files whose first completion is right and
# whose second is not.
LANGUAGES = ("cpp", "js", "lua", "pl", "sh")


def write_completions(directory, language: str, gzipped: bool) -> None:
    row = json.loads(
        (
            FIXTURES / "multipl_e" / "test_inputs" / f"{language}-davinci-0.2-keep-HumanEval53.json"
        ).read_text()
    )
    row["name"] = f"HumanEval_53_add_{language}"  # the fixture suite's name of the problem
    text = json.dumps(row)
    if gzipped:
        (directory / f"{row['name']}.json.gz").write_bytes(gzip.compress(text.encode()))
    else:
        (directory / f"{row['name']}.json").write_text(text)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_directory_of_completion_files_is_graded_as_multipl_e_grades_it(pytester, xdist):
    out = pytester.mkdir("humaneval-out")
    for n, language in enumerate(LANGUAGES):
        write_completions(out, language, gzipped=n % 2 == 0)
    # Its evaluator's results beside them are not completions.
    (out / "HumanEval_53_add_cpp.results.json.gz").write_bytes(gzip.compress(b"{}"))
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:humaneval-out",
        "--codegen-results=r.jsonl",
        "--codegen-samples=2",
        *(f"{SUITE}::HumanEval_53_add_{language}" for language in LANGUAGES),
        *xdist,
        timeout=900,
    )
    records = read_results(pytester.path / "r.jsonl")
    passed = {(r["task_id"], r["sample_index"]): r["outcome"] == "passed" for r in records}
    assert passed == {
        (f"HumanEval_53_add_{language}", index): index == 0
        for language in LANGUAGES
        for index in (0, 1)
    }, records
    assert result.ret == 1


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_one_completion_file_and_one_that_is_not(pytester, xdist):
    write_completions(pytester.path, "lua", gzipped=False)
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:HumanEval_53_add_lua.json",
        "--codegen-samples=2",
        f"{SUITE}::HumanEval_53_add_lua",
        *xdist,
        timeout=900,
    )
    result.assert_outcomes(passed=1, failed=1)
    pytester.path.joinpath("bad.json.gz").write_bytes(gzip.compress(b'{"name": "x"}'))
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:bad.json.gz", f"{SUITE}::HumanEval_53_add_lua", *xdist
    )
    assert result.ret == 4
    said = "not a MultiPL-E completions file (an object with 'name' and 'completions')"
    result.stderr.fnmatch_lines([f"ERROR: *bad.json.gz: {said}"])
