"""Find a named suite's data, or download it once into the user cache, verified.

Where the data is looked for, in order: ``<data dir>/<name>/<path>`` (or the directory of the
suite's download, ``<data dir>/<source>/<path>``: WebApp1K's four sets share one tree), then
the cache, ``<cache root>/datasets/<source>-<version>/<path>``. A download happens under a file
lock, so xdist workers and concurrent runs wait for the first one instead of racing; it goes to
a temporary directory that is renamed into place only once its content matches the pinned hash,
so the cache never holds half a download. A transfer cut short or undecodable is tried again
(:data:`ATTEMPTS` in all); a whole file with the wrong content is refused at once. A suite with
no pinned digest is checked by :mod:`.first_download` instead. Of a cumulative set of files
(LiveCodeBench's releases), a run needs, checks and downloads only its release's files: the
cache gains the later ones, each verified, when a run first needs them.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from . import first_download
from .catalog import Dataset, named_datasets
from .content import digest, git_blob_id, identity, read_content
from .host_digest import HostDigest

ATTEMPTS = 3
TIMEOUT_S = 60.0
_CHUNK = 1 << 16


class DataError(Exception):
    """Data that cannot be had or is not what was pinned; the message is one line."""


class _Corrupt(Exception):
    """A download cut short or undecodable: worth another attempt."""


def locate(
    dataset: Dataset,
    *,
    data_dir: Path | None,
    cache_root: Path,
    progress: Callable[[str], None],
    release: int | None = None,
) -> tuple[Path, dict[str, Any]]:
    """The suite's file or directory (holding at least the files ``release`` needs), and its
    ``data`` identity: of those files."""
    root = cache_root / "datasets"
    names = dataset.files_for(release)
    if data_dir is not None:
        for candidate in _placed(dataset, data_dir):
            if candidate.exists():
                try:
                    reason = _mismatch(dataset, candidate, root, names)
                except _Corrupt as e:
                    reason = str(e)
                if reason is not None:
                    raise DataError(
                        f"{dataset.name}: {candidate} is not {dataset.name} {dataset.version}"
                        f" ({reason}); place the pinned data from {dataset.url} there, or grade"
                        f" this copy as it is by giving its path instead of --codegen-suite"
                        f" {dataset.name}"
                    )
                return candidate, _identity(dataset, candidate, root, names)
    home = root / f"{dataset.source}-{dataset.version}"
    target = home / dataset.path
    if _missing(target, names):
        _download(dataset, home, data_dir, progress, names)
    elif dataset.first_download or dataset.pins:  # each run: the sizes, which read nothing
        if dataset.pins:
            reason, which = _pinned_files_mismatch(dataset, target, names, read=False), "pinned"
        else:
            reason = first_download.size_mismatch(dataset, target, root, names)
            which = "first downloaded"
        if reason is not None:
            raise DataError(
                f"{dataset.name}: the cached copy in {home} is not the one {which}"
                f" ({reason}); delete {home} to download it again"
            )
    return target, _identity(dataset, target, root, names)


def _missing(target: Path, names: list[str]) -> list[str]:
    """What is not there yet: of a ``files`` directory, the files of ``names``; else the
    file or tree ``target`` itself (as ``[""]``)."""
    if names:
        return [name for name in names if not (target / name).is_file()]
    return [] if target.exists() else [""]


def _placed(dataset: Dataset, data_dir: Path) -> list[Path]:
    """Where a user may have placed the data: under the suite's name or its download's, a
    ``.gz`` file also decompressed (its hash is of the decompressed content)."""
    paths = [dataset.path]
    if dataset.format == "gzip":
        paths.append(dataset.path.removesuffix(".gz"))
    folders = dict.fromkeys((dataset.name, dataset.source))
    return [data_dir / folder / path for folder in folders for path in paths]


def _identity(dataset: Dataset, path: Path, root: Path, names: list[str]) -> dict[str, Any]:
    if dataset.first_download or dataset.pins:  # of the files a run needs: pinned, or the
        # digests recorded of the first copy (made now if none)
        files = dataset.pins or first_download.remember(dataset, path, root, names or None)["files"]
        used = {name: files[name] for name in names} if names else files
        return identity(dataset.name, dataset.version, first_download.tree_sha256(dataset, used))
    sha256 = dataset.sha256 or digest(path)[0]  # a git_blob pin: hashed from verified bytes
    return identity(dataset.name, dataset.version, sha256)


def _mismatch(
    dataset: Dataset, path: Path, root: Path, names: list[str] | None = None
) -> str | None:
    """Why the content at ``path`` (of its files ``names``, if given) is not the pinned one
    (None: it is). Raises :class:`_Corrupt` for a file that cannot be decoded."""
    try:
        if dataset.first_download:
            return first_download.mismatch(dataset, path, root, names or None)
        if dataset.pins:
            return _pinned_files_mismatch(dataset, path, names or dataset.file_names)
        if dataset.git_blob:
            found = git_blob_id(read_content(path))
            if found != dataset.git_blob:
                return f"git object {found} does not match the pinned {dataset.git_blob}"
            return None
        sha256, size = digest(path)
    except (OSError, EOFError, zlib.error) as e:
        raise _Corrupt(f"cannot be read: {e}") from None
    if dataset.size is not None and size != dataset.size:
        return f"{size:,} bytes of content where {dataset.size:,} are pinned"
    if sha256 != dataset.sha256:
        return f"content sha256 {sha256} does not match the pinned {dataset.sha256}"
    return None


def _pinned_files_mismatch(
    dataset: Dataset, folder: Path, names: list[str], read: bool = True
) -> str | None:
    """Why the files ``names`` in ``folder`` are not the pinned ones (None: they are): the
    size first, which reads nothing, then (if ``read``) the sha256."""
    assert dataset.pins is not None
    for name in names:
        file, pin = folder / name, dataset.pins[name]
        if not file.is_file():
            return f"it has no {name}"
        size = file.stat().st_size
        if size != pin["size"]:
            return f"{name} is {size:,} bytes where {pin['size']:,} are pinned"
        if not read:
            continue
        sha256, _ = digest(file)
        if sha256 != pin["sha256"]:
            return f"{name} has sha256 {sha256} where {pin['sha256']} is pinned"
    return None


def offline_hint(dataset: Dataset, data_dir: Path | None) -> str:
    """Where to put the data by hand, for a machine that cannot download it."""
    where = data_dir if data_dir is not None else Path("DIR")
    flag = "" if data_dir is not None else " and pass --codegen-data-dir DIR"
    if dataset.format == "files":
        return (
            f"put the files {', '.join(dataset.file_names)} from that URL in"
            f" {where / dataset.name / dataset.path}{flag}"
        )
    if dataset.is_tree:
        return (
            f"unpack that archive (or check out the repository at {dataset.version}) as"
            f" {where / dataset.source} so that {where / dataset.source / dataset.path}"
            f" exists{flag}"
        )
    return f"put the file from that URL at {where / dataset.name / dataset.path}{flag}"


def _download(
    dataset: Dataset,
    home: Path,
    data_dir: Path | None,
    progress: Callable[[str], None],
    names: list[str],
) -> None:
    """Download what ``home`` lacks: of a ``files`` directory the files of ``names`` it has
    not, else the whole file or archive."""
    from filelock import FileLock  # imported late: plugin import stays cheap

    root = home.parent
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f"{home.name}.lock")):
        missing = _missing(home / dataset.path, names)
        if not missing:  # another process downloaded it while we waited
            return
        for stale in root.glob(f".{home.name}.*"):  # left by a process that was killed
            shutil.rmtree(stale, ignore_errors=True)
        # Everything the download holds is verified before any of it is used.
        members = (
            [dataset]
            if names
            else [
                d
                for d in named_datasets().values()
                if (d.source, d.version, d.url) == (dataset.source, dataset.version, dataset.url)
            ]
        )
        fetched = missing if names else None
        url = dataset.download_url
        problem = ""
        for attempt in range(1, ATTEMPTS + 1):
            work = Path(tempfile.mkdtemp(prefix=f".{home.name}.", dir=root))
            try:
                progress(f"codegen: downloading {dataset.name} {dataset.version} from {url}")
                received, host_checked = _fetch(dataset, url, work, data_dir, members, missing)
                for member in members:
                    reason = (
                        _mismatch(member, work / "tree" / member.path, root, fetched)
                        if (work / "tree" / member.path).exists()
                        else f"it has no {member.path}"
                    )
                    if reason is not None:
                        raise DataError(
                            f"{member.name}: the download from {url} is not {member.name}"
                            f" {member.version} ({reason}); nothing was kept in {root}"
                        )
                for member in members:  # all verified: recorded before the cache holds them
                    if member.first_download:
                        _remember(
                            member,
                            work / "tree" / member.path,
                            root,
                            progress,
                            fetched,
                            host_checked,
                        )
                if names:  # files added beside those a run of an earlier release fetched
                    (home / dataset.path).mkdir(parents=True, exist_ok=True)
                    for name in missing:
                        os.rename(work / "tree" / dataset.path / name, home / dataset.path / name)
                else:
                    if home.exists():  # a download that held other names: replaced whole
                        os.rename(home, work / "old")
                    os.rename(work / "tree", home)
                progress(
                    f"codegen: {dataset.name} {dataset.version}: {received:,} bytes, verified,"
                    f" in {home}"
                )
                return
            except _Corrupt as e:
                problem = str(e)
                if attempt < ATTEMPTS:
                    progress(f"codegen: {dataset.name}: download {problem}; trying again")
            finally:
                shutil.rmtree(work, ignore_errors=True)
        raise DataError(
            f"{dataset.name}: the download from {url} failed {ATTEMPTS} times ({problem});"
            f" nothing was kept in {root}"
        )


def _remember(
    dataset: Dataset,
    path: Path,
    root: Path,
    progress: Callable[[str], None],
    names: list[str] | None,
    host_checked: bool,
) -> None:
    before = first_download.recorded(dataset, root)
    had = set(before["files"]) if before is not None else set()
    files = first_download.remember(dataset, path, root, names, host_checked)["files"]
    new = {name: files[name] for name in files if name not in had}
    if new:
        which = f" ({', '.join(new)})" if names else ""  # of a set, the files added
        checked = (
            "its download matched the sha256 its host gives for this revision; recorded"
            if host_checked
            else "recorded this first download's"
        )
        progress(
            f"codegen: {dataset.name} {dataset.version} has no pinned digest; {checked},"
            f" sha256 {first_download.tree_sha256(dataset, new)[:12]}{which},"
            f" which every later copy must match (not a pin)"
        )


def _fetch(
    dataset: Dataset,
    url: str,
    work: Path,
    data_dir: Path | None,
    members: list[Dataset],
    missing: list[str],
) -> tuple[int, bool]:
    """Download into ``work/tree`` laid out as upstream ships it (of a ``files`` download,
    the files ``missing``): the bytes received, and whether the host announced the sha256 of
    every file and each matched."""
    if dataset.format != "files":
        received, checked = _get(dataset, url, work / "download", data_dir)
        _unpack(dataset, work / "download", work / "tree", members)
        return received, checked
    folder = work / "tree" / dataset.path
    folder.mkdir(parents=True)
    got = [_get(dataset, url + name, folder / name, data_dir) for name in missing]
    return sum(n for n, _ in got), all(checked for _, checked in got)


def _get(dataset: Dataset, url: str, dest: Path, data_dir: Path | None) -> tuple[int, bool]:
    """Fetch ``url`` into ``dest``: the number of bytes received, and whether they are those
    whose sha256 the host announced (False: it announced none)."""
    request = urllib.request.Request(url, headers={"User-Agent": "pytest-codegen"})
    host = HostDigest()
    try:
        response = urllib.request.build_opener(host).open(request, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as e:
        if e.code >= 500:
            raise _Corrupt(f"answered HTTP {e.code}") from None
        raise DataError(
            f"{dataset.name}: {url} answered HTTP {e.code}; {offline_hint(dataset, data_dir)}"
        ) from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", None) or e
        raise DataError(
            f"{dataset.name}: cannot download {url} ({reason}); without network,"
            f" {offline_hint(dataset, data_dir)}"
        ) from None
    host.note(response.headers)
    expected = response.headers.get("Content-Length")
    received, sha256 = 0, hashlib.sha256()
    with response, dest.open("wb") as out:
        try:
            while chunk := response.read(_CHUNK):
                out.write(chunk)
                sha256.update(chunk)
                received += len(chunk)
        except (http.client.IncompleteRead, OSError) as e:
            raise _Corrupt(f"broke off after {received:,} bytes ({e})") from None
    if expected is not None and expected.isdigit() and received != int(expected):
        raise _Corrupt(f"was cut short: {received:,} of {int(expected):,} bytes")
    if host.sha256 is not None and sha256.hexdigest() != host.sha256:
        raise _Corrupt(
            f"has sha256 {sha256.hexdigest()[:12]}, not the {host.sha256[:12]} its host"
            f" gives for {PurePosixPath(urllib.parse.urlsplit(url).path).name}"
        )
    return received, host.sha256 is not None


def _unpack(dataset: Dataset, archive: Path, tree: Path, members: list[Dataset]) -> None:
    """Lay the download out as upstream ships it: the file under its upstream name, or the
    members' trees out of a repository archive (``<top>/<path>/...``)."""
    if not dataset.is_tree:
        target = tree / dataset.path
        target.parent.mkdir(parents=True, exist_ok=True)
        os.rename(archive, target)
        return
    wanted = [PurePosixPath(m.path) for m in members]
    try:
        with tarfile.open(archive, "r:gz") as tar:
            for entry in tar:
                parts = PurePosixPath(entry.name).parts[1:]  # below the archive's top folder
                rel = PurePosixPath(*parts) if parts else None
                if (
                    rel is None
                    or not entry.isreg()
                    or ".." in parts
                    or not any(w in rel.parents for w in wanted)
                ):
                    continue
                source = tar.extractfile(entry)
                if source is None:
                    continue
                target = tree.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with source, target.open("wb") as out:
                    shutil.copyfileobj(source, out)
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        raise _Corrupt(f"is not a readable .tar.gz archive ({e})") from None
