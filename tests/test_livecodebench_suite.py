"""LiveCodeBench and APPS by name (``--codegen-suite livecodebench``, ``apps``). LiveCodeBench's
release files are pinned one by one (a run fetches and checks those its release needs), APPS's
file by its digest; a mirror's entry may instead trust its first download: each file's rows
are counted and the first copy's digests are recorded and required of every later copy. Small
files in the upstream layout, catalogued with PYTEST_CODEGEN_DATASETS as the built-in entries
are and served from 127.0.0.1: node ids ``livecodebench::<question_id>[sI]``, releases, and a
cut-short, short or changed download refused in one line, the same with -n 2."""

from __future__ import annotations

import hashlib
import json
import re
import shutil

import pytest
from conftest import XDIST_MODES, read_results
from livecodebench_data import PAIR_RIGHT, PAIR_ROW, SUM_RIGHT, SUM_ROW, write_samples
from test_apps import ROWS as APPS_ROWS
from test_datasets import cache, error_lines, pin, server  # noqa: F401 - fixtures

from pytest_codegen.datasets.catalog import CATALOG_ENV, CatalogError, named_datasets

LCB = named_datasets()["livecodebench"]
APPS = named_datasets()["apps"]
RECORD = "livecodebench-release_v6.first-download.json"


def jsonl(*rows: dict) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


RELEASES = {"test.jsonl": jsonl(SUM_ROW), "test2.jsonl": jsonl(PAIR_ROW)}


def _where(dataset) -> dict:
    """A built-in entry's place and layout, without its pins or rows."""
    keys = ("source", "version", "url", "format", "path", "cumulative")
    return {k: getattr(dataset, k) for k in keys}


def _catalogue(pytester, monkeypatch, **rows: int) -> None:
    """The built-in entries as they are, with this test's small files' rows."""
    entries = {}
    for dataset, counts in ((LCB, rows or {n: 1 for n in RELEASES}), (APPS, {"test.jsonl": 2})):
        entry = _where(dataset)
        entries[dataset.name] = {**entry, "rows": counts, "trust": "first-download"}
    pin(pytester, monkeypatch, **entries)


def _catalogue_pinned(pytester, monkeypatch, releases: dict[str, bytes]) -> None:
    """LiveCodeBench's built-in entry as it is, pinned file by file to ``releases``."""
    entry = _where(LCB)
    pins = {
        name: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
        for name, data in releases.items()
    }
    rows = {name: 1 for name in releases}
    pin(pytester, monkeypatch, livecodebench={**entry, "rows": rows, "pins": pins})


def _serve(server, releases: dict[str, bytes]) -> dict[str, str]:  # noqa: F811
    return {name: server.serve(LCB.url + name, data) for name, data in releases.items()}


def _run(pytester, *args: str):
    return pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--codegen-results=r.jsonl", *args, timeout=300
    )


def _both_passed_of(pytester, sha256: str) -> None:
    """The run's records: both problems passed, each of the data ``sha256``."""
    records = read_results(pytester.path / "r.jsonl")
    assert {r["nodeid"]: r["outcome"] for r in records} == {
        "livecodebench::abc001_a[s0]": "passed",
        "livecodebench::1234[s0]": "passed",
    }
    assert {r["data"]["sha256"] for r in records} == {sha256}


def _tree_sha256(releases: dict[str, bytes]) -> str:
    manifest = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(releases.items())
    )
    return hashlib.sha256(manifest.encode()).hexdigest()


def test_the_built_in_entries_pin_a_revision_and_count_every_release():
    assert not (APPS.first_download or LCB.first_download)
    assert "/resolve/21e74ddf8de1a21436da12e3e653065c5213e9d1/" in APPS.url
    assert (APPS.sha256, APPS.size) == (
        "5b003a65ac40feb47dd5eaec267a767a6fc435bdcfa68ff715fe869f948e760c",
        1292436853,
    )
    assert "/resolve/0fe84c3912ea0c4d4a78037083943e8f0c4dd505/" in LCB.url
    assert LCB.file_names == [f"test{n}.jsonl" for n in ("", 2, 3, 4, 5, 6)]
    # Hugging Face's LFS digests and sizes of the six files at that revision.
    assert list(LCB.pins) == LCB.file_names
    assert LCB.pins["test.jsonl"] == {
        "sha256": "2bd02b38beb48e8c46b5b9987095d999ff38cd8efc255ea5d58974317c48f63f",
        "size": 1252609773,
    }
    assert sum(pin["size"] for pin in LCB.pins.values()) == 4_485_994_821
    # LiveCodeBench's README: release_v1 ... release_v6 hold 400, 511, 612, 713, 880, 1055.
    totals = [sum(list(LCB.rows.values())[:n]) for n in range(1, 7)]
    assert totals == [400, 511, 612, 713, 880, 1055]
    # release_vN is the first N files, and a run of it needs only those.
    assert LCB.cumulative and not APPS.cumulative
    assert LCB.files_for(2) == ["test.jsonl", "test2.jsonl"]
    assert LCB.files_for(None) == LCB.files_for(9) == LCB.file_names
    assert all("pinned by its Hugging Face LFS sha256" in d.about for d in (APPS, LCB))


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_downloaded_recorded_and_graded_by_question_id(pytester, monkeypatch, server, cache, xdist):  # noqa: F811
    _catalogue(pytester, monkeypatch)
    paths = _serve(server, RELEASES)
    replay = write_samples(
        pytester.path / "samples.jsonl", [("abc001_a", SUM_RIGHT), ("1234", PAIR_RIGHT)]
    )
    args = ("--codegen-suite=livecodebench", f"--codegen-model=replay:{replay}", *xdist)
    first = _run(pytester, *args, "--codegen-samples=1", "livecodebench::1234")
    assert first.ret == pytest.ExitCode.OK, first.stdout.str()[-2000:] + first.stderr.str()
    first.stderr.fnmatch_lines(
        ["codegen: livecodebench release_v6 has no pinned digest; recorded this first download's*"]
    )
    record = json.loads((cache / "datasets" / RECORD).read_text())
    assert record["sha256"] == _tree_sha256(RELEASES)
    _both_passed_of(pytester, record["sha256"])

    # Again, release v1 only: nothing downloaded; the identity is of the file graded.
    second = _run(pytester, *args, "--codegen-samples=1", "--codegen-release=v1")
    assert second.ret == pytest.ExitCode.OK, second.stdout.str()[-2000:]
    assert all(server.requests[p] == 1 for p in paths.values())
    records = read_results(pytester.path / "r.jsonl")
    assert [r["nodeid"] for r in records] == ["livecodebench::abc001_a[s0]"]
    assert records[0]["data"]["sha256"] == _tree_sha256({"test.jsonl": RELEASES["test.jsonl"]})


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_release_downloads_its_files_and_a_later_run_only_the_rest(
    pytester,
    monkeypatch,
    server,  # noqa: F811
    cache,  # noqa: F811
    xdist,
):
    _catalogue(pytester, monkeypatch)
    paths = _serve(server, RELEASES)
    replay = write_samples(
        pytester.path / "samples.jsonl", [("abc001_a", SUM_RIGHT), ("1234", PAIR_RIGHT)]
    )
    args = (
        "--codegen-suite=livecodebench",
        f"--codegen-model=replay:{replay}",
        "--codegen-samples=1",
        *xdist,
    )
    first = _run(pytester, *args, "--codegen-release=v1")
    assert first.ret == pytest.ExitCode.OK, first.stdout.str()[-2000:] + first.stderr.str()
    assert (server.requests[paths["test.jsonl"]], server.requests[paths["test2.jsonl"]]) == (1, 0)
    cached = cache / "datasets" / "livecodebench-release_v6" / "code_generation_lite"
    assert [p.name for p in cached.iterdir()] == ["test.jsonl"]
    assert list(json.loads((cache / "datasets" / RECORD).read_text())["files"]) == ["test.jsonl"]
    records = read_results(pytester.path / "r.jsonl")
    assert [(r["nodeid"], r["outcome"]) for r in records] == [
        ("livecodebench::abc001_a[s0]", "passed")
    ]
    assert records[0]["data"]["sha256"] == _tree_sha256({"test.jsonl": RELEASES["test.jsonl"]})

    # The latest release: test2.jsonl fetched and recorded now, test.jsonl not again.
    second = _run(pytester, *args)
    assert second.ret == pytest.ExitCode.OK, second.stdout.str()[-2000:] + second.stderr.str()
    assert all(server.requests[p] == 1 for p in paths.values())
    second.stderr.fnmatch_lines(["codegen: livecodebench release_v6 *sha256 * (test2.jsonl), *"])
    record = json.loads((cache / "datasets" / RECORD).read_text())
    assert sorted(record["files"]) == sorted(RELEASES)
    assert record["sha256"] == _tree_sha256(RELEASES)
    _both_passed_of(pytester, record["sha256"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_pinned_file_by_file_a_release_fetches_and_checks_only_its_files(
    pytester,
    monkeypatch,
    server,  # noqa: F811
    cache,  # noqa: F811
    xdist,
):
    _catalogue_pinned(pytester, monkeypatch, RELEASES)
    paths = _serve(server, RELEASES)
    replay = write_samples(pytester.path / "samples.jsonl", [("abc001_a", SUM_RIGHT)])
    args = ("--codegen-suite=livecodebench", f"--codegen-model=replay:{replay}", *xdist)
    result = _run(pytester, *args, "--codegen-samples=1", "--codegen-release=v1")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:] + result.stderr.str()
    assert (server.requests[paths["test.jsonl"]], server.requests[paths["test2.jsonl"]]) == (1, 0)
    assert "no pinned digest" not in result.stderr.str()
    assert not (cache / "datasets" / RECORD).exists()
    [record] = read_results(pytester.path / "r.jsonl")
    # The identity of the files graded, as a first-download entry's of the same bytes.
    assert record["data"]["sha256"] == _tree_sha256({"test.jsonl": RELEASES["test.jsonl"]})


@pytest.mark.parametrize("fault", ["same size", "another size"])
def test_a_release_file_other_than_its_pin_is_refused(pytester, monkeypatch, server, cache, fault):  # noqa: F811
    _catalogue_pinned(pytester, monkeypatch, RELEASES)
    pinned = RELEASES["test2.jsonl"]
    if fault == "same size":
        served = pinned.replace(b'"1234"', b'"1235"', 1)
        said = f"(test2.jsonl has sha256 {hashlib.sha256(served).hexdigest()} where"
    else:
        served = pinned + jsonl(SUM_ROW)
        said = f"(test2.jsonl is {len(served):,} bytes where {len(pinned):,} are pinned)"
    assert served != pinned
    _serve(server, {**RELEASES, "test2.jsonl": served})
    args = ("--codegen-suite=livecodebench", "--codegen-model=empty", "--co")
    assert _run(pytester, *args, "--codegen-release=v1").ret == pytest.ExitCode.OK
    result = _run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    [line] = error_lines(result)
    assert line.startswith("ERROR: livecodebench: the download from") and said in line
    cached = cache / "datasets" / "livecodebench-release_v6" / "code_generation_lite"
    assert [p.name for p in cached.iterdir()] == ["test.jsonl"]  # v1's file, kept
    # A cached file cut short since is refused by its size, at each run.
    (cached / "test.jsonl").write_bytes(RELEASES["test.jsonl"][:-1])
    result = _run(pytester, *args, "--codegen-release=v1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    [line] = error_lines(result)
    assert "is not the one pinned (test.jsonl is" in line and "to download it again" in line


def test_a_transfer_cut_short_once_is_tried_again(pytester, monkeypatch, server, cache):  # noqa: F811
    _catalogue(pytester, monkeypatch)
    paths = _serve(server, RELEASES)
    server.faults[paths["test2.jsonl"]] = ["cut"]
    result = _run(pytester, "--codegen-suite=livecodebench", "--codegen-model=empty")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stderr.str()
    assert "download was cut short" in result.stderr.str()
    assert server.requests[paths["test2.jsonl"]] == 2


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("fault", ["cut short", "a row short", "changed after the first"])
def test_a_bad_download_is_refused_in_one_line(
    pytester,
    monkeypatch,
    server,  # noqa: F811
    cache,  # noqa: F811
    xdist,
    fault,
):
    _catalogue(pytester, monkeypatch)
    paths = _serve(server, RELEASES)
    if fault == "cut short":
        server.faults[paths["test2.jsonl"]] = ["cut"] * 3
        said = "failed 3 times (was cut short"
    elif fault == "a row short":
        _serve(server, {"test2.jsonl": b""})
        said = "(test2.jsonl holds 0 rows where 1 are catalogued)"
    else:
        assert (
            _run(pytester, "--codegen-suite=livecodebench", "--codegen-model=empty", "--co").ret
            == 0
        )
        shutil.rmtree(cache / "datasets" / "livecodebench-release_v6")
        _serve(server, {"test2.jsonl": jsonl({**PAIR_ROW, "question_title": "Another"})})
        said = f"had {hashlib.sha256(RELEASES['test2.jsonl']).hexdigest()}"
    result = _run(pytester, "--codegen-suite=livecodebench", "--codegen-model=empty", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    [line] = error_lines(result)
    assert line.startswith("ERROR: livecodebench: the download from")
    assert said in line
    assert not (cache / "datasets" / "livecodebench-release_v6").exists()


def test_a_cached_copy_changed_since_is_refused(pytester, monkeypatch, server, cache):  # noqa: F811
    _catalogue(pytester, monkeypatch)
    _serve(server, RELEASES)
    assert _run(pytester, "--codegen-suite=livecodebench", "--codegen-model=empty", "--co").ret == 0
    cached = cache / "datasets" / "livecodebench-release_v6" / "code_generation_lite"
    (cached / "test.jsonl").write_bytes(jsonl({**SUM_ROW, "question_title": "Other title"}))
    result = _run(pytester, "--codegen-suite=livecodebench", "--codegen-model=empty", "--co")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    [line] = error_lines(result)
    assert "is not the one first downloaded (test.jsonl is" in line
    assert "to download it again" in line


def test_a_placed_copy_must_hold_the_rows_and_match_the_record(pytester, monkeypatch, cache):  # noqa: F811
    _catalogue(pytester, monkeypatch)
    placed = pytester.path / "data" / "livecodebench" / "code_generation_lite"
    placed.mkdir(parents=True)
    (placed / "test.jsonl").write_bytes(RELEASES["test.jsonl"])
    args = (
        "--codegen-suite=livecodebench",
        "--codegen-model=empty",
        "--codegen-data-dir=data",
        "--co",
    )
    result = _run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "(it has no test2.jsonl)" in error_lines(result)[0]
    assert _run(pytester, *args, "--codegen-release=v1").ret == 0  # needs test.jsonl alone
    assert list(json.loads((cache / "datasets" / RECORD).read_text())["files"]) == ["test.jsonl"]
    (placed / "test2.jsonl").write_bytes(RELEASES["test2.jsonl"])
    assert _run(pytester, *args).ret == 0  # the first copy of test2.jsonl: recorded
    assert sorted(json.loads((cache / "datasets" / RECORD).read_text())["files"]) == sorted(
        RELEASES
    )
    (placed / "test2.jsonl").write_bytes(jsonl({**PAIR_ROW, "difficulty": "hard"}))
    result = _run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "where its first download, recorded in" in error_lines(result)[0]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_release_reads_only_its_files(pytester, monkeypatch, cache, xdist):  # noqa: F811
    _catalogue(pytester, monkeypatch)
    placed = pytester.path / "data" / "livecodebench" / "code_generation_lite"
    placed.mkdir(parents=True)
    (placed / "test.jsonl").write_bytes(RELEASES["test.jsonl"])
    (placed / "test2.jsonl").write_bytes(b"not a row\n")  # one line, as catalogued
    args = ("--codegen-suite=livecodebench", "--codegen-model=empty", "--codegen-data-dir=data")
    v1 = _run(pytester, *args, "--codegen-release=v1", "--codegen-samples=1", *xdist)
    assert v1.ret == pytest.ExitCode.TESTS_FAILED, v1.stdout.str()[-2000:] + v1.stderr.str()
    assert [r["nodeid"] for r in read_results(pytester.path / "r.jsonl")] == [
        "livecodebench::abc001_a[s0]"
    ]
    latest = _run(pytester, *args, "--co", *xdist)  # test2.jsonl is read now
    assert latest.ret == pytest.ExitCode.USAGE_ERROR
    [line] = error_lines(latest)
    assert "test2.jsonl" in line


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_release_neither_collects_nor_reads_a_later_release_file_in_a_directory(pytester, xdist):
    folder = pytester.path / "lcb"
    folder.mkdir()
    (folder / "test.jsonl").write_bytes(RELEASES["test.jsonl"])
    # A LiveCodeBench file by its first row, broken on its second: reading it is an error.
    (folder / "test2.jsonl").write_bytes(jsonl(PAIR_ROW) + b"not a row\n")
    v1 = _run(pytester, "lcb", "--codegen-model=empty", "--codegen-release=v1", *xdist)
    assert v1.ret == pytest.ExitCode.TESTS_FAILED, v1.stdout.str()[-2000:] + v1.stderr.str()
    records = read_results(pytester.path / "r.jsonl")
    assert {r["nodeid"] for r in records} == {f"lcb/test.jsonl::abc001_a[s{i}]" for i in range(10)}
    # Read when the run of v1 names it, or any run of its own release or a later one.
    for later in (
        ("lcb", *xdist),
        ("lcb", "--codegen-release=v2", *xdist),
        ("lcb/test2.jsonl", "--codegen-release=v1", *xdist),
    ):
        latest = _run(pytester, *later, "--codegen-model=empty", "--co")
        assert latest.ret != pytest.ExitCode.OK
        assert "test2.jsonl:2" in latest.stdout.str() + latest.stderr.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_apps_by_name_is_graded_by_its_rules(pytester, monkeypatch, server, cache, xdist):  # noqa: F811
    _catalogue(pytester, monkeypatch)
    server.serve(APPS.url, jsonl(*APPS_ROWS))
    result = _run(pytester, "--codegen-suite=apps", "--codegen-model=reference", *xdist)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:] + result.stderr.str()
    records = read_results(pytester.path / "r.jsonl")
    assert {r["nodeid"]: r["outcome"] for r in records} == {
        "apps::4000[s0]": "passed",
        "apps::4001[s0]": "passed",
    }
    assert {r["data"]["version"] for r in records} == {APPS.version}


def test_only_a_set_of_files_checked_one_by_one_is_cumulative(pytester, monkeypatch):
    entry = _where(APPS)
    pin(pytester, monkeypatch, apps={**entry, "rows": APPS.rows, "cumulative": True})
    result = _run(pytester, "--codegen-suite=apps", "--codegen-model=empty", "--co")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "dataset 'apps': cumulative (true or false) is for format files with pins or trust"
        " first-download" in result.stderr.str()
    )


@pytest.mark.parametrize(
    ("pins", "said"),
    [
        ({"test.jsonl": {"sha256": "a" * 64, "size": 1}}, "pins must name each file of rows"),
        (
            {n: {"sha256": "A" * 64, "size": 1} for n in LCB.file_names},
            'pins[\'test.jsonl\'] must be {"sha256": 64 hex digits, "size": bytes}',
        ),
    ],
)
def test_a_pinned_set_of_files_names_each_file_and_its_digest(tmp_path, monkeypatch, pins, said):
    entry = {**_where(LCB), "rows": LCB.rows}
    (tmp_path / "pins.json").write_text(json.dumps({"livecodebench": {**entry, "pins": pins}}))
    monkeypatch.setenv(CATALOG_ENV, str(tmp_path / "pins.json"))
    with pytest.raises(CatalogError, match=re.escape(f"dataset 'livecodebench': {said}")):
        named_datasets()


def test_a_catalogue_entry_without_a_pin_needs_its_rows(pytester, monkeypatch):
    entry = _where(APPS)
    pin(pytester, monkeypatch, apps={**entry, "trust": "first-download"})
    result = _run(pytester, "--codegen-suite=apps", "--codegen-model=empty", "--co")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "dataset 'apps': trust first-download needs rows" in result.stderr.str()
