"""WebApp1K-style suite files as they come: a test file or a reference saved with a byte order
mark, or in another encoding than UTF-8."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES, XDIST_MODES

from pytest_codegen.kinds.webapp1k import check_problem, load_test_file

COMMENTS = FIXTURES / "react" / "comments"
TEST_CODE = (COMMENTS / "commentBox.test.js").read_text(encoding="utf-8")
REFERENCE = (COMMENTS / "CommentBox.js").read_text(encoding="utf-8")
BOM = "\ufeff"


def suite(root: Path, test_code: bytes, reference: bytes) -> Path:
    """``root/comments/commentBox.test.js`` and its reference ``CommentBox.js``."""
    category = root / "comments"
    category.mkdir(parents=True)
    (category / "commentBox.test.js").write_bytes(test_code)
    (category / "CommentBox.js").write_bytes(reference)
    return category / "commentBox.test.js"


def test_a_byte_order_mark_is_not_part_of_the_files(tmp_path):
    # The component's import first: behind the mark, it was not seen as an import at all
    # ("cannot be solved as shipped: imports no solution module").
    lines = TEST_CODE.splitlines(keepends=True)
    (own,) = [line for line in lines if line.startswith("import CommentBox ")]
    test_code = own + "".join(line for line in lines if line != own)
    path = suite(tmp_path, (BOM + test_code).encode(), (BOM + REFERENCE).encode())
    problem = load_test_file(path, "s")
    assert problem.extra["solution_filename"] == "CommentBox.js"
    assert check_problem(problem) == []
    assert problem.tests == test_code
    assert BOM not in problem.prompt
    assert problem.reference == REFERENCE


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_reference_that_is_not_utf8_is_one_line_and_exit_4(pytester, xdist):
    # It was an INTERNALERROR (a UnicodeDecodeError traceback), exit 3.
    latin = f"// caf\xe9\n{REFERENCE}".encode("latin-1")
    suite(pytester.path / "suite", TEST_CODE.encode(), latin)
    result = pytester.runpytest_subprocess(
        "--codegen-model=reference", "suite/comments/commentBox.test.js", *xdist
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    errors = [line for line in result.stderr.lines if line.startswith("ERROR: ")]
    assert errors == [
        f"ERROR: {pytester.path}/suite/comments/CommentBox.js: cannot read ('utf-8' codec "
        "can't decode byte 0xe9 in position 6: invalid continuation byte)"
    ]
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_a_file_name_the_runner_cannot_write_makes_the_problem_unsolvable(pytester):
    # Every sample was graded, and each an "error: unusable file name" of the model's.
    category = pytester.path / "suite" / "comments"
    category.mkdir(parents=True)
    (category / "caf\xe9.test.js").write_text(TEST_CODE)
    (category / "CommentBox.js").write_text(REFERENCE)
    problem = load_test_file(category / "caf\xe9.test.js", "s")
    assert check_problem(problem) == [
        "its file name 'caf\xe9.test.js' is not one the Jest runner writes (ASCII letters,"
        " digits, '_', '.', '-')"
    ]
    result = pytester.runpytest_subprocess("--codegen-model=reference", "suite")
    result.assert_outcomes(errors=1)  # flagged by the suite check, as shipped
    result.stdout.fnmatch_lines(["*cannot be solved as shipped: its file name 'caf\xe9.test.js'*"])


# An import in a comment imports nothing, as Babel reads the file: the sample is written where
# the import in the code points. It was written to the commented one's name ("Legacy.js"), and
# the problem flagged "cannot be solved as shipped: imports 2 different solution modules".
COMMENTED_IMPORTS = """\
/* The component used to be split:
import Legacy from './Legacy';
const api = require('./legacyApi');
*/
// import OldBox from './OldBox';
const pattern = 'not//a comment';
"""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_import_in_a_comment_names_no_solution_file(pytester, xdist):
    path = suite(
        pytester.path / "suite", (COMMENTED_IMPORTS + TEST_CODE).encode(), REFERENCE.encode()
    )
    problem = load_test_file(path, "s")
    assert problem.extra["solution_filename"] == "CommentBox.js"
    assert check_problem(problem) == []
    result = pytester.runpytest_subprocess("--codegen-model=reference", "suite", *xdist)
    result.assert_outcomes(passed=1)
