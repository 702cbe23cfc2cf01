"""Generation through a real HTTP model server on 127.0.0.1, end to end through pytest."""

from __future__ import annotations

import json

import pytest
from conftest import TINY, XDIST_MODES, read_results, run_vllm, wait_until
from fake_providers import FakeProviders, Fault

PROBLEMS = [json.loads(line) for line in TINY.read_text().splitlines()]


def solve(request, index: int) -> str:
    """Answer like a chat model: the whole function in a fence, found by its prompt."""
    text = json.dumps(request.body)
    for p in PROBLEMS:
        if json.dumps(p["prompt"])[1:-1] in text:
            return f"Here it is:\n```python\n{p['prompt']}{p['canonical_solution']}```\n"
    return "I don't know."


@pytest.fixture
def server():
    with FakeProviders(reply=solve, openai_key=None) as fake:  # a local vLLM needs no key
        yield fake


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_generates_grades_and_caches(pytester, tiny, server, xdist):
    first = run_vllm(
        pytester,
        server,
        str(tiny),
        "--codegen-samples=4",
        "--codegen-k=1,4",
        "--codegen-temperature=0.2",
        *xdist,
    )
    first.assert_outcomes(passed=12)
    records = read_results(pytester.path / "r.jsonl")
    assert sorted(r["nodeid"] for r in records) == sorted(
        {r["nodeid"] for r in records}
    )  # every sample graded exactly once
    assert len(records) == 12
    requested = sum(r.n for r in server.requests)
    assert requested == 12  # one sample requested once, whichever worker needed it
    body = server.requests[0].body
    assert body["model"] == "tiny-coder" and body["temperature"] == 0.2
    assert body["messages"][-1]["role"] == "user"
    assert all(
        r.headers.get("authorization") is None or r.headers["authorization"]
        for r in server.requests
    )
    before = len(server.requests)
    again = run_vllm(
        pytester,
        server,
        str(tiny),
        "--codegen-samples=4",
        "--codegen-k=1,4",
        *xdist,
        "--codegen-temperature=0.2",
    )
    again.assert_outcomes(passed=12)
    assert len(server.requests) == before  # a rerun makes zero requests
    assert all(r.get("cached") for r in read_results(pytester.path / "r.jsonl"))


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_another_server_of_the_same_model_name_is_not_answered_from_the_cache(
    pytester, tiny, server, xdist
):
    # Two checkpoints served as vllm:tiny-coder, one cache: the second server's answers are
    # its own, not the first's cached as if they were.
    run_vllm(pytester, server, str(tiny), *xdist).assert_outcomes(passed=3)
    with FakeProviders(reply=lambda request, index: "I don't know.", openai_key=None) as other:
        run_vllm(pytester, other, str(tiny), *xdist).assert_outcomes(failed=3)
        assert sum(r.n for r in other.requests) == 3
    before = len(server.requests)
    run_vllm(pytester, server, str(tiny), *xdist).assert_outcomes(passed=3)
    assert len(server.requests) == before  # each server's answers stay cached


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_cache_entry_that_holds_no_answer_is_requested_again(pytester, tiny, server, xdist):
    # Entries of valid JSON whose completion is not an answer were graded as one: a text that
    # is no string crashed its sample (TypeError), one marked missing was skipped.
    run_vllm(pytester, server, str(tiny), *xdist).assert_outcomes(passed=3)
    entries = sorted((pytester.path / "gen-cache").glob("??/*.json"))
    broken = [{"text": None}, {"text": 5}, {"text": "", "missing": True}]
    for path, completion in zip(entries, broken, strict=True):
        entry = json.loads(path.read_text())
        path.write_text(json.dumps(dict(entry, completion=completion)))
    before = len(server.requests)
    result = run_vllm(pytester, server, str(tiny), *xdist)
    result.assert_outcomes(passed=3)
    assert sum(r.n for r in server.requests[before:]) == 3
    assert "TypeError" not in result.stdout.str()


def test_a_providers_own_endpoint_keeps_the_cache_keys_of_its_spec():
    # Caches written before the endpoint was part of a key still answer the provider's own.
    from pytest_codegen.models.connect import make_provider_model

    model = make_provider_model("openai:gpt-4o", env={"OPENAI_API_KEY": "sk-test-key"})
    assert model.endpoint is None
    assert make_provider_model("vllm:m", env={}).endpoint is None


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_faults_are_retried_and_scores_unchanged(pytester, tiny, server, xdist):
    # One request in five fails once: 429 with Retry-After, 500, a reset connection.
    server.script(Fault.http(429, retry_after="0.1"), Fault.http(500), Fault.drop())
    result = run_vllm(pytester, server, str(tiny), "--codegen-samples=5", "--codegen-k=1,5", *xdist)
    result.assert_outcomes(passed=15)
    assert {r["outcome"] for r in read_results(pytester.path / "r.jsonl")} == {"passed"}
    result.stdout.fnmatch_lines(["*tiny*1.000*1.000*"])


def test_api_error_is_its_own_outcome(pytester, tiny, server):
    server.script(*[Fault.http(500)] * 50)
    result = run_vllm(pytester, server, "tiny.jsonl::tiny_add", "--codegen-samples=1")
    records = read_results(pytester.path / "r.jsonl")
    assert [r["outcome"] for r in records] == ["api_error"]
    assert "HTTP 500" in records[0]["error"]
    result.assert_outcomes(errors=1)  # an infrastructure error, not a failed sample
    result.stdout.fnmatch_lines(["*pass@1*", "*n/a*"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_sample_that_fails_is_requested_by_one_worker(pytester, tiny, server, xdist):
    # With -n 2 both workers prefetch every sample; the one that does not grade it may ask
    # first. Its API error is the run's answer for that sample: the grading worker takes it
    # instead of asking the failing server again, so the server sees what a plain run sends.
    server.fault = lambda req: Fault.answer(400, {"error": {"message": "prompt too long"}})
    result = run_vllm(pytester, server, "tiny.jsonl::tiny_add", "--codegen-samples=3", *xdist)
    result.assert_outcomes(errors=3)
    records = read_results(pytester.path / "r.jsonl")
    assert [r["outcome"] for r in records] == ["api_error"] * 3
    assert all("prompt too long" in r["error"] for r in records)
    assert sorted(r.n for r in server.requests) == [3], [r.n for r in server.requests]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_rate_limit_asking_no_wait_ends_in_an_api_error(pytester, tiny, server, xdist):
    # Retry-After: 0 on every 429 was asked again at once, without end (40 here, then an
    # answer); it is backed off, and the retry wait limit ends it.
    server.script(*[Fault.http(429, retry_after="0")] * 40)
    args = ("tiny.jsonl::tiny_add", "--codegen-samples=1", "--codegen-max-retry-wait=1")
    result = run_vllm(pytester, server, *args, *xdist)
    result.assert_outcomes(errors=1)
    [record] = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "api_error" and "retry wait limit of 1s" in record["error"]
    assert len(server.requests) < 40


def test_missing_key_fails_at_start(pytester, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = pytester.runpytest_subprocess("--codegen-model=openai:gpt-4o")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "OPENAI_API_KEY" in result.stderr.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("key", ["sk-proj-\u201cabcdefgh\u201d", "sk-proj-abcd\nefgh"])
def test_a_key_no_header_can_carry_fails_at_start(pytester, tiny, monkeypatch, key, xdist):
    monkeypatch.setenv("OPENAI_API_KEY", key)
    result = pytester.runpytest_subprocess("--codegen-model=openai:gpt-4o", str(tiny), *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # not a crashed sample each, key shown
    result.stderr.fnmatch_lines(
        ["ERROR: *'openai:gpt-4o': OPENAI_API_KEY holds characters other than printable ASCII*"]
    )
    assert "abcd" not in result.stdout.str() + result.stderr.str()


def test_unknown_provider_fails_at_start(pytester):
    result = pytester.runpytest_subprocess("--codegen-model=nosuch:model")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown provider 'nosuch'" in result.stderr.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_provider_is_named_in_any_case(pytester, tiny, server, xdist):
    # As its vendor spells it: VLLM is vllm (it was "unknown provider 'VLLM'", exit 4).
    for spec in ("VLLM:tiny-coder", "vllm:tiny-coder"):
        result = pytester.runpytest_subprocess(
            f"--codegen-model={spec}",
            f"--codegen-base-url={server.openai_url}",
            f"--codegen-cache={pytester.path / 'gen-cache'}",
            f"--codegen-results={spec[:4]}.jsonl",
            str(tiny),
            *xdist,
        )
        result.assert_outcomes(passed=3)
        # One model: recorded under one spec, and answered from the cache the second time.
        assert {r["model"] for r in read_results(pytester.path / f"{spec[:4]}.jsonl")} == {
            "vllm:tiny-coder"
        }
        assert len(server.requests) == 3
    assert {r.body["model"] for r in server.requests} == {"tiny-coder"}


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_anthropic_base_url_ending_in_v1_is_not_given_a_second(
    pytester, tiny, monkeypatch, xdist
):
    # .../v1, as OpenAI-style clients take it: every request went to /v1/v1/messages (404).
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak-test")
    with FakeProviders(reply=solve) as fake:
        result = pytester.runpytest_subprocess(
            "--codegen-model=anthropic:claude-x",
            f"--codegen-base-url={fake.url}/v1/",
            f"--codegen-cache={pytester.path / 'gen-cache'}",
            str(tiny),
            *xdist,
        )
        result.assert_outcomes(passed=3)
        assert {r.path for r in fake.requests} == {"/v1/messages"}


def test_unknown_provider_lists_the_known_ones(pytester):
    result = pytester.runpytest_subprocess("--codegen-model=Foo:model")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *unknown provider 'Foo' (known: anthropic, *, vllm)"])


def test_alias_from_ini(pytester, tiny, server):
    pytester.makeini(
        "[pytest]\ncodegen_models =\n"
        f"    coder = vllm:tiny-coder temperature=0.3 base_url={server.openai_url}\n"
    )
    result = pytester.runpytest_subprocess("--codegen-model=coder", str(tiny))
    result.assert_outcomes(passed=3)
    assert server.requests[0].body["temperature"] == 0.3


def test_collect_only_shows_the_plan(pytester, tiny, server):
    plan = run_vllm(pytester, server, str(tiny), "--codegen-samples=2", "--collect-only")
    plan.stdout.fnmatch_lines(["6 samples: 0 already generated (cached), 6 to request*"])
    assert server.requests == []  # planning makes no request
    run_vllm(pytester, server, "tiny.jsonl::tiny_add", "--codegen-samples=2")
    plan = run_vllm(pytester, server, str(tiny), "--codegen-samples=2", "--collect-only")
    plan.stdout.fnmatch_lines(["6 samples: 2 already generated (cached), 4 to request*"])


EVERYDAY = [
    json.loads(x)
    for x in (TINY.parents[2] / "benchmarks" / "python" / "everyday.jsonl").read_text().splitlines()
]


def solve_everyday(request, index: int) -> str:
    text = json.dumps(request.body)
    for p in EVERYDAY:
        if json.dumps(p["prompt"])[1:-1] in text:
            return f"```python\n{p['prompt']}{p['canonical_solution']}```\n"
    return "no"


def cached_entries(cache) -> int:
    return sum(
        1 for p in cache.rglob("*.json") if "claims" not in p.parts and "ratelimit" not in p.parts
    )


# A process started by a background job inherits SIGINT ignored (POSIX shells ignore it in
# asynchronous commands: `.ci/run &`, `nohup`), and Python keeps ignoring a signal it starts
# with ignored: the run under test would never see the SIGINT. It gets SIGINT's default back,
# as the foreground job of a terminal has it, then becomes the pytest run (same pid).
SIGINT_AS_A_TERMINAL_HAS_IT = [
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])",
]


@pytest.mark.parametrize("how", ["sigint", "sigint_plain", "kill_worker"])
def test_interrupted_run_resumes_without_repeating_requests(pytester, how):
    """Interrupted midway (SIGINT to pytest, with xdist or without; or an xdist worker
    killed), with requests the provider holds unanswered: the run ends all the same, and a
    rerun asks only for what was not generated."""
    import os
    import signal
    import subprocess
    import sys

    suite = pytester.path / "everyday.jsonl"
    suite.write_text((TINY.parents[2] / "benchmarks" / "python" / "everyday.jsonl").read_text())
    cache = pytester.path / "gen-cache"
    answered = 10  # then the server holds every request until the run has been interrupted
    with FakeProviders(reply=solve_everyday, openai_key=None, latency_s=0.25) as server:
        server.hold_after = answered
        args = [
            sys.executable,
            *SIGINT_AS_A_TERMINAL_HAS_IT,
            "-X",
            "faulthandler",  # a run that does not end is made to say where it stands
            "-m",
            "pytest",
            str(suite),
            "--codegen-model=vllm:m",
            f"--codegen-base-url={server.openai_url}",
            f"--codegen-cache={cache}",
            "--codegen-concurrency=2",
            *(["-p", "no:xdist"] if how == "sigint_plain" else ["-n", "2"]),
            "-q",
            "-p",
            "no:cacheprovider",
        ]
        first_stderr = pytester.path / "first.stderr"
        proc = subprocess.Popen(
            args + ["--codegen-results=first.jsonl"],
            cwd=pytester.path,
            stdout=subprocess.DEVNULL,
            stderr=first_stderr.open("w"),
            start_new_session=True,
        )
        try:
            # Midway, however fast or slow the machine: the answered samples are in the cache
            # and the run waits for the next replies.
            wait_until(
                lambda: cached_entries(cache) == answered and server.held > 0,
                "the first replies cached, the next ones held",
            )
            if how.startswith("sigint"):
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(timeout=900)  # it ends with requests unanswered, released below
                except subprocess.TimeoutExpired:
                    proc.send_signal(signal.SIGABRT)  # faulthandler prints every thread
                    proc.wait(timeout=60)
                    stacks = first_stderr.read_text(errors="replace")[-6000:]
                    raise AssertionError(f"the run did not end on SIGINT:\n{stacks}") from None
            else:  # kill one xdist worker; xdist replaces it and the run goes on
                workers = subprocess.run(
                    ["pgrep", "-f", "-P", str(proc.pid), "execnet"], capture_output=True, text=True
                ).stdout.split()
                workers = (
                    workers
                    or subprocess.run(
                        ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True
                    ).stdout.split()
                )
                assert workers, "no xdist worker found"
                subprocess.run(["kill", "-9", workers[0]])
                server.release()
                proc.wait(timeout=900)
        finally:
            server.release()
            if proc.poll() is None:  # the test failed: end the run and its workers
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        generated = cached_entries(cache)
        requested_first = server.count()
        first = read_results(pytester.path / "first.jsonl")
        assert len(first) == len({r["nodeid"] for r in first})  # never a sample twice
        if how == "kill_worker":  # the run went on: every sample is listed
            assert len(first) == len(EVERYDAY)
        assert 0 < generated < len(EVERYDAY) or how == "kill_worker"
        second = subprocess.run(
            args + ["--codegen-results=second.jsonl"],
            cwd=pytester.path,
            capture_output=True,
            text=True,
            timeout=900,  # a guard against a hang, not a bound: a loaded machine is slow
        )
        assert server.count() - requested_first == len(EVERYDAY) - generated, second.stdout[-2000:]
    records = read_results(pytester.path / "second.jsonl")
    assert len(records) == len({r["nodeid"] for r in records}) == len(EVERYDAY)
    assert {r["outcome"] for r in records} == {"passed"}


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_without_any_cache_each_sample_is_still_requested_once(
    pytester, monkeypatch, tiny, server, xdist
):
    # No --codegen-cache and no pytest cache (common in CI): the workers of one run still
    # share their claims, so no sample is requested by two of them.
    user_cache = pytester.path / "user-cache"
    monkeypatch.setenv("PYTEST_CODEGEN_CACHE", str(user_cache))

    def run():
        return pytester.runpytest_subprocess(
            "--codegen-model=vllm:tiny-coder",
            f"--codegen-base-url={server.openai_url}",
            str(tiny),
            "--codegen-samples=4",
            "-p",
            "no:cacheprovider",
            *xdist,
        )

    run().assert_outcomes(passed=12)
    assert sum(r.n for r in server.requests) == 12
    assert list((user_cache / "runs").iterdir()) == []  # what the run shared is gone
    run().assert_outcomes(passed=12)
    assert sum(r.n for r in server.requests) == 24  # no cache: a new run asks again


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_key_the_server_quotes_back_is_shown_nowhere(pytester, tiny, server, xdist, monkeypatch):
    key = "sk-proj-Secret0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    server.fault = lambda req: Fault.answer(  # a quota error quoting the request's key
        429,
        {"error": {"message": f"quota used up for {req.headers['authorization']}",
                   "type": "insufficient_quota"}},
    )  # fmt: skip
    result = pytester.runpytest_subprocess(
        "--codegen-model=openai:gpt-4o",
        f"--codegen-base-url={server.openai_url}",
        f"--codegen-cache={pytester.path / 'gen-cache'}",
        "--codegen-results=r.jsonl",
        "--codegen-html=r.html",
        "--junitxml=j.xml",
        "-rA",
        str(tiny),
        *xdist,
    )
    assert key in str(server.requests[0].headers)  # it was sent, and quoted back
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines(
        ["*model API error: HTTP 429 from openai: quota used up for Bearer ***"]
    )
    result.stdout.fnmatch_lines(
        ["*no further requests: openai:gpt-4o: quota or spend limit*Bearer ***)"]
    )
    written = [p for p in pytester.path.rglob("*") if p.is_file() and p.suffix != ".py"]
    assert {"r.jsonl", "r.html", "j.xml"} <= {p.name for p in written}
    assert any("gen-cache" in str(p) for p in written)
    shown = [result.stdout.str(), result.stderr.str()]
    shown += [p.read_text(errors="replace") for p in written]
    assert not [text for text in shown if key in text]
