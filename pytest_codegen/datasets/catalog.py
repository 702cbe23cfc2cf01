"""The named suites' catalogue: ``catalog.json`` in the package, with the pinned version, URL and
content hash of each.

``PYTEST_CODEGEN_DATASETS`` names a JSON file of entries in the same form that replace or add
names (a mirror's own pins, a test's small files); ``PYTEST_CODEGEN_DATA_URL`` redirects every
download to a mirror: ``https://HOST/PATH`` is fetched from ``$PYTEST_CODEGEN_DATA_URL/HOST/PATH``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from pathlib import Path

_BUILTIN = Path(__file__).resolve().parent / "catalog.json"
CATALOG_ENV = "PYTEST_CODEGEN_DATASETS"
URL_ENV = "PYTEST_CODEGEN_DATA_URL"
FORMATS = ("file", "gzip", "tar.gz")
# How a suite's content is checked: against the catalogue's pin, or, where upstream publishes
# no digest the catalogue could pin, against the digest of its first download, recorded in
# the cache (a check that the cached copy has not changed since, not a pin).
VERIFY_PIN = "pin"
VERIFY_FIRST_DOWNLOAD = "first-download"


class CatalogError(ValueError):
    """A catalogue entry that cannot be used; the message names it."""


@dataclasses.dataclass(frozen=True)
class Dataset:
    """One named suite: where it comes from and what its content must hash to.

    ``source`` names the download several suites share (WebApp1K's four test sets are one
    archive); ``path`` is the suite's file or tree under its upstream name, inside the archive
    or ``<data dir>/<name>/``. ``sha256`` and ``size`` are of the content as graded (see
    :mod:`.content`); ``git_blob`` pins a file by its git object id instead. ``verify``
    ``first-download`` marks a suite with neither (see :data:`VERIFY_FIRST_DOWNLOAD`).
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
    about: str = ""
    verify: str = VERIFY_PIN

    @property
    def pinned(self) -> bool:
        return self.verify == VERIFY_PIN

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
        if dataset.verify not in (VERIFY_PIN, VERIFY_FIRST_DOWNLOAD):
            raise CatalogError(
                f"{path}: dataset {name!r}: verify must be {VERIFY_PIN!r} or"
                f" {VERIFY_FIRST_DOWNLOAD!r}"
            )
        if dataset.pinned and not (dataset.sha256 or dataset.git_blob):
            raise CatalogError(f"{path}: dataset {name!r}: no sha256 or git_blob to verify it by")
        if not dataset.pinned and (dataset.sha256 or dataset.git_blob):
            raise CatalogError(
                f"{path}: dataset {name!r}: a pinned digest and verify {dataset.verify!r}"
            )
        found[name] = dataset
    return found


@functools.lru_cache(maxsize=4)
def _catalog(override: str) -> dict[str, Dataset]:
    found = _entries(_BUILTIN)
    if override:
        found.update(_entries(Path(override).expanduser()))
    return found


def named_datasets() -> dict[str, Dataset]:
    """Every named suite: the built-in catalogue, then ``$PYTEST_CODEGEN_DATASETS``'s entries."""
    return _catalog(os.environ.get(CATALOG_ENV, "").strip())
