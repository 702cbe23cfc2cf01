"""Throughput of a benchmark build (--codegen-build) against a model with 1 s latency.

Builds ``--fragments`` small documented functions (10 per file) with
``--codegen-model=vllm:bench`` against the scripted loopback model of
``tests/fake_builder.py`` (real HTTP on 127.0.0.1, the OpenAI chat format, ``--latency``
seconds per request), and prints the wall time next to the sequential time: what a build
that sends one request at a time, one fragment after another (CodeBenchGen's scripts, step by
step), would need for the same requests, ``requests x latency``. Also prints the most
requests the server had in flight at once, and checks that every fragment was kept and that a
second run over the same cache sends no request.

    python benchmarks/perf/build_throughput.py [--fragments 100] [--latency 1.0]
                                               [--concurrency N] [-n 2]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from plugin_run import PYTEST

REPO = Path(__file__).resolve().parents[2]

FUNCTION = '''

def scale_{i}(values, factor=2):
    """Multiply every value by ``factor`` and add {i}; results below 1 become 0."""
    out = []
    for value in values:
        scaled = value * factor + {i}
        out.append(scaled if scaled > 0 else 0)
    return out
'''
TEST = """def test_scale_{i}():
    assert scale_{i}([1, 2], 2) == [2 + {i}, 4 + {i}]
    assert scale_{i}([], 3) == []
    assert scale_{i}([-1000], 1) == [0]
"""


def builder_module() -> Any:
    sys.path.insert(0, str(REPO / "tests"))
    import fake_builder

    return fake_builder


def write_sources(root: Path, n: int) -> dict[str, dict[str, str]]:
    """``n`` fragments in ``root``, 10 per file; returns the model's script for them."""
    answers = {}
    for start in range(0, n, 10):
        text = '"""Scaling helpers."""\n'
        for i in range(start, min(n, start + 10)):
            text += FUNCTION.format(i=i)
            answers[f"scale_{i}"] = {"test": TEST.format(i=i)}
        (root / f"scaling_{start // 10}.py").write_text(text)
    return answers


def in_flight(times: list[tuple[float, float]]) -> int:
    """The most requests open at once, from (arrival, arrival + latency) intervals."""
    events = sorted([(a, 1) for a, _ in times] + [(b, -1) for _, b in times])
    most = now = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def run(work: Path, url: str, args: argparse.Namespace) -> tuple[float, str]:
    command = [
        sys.executable,
        *PYTEST,
        "-q",
        "--codegen-model=vllm:bench",
        f"--codegen-base-url={url}",
        f"--codegen-cache={work / 'cache'}",
        "--codegen-build=src",
        "--codegen-build-out=bench.json",
        *([f"--codegen-concurrency={args.concurrency}"] if args.concurrency else []),
        *(["-n", str(args.n)] if args.n else []),
    ]
    started = time.monotonic()
    done = subprocess.run(command, cwd=work, capture_output=True, text=True)
    return time.monotonic() - started, done.stdout[-3000:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fragments", type=int, default=100)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument(
        "--concurrency", type=int, default=None, help="requests in flight (the plugin's default)"
    )
    parser.add_argument("-n", type=int, default=0, help="xdist workers (0: none)")
    args = parser.parse_args()
    fake_builder = builder_module()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "src").mkdir()
        answers = write_sources(work / "src", args.fragments)
        with fake_builder.BuildModel(latency_s=args.latency, answers=answers) as model:
            wall, out = run(work, model.url, args)
            requests = len(model.server.requests)
            spans = [(r.time, r.time + args.latency) for r in model.server.requests]
            report = json.loads((work / "bench.report.json").read_text())
            rerun_wall, _ = run(work, model.url, args)
            rerun_requests = len(model.server.requests) - requests
    sequential = requests * args.latency
    print(
        f"{args.fragments} fragments, {requests} requests at {args.latency:g} s latency, "
        f"concurrency {args.concurrency or 'default'}{f', -n {args.n}' if args.n else ''}"
    )
    print(f"wall time:       {wall:7.1f} s  (most requests in flight: {in_flight(spans)})")
    print(f"sequential time: {sequential:7.1f} s  (one request at a time: requests x latency)")
    print(f"speed-up:        {sequential / wall:7.1f} x")
    print(f"kept {report['kept']} of {report['fragments']}")
    print(f"rerun: {rerun_wall:.1f} s, {rerun_requests} requests")
    if report["kept"] != args.fragments or rerun_requests:
        print(out)
        raise SystemExit("FAILED: not every fragment was kept, or the rerun sent requests")


if __name__ == "__main__":
    main()
