"""The input of a benchmark build (--codegen-build): what it names, and rows it cannot use.

Each bad input is one clear line naming what and where: a usage error for an input that
names nothing to build, the fragment's own failing item for a fragment that cannot be built.
"""

from __future__ import annotations

import json

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
