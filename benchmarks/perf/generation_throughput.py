"""Throughput of generating and grading through an HTTP model: pytest-codegen under -n 2
and -n 4, against a sequential client and against the old budget of 16 requests per process.

A HumanEval-format suite of ``--problems`` tiny problems (``f_i(x) = x + i``) is graded with
``--codegen-model=vllm:bench`` against the fake OpenAI-compatible server of
``tests/fake_providers.py``, run in this process on 127.0.0.1 with a fixed latency per request
(1 s by default) and replying with each problem's right answer, fenced. For each ``-n`` it
runs twice, each over a fresh generation cache: with the default ``--codegen-concurrency`` (one
budget for the whole run) and, as the baseline, with the in-flight bound of the old per-process
budget (16 per process: ``--codegen-concurrency=16 x n``). Each line gives the total wall time,
the generation time (first request's arrival to last response, from the server's timestamps),
requests/s, the requests in flight (most at once, and the mean), and whether every sample was
graded and passed; below them, the time a sequential client (one request at a time, as
WebApp1K's generation script) would need: ``problems x latency``, checked by timing a few
sequential requests with ``requests``. A second run over the first cache must send no request.

    python benchmarks/perf/generation_throughput.py [--problems 1000] [--latency 1.0]
                                                    [--workers 2,4] [--sequential 10]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import requests

REPO = Path(__file__).resolve().parents[2]
TARGET_S = 15.0  # generation time allowed for 1000 prompts at 1 s latency
OLD_PER_PROCESS = 16  # the old default --codegen-concurrency, which bounded each process


def test_modules() -> tuple[Any, Any]:
    """``tests/fake_providers.py`` and ``tests/many_problems.py`` (the tests directory is not
    a package)."""
    sys.path.insert(0, str(REPO / "tests"))
    import fake_providers
    import many_problems

    return fake_providers, many_problems


def run_plugin(
    suite: Path, url: str, cache: Path, results: Path, workdir: Path, *options: str
) -> float:
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
            "-q",
            "-p",
            "no:cacheprovider",
            f"--codegen-results={results}",
            *options,
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


def measure(
    server: Any, latency: float, suite: Path, workdir: Path, name: str, *options: str
) -> dict[str, Any]:
    """One pytest run over a fresh generation cache, with the server's view of it."""
    cache, results = workdir / f"generations-{name}", workdir / f"results-{name}.jsonl"
    before = len(server.requests)
    server.peak_in_flight = 0
    wall = run_plugin(suite, server.openai_url, cache, results, workdir, *options)
    sent = server.requests[before:]
    intervals = [(r.time, r.time + latency) for r in sent]
    total, passed = graded(results)
    return {
        "wall": wall,
        "requests": len(sent),
        "generation": max(e for _, e in intervals) - min(s for s, _ in intervals),
        "peak": server.peak_in_flight,
        "mean": in_flight(intervals)[1],
        "graded": total,
        "passed": passed,
        "cache": cache,
        "results": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--problems", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per request")
    parser.add_argument("--workers", default="2,4", help="the -n values to run, comma-separated")
    parser.add_argument(
        "--sequential", type=int, default=10, help="requests to time with a sequential client"
    )
    args = parser.parse_args()
    fake, problems = test_modules()
    workers = [int(w) for w in args.workers.split(",") if w.strip()]

    rows: list[tuple[str, dict[str, Any]]] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        fake.FakeProviders(reply=problems.reply, latency_s=args.latency, openai_key=None) as server,
    ):
        workdir = Path(tmp)
        suite = workdir / "tiny.jsonl"
        problems.write_suite(suite, args.problems)
        for n in workers:
            old = OLD_PER_PROCESS * n
            rows.append(
                (
                    f"-n {n}, default budget",
                    measure(server, args.latency, suite, workdir, f"new{n}", "-n", str(n)),
                )
            )
            rows.append(
                (
                    f"-n {n}, old: {OLD_PER_PROCESS}/process (={old})",
                    measure(
                        server,
                        args.latency,
                        suite,
                        workdir,
                        f"old{n}",
                        "-n",
                        str(n),
                        f"--codegen-concurrency={old}",
                    ),
                )
            )

        before = len(server.requests)
        sequential_measured = sequential_client(server.openai_url, args.sequential)
        sequential_requests = len(server.requests) - before

        first = rows[0][1]
        before = len(server.requests)
        rerun_wall = run_plugin(
            suite, server.openai_url, first["cache"], first["results"], workdir, "-n", "2"
        )
        rerun_requests = len(server.requests) - before
        rerun_total, rerun_passed = graded(first["results"])

    sequential = args.problems * args.latency
    per_request = sequential_measured / max(1, sequential_requests)
    target = TARGET_S * args.problems / 1000 * args.latency
    print(
        f"{args.problems} problems (1 sample each), server latency {args.latency:g} s/request; "
        f"generation target <= {target:.0f} s"
    )
    print(
        f"{'run':34} {'wall s':>7} {'gen s':>7} {'req/s':>6} {'peak':>5} {'mean':>6} "
        f"{'requests':>8}  graded/passed"
    )
    for label, row in rows:
        ok = "all" if row["graded"] == row["passed"] == args.problems else "NOT all"
        print(
            f"{label:34} {row['wall']:7.1f} {row['generation']:7.1f} "
            f"{row['requests'] / row['generation']:6.1f} {row['peak']:5d} {row['mean']:6.1f} "
            f"{row['requests']:8d}  {row['graded']}/{row['passed']} ({ok})"
        )
    print(
        f"sequential client: {sequential:.1f} s ({args.problems} x {args.latency:g} s; measured "
        f"{per_request:.3f} s/request over {sequential_requests} requests -> "
        f"{args.problems * per_request:.1f} s)"
    )
    for label, row in rows:
        print(
            f"  {label}: {sequential / row['generation']:.1f}x faster than sequential "
            f"(generation {'meets' if row['generation'] <= target else 'MISSES'} the target)"
        )
    print(
        f"rerun of the first over its cache: {rerun_requests} requests, {rerun_wall:.1f} s wall, "
        f"{rerun_total} graded / {rerun_passed} passed"
    )


if __name__ == "__main__":
    main()
