"""Named suites with no pinned digest (``"trust": "first-download"``): MultiPL-E's files live
in Hugging Face's LFS store, whose SHA256 we could not read when they were catalogued, so their
entries carry the URL and, for JSON lines, the rows each file must hold instead. A set of files
(a mirror's LiveCodeBench) is recorded file by file, as runs need them.

What is checked, and what is not: every copy used (a download, a ``--codegen-data-dir``
copy) must hold the catalogued number of rows in each file. The first copy that does is
recorded in the user cache (``<cache>/datasets/<source>-<version>.first-download.json``: each
file's sha256 and size), and every later copy must match that record: a later download, a
placed copy, or (by size, which costs no read) the cached copy at the start of each run. This
is not a pin: nothing says the first copy was the upstream one, and a cleared cache forgets
the record. Every record's ``data.sha256`` is the recorded digest, so two results files still
tell whether they graded the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import Any

from ..cachedir import atomic_write
from .catalog import Dataset
from .content import digest, manifest_sha256

RECORD_SUFFIX = ".first-download.json"


def record_path(dataset: Dataset, root: Path) -> Path:
    """Where the first copy's digests are kept: beside the download in ``root``."""
    return root / f"{dataset.source}-{dataset.version}{RECORD_SUFFIX}"


def recorded(dataset: Dataset, root: Path) -> dict[str, Any] | None:
    """The record of the first copy, or None if there is none (or it cannot be read)."""
    try:
        found = json.loads(record_path(dataset, root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and isinstance(found.get("files"), dict) else None


def files_of(dataset: Dataset, path: Path, names: list[str] | None = None) -> dict[str, Path]:
    """Each catalogued file's name (of ``names``, if given) and where it is: in the directory
    ``path`` (format ``files``), or ``path`` itself."""
    if dataset.format == "files":
        return {name: path / name for name in (dataset.file_names if names is None else names)}
    return {PurePosixPath(dataset.path).name: path}


def tree_sha256(dataset: Dataset, files: dict[str, dict[str, Any]]) -> str:
    """The identity of files recorded (or pinned) as ``{name: {"sha256", "size"}}``: a
    ``files`` directory's, as :func:`.content.digest` hashes a tree, or the one file's sha256."""
    if dataset.format != "files":
        return next(iter(files.values()))["sha256"]
    return manifest_sha256({name: file["sha256"] for name, file in files.items()})


def count_rows(path: Path) -> int:
    """The non-empty lines of a JSON-lines file, read a line at a time."""
    with open(path, "rb") as fh:
        return sum(1 for line in fh if line.strip())


def mismatch(
    dataset: Dataset, path: Path, root: Path, names: list[str] | None = None
) -> str | None:
    """Why the copy at ``path`` (of its files ``names``, if given) cannot be used (None: it
    can): a file missing, another number of rows than catalogued, or bytes other than the
    first copy's. Raises ``OSError`` for a file that cannot be read."""
    files = files_of(dataset, path, names)
    for name, file in files.items():
        if not file.is_file():
            return f"it has no {name}"
        expected = (dataset.rows or {}).get(name)
        if expected is None:  # a file whose rows are not catalogued (Parquet)
            continue
        rows = count_rows(file)
        if rows != expected:
            return f"{name} holds {rows:,} rows where {expected:,} are catalogued"
    first = recorded(dataset, root)
    if first is None:
        return None
    for name, file in files.items():
        want = first["files"].get(name)
        if want is None:  # a file of a later release, not needed before: recorded now
            continue
        sha256, size = digest(file)
        if (sha256, size) != (want.get("sha256"), want.get("size")):
            return (
                f"{name} has sha256 {sha256} ({size:,} bytes) where its first download, recorded"
                f" in {record_path(dataset, root)}, had {want.get('sha256')}"
                f" ({want.get('size') or 0:,} bytes)"
            )
    return None


def size_mismatch(
    dataset: Dataset, path: Path, root: Path, names: list[str] | None = None
) -> str | None:
    """The cheap check of a cached copy at each run: each file's size against the record."""
    first = recorded(dataset, root)
    if first is None:
        return None
    for name, file in files_of(dataset, path, names).items():
        if name not in first["files"]:  # not used since the record was made: recorded now
            continue
        want = first["files"][name].get("size")
        try:
            size = file.stat().st_size
        except OSError:
            return f"it has no {name}"
        if size != want:
            return f"{name} is {size:,} bytes where its first download had {want or 0:,}"
    return None


def remember(
    dataset: Dataset,
    path: Path,
    root: Path,
    names: list[str] | None = None,
    host_checked: bool = False,
) -> dict[str, Any]:
    """The record of the first copy, with each of the files ``names`` (all, if None) at
    ``path`` (already checked by :func:`mismatch`) added now if it lacks them, written whole;
    ``host_checked``: the files added were downloaded and matched the sha256 their host
    announced for them."""
    first = recorded(dataset, root)
    files = dict(first["files"]) if first is not None else {}
    new = {n: f for n, f in files_of(dataset, path, names).items() if n not in files}
    if first is not None and not new:
        return first
    for name, file in new.items():
        sha256, size = digest(file)
        files[name] = {"sha256": sha256, "size": size}
        if host_checked:
            files[name]["host_sha256"] = True  # the host's own digest of it matched
    first = {
        "name": dataset.name,
        "version": dataset.version,
        "url": dataset.url,
        "sha256": tree_sha256(dataset, files),
        "size": sum(f["size"] for f in files.values()),
        "files": files,
        "note": "the digests of the first copy used: not a pin",
    }
    atomic_write(record_path(dataset, root), json.dumps(first, indent=1))
    return first
