"""Generation held at a provider's rate limit: cool-downs, rate-limit headers, one cut per
congestion event.

End to end: pytest (plain and ``-n 2``) against the fake provider server on 127.0.0.1 speaking
the OpenAI, Anthropic and Gemini APIs, with a token bucket of requests and tokens answering
429 as those providers do (``fake_limits``), bursts of 429s, and 429s asking for a wait. The
assertions compare the server's own timestamps with the waits it announced, and count
requests and 429s. The parts: the rate-limit headers, and the controller's arithmetic.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterator

import pytest
from conftest import XDIST_MODES
from fake_limits import BucketLimit, gemini_throttled
from fake_providers import FakeProviders, Fault, Recorded
from many_problems import reply, write_suite

from pytest_codegen.generation.budget import InFlightBudget
from pytest_codegen.generation.congestion import NOISE_SHARE
from pytest_codegen.models.base import ANSWERED, FAILED, THROTTLED, Admission
from pytest_codegen.models.rate_headers import LimitLeft, RateHeaders, parse_rate_headers

SPECS = {
    "openai": "openai:gpt-4o",
    "anthropic": "anthropic:claude-sonnet-4-5",
    "gemini": "gemini:gemini-2.5-flash",
}
KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY"}


@pytest.fixture
def server() -> Iterator[FakeProviders]:
    with FakeProviders(reply=reply) as fake:
        yield fake


def run(pytester, monkeypatch, server: FakeProviders, api: str, *args: str):
    """pytest in a subprocess generating with ``api``'s model from ``server``."""
    for name in KEYS.values():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(KEYS[api], server.keys[api] or "")
    url = {"anthropic": server.anthropic_url, "gemini": server.gemini_url}.get(
        api, server.openai_url
    )
    return pytester.runpytest_subprocess(
        f"--codegen-model={SPECS[api]}",
        f"--codegen-base-url={url}",
        f"--codegen-cache={pytester.path / 'gen-cache'}",
        "--codegen-results=r.jsonl",
        *args,
        timeout=300,
    )


def answered(server: FakeProviders) -> list[Recorded]:
    return [r for r in server.requests if r.status == 200]


# --------------------------------------------------------------------------- end to end

ASK_TO_WAIT = {
    "openai": Fault.http(429, retry_after="1"),
    "anthropic": Fault.answer(
        429,
        {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
        {"retry-after": "1"},
    ),
    "gemini": Fault.answer(429, gemini_throttled("1s")),
}


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("api", ["openai", "anthropic", "gemini"])
def test_no_request_goes_inside_the_wait_a_429_announced(pytester, monkeypatch, server, api, xdist):
    # The first request is answered 429 and asked to wait 1 s (Retry-After on OpenAI and
    # Anthropic, retryDelay in Gemini's body). The wait speaks for the key: no request of the
    # run may arrive before it is over, but those already sent when the 429 was read.
    server.script(ASK_TO_WAIT[api])
    suite = write_suite(pytester.path / "many.jsonl", 12)
    result = run(pytester, monkeypatch, server, api, str(suite), "--codegen-concurrency=4", *xdist)
    result.assert_outcomes(passed=12)
    first = server.requests[0]
    assert first.status == 429
    inside = [r for r in server.requests[1:] if r.time < first.time + 1.0]
    if not xdist:
        assert inside == []  # the first request of a run goes alone: nothing was in flight
    else:
        # Each process sends its first request alone; the other's may have been on its way.
        assert len(inside) <= 4
    assert len(answered(server)) == 12


BLOCK_S = 1.0


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_burst_of_429s_is_one_wait_and_one_cut(pytester, monkeypatch, server, xdist):
    # From the 6th request on, the key is blocked for 1 s: every request arriving then is
    # answered 429, asked to wait until the block ends. Each request in flight when the block
    # began may earn one 429; none sent after the first 429 was read can earn another.
    block: dict[str, float] = {}
    lock = threading.Lock()

    def blocked(request: Recorded) -> Fault | None:
        with lock:
            if len(server.requests) >= 6 and "start" not in block:
                block["start"] = request.time
            left = block.get("start", request.time - 2 * BLOCK_S) + BLOCK_S - request.time
        if left <= 0:
            return None
        return Fault.http(429, retry_after_ms=f"{left * 1000:.0f}", retry_after="1")

    server.fault = blocked
    server.latency_s = 0.05
    suite = write_suite(pytester.path / "many.jsonl", 40)
    result = run(
        pytester, monkeypatch, server, "openai", str(suite), "--codegen-concurrency=4", *xdist
    )
    result.assert_outcomes(passed=40)
    throttled = [r for r in server.requests if r.status == 429]
    assert 1 <= len(throttled) <= 4
    assert len(answered(server)) == 40
    # One congestion event at most: never cut to a quarter of the budget.
    assert "cut the requests in flight from 4 to 1" not in result.stdout.str()


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_rate_limit_headers_hold_requests_back_before_the_429(
    pytester, monkeypatch, server, api, xdist
):
    # A token bucket of 10 requests/s that sends its headers with every answer: the run is
    # held to it from the headers, and seldom hears a 429 (one that ignored them would send
    # 50 at once and hear 40). A few remain: the server counts a request when it arrives,
    # later than it was sent by however long this machine takes to schedule it.
    server.limit = BucketLimit(requests_per_s=10)
    server.latency_s = 0.05
    suite = write_suite(pytester.path / "many.jsonl", 40)
    result = run(pytester, monkeypatch, server, api, str(suite), "--codegen-concurrency=50", *xdist)
    result.assert_outcomes(passed=40)
    assert len(answered(server)) == 40
    throttled = sum(r.status == 429 for r in server.requests)
    assert throttled <= 8, [r.status for r in server.requests]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_gemini_bucket_without_headers_is_kept_by_its_retry_delays(
    pytester, monkeypatch, server, xdist
):
    # Gemini sends no rate-limit headers; each 429 says how long to wait (retryDelay). Inside
    # the wait a 429 announced arrive only requests sent before it was read: no more than
    # the run has in flight at once.
    server.limit = limit = BucketLimit(requests_per_s=10)
    suite = write_suite(pytester.path / "many.jsonl", 40)
    result = run(
        pytester, monkeypatch, server, "gemini", str(suite), "--codegen-concurrency=8", *xdist
    )
    result.assert_outcomes(passed=40)
    assert len(answered(server)) == 40
    assert limit.announced
    arrivals = [r.time for r in server.requests]
    for at, wait in limit.announced:
        assert sum(at < t < at + wait for t in arrivals) <= 8


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_token_limit_is_kept_with_prompt_and_completion_counted(
    pytester, monkeypatch, server, xdist
):
    # 6000 tokens a minute (100/s, a second's worth at once); each request counts its prompt
    # and its max_tokens of 40: about 2 requests a second fit. The run keeps under it (one
    # that counted no tokens would send 20 at once and hear 18 429s).
    server.limit = BucketLimit(tokens_per_min=6000)
    suite = write_suite(pytester.path / "many.jsonl", 12)
    result = run(
        pytester,
        monkeypatch,
        server,
        "openai",
        str(suite),
        "--codegen-max-tokens=40",
        "--codegen-concurrency=20",
        *xdist,
    )
    result.assert_outcomes(passed=12)
    assert len(answered(server)) == 12
    assert sum(r.status == 429 for r in server.requests) <= 4, [r.status for r in server.requests]


# --------------------------------------------------------------------------- headers


def test_openai_and_anthropic_rate_limit_headers_are_read() -> None:
    openai = parse_rate_headers(
        {
            "x-ratelimit-limit-requests": "500",
            "x-ratelimit-remaining-requests": "499",
            "x-ratelimit-reset-requests": "120ms",
            "x-ratelimit-limit-tokens": "30000",
            "x-ratelimit-remaining-tokens": "0",
            "x-ratelimit-reset-tokens": "1m30.5s",
        }
    )
    assert openai == RateHeaders(LimitLeft(499, 500, 0.12), LimitLeft(0, 30000, 90.5))
    assert openai.reset_wait() == 90.5  # the used-up limit's
    now = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    reset = (now + datetime.timedelta(seconds=30)).isoformat().replace("+00:00", "Z")
    anthropic = parse_rate_headers(
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": reset,
            "anthropic-ratelimit-input-tokens-remaining": "900",
            "anthropic-ratelimit-output-tokens-remaining": "80",
        }
    )
    assert anthropic is not None and anthropic.requests is not None
    assert anthropic.requests.remaining == 0 and anthropic.requests.limit == 50
    assert anthropic.tokens == LimitLeft(80)  # the tightest of its token limits
    assert parse_rate_headers({"content-type": "application/json"}) is None
    assert parse_rate_headers({"x-ratelimit-remaining-requests": "many"}) is None


# --------------------------------------------------------------------------- the controller


def window(budget: InFlightBudget, outcomes: list[str]) -> None:
    """Requests sent together (one round trip), ending as ``outcomes`` say, in order."""
    grants = [budget.acquire() for _ in outcomes]
    for grant, outcome in zip(grants, outcomes, strict=True):
        budget.release(grant, outcome)


def test_a_burst_of_429s_in_one_window_cuts_once() -> None:
    budget = InFlightBudget(40, None, threading.Event())
    window(budget, [THROTTLED] * 30 + [ANSWERED] * 10)
    assert budget.limit() == 20  # one cut, of at most a half
    window(budget, [ANSWERED] * 8 + [THROTTLED] * 2)  # sent after it: a share of 20%
    assert budget.limit() == pytest.approx(20 * 0.8)


def test_429s_below_the_noise_share_do_not_cut() -> None:
    budget = InFlightBudget(100, None, threading.Event())
    noisy = int(100 * NOISE_SHARE) - 5
    window(budget, ([ANSWERED] * 9 + [THROTTLED]) * 10)  # 10% of 429s, spread out
    window(budget, [ANSWERED] * (100 - noisy) + [THROTTLED] * noisy)
    assert budget.limit() == 100
    assert budget.lowest() is None


def test_server_errors_and_dropped_connections_are_not_congestion() -> None:
    budget = InFlightBudget(10, None, threading.Event())
    window(budget, [FAILED] * 10)
    assert budget.limit() == 10


def test_a_cool_down_holds_every_request() -> None:
    budget = InFlightBudget(10, None, threading.Event())
    grant = budget.acquire()
    budget.release(grant, Admission(THROTTLED, cool_down_s=3600))
    assert budget.try_acquire() is None  # every slot free, none to be had
    assert budget.cool_downs() == 1
    other = InFlightBudget(10, None, threading.Event())
    assert other.try_acquire() is not None  # another model's budget is not held


def test_a_429_among_answers_that_show_the_key_is_not_at_its_limit_holds_only_itself() -> None:
    # 10% of 429s spread among the answers (below the noise share): the next 429's wait is
    # its own request's, not every request's.
    budget = InFlightBudget(40, None, threading.Event())
    window(budget, ([ANSWERED] * 9 + [THROTTLED]) * 4)
    grant = budget.acquire()
    budget.release(grant, Admission(THROTTLED, cool_down_s=3600))
    assert budget.try_acquire() is not None
    assert budget.cool_downs() == 0
    # 429s above the noise share speak for the key again: every request waits.
    window(budget, [THROTTLED] * 10)
    budget.release(budget.acquire(), Admission(THROTTLED, cool_down_s=3600))
    assert budget.try_acquire() is None
    assert budget.cool_downs() == 1


def test_rate_limit_headers_hold_requests_back() -> None:
    budget = InFlightBudget(10, None, threading.Event())
    first = budget.acquire()
    budget.acquire()  # on its way when the answer to the first is read
    left = RateHeaders(LimitLeft(remaining=3, reset_s=3600))
    budget.release(first, Admission(ANSWERED, left=left))
    # 3 left when the first arrived, the second counted since: 2 more may go.
    assert budget.try_acquire() is not None
    assert budget.try_acquire() is not None
    assert budget.try_acquire() is None


def test_the_answer_to_the_latest_request_says_what_is_left() -> None:
    budget = InFlightBudget(10, None, threading.Event())
    first, second = budget.acquire(), budget.acquire()
    spent = RateHeaders(LimitLeft(remaining=0, limit=10, reset_s=3600))
    budget.release(second, Admission(ANSWERED, left=spent))
    assert budget.try_acquire() is None
    # The answer to the first arrives late: what it says is older than the second's.
    budget.release(first, Admission(ANSWERED, left=RateHeaders(LimitLeft(remaining=9))))
    assert budget.try_acquire() is None


def test_a_token_limit_holds_a_request_its_tokens_do_not_fit() -> None:
    budget = InFlightBudget(10, None, threading.Event())
    first = budget.acquire(tokens=100)
    left = RateHeaders(tokens=LimitLeft(remaining=500, reset_s=3600))
    budget.release(first, Admission(ANSWERED, left=left))
    assert budget.try_acquire(tokens=600) is None
    assert budget.try_acquire(tokens=400) is not None
    assert budget.try_acquire(tokens=200) is None
