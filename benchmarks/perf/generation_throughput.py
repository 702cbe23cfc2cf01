"""Throughput of generating and grading through an HTTP model: pytest-codegen (-n 2) vs a
sequential client.

A HumanEval-format suite of ``--problems`` tiny problems (``f_i(x) = x + i``) is graded with
``--codegen-model=vllm:bench`` against the fake OpenAI-compatible server of
``tests/fake_providers.py``, run in this process on 127.0.0.1 with a fixed latency per request
(1 s by default) and replying with each problem's right answer, fenced. Prints the total wall
time, the generation time (first request's arrival to last response, from the server's
timestamps), requests/s, the requests in flight (max and mean), whether every sample was
graded and passed, and the time a sequential client (one request at a time, as WebApp1K's
generation script) would need: ``problems x latency``, checked by timing a few sequential
requests with ``requests``. A second run over the same generation cache must send no request.

    python benchmarks/perf/generation_throughput.py [--problems 1000] [--latency 1.0]
                                                    [--sequential 10]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import requests

REPO = Path(__file__).resolve().parents[2]
TARGET_S = 40.0  # generation time allowed for 1000 prompts with -n 2
CONCURRENCY = 16  # the default --codegen-concurrency, per pytest process
_ENTRY = re.compile(r"def f_(\d+)\(")


def fake_providers_module() -> Any:
    """``tests/fake_providers.py`` (the tests directory is not a package)."""
    sys.path.insert(0, str(REPO / "tests"))
    import fake_providers

    return fake_providers


def write_suite(path: Path, n: int) -> None:
    rows = [
        {
            "task_id": f"tiny/{i}",
            "prompt": f'def f_{i}(x):\n    """Return x plus {i}."""\n',
            "canonical_solution": f"    return x + {i}\n",
            "test": f"def check(candidate):\n    assert candidate(1) == 1 + {i}\n",
            "entry_point": f"f_{i}",
        }
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def reply(request: Any, index: int) -> str:
    """The right answer to a tiny problem, fenced as chat models reply."""
    match = _ENTRY.search(request.user_text)
    i = int(match.group(1)) if match else 0
    return f"Here you go:\n\n```python\ndef f_{i}(x):\n    return x + {i}\n```\n"


def run_plugin(suite: Path, url: str, cache: Path, results: Path, workdir: Path) -> float:
    results.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "VLLM_API_KEY"}
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(suite),
            "--codegen-model=vllm:bench",
            f"--codegen-base-url={url}",
            f"--codegen-cache={cache}",
            "-n",
            "2",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--codegen-results={results}",
        ],
        cwd=workdir,
        env=env,
        stdout=subprocess.DEVNULL,
        check=False,
        timeout=900,
    )
    return time.perf_counter() - start


def graded(results: Path) -> tuple[int, int]:
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    return len(rows), sum(1 for r in rows if r["passed"])


def in_flight(intervals: list[tuple[float, float]]) -> tuple[int, float]:
    """Max and time-averaged number of requests in flight over [first start, last end]."""
    events = sorted(
        [(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals],
        key=lambda ev: (ev[0], ev[1]),
    )  # an end before a start at the same instant
    current = peak = 0
    for _, delta in events:
        current += delta
        peak = max(peak, current)
    span = max(e for _, e in intervals) - min(s for s, _ in intervals)
    busy = sum(e - s for s, e in intervals)
    return peak, busy / span if span > 0 else float(len(intervals))


def sequential_client(url: str, count: int) -> float:
    """Seconds for ``count`` chat completions sent one after another."""
    body = {"model": "bench", "messages": [{"role": "user", "content": "def f_0(x):\n"}]}
    start = time.perf_counter()
    with requests.Session() as session:
        for _ in range(count):
            response = session.post(f"{url}/chat/completions", json=body, timeout=30)
            response.raise_for_status()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--problems", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per request")
    parser.add_argument(
        "--sequential", type=int, default=10, help="requests to time with a sequential client"
    )
    args = parser.parse_args()
    fake = fake_providers_module()

    with (
        tempfile.TemporaryDirectory() as tmp,
        fake.FakeProviders(reply=reply, latency_s=args.latency, openai_key=None) as server,
    ):
        workdir = Path(tmp)
        suite = workdir / "tiny.jsonl"
        cache = workdir / "generations"
        results = workdir / "results.jsonl"
        write_suite(suite, args.problems)

        wall = run_plugin(suite, server.openai_url, cache, results, workdir)
        first = list(server.requests)
        total, passed = graded(results)
        requested = sum(r.n for r in first)
        intervals = [(r.time, r.time + args.latency) for r in first]
        generation = max(e for _, e in intervals) - min(s for s, _ in intervals)
        peak, mean = in_flight(intervals)

        sequential_measured = sequential_client(server.openai_url, args.sequential)
        sequential_requests = len(server.requests) - len(first)

        before = len(server.requests)
        rerun_wall = run_plugin(suite, server.openai_url, cache, results, workdir)
        rerun_requests = len(server.requests) - before
        rerun_total, rerun_passed = graded(results)

    sequential = args.problems * args.latency
    per_request = sequential_measured / max(1, sequential_requests)
    target = TARGET_S * args.problems / 1000
    print(
        f"problems:                    {args.problems} (1 sample each), "
        f"server latency {args.latency:g} s/request, pytest -n 2"
    )
    print(f"requests sent:               {len(first)} ({requested} samples asked for)")
    print(f"total wall time:             {wall:7.1f} s (pytest start to exit)")
    print(
        f"generation time:             {generation:7.1f} s (first request to last response; "
        f"target <= {target:.0f} s: {'met' if generation <= target else 'MISSED'})"
    )
    print(f"requests/s:                  {len(first) / generation:7.1f}")
    print(
        f"requests in flight:          max {peak}, mean {mean:.1f} "
        f"(--codegen-concurrency {CONCURRENCY} x 2 processes = {2 * CONCURRENCY})"
    )
    print(
        f"graded / passed:             {total} / {passed} "
        f"({'all' if total == passed == args.problems else 'NOT all'})"
    )
    print(
        f"sequential client:           {sequential:7.1f} s ({args.problems} x {args.latency:g} s"
        f"; measured {per_request:.3f} s/request over {sequential_requests} requests "
        f"-> {args.problems * per_request:.1f} s)"
    )
    print(f"ratio sequential/generation: {sequential / generation:7.1f}x")
    print(
        f"rerun over the same cache:   {rerun_requests} requests, {rerun_wall:.1f} s wall, "
        f"{rerun_total} graded / {rerun_passed} passed"
    )


if __name__ == "__main__":
    main()
