"""A suite's content identity: one sha256 for a file or a tree, computed the same way for a
named suite's download, a ``--codegen-data-dir`` copy and a suite given as a path.

- a file: the sha256 of its bytes; a ``.gz`` file's decompressed bytes (what is graded: the
  same data compressed twice hashes the same);
- a tree: the sha256 of its ``sha256sum`` manifest, i.e. of the lines
  ``<sha256 of file>  <relative path>\\n`` for every file, sorted by path (bytewise), hidden
  files and directories (``.name``) left out. From a shell::

      cd tests/react && find . -type f ! -path '*/.*' | sed 's|^\\./||' | LC_ALL=C sort \\
          | xargs sha256sum | sha256sum

Every record carries ``data``: ``{"name", "version", "sha256"}`` (version null for a suite
given as a path), so two results files tell whether they graded the same data.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

CHUNK_BYTES = 1 << 20


def read_content(path: Path) -> bytes:
    """A file's content as graded: a ``.gz`` file decompressed (raises ``OSError`` or
    ``EOFError`` on a corrupt or cut-short one)."""
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def tree_files(root: Path) -> list[tuple[str, Path]]:
    """``(relative POSIX path, path)`` of every non-hidden file under ``root``, sorted."""
    found = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            found.append((rel.as_posix(), path))
    return sorted(found, key=lambda item: item[0].encode())


def digest(path: Path) -> tuple[str, int]:
    """``(sha256, size in bytes)`` of a file's content or of a tree (see the module doc)."""
    if path.is_dir():
        shas, size = {}, 0
        for rel, file in tree_files(path):
            shas[rel], file_size = _file_digest(file, decompress=False)
            size += file_size
        return manifest_sha256(shas), size
    return _file_digest(path, decompress=path.name.endswith(".gz"))


def manifest_sha256(shas: Mapping[str, str]) -> str:
    """A tree's sha256 from each file's (relative path -> sha256): of its ``sha256sum``
    manifest, sorted by path (bytewise)."""
    lines = (f"{shas[rel]}  {rel}\n" for rel in sorted(shas, key=str.encode))
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def _file_digest(path: Path, *, decompress: bool) -> tuple[str, int]:
    # Hashed a chunk at a time: a release file can be gigabytes, which none holds at once.
    sha, size = hashlib.sha256(), 0
    with gzip.open(path, "rb") if decompress else open(path, "rb") as fh:
        while chunk := fh.read(CHUNK_BYTES):
            sha.update(chunk)
            size += len(chunk)
    return sha.hexdigest(), size


def git_blob_id(data: bytes) -> str:
    """Git's object id of a file with these bytes (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def identity(name: str, version: str | None, sha256: str) -> dict[str, Any]:
    """The ``data`` field of a record."""
    return {"name": name, "version": version, "sha256": sha256}


@functools.lru_cache(maxsize=64)
def _path_digest(path: Path) -> str:
    return digest(path)[0]


def path_identity(name: str, path: Path) -> dict[str, Any]:
    """The identity of a suite given as a path (version null), hashed once per process (a
    WebApp1K directory's test files are each collected on their own)."""
    return identity(name, None, _path_digest(path.resolve()))


def describe(data: dict[str, Any] | None) -> str:
    """One identity as the summary shows it: ``webapp1k 0089530 sha256:4137fd4f4bd8``."""
    if not data:
        return "unidentified"
    version = f" {data['version']}" if data.get("version") else " (path)"
    return f"{data['name']}{version} sha256:{str(data['sha256'])[:12]}"


def describe_all(records: Iterable[Mapping[str, Any]]) -> str:
    """Every identity among the records, for the summary header ("" when none has one)."""
    seen: dict[str, None] = {}
    for record in records:
        if record.get("data"):
            seen.setdefault(describe(record["data"]), None)
    return ", ".join(sorted(seen))
