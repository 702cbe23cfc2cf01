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

``--scenario ratelimit`` runs ``-n 2`` against a server with a provider's rate limit
(``tests/fake_limits.py``: a token bucket of ``--rates`` requests/s, one second's worth at
once, and of ``--tpm`` tokens/min when given, answering 429 with ``retry-after-ms``,
``Retry-After`` and the ``x-ratelimit-*`` headers OpenAI sends, which every answer carries).
It prints the requests admitted as a share of what the bucket allowed over the run (its
burst plus the rate times the time from the first request to the last), the share of
requests answered 429, and whether every sample was graded.

``--scenario faults`` runs ``-n 2`` over ``--problems`` problems with ``--samples`` samples
each, at ``--latency``, first without faults, then with the first attempt of a prompt
answered 429 (``Retry-After: 1``) one time in ten, 500 one time in 12.5 and dropped one time
in 25, uncorrelated with load; it prints both wall times and their ratio.

    python benchmarks/perf/generation_throughput.py [--problems 1000] [--latency 1.0]
                                                    [--workers 2,4] [--sequential 10]
    python benchmarks/perf/generation_throughput.py --scenario ratelimit --rates 20,200
                                                    [--latency 0.2] [--seconds 10]
    python benchmarks/perf/generation_throughput.py --scenario faults --problems 164
                                                    --samples 2 --latency 0.2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import requests
from plugin_run import PYTEST

REPO = Path(__file__).resolve().parents[2]
TARGET_S = 12.0  # the goal for 1000 prompts at 1 s latency, with -n 2
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
            *PYTEST,
            str(suite),
            "--codegen-model=vllm:bench",
            f"--codegen-base-url={url}",
            f"--codegen-cache={cache}",
            "-q",
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


def not_passed(results: Path) -> dict[str, int]:
    """The outcomes of the samples that did not pass, counted."""
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    out: dict[str, int] = {}
    for row in rows:
        if not row["passed"]:
            out[row["outcome"]] = out.get(row["outcome"], 0) + 1
    return out


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


def rate_limited(args: argparse.Namespace) -> None:
    """``-n 2`` against a token bucket of each rate in ``--rates``."""
    fake, problems = test_modules()
    import fake_limits

    print(
        f"rate-limited server, -n 2, latency {args.latency:g} s, {args.seconds:g} s of work; "
        "'client' is the same run against the server without a limit (this machine's ceiling)"
    )
    print(
        f"{'limit':>22} {'requests':>8} {'429s':>6} {'429 share':>9} {'of limit':>8} {'gen s':>6}"
    )
    for rate in [float(r) for r in args.rates.split(",") if r.strip()]:
        count = int(rate * args.seconds)
        limit = fake_limits.BucketLimit(requests_per_s=rate, tokens_per_min=args.tpm)
        speeds = []
        for bucket in (None, limit):
            with (
                tempfile.TemporaryDirectory() as tmp,
                fake.FakeProviders(
                    reply=problems.reply, latency_s=args.latency, openai_key=None, limit=bucket
                ) as server,
            ):
                workdir = Path(tmp)
                suite = problems.write_suite(workdir / "tiny.jsonl", count)
                row = measure(server, args.latency, suite, workdir, "limited", "-n", "2")
                row["not passed"] = not_passed(row["results"])
            speeds.append(row["requests"] / row["generation"])
        admitted = [t for t, ok in limit.log if ok]
        allowed = limit.caps["requests"] + rate * (max(admitted) - min(admitted))
        throttled = len(limit.log) - len(admitted)
        ok = "all" if row["graded"] == row["passed"] == count else "NOT all"
        label = f"{rate:g} req/s" + (f", {args.tpm:g} tok/min" if args.tpm else "")
        print(
            f"{label:>22} {len(limit.log):8d} {throttled:6d} {throttled / len(limit.log):9.1%} "
            f"{len(admitted) / allowed:8.1%} {row['generation']:6.1f}  "
            f"{row['graded']}/{row['passed']} graded/passed ({ok}{row['not passed'] or ''}); "
            f"client {speeds[0]:.0f} req/s without a limit"
        )


class FaultMix:
    """The first attempt of a prompt: 429 (Retry-After: 1) one time in ten, 500 one in
    12.5, dropped one in 25, chosen by a hash of the prompt (uncorrelated with load)."""

    def __init__(self, fake: Any) -> None:
        self._fake = fake
        self._seen: set[str] = set()
        self.counts = {"429": 0, "500": 0, "drop": 0}

    def __call__(self, request: Any) -> Any:
        prompt = request.user_text
        if prompt in self._seen:
            return None
        self._seen.add(prompt)
        draw = int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16) / 16**8
        if draw < 0.10:
            self.counts["429"] += 1
            return self._fake.Fault.http(429, retry_after="1")
        if draw < 0.18:
            self.counts["500"] += 1
            return self._fake.Fault.http(500)
        if draw < 0.22:
            self.counts["drop"] += 1
            return self._fake.Fault.drop()
        return None


def fault_mix(args: argparse.Namespace) -> None:
    """``-n 2`` without faults and with the fault mix, each over a fresh cache."""
    fake, problems = test_modules()
    options = ("-n", "2", f"--codegen-samples={args.samples}")
    rows = []
    for faulty in (False, True):
        mix = FaultMix(fake) if faulty else None
        with (
            tempfile.TemporaryDirectory() as tmp,
            fake.FakeProviders(
                reply=problems.reply, latency_s=args.latency, openai_key=None, fault=mix
            ) as server,
        ):
            workdir = Path(tmp)
            suite = problems.write_suite(workdir / "tiny.jsonl", args.problems)
            row = measure(server, args.latency, suite, workdir, "mix", *options)
        rows.append((mix, row))
    print(
        f"fault mix, -n 2: {args.problems} problems x {args.samples} samples, "
        f"latency {args.latency:g} s"
    )
    for mix, row in rows:
        label = f"faults {mix.counts}" if mix is not None else "no faults"
        want = args.problems * args.samples
        ok = "all" if row["graded"] == row["passed"] == want else "NOT all"
        print(
            f"  {label}: {row['wall']:.1f} s wall, generation {row['generation']:.1f} s, "
            f"{row['requests']} requests, {row['graded']}/{row['passed']} graded/passed ({ok})"
        )
    clean, faulty = rows[0][1], rows[1][1]
    print(
        f"  with faults / without: {faulty['wall'] / clean['wall']:.2f}x wall, "
        f"{faulty['generation'] / clean['generation']:.2f}x generation"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--scenario", choices=("inflight", "ratelimit", "faults"), default="inflight"
    )
    parser.add_argument("--rates", default="20,200", help="requests/s of each rate limit")
    parser.add_argument("--tpm", type=float, default=None, help="tokens/min of the rate limit")
    parser.add_argument("--seconds", type=float, default=10.0, help="work at each rate limit")
    parser.add_argument("--samples", type=int, default=1, help="samples per problem (faults)")
    parser.add_argument("--problems", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per request")
    parser.add_argument("--workers", default="2,4", help="the -n values to run, comma-separated")
    parser.add_argument(
        "--sequential", type=int, default=10, help="requests to time with a sequential client"
    )
    args = parser.parse_args()
    if args.scenario == "ratelimit":
        rate_limited(args)
        return
    if args.scenario == "faults":
        fault_mix(args)
        return
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
