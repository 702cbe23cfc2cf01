"""Building again into the suite file of an earlier build, after the input changed: the
rows of targets that are gone, or whose source changed since they were built, are not
kept as if they were current; the rows of other inputs stay."""

from __future__ import annotations

import json

import pytest
from conftest import XDIST_MODES
from fake_builder import BuildModel, run_build

FUNCTION = '''def {name}(x):
    """{doc}"""
    if isinstance(x, (list, tuple, str)):
        return x + x
    result = {factor} * x
    return result
'''
TEST = "def test_{name}():\n" + "".join(
    f"    assert {{name}}({arg}) == {{factor}} * {arg}\n" for arg in ("2", "-1", "0")
)


def write(
    pytester: pytest.Pytester, path: str, *names: str, factor: int = 2, doc: str = "of x."
) -> None:
    file = pytester.path / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(
        "\n\n".join(FUNCTION.format(name=n, doc=f"{n} {doc}", factor=factor) for n in names)
    )


def build(pytester: pytest.Pytester, spec: str, *args: str) -> list[tuple[str, str]]:
    answers = {
        name: {"test": TEST.format(name=name, factor=factor)}
        for name, factor in (("double", 2), ("twice", 2), ("treble", 3), ("other", 2))
    }
    with BuildModel(answers=answers) as model:
        result = run_build(
            pytester,
            model,
            f"{spec}",
            "--codegen-build-out=bench.json",
            *args,
        )
    assert result.ret == 0, result.stdout.str()
    rows = json.loads((pytester.path / "bench.json").read_text())
    return [(r["idx"], r["source"]["sha256"][:8]) for r in rows]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_rows_of_targets_gone_or_changed_are_not_kept(
    pytester: pytest.Pytester, xdist: list
) -> None:
    write(pytester, "src/maths.py", "double", "twice")
    write(pytester, "src/more.py", "other")
    write(pytester, "lib/extra.py", "treble", factor=3)
    first = dict(build(pytester, "src", *xdist))
    assert sorted(first) == ["maths.double", "maths.twice", "more.other"]
    assert [i for i, _ in build(pytester, "lib", *xdist)][0] == "extra.treble"

    # a glob leaves `twice` out: it is still there, and so is its row
    rows = build(pytester, "src::[do]*", *xdist)
    assert [i for i, _ in rows] == ["extra.treble", "maths.double", "maths.twice", "more.other"]
    # `twice` is gone from the input: its row goes; lib's rows are another input's and stay
    write(pytester, "src/maths.py", "double")
    assert [i for i, _ in build(pytester, "src", *xdist)] == [
        "extra.treble",
        "maths.double",
        "more.other",
    ]
    # `double` changed but is not rebuilt (-k): its row no longer shows its source
    write(pytester, "src/maths.py", "double", doc="of x, for numbers and sequences.")
    rows = build(pytester, "src", "-k", "other", *xdist)
    assert [i for i, _ in rows] == ["extra.treble", "more.other"]
    # a file that is gone takes its rows along
    (pytester.path / "src" / "more.py").unlink()
    rows = build(pytester, "src", "-k", "double", *xdist)
    assert [i for i, _ in rows] == ["extra.treble", "maths.double"]
    assert dict(rows)["maths.double"] != first["maths.double"]
