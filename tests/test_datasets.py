"""Named suites (``--codegen-suite humaneval+``): downloaded once from a real HTTP server on
127.0.0.1 (the real URLs redirected with ``PYTEST_CODEGEN_DATA_URL``, small files this test
makes pinned with ``PYTEST_CODEGEN_DATASETS``), verified, cached under a lock, found in
``--codegen-data-dir``, and identified in every record and in the summary header."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import io
import json
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import TINY, XDIST_MODES, read_results

from pytest_codegen.datasets.catalog import Dataset, named_datasets

HUMANEVAL_PLUS_URL = (
    "https://github.com/evalplus/humanevalplus_release/releases/download/v9/HumanEvalPlus.jsonl.gz"
)
WEBAPP1K_URL = "https://github.com/onekq/WebApp1k/archive/abc123.tar.gz"
EXEC_CSN_URL = "https://raw.githubusercontent.com/x/CodeBenchGen/abc/test_set_final_round3.json"
LAYOUTS = {
    "webapp1k": "tests/react",
    "webapp1k-duo": "duo_tests/react",
    "webapp1k-trio": "trio_tests/react",
    "webapp1k-quartet": "quartet_tests/react",
}


# -- the data: small files in the upstream layouts


def humaneval_plus_rows() -> list[dict]:
    """Two problems in HumanEvalPlus.jsonl's format (its fields, base and plus inputs)."""
    rows = []
    for index, line in enumerate(TINY.read_text().splitlines()[:2]):
        row = json.loads(line)
        row.pop("category", None)
        row["task_id"] = f"HumanEval/{index}"
        row.update(contract="", base_input=[], plus_input=[], atol=0)
        rows.append(row)
    rows[0]["base_input"], rows[0]["plus_input"] = [[1, 2]], [[-5, 5], [10**20, 1]]
    rows[1]["base_input"], rows[1]["plus_input"] = [["a b c"]], [["x  y"]]
    return rows


def jsonl(rows: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def gz(data: bytes, mtime: int = 0) -> bytes:
    return gzip.compress(data, mtime=mtime)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def react_problem(component: str) -> dict[str, str]:
    """One WebApp1K-style problem: a Jest test importing ``./<component>`` and a reference."""
    test = (
        "import React from 'react';\n"
        "import { render, screen } from '@testing-library/react';\n"
        "import '@testing-library/jest-dom';\n"
        f"import App from './{component}';\n\n"
        f"test('greets from {component}', () => {{\n"
        "  render(<App />);\n"
        f"  expect(screen.getByText('Hello from {component}')).toBeInTheDocument();\n"
        "});\n"
    )
    reference = (
        "import React from 'react';\n\n"
        f"export default function App() {{ return <p>Hello from {component}</p>; }}\n"
    )
    return {f"{component}.test.js": test, f"{component}.js": reference}


def webapp1k_tree() -> dict[str, bytes]:
    """Relative path -> bytes of a WebApp1K checkout: the four test sets, one or two problems
    each, plus files the loader skips as upstream has them (a ``.bak``, a ``scenario.json``)."""
    journeys = {
        "tests/react": [("blogging", "addComment"), ("weather", "showForecast")],
        "duo_tests/react": [("blogging", "addComment_editTag")],
        "trio_tests/react": [("ecommerce", "addToCart_checkout_applyCoupon")],
        "quartet_tests/react": [("weather", "a_b_c_d")],
    }
    files: dict[str, bytes] = {"README.md": b"# WebApp1K\n"}
    for layout, problems in journeys.items():
        for category, name in problems:
            for filename, text in react_problem(name).items():
                files[f"{layout}/{category}/{filename}"] = text.encode()
    files["tests/react/weather/scenario.json"] = b"{}\n"
    files["trio_tests/react/ecommerce/addToCart_checkout_applyCoupon.test.js.bak"] = b"// old\n"
    return files


def tree_sha256(files: dict[str, bytes], under: str) -> tuple[str, int]:
    """The documented tree hash (docs/reference/benchmarks.md), computed here on its own:
    sha256 of the sha256sum manifest."""
    prefix = under.rstrip("/") + "/"
    inside = sorted((k[len(prefix) :], v) for k, v in files.items() if k.startswith(prefix))
    manifest = "".join(f"{sha256(v)}  {k}\n" for k, v in inside)
    return sha256(manifest.encode()), sum(len(v) for _, v in inside)


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)


def tar_gz(files: dict[str, bytes], top: str) -> bytes:
    """A repository archive as GitHub serves one: every file under ``<top>/``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for rel, data in sorted(files.items()):
            info = tarfile.TarInfo(f"{top}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def git_blob(data: bytes) -> str:
    """Git's own object id of these bytes."""
    done = subprocess.run(
        ["git", "hash-object", "--stdin"], input=data, capture_output=True, check=True
    )
    return done.stdout.decode().strip()


# -- a loopback file server


class DataServer:
    """Serves ``files`` (URL path -> bytes) on 127.0.0.1, counting requests; a path's
    scripted faults are used up one per request ("cut": the body stops halfway, "slow": the
    answer waits a second)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.redirects: dict[str, tuple[str, dict[str, str]]] = {}  # path -> (to, headers)
        self.faults: dict[str, list[str]] = {}
        self.requests: Counter[str] = Counter()
        self._lock = threading.Lock()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                with server._lock:
                    server.requests[self.path] += 1
                    faults = server.faults.get(self.path) or []
                    fault = faults.pop(0) if faults else None
                if self.path in server.redirects:
                    to, headers = server.redirects[self.path]
                    self.send_response(302)
                    self.send_header("Location", server.base + to)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    return
                data = server.files.get(self.path)
                if data is None:
                    self.send_error(404)
                    return
                if fault == "slow":
                    time.sleep(1.0)
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2] if fault == "cut" else data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def serve(self, url: str, data: bytes) -> str:
        """Serve ``data`` where the mirror maps ``url``; its URL path."""
        path = "/" + url.split("://", 1)[1]
        self.files[path] = data
        return path

    def serve_from_lfs(self, url: str, data: bytes, sha256: str | None = None) -> str:
        """Serve ``data`` as Hugging Face serves a file kept in LFS: ``url``'s path answers
        with a redirect to a CDN path whose ``X-Linked-Etag`` is the file's sha256 (``sha256``
        in its place, to announce another); the URL path of the redirect."""
        path = "/" + url.split("://", 1)[1]
        announced = sha256 or hashlib.sha256(data).hexdigest()
        self.files[f"/cdn-lfs/{announced}"] = data
        self.redirects[path] = (f"/cdn-lfs/{announced}", {"X-Linked-Etag": f'"{announced}"'})
        return path

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(monkeypatch):
    served = DataServer()
    monkeypatch.setenv("PYTEST_CODEGEN_DATA_URL", served.base)
    yield served
    served.close()


@pytest.fixture
def cache(pytester, monkeypatch) -> Path:
    path = pytester.path / "user-cache"
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(path))
    return path


def pin(pytester, monkeypatch, **entries: dict) -> None:
    """Pin these named suites (catalogue entries by name) for the runs of this test."""
    path = pytester.path / "pins.json"
    path.write_text(json.dumps(entries))
    monkeypatch.setenv("PYTEST_CODEGEN_DATASETS", str(path))


def humaneval_plus_pin(content: bytes, version: str = "v9") -> dict:
    return {
        "source": "humaneval+",
        "version": version,
        "url": HUMANEVAL_PLUS_URL,
        "format": "gzip",
        "path": "HumanEvalPlus.jsonl.gz",
        "sha256": sha256(content),
        "size": len(content),
    }


def humaneval_plus(pytester, monkeypatch, server: DataServer, served: bytes | None = None):
    """Pin this test's HumanEval+ rows and serve them (or ``served`` instead): (the pinned
    content, its URL path on the server)."""
    content = jsonl(humaneval_plus_rows())
    pin(pytester, monkeypatch, **{"humaneval+": humaneval_plus_pin(content)})
    return content, server.serve(HUMANEVAL_PLUS_URL, gz(content) if served is None else served)


def error_lines(result) -> list[str]:
    return [line for line in result.stderr.lines if line.startswith("ERROR:")]


def webapp1k_pins(files: dict[str, bytes]) -> dict[str, dict]:
    pins = {}
    for name, layout in LAYOUTS.items():
        digest, size = tree_sha256(files, layout)
        pins[name] = {
            "source": "webapp1k",
            "version": "abc123",
            "url": WEBAPP1K_URL,
            "format": "tar.gz",
            "path": layout,
            "sha256": digest,
            "size": size,
        }
    return pins


def cache_files(cache: Path) -> list[str]:
    """Every file and folder left in the user cache, lock files aside."""
    root = cache / "datasets"
    if not root.exists():
        return []
    return sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*") if not p.name.endswith(".lock")
    )


def run(pytester, *args: str, timeout: float = 300):
    return pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--codegen-results=r.jsonl", *args, timeout=timeout
    )


def run_humaneval_plus(pytester, *args: str):
    return run(pytester, "--codegen-model=reference", "--codegen-suite=humaneval+", *args)


# -- downloads


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_downloaded_once_verified_and_identified(pytester, monkeypatch, server, cache, xdist):
    content, path = humaneval_plus(pytester, monkeypatch, server)
    args = ("--codegen-model=reference", "--codegen-suite=humaneval+", *xdist)

    first = run(pytester, *args)
    assert first.ret == 0, first.stdout.str() + first.stderr.str()
    first.stderr.fnmatch_lines(
        [
            f"codegen: downloading humaneval+ v9 from {server.base}{path}",
            "codegen: humaneval+ v9: * bytes, verified, in *",
        ]
    )
    expected = {"name": "humaneval+", "version": "v9", "sha256": sha256(content)}
    records = read_results(pytester.path / "r.jsonl")
    assert len(records) == 2 and all(r["passed"] for r in records)
    assert all(r["data"] == expected for r in records)
    first.stdout.fnmatch_lines(
        [f"*codegen: pass@k of reference on humaneval+ v9 sha256:{sha256(content)[:12]} *"]
    )
    assert cache_files(cache) == ["humaneval+-v9", "humaneval+-v9/HumanEvalPlus.jsonl.gz"]

    second = run(pytester, *args)
    assert second.ret == 0
    assert server.requests[path] == 1  # the second run downloaded nothing
    assert "downloading" not in second.stderr.str()
    assert all(r["data"] == expected for r in read_results(pytester.path / "r.jsonl"))


def test_concurrent_runs_download_once(pytester, monkeypatch, server, cache):
    content, path = humaneval_plus(pytester, monkeypatch, server)
    server.faults[path] = ["slow"]  # the first download is under way when the second run asks
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q"]
    command += ["--codegen-model=reference", "--codegen-suite=humaneval+"]
    runs = [
        subprocess.Popen(command, cwd=pytester.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    outputs = [r.communicate(timeout=600) for r in runs]
    assert [r.returncode for r in runs] == [0, 0], outputs
    assert server.requests[path] == 1
    for stdout, _ in outputs:
        assert b"humaneval+::HumanEval_0[s0]" in stdout


def test_cut_short_download_is_tried_again(pytester, monkeypatch, server, cache):
    content, path = humaneval_plus(pytester, monkeypatch, server)
    server.faults[path] = ["cut"]
    result = run_humaneval_plus(pytester)
    assert result.ret == 0
    result.stderr.fnmatch_lines(["codegen: humaneval+: download was cut short: *; trying again"])
    assert server.requests[path] == 2


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_always_corrupt_download_is_one_line_and_leaves_nothing(
    pytester, monkeypatch, server, cache, xdist
):
    content, path = humaneval_plus(pytester, monkeypatch, server)
    server.faults[path] = ["cut"] * 3
    result = run_humaneval_plus(pytester, *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert error_lines(result) == [
        f"ERROR: humaneval+: the download from {server.base}{path} failed 3 times (was cut"
        f" short: {len(gz(content)) // 2:,} of {len(gz(content)):,} bytes); nothing was kept"
        f" in {cache / 'datasets'}"
    ]
    assert server.requests[path] == 3
    assert cache_files(cache) == []


def test_undecodable_download_is_tried_again_then_one_line(pytester, monkeypatch, server, cache):
    content = jsonl(humaneval_plus_rows())
    _, path = humaneval_plus(pytester, monkeypatch, server, gz(content)[:-9])  # not gzip whole
    result = run_humaneval_plus(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: humaneval+: the download from * failed 3 times (*"])
    assert server.requests[path] == 3
    assert cache_files(cache) == []


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_hash_mismatch_is_one_line(pytester, monkeypatch, server, cache, xdist):
    served = jsonl(humaneval_plus_rows()).replace(b"a + b", b"a - b")  # same size, other data
    pinned, path = humaneval_plus(pytester, monkeypatch, server, gz(served))
    result = run_humaneval_plus(pytester, *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert error_lines(result) == [
        f"ERROR: humaneval+: the download from {server.base}{path} is not humaneval+ v9"
        f" (content sha256 {sha256(served)} does not match the pinned {sha256(pinned)});"
        f" nothing was kept in {cache / 'datasets'}"
    ]
    assert server.requests[path] == 1  # a whole file of other content: not asked for again
    assert cache_files(cache) == []


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_unknown_suite_is_one_line(pytester, xdist):
    result = run(pytester, "--codegen-model=reference", "--codegen-suite=humaneval++", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = error_lines(result)
    assert len(errors) == 1
    assert errors[0].startswith("ERROR: --codegen-suite: unknown suite 'humaneval++' (built-in:")
    named = errors[0].split("(built-in: ", 1)[1].split(";", 1)[0].split(", ")
    assert {"humaneval+", "mbpp+", "webapp1k-quartet"} <= set(named)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_no_network_names_the_url_and_where_to_put_the_file(pytester, monkeypatch, cache, xdist):
    with socket.socket() as probe:  # a loopback port nothing listens on: no network
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("PYTEST_CODEGEN_DATA_URL", f"http://127.0.0.1:{port}")
    url = f"http://127.0.0.1:{port}/" + named_datasets()["humaneval+"].url.split("://")[1]
    result = run_humaneval_plus(pytester, *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: humaneval+: cannot download {url} (*); without network, put the file from"
            " that URL at DIR/humaneval+/HumanEvalPlus.jsonl.gz and pass --codegen-data-dir DIR"
        ]
    )
    data_dir = pytester.mkdir("data")
    result = run(
        pytester,
        "--codegen-model=reference",
        "--codegen-suite=webapp1k",
        f"--codegen-data-dir={data_dir}",
    )
    result.stderr.fnmatch_lines(
        [
            "ERROR: webapp1k: cannot download *WebApp1k/archive/*.tar.gz (*); without network,"
            f" unpack that archive (or check out the repository at *) as {data_dir}/webapp1k so"
            f" that {data_dir}/webapp1k/tests/react exists"
        ]
    )
    assert cache_files(cache) == []


def test_mbpp_plus_fetched_verified_and_located(pytester, monkeypatch, server, tmp_path):
    from pytest_codegen.datasets.fetch import locate

    rows = [
        {
            "task_id": "Mbpp/2",
            "prompt": '"""Shared elements."""\n',
            "entry_point": "similar",
            "canonical_solution": "def similar(a, b):\n    return set(a) & set(b)\n",
            "base_input": [[[1, 2], [2, 3]]],
            "plus_input": [[[], [1]]],
            "atol": 0,
            "contract": "",
            "assertion": "assert similar([1, 2], [2, 3]) == {2}\n",
        },
    ]
    content = jsonl(rows)
    url = "https://github.com/evalplus/mbppplus_release/releases/download/v9/MbppPlus.jsonl.gz"
    path = server.serve(url, gz(content))
    entry = {
        "source": "mbpp+",
        "version": "v9",
        "url": url,
        "format": "gzip",
        "path": "MbppPlus.jsonl.gz",
        "sha256": sha256(content),
        "size": len(content),
    }
    pin(pytester, monkeypatch, **{"mbpp+": entry})
    stale = tmp_path / "datasets" / ".mbpp+-v9.killed"  # a download whose process was killed
    stale.mkdir(parents=True)
    (stale / "download").write_bytes(b"half")
    lines: list[str] = []

    found, data = locate(
        named_datasets()["mbpp+"], data_dir=None, cache_root=tmp_path, progress=lines.append
    )
    assert found == tmp_path / "datasets" / "mbpp+-v9" / "MbppPlus.jsonl.gz"
    assert gzip.decompress(found.read_bytes()) == content  # as upstream ships it
    assert data == {"name": "mbpp+", "version": "v9", "sha256": sha256(content)}
    assert not stale.exists()
    assert len(lines) == 2 and lines[0].startswith("codegen: downloading mbpp+ v9 from")
    again = locate(
        named_datasets()["mbpp+"], data_dir=None, cache_root=tmp_path, progress=lines.append
    )
    assert again == (found, data)
    assert server.requests[path] == 1 and len(lines) == 2


def test_mirror_override_keeps_the_real_urls_otherwise(monkeypatch):
    monkeypatch.delenv("PYTEST_CODEGEN_DATA_URL", raising=False)
    dataset = Dataset("x", "x", "v1", "https://github.com/a/b/x.gz", "gzip", "x.gz", "0" * 64)
    assert dataset.download_url == "https://github.com/a/b/x.gz"
    monkeypatch.setenv("PYTEST_CODEGEN_DATA_URL", "http://127.0.0.1:9/mirror/")
    assert dataset.download_url == "http://127.0.0.1:9/mirror/github.com/a/b/x.gz"


def test_webapp1k_archive_gives_all_four_sets_from_one_download(
    pytester, monkeypatch, server, cache
):
    files = webapp1k_tree()
    path = server.serve(WEBAPP1K_URL, tar_gz(files, "WebApp1k-abc123"))
    pin(pytester, monkeypatch, **webapp1k_pins(files))
    result = run(
        pytester, "--codegen-model=reference", "--codegen-suite=webapp1k-trio", "--co", "-q"
    )
    assert result.ret == 0, result.stderr.str()
    result.stdout.fnmatch_lines(["webapp1k-trio::ecommerce_addToCart_checkout_applyCoupon[s0]"])
    result = run(
        pytester,
        "--codegen-model=reference",
        "--codegen-suite=webapp1k",
        "--codegen-suite=webapp1k-duo",
        "--co",
        "-q",
    )
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "webapp1k::blogging_addComment[s0]",
            "webapp1k::weather_showForecast[s0]",
            "webapp1k-duo::blogging_addComment_editTag[s0]",
        ]
    )
    assert server.requests[path] == 1
    kept = [f for f in cache_files(cache) if f.endswith(".test.js")]
    assert len(kept) == 5 and all(f.startswith("webapp1k-abc123/") for f in kept)
    assert not [f for f in cache_files(cache) if f.startswith(".")]  # no temporary left
    assert "webapp1k-abc123/README.md" not in cache_files(cache)  # only the test sets


def exec_csn_stored_rows() -> list[dict]:
    """Two examples as CodeBenchGen's repository stores Exec-CSN: the whole program in
    ``code`` (target, test function, main block), no masked fields."""
    method = (
        "import re\n\n"
        "# your code starts here\n"
        "class Words(object):\n"
        '    """Counts words."""\n\n'
        "    sep = re.compile(r'\\s+')\n\n"
        "    @staticmethod\n"
        "    def norm(word):\n"
        "        return word.lower()\n\n"
        "    def count(self, text):\n"
        '        """\n        Count the distinct words of text.\n        """\n'
        "        # ignore case\n"
        "        words = {self.norm(w) for w in self.sep.split(text) if w}\n"
        "        return len(words)\n\n"
        "# The test code\n"
        "def test_count():\n"
        "    words = Words()\n"
        "    assert words.count('a b') == 2\n"
        "    assert words.count('') == 0\n"
        "    assert words.count('A a  b') == 2\n\n"
        "if __name__ == '__main__':\n"
        "    test_count()\n"
    )
    function = (
        "import functools\n\n"
        "@functools.lru_cache(maxsize=None)\n"
        "def fib(n):\n"
        "    if n < 2:\n"
        "        return n\n"
        "    return fib(n - 1) + fib(n - 2)\n\n"
        "def test_fib():\n"
        "    assert fib(0) == 0\n"
        "    assert fib(10) == 55\n"
        "    assert fib(30) == 832040\n\n"
        "if __name__ == '__main__':\n"
        "    test_fib()\n"
    )
    instruction = "Functionality: {}.\nInputs: {}.\nOutputs: {}."
    return [
        {
            "code": method,
            "idx": 11,
            "func_name": "Words.count",
            "result": ["success", "", ""],
            "revised_instruction": instruction.format("counts distinct words", "text", "int"),
            "repo_name": "someone/words",
        },
        {
            "code": function,
            "idx": 12,
            "func_name": "fib",
            "result": ["success", "", ""],
            "revised_instruction": instruction.format("Fibonacci", "n", "int"),
            "repo_name": "someone/maths",
        },
    ]


def test_exec_csn_as_stored_pinned_by_git_object(pytester, monkeypatch, server, cache):
    content = json.dumps(exec_csn_stored_rows(), indent=4).encode()
    server.serve(EXEC_CSN_URL, content)
    entry = {
        "source": "exec-csn",
        "version": "abc",
        "url": EXEC_CSN_URL,
        "format": "file",
        "path": "test_set_final_round3.json",
        "git_blob": git_blob(content),
    }
    pin(pytester, monkeypatch, **{"exec-csn": entry})
    result = run(pytester, "--codegen-model=reference", "--codegen-suite=exec-csn")
    assert result.ret == 0, result.stdout.str()
    records = read_results(pytester.path / "r.jsonl")
    assert sorted(r["task_id"] for r in records if r["passed"]) == ["11", "12"]
    assert {json.dumps(r["data"]) for r in records} == {
        json.dumps({"name": "exec-csn", "version": "abc", "sha256": sha256(content)})
    }
    # The masked program really is graded: a wrong target fails its test function.
    wrong = [
        {"task_id": "11", "completion": "def count(self, text):\n    return len(text.split())\n"},
        {"task_id": "12", "completion": "def fib(n):\n    return n\n"},
    ]
    (pytester.path / "wrong.jsonl").write_text("".join(json.dumps(r) + "\n" for r in wrong))
    result = run(pytester, "--codegen-model=replay:wrong.jsonl", "--codegen-suite=exec-csn")
    assert [r["outcome"] for r in read_results(pytester.path / "r.jsonl")] == ["failed"] * 2

    other = pytester.path / "other-cache"
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(other))
    pin(pytester, monkeypatch, **{"exec-csn": {**entry, "git_blob": git_blob(content + b" ")}})
    result = run(pytester, "--codegen-model=reference", "--codegen-suite=exec-csn")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: exec-csn: the download from * is not exec-csn abc"
            f" (git object {git_blob(content)} does not match the pinned"
            f" {git_blob(content + b' ')}); nothing was kept in *"
        ]
    )


def test_exec_csn_as_stored_gives_the_harness_prompt(tmp_path):
    from pytest_codegen.kinds.execcsn_rows import load_execcsn

    path = tmp_path / "test_set_final_round3.json"
    path.write_text(json.dumps(exec_csn_stored_rows()))
    words, fib = load_execcsn(path, "exec-csn")
    assert '    def count(self, text):\n        """Functionality: counts distinct words.' in (
        words.prompt
    )
    assert "        ...\n" in words.prompt and "test_count" not in words.prompt
    assert "Count the distinct words" not in words.prompt  # the original docstring is masked
    assert "    @staticmethod\n    def norm" in words.prompt
    assert words.tests.count("__MASK__") == 1 and "    __MASK__\n\n# The test code" in words.tests
    assert "@functools.lru_cache(maxsize=None)\n__MASK__\n" in fib.tests
    assert fib.extra["mask_decorators"] == ["@functools.lru_cache(maxsize=None)"]
    assert "unsolvable" not in words.extra

    rows = exec_csn_stored_rows()
    rows[1]["func_name"] = "fibonacci"  # not in its program: that example alone is an error
    path.write_text(json.dumps(rows))
    words, fib = load_execcsn(path, "exec-csn")
    assert "unsolvable" not in words.extra
    assert fib.extra["unsolvable"] == "'fibonacci' has no body of its own in field 'code'"


# -- data placed by hand


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_data_dir_holds_each_webapp1k_layout_graded_by_jest(pytester, monkeypatch, xdist):
    files = webapp1k_tree()
    data_dir = pytester.mkdir("data")
    write_tree(data_dir / "webapp1k", files)  # a checkout of the repository
    pin(pytester, monkeypatch, **webapp1k_pins(files))
    monkeypatch.setenv("PYTEST_CODEGEN_DATA_URL", "http://127.0.0.1:9")  # no network needed
    suites = [f"--codegen-suite={name}" for name in LAYOUTS]
    result = run(
        pytester,
        "--codegen-model=reference",
        *suites,
        f"--codegen-data-dir={data_dir}",
        *xdist,
        timeout=900,
    )
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    records = read_results(pytester.path / "r.jsonl")
    by_suite = Counter(r["suite"] for r in records)
    assert by_suite == {"webapp1k": 2, "webapp1k-duo": 1, "webapp1k-trio": 1, "webapp1k-quartet": 1}
    assert all(r["passed"] and r["mode"] == "jest" and r["tests"] for r in records)
    for record in records:
        digest = tree_sha256(files, LAYOUTS[record["suite"]])[0]
        assert record["data"] == {"name": record["suite"], "version": "abc123", "sha256": digest}
    header = next(line for line in result.stdout.lines if "codegen: pass@k of" in line)
    for name, layout in LAYOUTS.items():
        assert f"{name} abc123 sha256:{tree_sha256(files, layout)[0][:12]}" in header
    assert "downloading" not in result.stderr.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_data_dir_copy_that_differs_is_one_line(pytester, monkeypatch, xdist):
    files = webapp1k_tree()
    data_dir = pytester.mkdir("data")
    pin(pytester, monkeypatch, **webapp1k_pins(files))
    files["duo_tests/react/blogging/addComment_editTag.test.js"] += b"\n// edited\n"
    write_tree(data_dir / "webapp1k-duo", files)  # the folder named after the suite
    result = run(
        pytester,
        "--codegen-model=reference",
        "--codegen-suite=webapp1k-duo",
        f"--codegen-data-dir={data_dir}",
        *xdist,
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = error_lines(result)
    assert len(errors) == 1
    assert errors[0].startswith(
        f"ERROR: webapp1k-duo: {data_dir}/webapp1k-duo/duo_tests/react is not webapp1k-duo abc123"
        f" ({tree_sha256(files, 'duo_tests/react')[1]:,} bytes of content where"
    )
    assert "or grade this copy as it is by giving its path instead of --codegen-suite" in errors[0]


def test_data_dir_takes_the_file_compressed_or_not(pytester, monkeypatch, cache):
    content = jsonl(humaneval_plus_rows())
    pin(pytester, monkeypatch, **{"humaneval+": humaneval_plus_pin(content)})
    monkeypatch.setenv("PYTEST_CODEGEN_DATA_URL", "http://127.0.0.1:9")
    placed = pytester.mkdir("data") / "humaneval+"
    placed.mkdir()
    expected = {"name": "humaneval+", "version": "v9", "sha256": sha256(content)}
    for name, data in (
        ("HumanEvalPlus.jsonl.gz", gz(content, mtime=12345)),
        ("HumanEvalPlus.jsonl", content),
    ):
        for old in placed.iterdir():
            old.unlink()
        (placed / name).write_bytes(data)
        result = run(
            pytester,
            "--codegen-model=reference",
            "--codegen-suite=humaneval+",
            "--codegen-data-dir=data",
        )
        assert result.ret == 0, result.stderr.str()
        assert [r["data"] for r in read_results(pytester.path / "r.jsonl")] == [expected] * 2
    assert cache_files(cache) == []


def test_data_dir_from_the_ini_file(pytester, monkeypatch):
    content = jsonl(humaneval_plus_rows())
    pin(pytester, monkeypatch, **{"humaneval+": humaneval_plus_pin(content)})
    monkeypatch.setenv("PYTEST_CODEGEN_DATA_URL", "http://127.0.0.1:9")
    (pytester.mkdir("data") / "humaneval+").mkdir()
    (pytester.path / "data" / "humaneval+" / "HumanEvalPlus.jsonl.gz").write_bytes(gz(content))
    pytester.makeini("[pytest]\ncodegen_data_dir = data\n")
    result = run_humaneval_plus(pytester, "--co", "-q")
    assert result.ret == 0, result.stderr.str()
    result.stdout.fnmatch_lines(["humaneval+::HumanEval_1[s0]"])


# -- suites given as paths


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_path_suites_are_identified_by_content(pytester, tiny, xdist):
    result = run(pytester, "--codegen-model=reference", str(tiny), *xdist)
    assert result.ret == 0
    expected = {"name": "tiny", "version": None, "sha256": sha256(tiny.read_bytes())}
    assert [r["data"] for r in read_results(pytester.path / "r.jsonl")] == [expected] * 3
    result.stdout.fnmatch_lines(
        [f"*pass@k of reference on tiny (path) sha256:{expected['sha256'][:12]} *"]
    )


@pytest.mark.parametrize("name", ["humaneval+", "mbpp+"])
def test_named_evalplus_suites_are_graded_as_evalplus_grades(
    pytester, monkeypatch, server, cache, name
):
    from evalplus_data import expected_verdicts, write_dataset

    humaneval, mbpp, samples = write_dataset(pytester.path)
    local, upstream = {"humaneval+": (humaneval, "HumanEvalPlus"), "mbpp+": (mbpp, "MbppPlus")}[
        name
    ]
    content = local.read_bytes()
    url = f"https://github.com/evalplus/x/releases/download/v9/{upstream}.jsonl.gz"
    server.serve(url, gz(content))
    entry = {"source": name, "version": "v9", "url": url, "format": "gzip"}
    entry.update(path=f"{upstream}.jsonl.gz", sha256=sha256(content), size=len(content))
    pin(pytester, monkeypatch, **{name: entry})

    result = run(
        pytester,
        f"--codegen-suite={name}",
        f"--codegen-model=replay:{samples}",
        "--codegen-samples=7",
        "--codegen-k=1",
    )
    records = [r for r in read_results(pytester.path / "r.jsonl") if r["outcome"] != "missing"]
    prefix = "HumanEval/" if name == "humaneval+" else "Mbpp/"
    expected = {k: v for k, v in expected_verdicts().items() if k[0].startswith(prefix)}
    assert {
        (r["task_id"], r["sample_index"]): (
            r["base_outcome"] == "passed",
            r["plus_outcome"] == "passed",
        )
        for r in records
    } == expected, result.stdout.str()
    assert {r["mode"] for r in records} == {"evalplus"}
    assert {r["data"]["name"] for r in records} == {name}
    result.stdout.re_match_lines(
        [rf"{re.escape(name)} +\(all\) ", rf"{re.escape(name)} \(base tests\) +\(all\) "]
    )


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_samples_cannot_read_the_downloaded_datasets(pytester, monkeypatch, xdist):
    # A dataset in the user cache that this run does not grade: its answer key all the same.
    # The cache is world-readable and inside a directory on sys.path, which samples may read
    # (a project that keeps its cache next to its code): only hiding it keeps them out.
    project = Path(tempfile.mkdtemp(prefix="codegen-project-"))
    secret = project / "cache" / "datasets" / "mbpp+-v9" / "MbppPlus.jsonl"
    try:
        secret.parent.mkdir(parents=True)
        secret.write_text("the canonical solutions\n")
        for path in (project, *secret.relative_to(project).parents, secret):
            (project / path).chmod(0o644 if path == secret else 0o755)
        monkeypatch.setenv("PYTHONPATH", str(project))
        monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(project / "cache"))
        body = "    with open({path!r}) as fh:\n        fh.read(1)\n    return a + b\n"
        replay = pytester.path / "replay.jsonl"
        replay.write_text(
            "".join(
                json.dumps(
                    {"task_id": "tiny/add", "sample_index": i, "completion": body.format(path=p)}
                )
                + "\n"
                for i, p in enumerate([str(secret), json.__file__])  # the second: a control
            )
        )
        (pytester.path / "tiny.jsonl").write_text(TINY.read_text().splitlines()[0] + "\n")
        run(
            pytester,
            "tiny.jsonl",
            f"--codegen-model=replay:{replay}",
            "--codegen-samples=2",
            *xdist,
        )
    finally:
        shutil.rmtree(project, ignore_errors=True)
    records = {r["sample_index"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert records[1]["outcome"] == "passed", records[1]
    assert records[0]["outcome"] == "error", records[0]
    assert "Error" in records[0]["error"], records[0]["error"]
