"""The named suites' catalogue: ``catalog.json`` in the package, with the pinned version, URL and
content hash of each (or, for a suite whose host publishes no digest we could read, the
expected rows of each file and ``"trust": "first-download"``: see :mod:`.first_download`).

``PYTEST_CODEGEN_DATASETS`` names a JSON file of entries in the same form that replace or add
names (a mirror's own pins, a test's small files); ``PYTEST_CODEGEN_DATA_URL`` redirects every
download to a mirror: ``https://HOST/PATH`` is fetched from ``$PYTEST_CODEGEN_DATA_URL/HOST/PATH``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from pathlib import Path
from typing import Any

_BUILTIN = Path(__file__).resolve().parent / "catalog.json"
CATALOG_ENV = "PYTEST_CODEGEN_DATASETS"
URL_ENV = "PYTEST_CODEGEN_DATA_URL"
FORMATS = ("file", "gzip", "tar.gz", "files")
PINNED = "pinned"
FIRST_DOWNLOAD = "first-download"
TRUSTS = (PINNED, FIRST_DOWNLOAD)


class CatalogError(ValueError):
    """A catalogue entry that cannot be used; the message names it."""


@dataclasses.dataclass(frozen=True)
class Dataset:
    """One named suite: where it comes from and what its content must hash to.

    ``source`` names the download several suites share (WebApp1K's four test sets are one
    archive); ``path`` is the suite's file or tree under its upstream name, inside the archive
    or ``<data dir>/<name>/``. ``sha256`` and ``size`` are of the content as graded (see
    :mod:`.content`); ``git_blob`` pins a file by its git object id instead.

    Format ``files``: several files under one base ``url`` (ending in ``/``), laid out in the
    directory ``path``; ``rows`` names them. ``rows`` maps each file to the number of rows it
    must hold. ``trust`` is ``pinned`` (``sha256`` or ``git_blob`` required) or
    ``first-download``: no digest is pinned, the rows are counted, and the first copy's
    digest is recorded and required of every later one (not a pin: see
    :mod:`.first_download`). ``pins`` (format ``files``) pins each file instead of the tree:
    ``{file: {"sha256", "size"}}``, so each can be checked alone. ``cumulative`` (format
    ``files``, pinned file by file or trusted on first download): release N is the first N
    files of ``rows`` (LiveCodeBench's ``release_vN``), so a run of release N needs, and
    downloads, only those.
    """

    name: str
    source: str
    version: str
    url: str
    format: str
    path: str
    sha256: str | None = None
    size: int | None = None
    git_blob: str | None = None
    rows: dict[str, int] | None = None
    pins: dict[str, dict[str, Any]] | None = None
    trust: str = PINNED
    cumulative: bool = False
    about: str = ""

    @property
    def download_url(self) -> str:
        """The URL fetched: the real one unless ``PYTEST_CODEGEN_DATA_URL`` names a mirror."""
        mirror = os.environ.get(URL_ENV, "").strip()
        if not mirror:
            return self.url
        return mirror.rstrip("/") + "/" + self.url.split("://", 1)[-1]

    @property
    def is_tree(self) -> bool:
        return self.format == "tar.gz"

    @property
    def file_names(self) -> list[str]:
        """The files a ``files`` download holds, in its ``path`` directory."""
        return list(self.rows or {}) if self.format == "files" else []

    @property
    def first_download(self) -> bool:
        return self.trust == FIRST_DOWNLOAD

    def files_for(self, release: int | None) -> list[str]:
        """The files a run of ``release`` (None: the latest) needs, of a ``files`` download."""
        names = self.file_names
        return names[:release] if self.cumulative and release else names


def _entries(path: Path) -> dict[str, Dataset]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise CatalogError(f"{path}: cannot read the dataset catalogue ({e})") from None
    if not isinstance(raw, dict):
        raise CatalogError(f"{path}: expected a JSON object of named datasets")
    fields = {f.name for f in dataclasses.fields(Dataset)} - {"name"}
    found: dict[str, Dataset] = {}
    for name, entry in raw.items():
        if name.startswith("_"):
            continue
        if not isinstance(entry, dict) or not set(entry) <= fields:
            unknown = sorted(set(entry) - fields) if isinstance(entry, dict) else []
            raise CatalogError(f"{path}: dataset {name!r}: bad entry (unknown keys {unknown})")
        try:
            dataset = Dataset(name=name, **entry)
        except TypeError as e:
            raise CatalogError(f"{path}: dataset {name!r}: {e}") from None
        if dataset.format not in FORMATS:
            raise CatalogError(f"{path}: dataset {name!r}: format must be one of {FORMATS}")
        problem = _problem(dataset)
        if problem:
            raise CatalogError(f"{path}: dataset {name!r}: {problem}")
        found[name] = dataset
    return found


def _problem(dataset: Dataset) -> str:
    """What makes an entry unusable ("" for nothing)."""
    if dataset.trust not in TRUSTS:
        return f"trust must be one of {TRUSTS}"
    rows = dataset.rows
    if rows is not None and not (
        isinstance(rows, dict)
        and all(isinstance(k, str) and type(v) is int and v >= 0 for k, v in rows.items())
    ):
        return "rows must map file names to row counts"
    if dataset.format == "files" and (not rows or not dataset.url.endswith("/")):
        return "format files needs rows (its files) and a url ending in /"
    if dataset.pins is not None:
        problem = _pins_problem(dataset)
        if problem:
            return problem
    # Its files are checked (and recorded) one at a time, as a run needs them.
    if dataset.cumulative is not False and not (
        dataset.cumulative is True
        and dataset.format == "files"
        and (dataset.first_download or dataset.pins)
    ):
        return "cumulative (true or false) is for format files with pins or trust first-download"
    if dataset.first_download:
        if dataset.sha256 or dataset.git_blob:
            return "trust first-download pins nothing: a sha256 or git_blob means trust pinned"
        # JSON lines can be counted as they are; other files (Parquet) only by their reader.
        if not rows and dataset.path.endswith(".jsonl"):
            return "trust first-download needs rows, the rows each file must hold"
    elif not (dataset.sha256 or dataset.git_blob or dataset.pins):
        return "no sha256 or git_blob to verify it by (or trust first-download and rows)"
    return ""


def _pins_problem(dataset: Dataset) -> str:
    pins = dataset.pins
    if dataset.format != "files" or dataset.first_download or dataset.sha256:
        return "pins are for format files, pinned file by file instead of by one sha256"
    if not isinstance(pins, dict) or set(pins) != set(dataset.rows or {}):
        return "pins must name each file of rows"
    for name, pin in pins.items():
        if not (
            isinstance(pin, dict)
            and set(pin) == {"sha256", "size"}
            and isinstance(pin["sha256"], str)
            and re.fullmatch(r"[0-9a-f]{64}", pin["sha256"])
            and type(pin["size"]) is int
            and pin["size"] >= 0
        ):
            return f'pins[{name!r}] must be {{"sha256": 64 hex digits, "size": bytes}}'
    return ""


@functools.lru_cache(maxsize=4)
def _catalog(override: str) -> dict[str, Dataset]:
    found = _entries(_BUILTIN)
    if override:
        found.update(_entries(Path(override).expanduser()))
    return found


def named_datasets() -> dict[str, Dataset]:
    """Every named suite: the built-in catalogue, then ``$PYTEST_CODEGEN_DATASETS``'s entries."""
    return _catalog(os.environ.get(CATALOG_ENV, "").strip())
