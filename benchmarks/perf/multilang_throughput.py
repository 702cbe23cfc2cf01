"""Throughput of HumanEval-X grading per language: pytest-codegen (``-n 2``, every sample in
its sandbox, the crates, Go modules and Go build cache made once per host) vs the official
harness's way on the same samples and machine, in the same run: one process per sample that
compiles and runs it unconfined, two at a time (CodeGeeX's ``execution.py``: ``g++`` then
``./a.out``, ``node``, ``go test`` in a module, ``cargo check`` then ``cargo test`` in one
cargo project, ``javac`` then ``java``).

The samples are the first P canonical solutions of each language. Prints, per language, each
side's wall time and samples/s, the ratio (official time / ours: above 1, ours is faster)
and how many passed on each side.

    python benchmarks/perf/multilang_throughput.py [--problems 20] [--languages cpp,js,...]
        [--data-dir ../shared/data/humaneval-x]
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pytest_codegen.execution.native import libraries  # noqa: E402
from pytest_codegen.execution.native.toolchains import find, tool_env  # noqa: E402
from pytest_codegen.kinds.humaneval_x import assemble, load_humaneval_x  # noqa: E402

KEYS = {"cpp": "cpp", "js": "js", "go": "go", "rust": "rs", "java": "java"}


def official_one(language: str, program: str, work: Path, shared: dict[str, Path]) -> bool:
    """One sample the official way: a fresh folder, compile, run; whether it passed."""
    env = tool_env()

    def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
        try:
            return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=120)
        except subprocess.TimeoutExpired:  # a failed sample, as upstream counts it
            return subprocess.CompletedProcess(argv, -1, b"", b"timed out")

    folder = Path(tempfile.mkdtemp(dir=work))
    try:
        if language == "cpp":
            (folder / "test.cpp").write_text(program)
            ssl = ["-lcrypto", "-lssl"] if "openssl/" in program else []
            if run(["g++", "-std=c++11", "test.cpp", *ssl], folder).returncode:
                return False
            return run(["./a.out"], folder).returncode == 0
        if language == "js":
            (folder / "test.js").write_text(program)
            env["NODE_PATH"] = str(shared["node_modules"])
            done = run(["node", "test.js"], folder)
            return not done.stderr and not done.stdout
        if language == "go":
            module = shared["go"]
            for name in ("go.mod", "go.sum"):
                shutil.copy(module / name, folder / name)
            (folder / "main_test.go").write_text(program)
            env.update(GOMODCACHE=str(module / "mod"), GOFLAGS="-mod=mod", GOPROXY="off")
            return run(["go", "test", "main_test.go"], folder).returncode == 0
        if language == "rust":
            project = shared["rust"]
            name = folder.name.lower().replace("-", "_")
            bin_dir = project / "src" / "bin"
            bin_dir.mkdir(parents=True, exist_ok=True)
            (bin_dir / f"{name}.rs").write_text(program)
            try:
                if run(["cargo", "check", "--bin", name], project).returncode:
                    return False
                return run(["cargo", "test", "--bin", name], project).returncode == 0
            finally:
                (bin_dir / f"{name}.rs").unlink()
        if language == "java":
            (folder / "Main.java").write_text(program)
            if run(["javac", "Main.java"], folder).returncode:
                return False
            return run(["java", "-cp", str(folder), "Main"], folder).returncode == 0
        raise ValueError(language)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def official(language: str, suite: Path, work: Path) -> tuple[float, int]:
    problems = load_humaneval_x(suite, suite.stem)
    shared: dict[str, Path] = {}
    if language == "js":
        shared["node_modules"] = Path(libraries.node_modules())
    if language == "go":
        shared["go"] = Path(libraries.go_modules()[0])
    if language == "rust":
        # One cargo project for all samples, its crates built before timing, as upstream's.
        project = work / "rust-project"
        project.mkdir(exist_ok=True)
        crates = "".join(f'{k} = "{v}"\n' for k, v in libraries.RUST_CRATES.items())
        (project / "Cargo.toml").write_text(
            f'[package]\nname = "rust"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
            f"{crates}"
        )
        (project / "src").mkdir(exist_ok=True)
        (project / "src" / "main.rs").write_text("fn main() {}\n")
        subprocess.run(["cargo", "build"], cwd=project, env=tool_env(), capture_output=True)
        shared["rust"] = project
    programs = [assemble(p, p.reference or "") for p in problems]
    # Untimed: the first program warms the user's build caches (Go's standard library), as
    # upstream's have been warmed by the programs before.
    official_one(language, programs[0], work, shared)
    started = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        passed = sum(pool.map(lambda prog: official_one(language, prog, work, shared), programs))
    return time.monotonic() - started, passed


def ours(suite: Path, work: Path) -> tuple[float, int]:
    results = work / "ours.jsonl"
    started = time.monotonic()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "2",
            "--codegen-model=reference",
            str(suite),
            f"--codegen-results={results}",
        ],
        cwd=work,
        capture_output=True,
        timeout=3600,
    )
    wall = time.monotonic() - started
    records = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    return wall, sum(r["passed"] for r in records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", type=int, default=20)
    parser.add_argument("--languages", default="cpp,js,go,rust,java")
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared/data/humaneval-x")
    args = parser.parse_args()
    print(
        f"{'language':10} {'ours s':>8} {'ours/s':>8} {'official s':>10} {'official/s':>10}"
        f" {'ratio':>6}  passed (ours, official)"
    )
    for language in args.languages.split(","):
        find(KEYS[language])
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            suite = work / f"humaneval_{language}.jsonl"
            with gzip.open(args.data_dir / f"humaneval_{language}.jsonl.gz", "rt") as fh:
                rows = [line for line in fh if line.strip()][: args.problems]
            suite.write_text("".join(rows))
            ours_s, ours_passed = ours(suite, work)
            official_s, official_passed = official(language, suite, work)
        n = len(rows)
        print(
            f"{language:10} {ours_s:8.1f} {n / ours_s:8.2f} {official_s:10.1f}"
            f" {n / official_s:10.2f} {official_s / ours_s:6.2f}  {ours_passed}, {official_passed}"
            f" of {n}",
            flush=True,
        )


if __name__ == "__main__":
    main()
