"""Peak memory of collecting a large LiveCodeBench release file: a synthetic file of N
problems (400 by default) whose hidden tests are each a blob of about 1 MB, as upstream
stores them (base64 of zlib of a pickle), collected with ``pytest --co``; the baseline, in
the same run, is the same problems with blobs of a few bytes. What the blobs add to the
peak resident size is what a run holds of them.

With ``--against DIR`` it also collects both files with another checkout (e.g.
``git worktree add /tmp/before HEAD~3``) and prints the ratio of what the blobs add there
to what they add here.

    python benchmarks/perf/livecodebench_memory.py [--problems 400] [--blob-mb 1] \\
        [--repeat 3] [--against DIR]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

from plugin_run import PYTEST

REPO = Path(__file__).resolve().parents[2]


def blob(size: int) -> str:
    """A hidden-tests field of about ``size`` bytes: one stdin case whose expected output is
    random text (random, so zlib cannot shrink it)."""
    noise = base64.b64encode(os.urandom(size * 3 // 4)).decode()
    cases = [{"input": "1\n", "output": noise, "testtype": "stdin"}]
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode()


def write_release(path: Path, problems: int, hidden: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        for i in range(problems):
            row = {
                "question_title": f"Problem {i}",
                "question_content": f"Print the answer to problem {i}.",
                "platform": "atcoder",
                "question_id": f"abc{i:03d}_a",
                "contest_id": f"abc{i:03d}",
                "contest_date": f"2024-{1 + i % 12:02d}-06T00:00:00",
                "starter_code": "",
                "difficulty": "easy",
                "public_test_cases": json.dumps(
                    [{"input": "1\n", "output": "1\n", "testtype": "stdin"}]
                ),
                "private_test_cases": hidden,
                "metadata": "{}",
            }
            fh.write(json.dumps(row) + "\n")
    return path


def peak_rss_mb(checkout: Path, release: Path, problems: int) -> float:
    """The peak resident size of ``pytest --co`` on ``release``, importing pytest_codegen
    from ``checkout`` (its own rusage, from wait4); checks that every problem's sample was
    collected."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, *PYTEST, "-q", "--co"]
    command += [str(release), "--codegen-model=empty", "--codegen-samples=1"]
    with tempfile.TemporaryFile() as said:
        child = subprocess.Popen(
            command, cwd=release.parent, env=env, stdout=said, stderr=subprocess.STDOUT
        )
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        said.seek(0)
        text = said.read().decode(errors="replace")
    if f"{problems} tests collected" not in text:
        raise SystemExit(f"{checkout}: collection failed:\n{text[-2000:]}")
    return usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=400)
    parser.add_argument("--blob-mb", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--against", type=Path)
    args = parser.parse_args()
    checkouts = {"this checkout": REPO}
    if args.against:
        checkouts[str(args.against)] = args.against.resolve()
    with tempfile.TemporaryDirectory(prefix="livecodebench-memory-") as tmp:
        work = Path(tmp)
        small = write_release(work / "small" / "test.jsonl", args.problems, blob(16))
        large = write_release(
            work / "large" / "test.jsonl", args.problems, blob(int(args.blob_mb * 2**20))
        )
        print(
            f"{args.problems} problems; release file {large.stat().st_size / 2**20:.0f} MB with "
            f"blobs, {small.stat().st_size / 2**20:.1f} MB without; medians of {args.repeat} runs"
        )
        added: dict[str, float] = {}
        for name, checkout in checkouts.items():
            runs = [
                (
                    peak_rss_mb(checkout, small, args.problems),
                    peak_rss_mb(checkout, large, args.problems),
                )
                for _ in range(args.repeat)
            ]
            base = statistics.median(r[0] for r in runs)
            full = statistics.median(r[1] for r in runs)
            added[name] = full - base
            print(
                f"{name:30s} peak RSS {full:7.1f} MB with blobs, {base:7.1f} MB without "
                f"(baseline): the blobs add {full - base:7.1f} MB, ratio {full / base:5.2f}"
            )
        if args.against:
            ours, theirs = added["this checkout"], added[str(args.against)]
            print(
                f"what the blobs add, {args.against} / this checkout: "
                f"{theirs / max(ours, 0.1):.1f}x"
            )


if __name__ == "__main__":
    main()
