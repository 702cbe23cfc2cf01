"""LiveCodeBench by name: ``--codegen-suite livecodebench`` reads a pinned release file
(here a small one, pinned with PYTEST_CODEGEN_DATASETS and served from 127.0.0.1), its
problems' node ids ``livecodebench::<question_id>[sI]``, and a tampered or cut-short
download is refused in one line, the same with -n 2."""

from __future__ import annotations

import hashlib
import json

import pytest
from conftest import XDIST_MODES, read_results
from livecodebench_data import PAIR_RIGHT, PAIR_ROW, SUM_RIGHT, SUM_ROW, write_samples
from test_datasets import cache, pin, server  # noqa: F401 - fixtures

URL = "https://huggingface.co/datasets/livecodebench/code_generation_lite/resolve/main/test.jsonl"


def _pin_and_serve(pytester, monkeypatch, served_data, content: bytes, served: bytes) -> None:
    pin(
        pytester,
        monkeypatch,
        livecodebench={
            "source": "livecodebench",
            "version": "release_v1",
            "url": URL,
            "format": "file",
            "path": "test.jsonl",
            "sha256": hashlib.sha256(content).hexdigest(),
            "size": len(content),
        },
    )
    served_data.serve(URL, served)


def _content() -> bytes:
    return "".join(json.dumps(r) + "\n" for r in (SUM_ROW, PAIR_ROW)).encode()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_named_suite_is_graded_by_question_id(pytester, monkeypatch, server, cache, xdist):  # noqa: F811
    content = _content()
    _pin_and_serve(pytester, monkeypatch, server, content, content)
    replay = write_samples(
        pytester.path / "samples.jsonl", [("abc001_a", SUM_RIGHT), ("1234", PAIR_RIGHT)]
    )
    result = pytester.runpytest_subprocess(
        "--codegen-suite=livecodebench",
        "livecodebench::1234",
        f"--codegen-model=replay:{replay}",
        "--codegen-results=r.jsonl",
        "--codegen-samples=1",
        *xdist,
        timeout=300,
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    records = read_results(pytester.path / "r.jsonl")
    assert {r["nodeid"]: r["outcome"] for r in records} == {
        "livecodebench::abc001_a[s0]": "passed",
        "livecodebench::1234[s0]": "passed",
    }


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("fault", ["tampered", "cut short"])
def test_a_tampered_or_cut_short_download_is_refused(
    pytester,
    monkeypatch,
    server,  # noqa: F811
    cache,  # noqa: F811
    xdist,
    fault,
):
    content = _content()
    served = content.replace(b"abc001_a", b"abc001_b") if fault == "tampered" else content[:-40]
    _pin_and_serve(pytester, monkeypatch, server, content, served)
    result = pytester.runpytest_subprocess(
        "--codegen-suite=livecodebench", "--codegen-model=reference", *xdist, timeout=300
    )
    said = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: livecodebench: the download from" in said
    assert "is not livecodebench release_v1" in said
