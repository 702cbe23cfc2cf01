"""Hooks through which other plugins and conftest.py files extend pytest-codegen."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .kinds.registry import KindRegistry
    from .models.base import Model
    from .problems import Problem


@pytest.hookspec(firstresult=True)
def pytest_codegen_make_model(spec: str, config: pytest.Config) -> Model | None:
    """Build the model named by ``--codegen-model``; called once per process at session start.

    Return ``None`` for specs you do not handle. Example, in a conftest.py::

        def pytest_codegen_make_model(spec, config):
            if spec.startswith("local:"):
                return MyCheckpointModel(spec.removeprefix("local:"))
    """


@pytest.hookspec(firstresult=True)
def pytest_codegen_load_suite(path: Path, config: pytest.Config) -> list[Problem] | None:
    """Read the problems of a suite file or directory ``path``; called during collection.

    Asked for the paths a benchmark kind claims (a ``.jsonl`` file, a ``.json`` file named on
    the command line, a WebApp1K directory, ...); a file of another type needs a kind of its
    own (``pytest_codegen_add_kinds``). Return ``None`` when ``path`` is not in a format you
    read. A python-call problem names its function in ``extra``. Example, for
    ``pytest my-suite.json``::

        def pytest_codegen_load_suite(path, config):
            if path.suffix != ".json":
                return None
            rows = json.loads(path.read_text(encoding="utf-8"))
            return [
                Problem(id=row["id"], suite=path.stem, category=row.get("category", ""),
                        language="python", mode="python-call", prompt=row["prompt"],
                        tests=row["tests"], reference=row.get("solution"),
                        extra={"entry_point": row["entry_point"]})
                for row in rows
            ]
    """


def pytest_codegen_add_kinds(kinds: KindRegistry, config: pytest.Config) -> None:
    """Add benchmark kinds of your own to the run's ``kinds``; called once per process at
    configure time, after the built-in kinds are in.

    A kind (a ``pytest_codegen.kinds.protocol.Kind``) says which files it reads, how, and how
    a sample of its problems is graded; its problems name it by ``Problem.mode``. Example::

        class ShellKind(Kind):
            name = "shell"

            def claims(self, path, explicit):
                return path.suffix == ".shsuite"

            def load(self, path, suite): ...
            def grade(self, problem, code, run): ...

        def pytest_codegen_add_kinds(kinds, config):
            kinds.register(ShellKind())
    """


def pytest_codegen_sample_graded(record: dict[str, Any], config: pytest.Config) -> None:
    """A sample has a verdict; called on the controller (or the only process) with its record.

    ``record`` is the JSON-safe dict also written to ``--codegen-results``. Example::

        def pytest_codegen_sample_graded(record, config):
            if record["outcome"] == "timeout":
                print("slow:", record["task_id"])
    """


@pytest.hookspec(firstresult=True)
def pytest_codegen_grades_samples(config: pytest.Config) -> bool | None:
    """Whether this run's items are samples graded for pass@k; asked on the controller (or the
    only process) when the session ends, and before it generates for workers on other hosts.

    The default answers ``True``. Answer ``False`` when your plugin's items are something else
    (as ``--codegen-build``'s fragments are): the controller then adds no record for an item
    that reported none, prints no pass@k table when no sample was scored, and leaves workers
    on other hosts to generate for themselves. Example::

        def pytest_codegen_grades_samples(config):
            if config.getoption("--lint-generated"):  # items of this conftest's own
                return False
    """
