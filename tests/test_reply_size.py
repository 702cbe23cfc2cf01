"""A model server's reply past the bound on its size (a body of gigabytes, a stream that never
ends, one enormous line) is read no further: that sample's api_error, the run going on. Against
fake provider servers on 127.0.0.1 that write such replies as they are read."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator

import pytest
from conftest import TINY, XDIST_MODES, read_results, run_vllm
from fake_providers import FakeProviders, Fault, connect

from pytest_codegen.models import sse
from pytest_codegen.models.base import GenerationRequest, Prompt
from pytest_codegen.models.failures import one_line
from pytest_codegen.models.reply_size import MIB, MOST_REPLY_BYTES, TooLarge, lines
from pytest_codegen.problems import Problem

PROBLEM = Problem(
    id="T/0", suite="t", category="c", language="python", mode="python-call", prompt="p", tests=""
)
SPECS = ["openai:gpt-4o", "anthropic:claude-x", "gemini:gemini-2.5-pro"]
# What each shape of Fault.huge passes, as the error says it.
PAST = {"plain": "", "stream": " of streamed text", "line": " in one line of its stream"}


def request() -> GenerationRequest:
    return GenerationRequest(PROBLEM, Prompt("write f", None), (0,))


@pytest.fixture
def fake() -> Iterator[FakeProviders]:
    with FakeProviders(openai_key=None, anthropic_key=None, gemini_key=None) as server:
        yield server


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("shape", list(PAST))
def test_a_reply_past_the_bound_is_an_api_error_not_retried(fake, spec, shape):
    model = connect(fake, spec, max_reply_bytes=2 * MIB, stream=shape != "plain")
    fake.script(Fault.huge(shape, 3))
    (out,) = model.generate(request())
    assert out.error == f"reply from {spec.split(':')[0]} larger than 2 MiB{PAST[shape]}"
    assert fake.count() == 1  # not requested again: a server that sent it would send it again
    (after,) = model.generate(request())  # the next request is answered, on a new connection
    assert after.error is None and after.text == "reply to 'write f' #0"


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "plain"])
def test_a_reply_within_the_bound_is_read_whole(fake, spec, stream):
    text = "def f():\n    return 1\n" + "#" * (MIB - 4096)  # a body of just under 1 MiB
    fake.reply = lambda req, i: text
    (out,) = connect(fake, spec, max_reply_bytes=MIB, stream=stream).generate(request())
    assert out.error is None and out.text == text


def test_an_error_body_past_the_bound_is_not_read_whole(fake):
    fake.script(Fault.huge("plain", 3, status=500))  # a server error is retried, but not this
    (out,) = connect(fake, "openai:gpt-4o", max_reply_bytes=2 * MIB).generate(request())
    assert out.error == "reply from openai larger than 2 MiB" and fake.count() == 1


def test_lines_are_split_as_an_event_stream_splits_them():
    chunks = [b"data: a\r", b"", b"\ndata: b\n\n", b"data: c\rdata: d\r\n", b"\r\nlast"]
    assert list(lines(chunks, 100)) == [
        b"data: a", b"data: b", b"", b"data: c", b"data: d", b"", b"last"
    ]  # fmt: skip
    assert list(lines([b"x" * 6, b"x" * 4, b"\r", b"\n"], 10)) == [b"x" * 10]


def test_a_line_past_the_bound_stops_the_reading_before_its_end():
    read = []

    def chunks():
        for _ in range(100):
            read.append(1)
            yield b"x" * 4

    with pytest.raises(TooLarge, match="in one line of its stream$"):
        list(lines(chunks(), 10))
    assert len(read) == 3


# One event per new part (a choice, a content block, a candidate) or usage field, each small:
# a stream that only ever opens new ones grows the reply without adding text.
NEW_PARTS = {
    "openai:gpt-4o": lambda i: {"choices": [{"index": i, "delta": {"content": ""}}]},
    "anthropic:claude-x": lambda i: {"type": "content_block_start", "index": i,
                                     "content_block": {"type": "text", "text": ""}},
    "gemini:gemini-2.5-pro": lambda i: {"candidates": [{"index": i, "content": {"parts": []}}]},
    "anthropic:claude-x usage": lambda i: {"type": "message_delta", "delta": {},
                                           "usage": {f"field_{i}": i}},
}  # fmt: skip


@pytest.mark.parametrize("case", list(NEW_PARTS))
def test_a_stream_of_ever_new_parts_is_malformed(fake, case):
    events = [b"data: " + json.dumps(NEW_PARTS[case](i)).encode() + b"\n\n" for i in range(1100)]
    fake.script(Fault.events(*events))
    out = connect(fake, case.split()[0]).generate(request())
    assert out[0].error is not None and "a stream of more than 1024 " in out[0].error
    assert fake.count() == 1


def test_an_event_of_many_lines_past_the_bound_is_too_large():
    many = [b"data: 1234"] * 3
    assert list(sse.events([*many, b"", *many], most=15)) == [("message", "1234\n1234\n1234")] * 2
    with pytest.raises(TooLarge, match="in one event of its stream"):
        list(sse.events([*many, *many], most=15))


def test_the_error_of_a_long_body_is_cut_without_taking_all_of_it_apart():
    # An error body within the bound may still be millions of words: a list of them all
    # (some 60 bytes a word) would take the process twenty times the body.
    body = "ab " * 1_000_000
    tracemalloc.start()
    try:
        line = one_line(body, 200)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert line == " ".join(["ab"] * 100)[:197] + "..."
    assert peak < len(body) // 10
    assert one_line(" a\u00a0 b\n\x1cc\u2028 ", 200) == "a b c"  # whitespace as str.split's


def solve(request, index: int) -> str:
    for line in TINY.read_text().splitlines():
        problem = json.loads(line)
        if problem["prompt"] in request.user_text:
            return f"```python\n{problem['prompt']}{problem['canonical_solution']}```\n"
    return "I don't know."


@pytest.mark.parametrize("xdist", XDIST_MODES)
@pytest.mark.parametrize("shape", list(PAST))
def test_a_reply_past_the_bound_is_an_api_error_of_the_run(pytester, tiny, fake, shape, xdist):
    most = MOST_REPLY_BYTES // MIB
    fake.reply = solve
    fake.fault = lambda req: Fault.huge(shape, most + 1) if "def add(" in req.user_text else None
    result = run_vllm(pytester, fake, "tiny.jsonl", *xdist)
    result.assert_outcomes(passed=2, errors=1)  # the others graded
    error = f"reply from vllm larger than {most} MiB{PAST[shape]}"
    records = {r["task_id"]: r for r in read_results(pytester.path / "r.jsonl")}
    assert records["tiny/add"]["outcome"] == "api_error" and records["tiny/add"]["error"] == error
    assert [records[p]["outcome"] for p in ("tiny/reverse_words", "tiny/Counter")] == ["passed"] * 2
    result.stdout.fnmatch_lines([f"*model API error: {error}"])
    # pass 2, the outcomes after it 0, api 1, quar 0
    result.stdout.re_match_lines([r"tiny +\(all\) +3 +3 +2( +0){7} +1 +0 ", r".* 1 API errors,"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED
