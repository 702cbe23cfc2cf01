"""A MultiPL-E or HumanEval-X file given as a path that cannot be graded as it is stops the
run before any sample, in one line naming the file and its line, exit status 4, the same with
``-n 2``."""

from __future__ import annotations

import gzip
import json

import pytest
from conftest import FIXTURES, XDIST_MODES

ADD = json.loads((FIXTURES / "multipl_e" / "add.jsonl").read_text().splitlines()[0])
SAID = "(a MultiPL-E row's are text, its stop_tokens a list of text)"
FIRST, SECOND = (
    json.loads(line)
    for line in (FIXTURES / "humaneval_x" / "humaneval_cpp.jsonl").read_text().splitlines()
)
MULTIPL_E, HUMANEVAL_X = "humaneval-cpp-reworded.jsonl", "humaneval_cpp.jsonl"
# Each file's name, its rows (or bytes), and the line it stops the run with (after its path).
MALFORMED = {
    # Each character of the string was a stop token: a completion was cut at its first space.
    "stop tokens as one string": (
        MULTIPL_E,
        [{**ADD, "stop_tokens": "\n}"}],
        f":1: missing or malformed field(s) stop_tokens {SAID}",
    ),
    # An INTERNALERROR before.
    "stop tokens that are no list": (
        MULTIPL_E,
        [ADD | {"name": "b"}, {**ADD, "stop_tokens": None}],
        f":2: missing or malformed field(s) stop_tokens {SAID}",
    ),
    # Graded as the text "None", every sample an error of the code.
    "a prompt and tests that are not text": (
        MULTIPL_E,
        [{**ADD, "prompt": None, "tests": 3}],
        f":1: missing or malformed field(s) prompt, tests {SAID}",
    ),
    # Its first line whole, which MultiPL-E's loader reads before the end is found missing.
    # Named as HumanEval's loader names its own fields: "task_id, test, entry_point".
    "a first row without its tests": (
        MULTIPL_E,
        [{key: value for key, value in ADD.items() if key != "tests"}],
        f":1: missing or malformed field(s) tests {SAID}",
    ),
    "a gzip file cut short": (
        MULTIPL_E + ".gz",
        gzip.compress(
            b"".join(json.dumps(ADD | {"name": f"n{i}"}).encode() + b"\n" for i in range(9))
        )[:-12],
        ": cannot read (Compressed file ended before the end-of-stream marker was reached)",
    ),
    # HumanEval-X: graded as the text "None", called an unsupported language, named without
    # its line, an INTERNALERROR.
    "HumanEval-X: a prompt that is not text": (
        HUMANEVAL_X,
        [FIRST, {**SECOND, "prompt": None}],
        ":2: missing or non-string field(s) prompt",
    ),
    "HumanEval-X: a task id that is not text": (
        HUMANEVAL_X,
        [{**FIRST, "task_id": 0}],
        ":1: missing or non-string field(s) task_id",
    ),
    # ... and as "entry_point".
    "HumanEval-X: a first row without its canonical solution": (
        HUMANEVAL_X,
        [{key: value for key, value in FIRST.items() if key != "canonical_solution"}, SECOND],
        ":1: missing or non-string field(s) canonical_solution",
    ),
    "HumanEval-X: a task id twice": (
        HUMANEVAL_X,
        [FIRST, SECOND, FIRST],
        ":3: duplicate task_id 'CPP/0'",
    ),
    # Python is graded, from its own file: "language 'Python' is not supported" said otherwise.
    "HumanEval-X: a Python row among C++ rows": (
        HUMANEVAL_X,
        [FIRST, {**SECOND, "task_id": "Python/1"}],
        ":2: a Python row among other languages' rows (Python problems are graded from a file"
        " of their own, as HumanEval is)",
    ),
    "HumanEval-X: a gzip file cut short": (
        HUMANEVAL_X + ".gz",
        gzip.compress(json.dumps(FIRST).encode() + b"\n" + json.dumps(SECOND).encode())[:-40],
        ": cannot read (Compressed file ended before the end-of-stream marker was reached)",
    ),
}


@pytest.mark.parametrize("mode", XDIST_MODES)
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_file_is_one_line_naming_where_and_exit_4(pytester, case, mode):
    name, content, said = MALFORMED[case]
    suite = pytester.path / name
    if isinstance(content, bytes):
        suite.write_bytes(content)
    else:
        suite.write_text("".join(json.dumps(row) + "\n" for row in content))
    result = pytester.runpytest_subprocess("--codegen-model=empty", suite.name, *mode)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    errors = [line for line in result.stderr.lines if line.startswith("ERROR: ")]
    assert errors == [f"ERROR: {suite}{said}"], result.stderr.lines


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_parquet_file_without_multipl_es_columns_is_one_line_and_exit_4(pytester, mode):
    # Not claimed before: pytest's two lines "not found: ..." without xdist, and with it
    # nothing at all and exit 5.
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    rows = [{key: value for key, value in ADD.items() if key != "tests"}]
    pq.write_table(pa.Table.from_pylist(rows), pytester.path / "add.parquet")
    (pytester.path / "junk.parquet").write_bytes(b"PAR1 not Parquet")
    expected = {
        "add.parquet": "a MultiPL-E Parquet file needs the column(s) tests",
        "junk.parquet": "not a readable MultiPL-E Parquet file (Parquet magic bytes not found",
    }
    for name, said in expected.items():
        result = pytester.runpytest_subprocess("--codegen-model=empty", name, *mode)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
        errors = [line for line in result.stderr.lines if line.startswith("ERROR: ")]
        assert len(errors) == 1 and errors[0].startswith(
            f"ERROR: {pytester.path / name}: {said}"
        ), result.stderr.lines
