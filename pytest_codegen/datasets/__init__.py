"""Named suites (``--codegen-suite webapp1k``): well-known datasets downloaded once, verified,
and identified in every record.

:mod:`.catalog` says what each name is (URL, version, pinned content hash), :mod:`.content`
hashes a file or tree the same way everywhere (the ``data`` identity of a record), and
:mod:`.fetch` finds the data in ``--codegen-data-dir`` or the user cache, or downloads it
there under a lock.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..keys import DATA_FILES_KEY, DATA_KEY
from ..problems import stamp_data

if TYPE_CHECKING:
    from ..problems import Problem


def dataset_names() -> list[str]:
    """The names ``--codegen-suite`` downloads (``webapp1k``, ``humaneval+``, ...)."""
    from .catalog import CatalogError, named_datasets

    try:
        return sorted(named_datasets())
    except CatalogError as e:
        raise pytest.UsageError(str(e)) from None


def open_named(
    config: pytest.Config, name: str, data_dir: Path | None, release: int | None = None
) -> Path:
    """The file or directory of the named suite ``name``, found in ``data_dir`` or the user
    cache, or downloaded there now (one usage-error line if it cannot be had); of a set of
    releases, what ``--codegen-release`` needs."""
    from ..cachedir import default_cache_root
    from .catalog import named_datasets
    from .fetch import DataError, locate

    dataset = named_datasets()[name]
    releases = len(dataset.file_names) if dataset.cumulative else 0
    if release is not None and release > releases > 0:
        # Not the whole set graded as a release it has not published.
        raise pytest.UsageError(
            f"--codegen-release: v{release} is not a release of {name} "
            f"({dataset.version} has v1 to v{releases})"
        )
    try:
        path, data = locate(
            dataset,
            data_dir=data_dir,
            cache_root=default_cache_root(),
            progress=_progress,
            release=release,
        )
    except DataError as e:
        raise pytest.UsageError(str(e)) from None
    config.stash.setdefault(DATA_KEY, {})[path] = data
    if dataset.format == "files":  # loaded file by file: those the run needs, not all there
        config.stash.setdefault(DATA_FILES_KEY, {})[path] = dataset.files_for(release)
    return path


def _progress(line: str) -> None:
    # Configure time: output is not captured yet, and the terminal reporter may not exist.
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def stamp(config: pytest.Config, path: Path, problems: list[Problem]) -> list[Problem]:
    """Give every problem of the suite at ``path`` the suite's ``data`` identity: a named
    suite's pinned one, else the content hash of the file or directory (version null)."""
    from .content import path_identity

    data = config.stash.get(DATA_KEY, {}).get(path)
    if data is None and problems:
        data = path_identity(problems[0].suite, path)
    for problem in problems:
        stamp_data(problem, data)
    return problems
