"""The named MultiPL-E suites (``--codegen-suite multipl-e-humaneval-cpp``): the catalogue's own
entries, their downloads redirected to a real HTTP server on 127.0.0.1 serving a small Parquet
file in the published dataset's row format; checked against the digest of the first download,
which the cache records, since upstream publishes none to pin."""

from __future__ import annotations

import hashlib
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import XDIST_MODES, read_results
from test_datasets import DataServer, cache, error_lines, run, server  # noqa: F401
from test_multipl_e import ADD, RIGHT, WRONG

from pytest_codegen.datasets.catalog import named_datasets

LANGUAGES = ("cpp", "go", "java", "js", "lua", "ml", "php", "pl", "r", "rb", "rkt", "rs", "sh")
LANGUAGES += ("ts",)

# The dataset revision the suites are fetched at (public harnesses pin it too).
REVISION = "28441b6024e71d4a1c1c0f6bf171c935cd5a43f2"
VERSION = REVISION[:7]
# The files of that revision whose sha256 others who fetched it published (docs/languages.md).
PUBLISHED = {
    "multipl-e-humaneval-rs": "92dba15e4da4deb4dbae5e15ce1712c95ec5a63c3ead69886271470309d9d314",
    "multipl-e-humaneval-ts": "b9090cc4e5a0c06e671811f63d7c35737f8393f1b9d44685472d5a7b1877d136",
}


def published_row(lang: str) -> dict:
    """The add problem of ``fixtures/multipl_e/add.jsonl`` as a row of the published dataset:
    its columns, ``doctests``, ``original`` and ``prompt_terminology`` too."""
    (line,) = [x for x in ADD.read_text().splitlines() if f'"HumanEval_53_add_{lang}"' in x]
    row = json.loads(line)
    return {
        "name": "HumanEval_53_add",
        "language": row["language"],
        "prompt": row["prompt"],
        "doctests": "transform",
        "original": "HumanEval_53_add.py",
        "prompt_terminology": "reworded",
        "tests": row["tests"],
        "stop_tokens": row["stop_tokens"],
    }


def parquet(rows: list[dict]) -> bytes:
    out = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), out)
    return out.getvalue()


def serve_config(server: DataServer, name: str, rows: list[dict]) -> tuple[bytes, str]:  # noqa: F811
    content = parquet(rows)
    return content, server.serve(named_datasets()[name].url, content)


def replay(pytester, lang: str, answers: dict[str, str]) -> str:
    path = pytester.path / f"replay-{lang}.jsonl"
    path.write_text(json.dumps({"task_id": "HumanEval_53_add", "completion": answers[lang]}))
    return f"--codegen-model=replay:{path}"


def test_every_supported_language_has_a_humaneval_and_an_mbpp_suite():
    named = named_datasets()
    for bench in ("humaneval", "mbpp"):
        for lang in LANGUAGES:
            dataset = named[f"multipl-e-{bench}-{lang}"]
            assert dataset.url == (
                f"https://huggingface.co/datasets/nuprl/MultiPL-E/resolve/{REVISION}/"
                f"{bench}-{lang}/test-00000-of-00001.parquet"
            )
            name = f"multipl-e-{bench}-{lang}"
            assert (dataset.sha256, dataset.git_blob, dataset.trust) == (
                (PUBLISHED[name], None, "pinned")
                if name in PUBLISHED
                else (None, None, "first-download")
            )
    assert sorted(n for n in named if n.startswith("multipl-e-")) == sorted(
        f"multipl-e-{b}-{lang}" for b in ("humaneval", "mbpp") for lang in LANGUAGES
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_downloaded_once_graded_by_its_prompts_and_stop_tokens(
    pytester,
    server,  # noqa: F811
    cache,  # noqa: F811
    xdist,
):
    content, path = serve_config(server, "multipl-e-humaneval-cpp", [published_row("cpp")])
    args = ("--codegen-suite=multipl-e-humaneval-cpp", *xdist)
    first = run(pytester, replay(pytester, "cpp", RIGHT), *args)
    assert first.ret == 0, first.stdout.str() + first.stderr.str()
    digest = hashlib.sha256(content).hexdigest()
    first.stderr.fnmatch_lines(
        [
            f"codegen: downloading multipl-e-humaneval-cpp {VERSION} from *",
            f"codegen: multipl-e-humaneval-cpp {VERSION} has no pinned digest; recorded this first"
            f" download's, sha256 {digest[:12]}, which every later copy must match (not a pin)",
            f"codegen: multipl-e-humaneval-cpp {VERSION}: {len(content):,} bytes, verified, in *",
        ]
    )
    (record,) = read_results(pytester.path / "r.jsonl")
    # The right answer goes on past its stop token into code that does not build.
    assert (record["task_id"], record["program_status"]) == ("HumanEval_53_add", "OK")
    expected = {"name": "multipl-e-humaneval-cpp", "version": VERSION, "sha256": digest}
    assert record["data"] == expected
    first = cache / "datasets" / f"multipl-e-humaneval-cpp-{VERSION}.first-download.json"
    assert json.loads(first.read_text()) == {
        "name": "multipl-e-humaneval-cpp",
        "version": VERSION,
        "url": named_datasets()["multipl-e-humaneval-cpp"].url,
        "sha256": digest,
        "size": len(content),
        "files": {"test-00000-of-00001.parquet": {"sha256": digest, "size": len(content)}},
        "note": "the digests of the first copy used: not a pin",
    }

    second = run(pytester, replay(pytester, "cpp", WRONG), *args)
    assert second.ret == 1
    assert server.requests[path] == 1  # the second run used the cache
    (record,) = read_results(pytester.path / "r.jsonl")
    assert (record["program_status"], record["data"]["sha256"]) == ("Exception", digest)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_cached_copy_changed_since_its_first_download_is_one_line(
    pytester,
    server,  # noqa: F811
    cache,  # noqa: F811
    xdist,
):
    serve_config(server, "multipl-e-mbpp-rs", [published_row("rs")])
    args = ("--codegen-model=empty", "--codegen-suite=multipl-e-mbpp-rs", *xdist)
    assert run(pytester, *args).ret == 1  # the empty answer fails
    home = cache / "datasets" / f"multipl-e-mbpp-rs-{VERSION}"
    row = published_row("rs")
    changed = {**row, "tests": row["tests"].replace("12", "13")}
    (home / "mbpp-rs/test-00000-of-00001.parquet").write_bytes(parquet([row, changed]))
    result = run(pytester, *args)
    assert result.ret == 4
    (line,) = error_lines(result)
    assert line.startswith(
        f"ERROR: multipl-e-mbpp-rs: the cached copy in {home} is not the one first downloaded"
    ), line
    assert line.endswith(f"delete {home} to download it again"), line


def test_a_data_dir_copy_is_graded_as_it_is_and_identified_by_its_digest(pytester, cache):  # noqa: F811
    content = parquet([published_row("rb")])
    placed = pytester.path / "data" / "multipl-e-humaneval-rb" / "humaneval-rb"
    placed.mkdir(parents=True)
    (placed / "test-00000-of-00001.parquet").write_bytes(content)
    result = run(
        pytester,
        replay(pytester, "rb", RIGHT),
        "--codegen-suite=multipl-e-humaneval-rb",
        f"--codegen-data-dir={pytester.path / 'data'}",
    )
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["program_status"] == "OK"
    assert record["data"]["sha256"] == hashlib.sha256(content).hexdigest()
    assert not (cache / "datasets" / f"multipl-e-humaneval-rb-{VERSION}").exists()  # no download


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_download_that_is_not_its_rows_is_one_line(pytester, server, cache, xdist):  # noqa: F811
    serve_config(server, "multipl-e-humaneval-go", [{"name": "x", "prompt": "p"}])
    args = ("--codegen-model=empty", "--codegen-suite=multipl-e-humaneval-go", *xdist)
    result = run(pytester, *args)
    assert result.ret == 4
    lines = [x for x in result.stderr.lines if x.startswith("ERROR")]
    assert len(lines) == 1, result.stderr.lines
    assert "test-00000-of-00001.parquet" in lines[0], lines


def test_a_download_the_host_gives_a_sha256_for_is_checked_against_it(pytester, server, cache):  # noqa: F811
    """Hugging Face redirects a file kept in LFS to its CDN with the file's sha256 in
    ``X-Linked-Etag``: the download is checked against it, the progress line and the record
    say so."""
    content = parquet([published_row("cpp")])
    url = named_datasets()["multipl-e-humaneval-cpp"].url
    server.serve_from_lfs(url, content)
    args = ("--codegen-suite=multipl-e-humaneval-cpp",)
    result = run(pytester, replay(pytester, "cpp", RIGHT), *args)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    digest = hashlib.sha256(content).hexdigest()
    result.stderr.fnmatch_lines(
        [
            f"codegen: multipl-e-humaneval-cpp {VERSION} has no pinned digest; its download"
            f" matched the sha256 its host gives for this revision; recorded, sha256"
            f" {digest[:12]}, which every later copy must match (not a pin)",
        ]
    )
    record = cache / "datasets" / f"multipl-e-humaneval-cpp-{VERSION}.first-download.json"
    (file,) = json.loads(record.read_text())["files"].values()
    assert file == {"sha256": digest, "size": len(content), "host_sha256": True}


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_download_unlike_the_sha256_its_host_gives_is_refused(pytester, server, cache, xdist):  # noqa: F811
    """The CDN's bytes are not those whose sha256 the host announced (a corrupted or
    replaced copy): tried again, then refused in one line, and nothing is kept."""
    content = parquet([published_row("go")])
    url = named_datasets()["multipl-e-humaneval-go"].url
    path = server.serve_from_lfs(url, content, sha256="ab" * 32)
    args = ("--codegen-model=empty", "--codegen-suite=multipl-e-humaneval-go", *xdist)
    result = run(pytester, *args)
    assert result.ret == 4
    lines = [x for x in result.stderr.lines if x.startswith("ERROR")]
    assert len(lines) == 1, result.stderr.lines
    real = hashlib.sha256(content).hexdigest()
    assert f"has sha256 {real[:12]}, not the {'ab' * 6} its host gives for" in lines[0], lines
    assert "test-00000-of-00001.parquet" in lines[0] and "nothing was kept" in lines[0], lines
    assert server.requests[path] == 3  # a broken transfer may be one: tried three times
    assert not (cache / "datasets" / f"multipl-e-humaneval-go-{VERSION}").exists()
    assert not list((cache / "datasets").glob("*.first-download.json"))


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_download_unlike_a_published_sha256_is_refused(pytester, server, cache, xdist):  # noqa: F811
    """``multipl-e-humaneval-rs`` is pinned by the sha256 published for the revision: a file
    of other bytes (here a small one in its row format) is refused in one line, not recorded
    as a first download."""
    content, path = serve_config(server, "multipl-e-humaneval-rs", [published_row("rs")])
    args = ("--codegen-model=empty", "--codegen-suite=multipl-e-humaneval-rs", *xdist)
    result = run(pytester, *args)
    assert result.ret == 4
    assert error_lines(result) == [
        f"ERROR: multipl-e-humaneval-rs: the download from {server.base}{path} is not"
        f" multipl-e-humaneval-rs {VERSION} (content sha256 {hashlib.sha256(content).hexdigest()}"
        f" does not match the pinned {PUBLISHED['multipl-e-humaneval-rs']}); nothing was kept in"
        f" {cache / 'datasets'}"
    ]
    assert not list((cache / "datasets").glob("*.first-download.json"))
