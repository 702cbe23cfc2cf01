"""Waits, quotas and streamed replies, against fake provider servers on 127.0.0.1 that answer
as the real APIs do (status, headers, body, event streams)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from conftest import XDIST_MODES, read_results, run_vllm
from fake_providers import FakeProviders, Fault, Reply, connect
from fake_rules import anthropic_error

from pytest_codegen.models.base import GenerationRequest, Prompt
from pytest_codegen.problems import Problem

PROBLEM = Problem(
    id="T/0", suite="t", category="c", language="python", mode="python-call", prompt="p", tests=""
)


def request(n: int = 1) -> GenerationRequest:
    return GenerationRequest(PROBLEM, Prompt("write f", "be terse"), tuple(range(n)))


@pytest.fixture
def fake() -> Iterator[FakeProviders]:
    with FakeProviders(openai_key=None, anthropic_key=None, gemini_key=None) as server:
        yield server


def gemini_429(delay: str) -> Fault:
    return Fault.answer(
        429,
        {
            "error": {
                "code": 429,
                "message": "You exceeded your current quota, please check your plan and billing "
                "details.",
                "status": "RESOURCE_EXHAUSTED",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                        "violations": [{"quotaMetric": "generate_content_free_tier_requests"}],
                    },
                    {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay},
                ],
            }
        },
    )


# --------------------------------------------------------------------------- waits


def test_gemini_retry_delay_in_the_body_is_honoured(fake):
    fake.script(gemini_429("1s"))
    out = connect(fake, "gemini:gemini-2.5-flash").generate(request())
    assert out[0].error is None and fake.count() == 2
    assert fake.requests[1].time - fake.requests[0].time >= 1.0


def test_a_wait_beyond_the_retry_budget_ends_the_request_at_once(fake):
    fake.script(gemini_429("22s"))
    out = connect(fake, "gemini:gemini-2.5-flash", max_retry_wait_s=5).generate(request())
    assert fake.count() == 1
    assert out[0].error is not None and out[0].error.startswith(
        "HTTP 429 from gemini: You exceeded your current quota"
    )
    assert "it asked for 2" in out[0].error and "--codegen-max-retry-wait" in out[0].error


def test_retry_after_ms_is_honoured(fake):
    # Retry-After alone would be beyond the retry budget: the request would end at once.
    fake.script(Fault.http(429, retry_after_ms="400", retry_after="30"))
    out = connect(fake, "openai:gpt-4o", max_retry_wait_s=5).generate(request())
    assert out[0].error is None and fake.count() == 2  # the finer header wins
    assert fake.requests[1].time - fake.requests[0].time >= 0.4


def test_rate_limits_are_retried_beyond_a_fixed_attempt_count(fake):
    # Ten 429s in a row: more than the attempts allowed after server errors, well within
    # the wait budget — a per-minute quota window is waited out, not given up on.
    fake.script(*[Fault.http(429, retry_after="0.05")] * 10)
    out = connect(fake, "vllm:m", max_attempts=3).generate(request())
    assert out[0].error is None and fake.count() == 11


@pytest.mark.parametrize(
    "headers",
    [
        {"retry_after": "0"},
        {"retry_after_ms": "0"},
        {"retry_after": "Wed, 21 Oct 2015 07:28:00 GMT"},
    ],
    ids=["seconds", "ms", "past-date"],
)
def test_a_rate_limit_asking_no_wait_is_backed_off_within_the_wait_budget(fake, headers):
    # A wait of 0 counted nothing against the budget, and a rate limit has no attempt count:
    # a server answering so every time was asked again at once, without end.
    fake.script(*[Fault.http(429, **headers)] * 40)
    out = connect(fake, "vllm:m", max_retry_wait_s=1).generate(request())
    assert fake.count() < 40
    assert "next" in out[0].error and "the retry wait limit of 1s" in out[0].error


def test_openai_insufficient_quota_is_not_retried_and_stops_the_model(fake):
    quota = {
        "error": {
            "message": "You exceeded your current quota, please check your plan and billing "
            "details.",
            "type": "insufficient_quota",
            "param": None,
            "code": "insufficient_quota",
        }
    }
    fake.script(Fault.answer(429, quota, {"Retry-After": "1"}))
    m = connect(fake, "openai:gpt-4o")
    out = m.generate(request(n=2))
    assert fake.count() == 1
    message = "You exceeded your current quota, please check your plan and billing details."
    assert [c.error for c in out] == [f"HTTP 429 from openai: {message}"] * 2
    assert m.generate(request())[0].error.startswith("not requested: openai:gpt-4o: quota")
    assert fake.count() == 1


@pytest.mark.parametrize(
    ("status", "body"),
    [
        pytest.param(
            400,
            anthropic_error(
                "You have reached your specified API usage limits. You will regain access on "
                "2026-01-01 at 00:00 UTC."
            ),
            id="usage-limit",
        ),
        pytest.param(
            429,
            {"type": "error", "error": {"type": "enforced_spend_limit_reached", "message": "x"}},
            id="spend-limit",
        ),
        pytest.param(
            402, anthropic_error("Your credit balance is too low", "billing_error"), id="billing"
        ),
    ],
)
def test_anthropic_spend_limits_are_not_retried_and_stop_the_model(fake, status, body):
    fake.script(Fault.answer(status, body, {"retry-after": "1"}))
    m = connect(fake, "anthropic:claude-sonnet-4-5")
    assert m.generate(request())[0].error.startswith(f"HTTP {status} from anthropic")
    assert m.stopped is not None and "quota or spend limit" in m.stopped
    assert m.generate(request())[0].error.startswith("not requested:")
    assert fake.count() == 1


# --------------------------------------------------------------------------- streaming


def reasoned(req, i: int) -> Reply:
    return Reply(f"def f{i}():\n    return {i}\n", reasoning=f"plan {i}, then code")


@pytest.mark.parametrize(
    ("spec", "n"),
    [("openai:gpt-4o", 3), ("deepseek:deepseek-chat", 1), ("anthropic:claude-x", 1),
     ("gemini:gemini-2.5-pro", 3)],
)  # fmt: skip
def test_streamed_replies_record_text_reasoning_and_usage_as_plain_ones(fake, spec, n):
    fake.reply = reasoned
    env = {"DEEPSEEK_API_KEY": "k"}
    streamed = connect(fake, spec, env=env).generate(request(n))
    plain = connect(fake, spec, env=env, stream=False).generate(request(n))
    assert [r.streamed for r in fake.requests] == [True] * (len(fake.requests) // 2) + [False] * (
        len(fake.requests) // 2
    )
    assert all(r.error is None for r in fake.requests)

    def same(c):
        return dataclasses.replace(c, latency_s=None)

    assert [same(c) for c in streamed] == [same(c) for c in plain]
    assert streamed[-1].text == f"def f{n - 1}():\n    return {n - 1}\n"
    assert streamed[0].reasoning == "plan 0, then code"
    assert all(c.prompt_tokens and c.completion_tokens for c in streamed)
    assert fake.completed == len(fake.requests)


def test_a_long_streamed_reply_completes_once_and_is_billed_once(fake):
    fake.reply = lambda req, i: Reply("word " * 40, reasoning="think " * 10)
    fake.chunk_delay_s = 0.4  # each event well within the read timeout...
    m = connect(fake, "anthropic:claude-sonnet-4-5", timeout_s=2.0)
    out = m.generate(request())
    assert out[0].error is None and out[0].text == "word " * 40
    assert out[0].latency_s is not None and out[0].latency_s > 3 * m.timeout_s  # ...not in sum
    assert fake.count() == 1 and fake.completed == 1  # requested once, billed once
    assert out[0].completion_tokens == 40  # the usage of one reply


def test_an_unstreamed_reply_slower_than_the_timeout_is_requested_again(fake):
    # What streaming avoids: without it the client cannot tell a long reply from a dead one.
    fake.script(Fault.slow(60))  # held until the server closes
    out = connect(fake, "anthropic:claude-sonnet-4-5", timeout_s=2.0, stream=False).generate(
        request()
    )
    assert out[0].error is None and fake.count() == 2


@pytest.mark.parametrize("spec", ["openai:gpt-4o", "anthropic:claude-x", "gemini:gemini-2.5-pro"])
def test_a_stream_ending_in_an_error_event_is_requested_again(fake, spec):
    fake.script(Fault.stream_error())
    out = connect(fake, spec).generate(request())
    assert out[0].error is None and out[0].text == "reply to 'write f' #0"
    assert fake.count() == 2 and fake.completed == 1


@pytest.mark.parametrize("spec", ["openai:gpt-4o", "anthropic:claude-x", "gemini:gemini-2.5-pro"])
def test_a_stream_cut_off_is_requested_again(fake, spec):
    fake.script(Fault.cut())
    out = connect(fake, spec).generate(request())
    assert out[0].error is None and fake.count() == 2 and fake.completed == 1


PING = b": ping\n\n"  # an SSE comment, as servers and proxies keep a quiet stream open
ANTHROPIC_PING = b'event: ping\ndata: {"type": "ping"}\n\n'
EMPTY_DELTA = b'data: {"choices": [{"index": 0, "delta": {"role": "assistant"}}]}\n\n'
NO_NEWS = b'data: {"candidates": [{"index": 0, "content": {"parts": [{"text": ""}]}}]}\n\n'


@pytest.mark.parametrize(
    ("spec", "payload"),
    [
        pytest.param("openai:gpt-4o", PING, id="openai-comment"),
        pytest.param("openai:gpt-4o", EMPTY_DELTA, id="openai-empty-delta"),
        pytest.param("anthropic:claude-x", PING, id="anthropic-comment"),
        pytest.param("anthropic:claude-x", ANTHROPIC_PING, id="anthropic-ping"),
        pytest.param("gemini:gemini-2.5-pro", PING, id="gemini-comment"),
        pytest.param("gemini:gemini-2.5-pro", NO_NEWS, id="gemini-empty-part"),
    ],
)
def test_a_stream_of_keep_alives_only_times_out_and_is_requested_again(fake, spec, payload):
    fake.script(Fault.keep_alive(payload, 0.2))  # forever, well within the read timeout
    out = connect(fake, spec, timeout_s=1.0).generate(request())
    assert out[0].error is None and out[0].text == "reply to 'write f' #0"
    assert fake.count() == 2 and fake.completed == 1
    fake.script(Fault.keep_alive(payload, 0.2))
    out = connect(fake, spec, timeout_s=1.0, max_attempts=1).generate(request())
    api = spec.split(":")[0]
    assert (
        out[0].error == f"timeout from {api}: only keep-alives streamed for 1s (after 1 attempts)"
    )


def test_keep_alives_between_the_events_of_a_reply_are_no_timeout(fake):
    # Each pause is within the timeout, the whole reply is not: as without keep-alives.
    fake.chunk_delay_s, fake.keep_alive_s = 0.4, 0.1
    out = connect(fake, "openai:gpt-4o", timeout_s=1.0).generate(request())
    assert out[0].error is None and out[0].text == "reply to 'write f' #0"
    assert out[0].latency_s is not None and out[0].latency_s > 2.0
    assert fake.count() == 1


@pytest.mark.parametrize("spec", ["openai:gpt-4o", "anthropic:claude-x", "gemini:gemini-2.5-pro"])
def test_streamed_requests_reuse_their_connection(fake, spec):
    model = connect(fake, spec)
    for _ in range(4):
        assert model.generate(request())[0].error is None
    assert fake.count() == 4 and fake.connections == 1


@pytest.mark.parametrize(
    ("payload", "every_s"),
    [
        pytest.param(PING, 0.05, id="keep-alives"),
        pytest.param(b": " + b"x" * 99_997 + b"\n", 0.05, id="bulk"),
        pytest.param(PING, 3600, id="silent"),  # one, then nothing: not even the body's end
    ],
)
def test_a_stream_going_on_after_its_end_is_not_read_further(fake, payload, every_s):
    text = b'data: {"choices": [{"index": 0, "delta": {"content": "def f(): pass"}}]}\n\n'
    finish = b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'
    fake.script(Fault.keep_alive(payload, every_s, first=(text, finish, b"data: [DONE]\n\n")))
    model = connect(fake, "openai:gpt-4o", timeout_s=3600)  # its reply waits on no read timeout
    out = model.generate(request())
    assert out[0].error is None and out[0].text == "def f(): pass" and fake.count() == 1
    assert model.generate(request())[0].error is None
    assert fake.connections == 2  # that stream's connection was closed, not reused


@pytest.mark.parametrize("spec", ["openai:gpt-4o", "openai-compatible:m"])
def test_a_reply_cut_off_that_is_not_a_stream_is_requested_again(fake, spec):
    # Streamed or not, the request gets a JSON body (an error, a server that does not stream).
    fake.script(Fault.truncated())
    out = connect(fake, spec).generate(request())
    assert out[0].error is None and out[0].text == "reply to 'write f' #0"
    assert fake.count() == 2


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_reply_cut_off_is_graded_once_requested_again(pytester, tiny, fake, xdist):
    fake.reply = lambda req, i: "```python\ndef add(a, b):\n    return a + b\n```"
    fake.script(Fault.truncated())
    result = run_vllm(pytester, fake, "tiny.jsonl::tiny_add", *xdist)
    result.assert_outcomes(passed=1)  # not a crashed sample
    assert fake.count() == 2 and result.ret == pytest.ExitCode.OK


@pytest.mark.parametrize(
    ("spec", "event"),
    [
        ("openai:gpt-4o", b"data: [1, 2]\n\n"),
        ("openai:gpt-4o", b'data: {"choices": [{"index": 0, "delta": {"content": 5}}]}\n\n'),
        ("anthropic:claude-x", b'data: {"type": "content_block_delta", "index": "first"}\n\n'),
        ("gemini:gemini-2.5-pro", b'data: {"candidates": [{"content": {"parts": [7]}}]}\n\n'),
    ],
)
def test_a_stream_of_another_shape_is_a_malformed_response(fake, spec, event):
    fake.script(Fault.events(event))
    out = connect(fake, spec).generate(request())
    api = spec.split(":")[0]
    assert out[0].error is not None
    assert out[0].error.startswith(f"malformed response from {api}: unexpected shape (")
    assert fake.count() == 1  # as a reply of another shape that is not streamed


def test_a_stream_that_is_not_utf8_is_read_as_a_reply_that_is_not_streamed_is(fake):
    event = b'data: {"choices": [{"index": 0, "delta": {"content": "a\xffb"}}]}\n\n'
    finish = b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'
    fake.script(Fault.events(event, finish, b"data: [DONE]\n\n"))
    out = connect(fake, "openai:gpt-4o").generate(request())
    assert out[0].error is None and out[0].text == "a\ufffdb"


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_stream_of_another_shape_is_an_api_error_of_the_run(pytester, tiny, fake, xdist):
    # Twice: with -n 2 the worker that does not grade the sample asks for it too, and the
    # first request (whichever worker sends it) would take a single fault.
    fake.script(*[Fault.events(b"data: [1, 2]\n\n")] * 2)
    result = run_vllm(pytester, fake, "tiny.jsonl::tiny_add", *xdist)
    result.assert_outcomes(errors=1)
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "api_error"  # not a crashed sample counted in pass@1
    assert record["error"].startswith("malformed response from vllm: unexpected shape (")
    result.stdout.fnmatch_lines(["*model API error: malformed response from vllm: *"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize(
    ("spec", "variable"),
    [
        ("openai:gpt-4o", "OPENAI_API_KEY"),
        ("anthropic:claude-x", "ANTHROPIC_API_KEY"),
        ("gemini:gemini-2.5-pro", "GEMINI_API_KEY"),
    ],
)
def test_a_redirect_to_another_host_is_not_sent_the_key(fake, spec, variable):
    with FakeProviders(openai_key=None, anthropic_key=None, gemini_key=None) as other:
        elsewhere = other.url.replace("127.0.0.1", "localhost")  # another host, as requests sees it
        fake.fault = lambda req: Fault.answer(307, {}, {"Location": elsewhere + req.path})
        out = connect(fake, spec, env={variable: "sk-secret-1234"}).generate(request())
        assert out[0].error is None and other.count() == 1  # the redirect is followed...
        (sent,) = other.requests
        assert not [name for name, value in sent.headers.items() if "sk-secret" in value]
    assert "sk-secret-1234" in str(fake.requests[0].headers)  # ...without the key


def test_a_provider_of_unknown_abilities_is_not_streamed(fake):
    connect(fake, "openai-compatible:m").generate(request())
    connect(fake, "mistral:codestral", env={"MISTRAL_API_KEY": "k"}).generate(request())
    plain, mistral = fake.requests
    assert not plain.streamed and "stream_options" not in plain.body
    assert mistral.streamed and "stream_options" not in mistral.body  # usage comes anyway


# --------------------------------------------------------------------------- options


def test_request_timeout_option_bounds_each_read(pytester, tiny, fake):
    fake.script(Fault.slow(60))  # the first reply is late: timed out, then asked again
    run_vllm(pytester, fake, "tiny.jsonl::tiny_add", "--codegen-request-timeout=2")
    assert fake.count() == 2
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] != "api_error" and record["completion"].startswith("reply to")


def test_request_timeout_option_bounds_a_stream_of_keep_alives(pytester, tiny, fake):
    fake.script(Fault.keep_alive(b": ping\n\n", 0.2))  # timed out, then asked again
    run_vllm(pytester, fake, "tiny.jsonl::tiny_add", "--codegen-request-timeout=1")
    assert fake.count() == 2
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] != "api_error" and record["completion"].startswith("reply to")


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_stream_of_keep_alives_only_is_an_api_error_of_the_run(pytester, tiny, fake, xdist):
    fake.fault = lambda req: Fault.keep_alive(b": ping\n\n", 0.2)
    timeout, wait = "--codegen-request-timeout=1", "--codegen-max-retry-wait=0.4"
    result = run_vllm(pytester, fake, "tiny.jsonl::tiny_add", timeout, wait, *xdist)
    result.assert_outcomes(errors=1)
    (record,) = read_results(pytester.path / "r.jsonl")
    said = "timeout from vllm: only keep-alives streamed for 1s (after 1 attempts: waiting next"
    assert record["outcome"] == "api_error" and record["error"].startswith(said)
    result.stdout.fnmatch_lines([f"*model API error: {said}*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_max_retry_wait_option_bounds_the_wait(pytester, tiny, fake):
    fake.script(Fault.http(429, retry_after="30"))
    run_vllm(pytester, fake, "tiny.jsonl::tiny_add", "--codegen-max-retry-wait=1")
    (record,) = read_results(pytester.path / "r.jsonl")
    assert record["outcome"] == "api_error" and fake.count() == 1
    assert "retry wait limit of 1s, --codegen-max-retry-wait" in record["error"]


@pytest.mark.parametrize("flag", ["--codegen-request-timeout=0", "--codegen-max-retry-wait=soon"])
def test_bad_transport_options_stop_the_run(pytester, flag):
    result = pytester.runpytest_subprocess("--codegen-model=reference", flag)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"{flag.split('=')[0]}: invalid value" in result.stderr.str()


def test_a_refusal_is_the_models_answer_streamed_or_not(fake):
    # OpenAI's refusals come in `refusal`, with no content: the text is the answer graded
    # (it holds no code, so the sample fails), not an empty reply that says nothing.
    said = "I can't help with that."
    refused = b'data: {"choices": [{"index": 0, "delta": {"refusal": "I can\'t help"}}]}\n\n'
    rest = b'data: {"choices": [{"index": 0, "delta": {"refusal": " with that."}}]}\n\n'
    finish = b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'
    fake.script(Fault.events(refused, rest, finish, b"data: [DONE]\n\n"))
    streamed = connect(fake, "openai:gpt-4o").generate(request())
    message = {"role": "assistant", "content": None, "refusal": said}
    body = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    fake.script(Fault.answer(200, body))
    whole = connect(fake, "openai:gpt-4o").generate(request())
    assert [(c.error, c.text) for c in streamed + whole] == [(None, said), (None, said)]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_anthropic_token_counts_that_are_no_integers_are_left_out(pytester, tiny, fake, xdist):
    # A proxy's usage of another shape (text, a list) made the sample "crashed", scored 0.
    code = "```python\ndef add(a, b):\n    return a + b\n```"
    usage = {"input_tokens": "3", "output_tokens": [1]}
    body = {"content": [{"type": "text", "text": code}], "stop_reason": "end_turn", "usage": usage}
    fake.fault = lambda req: Fault.answer(200, body)
    result = pytester.runpytest_subprocess(
        "--codegen-model=anthropic:claude-x",
        f"--codegen-base-url={fake.anthropic_url}",
        "--codegen-prices=anthropic:claude-x = 1 1",
        "--codegen-results=r.jsonl",
        "tiny.jsonl::tiny_add",
        "--codegen-samples=2",
        *xdist,
    )
    result.assert_outcomes(passed=2)
    records = read_results(pytester.path / "r.jsonl")
    assert [r["outcome"] for r in records] == ["passed"] * 2
    assert not any("prompt_tokens" in r or "completion_tokens" in r for r in records)
