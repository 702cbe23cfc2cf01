"""The generation flags end to end: pytest with --codegen-* flags against a real HTTP model
server on 127.0.0.1, checked by what the server received."""

from __future__ import annotations

import json

from conftest import TINY, read_results, run_vllm
from fake_providers import FakeProviders

PROBLEMS = [json.loads(line) for line in TINY.read_text().splitlines()]


def solve(request, index: int) -> str:
    """A chat model's answer: the whole function in a fence, found by its prompt."""
    for p in PROBLEMS:
        if json.dumps(p["prompt"])[1:-1] in json.dumps(request.body):
            return f"```python\n{p['prompt']}{p['canonical_solution']}```\n"
    return "I don't know."


SAMPLING_FLAGS = [
    "--codegen-system-prompt=You write careful Python.",
    "--codegen-temperature=0.3",
    "--codegen-top-p=0.9",
    "--codegen-top-k=40",
    "--codegen-max-tokens=256",
    "--codegen-presence-penalty=0.5",
    "--codegen-frequency-penalty=0.25",
    "--codegen-seed=7",
]


def test_sampling_flags_reach_the_server(pytester, tiny):
    with FakeProviders(reply=solve, openai_key=None) as server:
        run_vllm(pytester, server, str(tiny), *SAMPLING_FLAGS).assert_outcomes(passed=3)
    assert len(server.requests) == 3
    for request in server.requests:
        body = request.body
        assert body["messages"][0] == {"role": "system", "content": "You write careful Python."}
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        sent = {k: body.get(k) for k in ("temperature", "top_p", "top_k", "max_tokens")}
        assert sent == {"temperature": 0.3, "top_p": 0.9, "top_k": 40, "max_tokens": 256}
        assert (body.get("presence_penalty"), body.get("frequency_penalty")) == (0.5, 0.25)
        assert body.get("seed") == 7


def test_without_flags_the_server_gets_no_sampling_fields(pytester, tiny):
    # The flags above are what put those fields there: left unset, none is sent.
    with FakeProviders(reply=solve, openai_key=None) as server:
        run_vllm(pytester, server, str(tiny)).assert_outcomes(passed=3)
    fields = {"top_p", "top_k", "max_tokens", "presence_penalty", "frequency_penalty", "seed"}
    for request in server.requests:
        assert fields.isdisjoint(request.body), request.body
        assert [m["role"] for m in request.body["messages"]] == ["user"]


def test_regenerate_asks_again_and_refreshes_the_cache(pytester, tiny):
    with FakeProviders(reply=solve, openai_key=None) as server:
        run_vllm(pytester, server, str(tiny)).assert_outcomes(passed=3)
        assert len(server.requests) == 3
        run_vllm(pytester, server, str(tiny)).assert_outcomes(passed=3)
        assert len(server.requests) == 3  # all from the cache
        run_vllm(pytester, server, str(tiny), "--codegen-regenerate").assert_outcomes(passed=3)
        assert len(server.requests) == 6  # every sample asked again
        records = read_results(pytester.path / "r.jsonl")
        assert len(records) == 3 and not any(r.get("cached") for r in records)
        run_vllm(pytester, server, str(tiny)).assert_outcomes(passed=3)
        assert len(server.requests) == 6
        assert all(r.get("cached") for r in read_results(pytester.path / "r.jsonl"))


def test_tokens_per_minute_spaces_the_requests(pytester, tiny):
    tokens_per_minute = 600.0
    with FakeProviders(reply=solve, openai_key=None) as server:
        run_vllm(
            pytester, server, str(tiny), f"--codegen-tokens-per-minute={tokens_per_minute:g}"
        ).assert_outcomes(passed=3)
    requests = sorted(server.requests, key=lambda r: r.time)
    assert len(requests) == 3
    # Each request pays its estimate (a quarter of its prompt's characters) before it leaves
    # and its real usage once answered; the bucket holds one second's worth. So before the
    # last request may leave, the bucket must have refilled what the others paid, at least
    # the smaller of estimate and usage each, beyond that one second's worth.
    used = {
        r["task_id"]: r["prompt_tokens"] + r["completion_tokens"]
        for r in read_results(pytester.path / "r.jsonl")
    }
    rate = tokens_per_minute / 60
    paid = 0.0
    for request in requests[:-1]:
        text = "".join(m["content"] for m in request.body["messages"])
        task = next(p["task_id"] for p in PROBLEMS if p["prompt"] in text)
        paid += min(len(text) // 4, used[task])
    least = (paid - rate * 1.0) / rate
    assert least > 2.0  # the fixture's prompts make the limit bite
    # Less a second: the first request may reach the server a while after it was let go.
    assert requests[-1].time - requests[0].time >= least - 1.0
