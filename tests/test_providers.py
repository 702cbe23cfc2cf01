"""HTTP providers against fake OpenAI/Anthropic/Gemini servers on 127.0.0.1."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterator

import pytest
from fake_providers import FakeProviders, Fault, Recorded, Reply

from pytest_codegen.models.base import (
    Completion,
    GenerationRequest,
    ModelError,
    Prompt,
    SamplingParams,
)
from pytest_codegen.models.connect import make_provider_model
from pytest_codegen.models.failures import parse_retry_after
from pytest_codegen.models.http import HTTPModel
from pytest_codegen.models.replies import split_think
from pytest_codegen.models.specs import WEBAPP1K_PARAMS, parse_models_table, resolve_alias
from pytest_codegen.problems import Problem

PROBLEM = Problem(
    id="T/0", suite="t", category="c", language="python", mode="python-call", prompt="p", tests=""
)
KEYS = {
    "OPENAI_API_KEY": "sk-test",
    "VLLM_API_KEY": "sk-test",
    "ANTHROPIC_API_KEY": "ak-test",
    "GEMINI_API_KEY": "gk-test",
}


def request(
    text: str = "write f",
    *,
    system: str | None = None,
    n: int = 1,
    params: SamplingParams | None = None,
) -> GenerationRequest:
    return GenerationRequest(
        problem=PROBLEM,
        prompt=Prompt(text, system),
        sample_indices=tuple(range(n)),
        params=params or SamplingParams(),
    )


@pytest.fixture
def fake() -> Iterator[FakeProviders]:
    with FakeProviders() as server:
        yield server


def model(spec: str, fake: FakeProviders, **kwargs: object) -> HTTPModel:
    api = spec.split(":")[0]
    url = {"anthropic": fake.anthropic_url, "gemini": fake.gemini_url}.get(api, fake.openai_url)
    kwargs.setdefault("env", KEYS)
    kwargs.setdefault("backoff_s", 0.01)
    return make_provider_model(spec, base_url=url, **kwargs)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- OpenAI family


def test_openai_request_is_exact(fake: FakeProviders) -> None:
    defaults = SamplingParams(
        temperature=0.2,
        top_p=0.9,
        max_tokens=100,
        seed=7,
        presence_penalty=0.5,
        frequency_penalty=0.1,
    )
    m = model("openai:gpt-4o", fake, defaults=defaults)
    out = m.generate(request("write f", system="be terse", n=3))
    assert [r.error for r in fake.requests] == [None]
    sent = fake.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.headers["content-type"] == "application/json"
    assert sent.body == {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "be terse"},
            {"role": "user", "content": "write f"},
        ],
        "n": 3,
        "temperature": 0.2,
        "top_p": 0.9,
        "max_completion_tokens": 100,
        "presence_penalty": 0.5,
        "frequency_penalty": 0.1,
        "seed": 7,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert [c.text for c in out] == [f"reply to 'write f' #{i}" for i in range(3)]
    assert all(c.error is None and c.finish_reason == "stop" for c in out)
    assert all(c.latency_s is not None and c.latency_s >= 0 for c in out)
    # Usage covers the whole response: shared out so that sums stay exact.
    assert sum(c.prompt_tokens or 0 for c in out) == 4
    assert sum(c.completion_tokens or 0 for c in out) == 3 * 5  # five words a reply
    m.close()


def test_request_params_override_defaults() -> None:
    with FakeProviders(openai_key=None) as fake:
        m = model("vllm:m", fake, env={}, defaults=SamplingParams(temperature=0.2, top_k=40))
        m.generate(request(params=SamplingParams(temperature=0.8)))
    assert fake.requests[0].body["temperature"] == 0.8
    assert fake.requests[0].body["top_k"] == 40
    assert "authorization" not in fake.requests[0].headers  # vllm needs no key


def test_provider_specific_fields(fake: FakeProviders) -> None:
    env = {"MISTRAL_API_KEY": "sk-test", "FIREWORKS_API_KEY": "sk-test"}
    model("mistral:codestral", fake, env=env, defaults=SamplingParams(seed=3)).generate(request())
    model("fireworks:llama", fake, env=env, defaults=WEBAPP1K_PARAMS).generate(request())
    mistral, fireworks = (r.body for r in fake.requests)
    assert mistral["random_seed"] == 3 and "seed" not in mistral
    assert fireworks == {
        "model": "llama",
        "messages": [{"role": "user", "content": "write f"}],
        "temperature": 0.2,
        "top_p": 0.8,
        "top_k": 40,
        "presence_penalty": 0,
        "frequency_penalty": 0,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def test_provider_without_n_sends_one_request_per_sample(fake: FakeProviders) -> None:
    m = model("openrouter:x/y", fake, env={"OPENROUTER_API_KEY": "sk-test"})
    m.defaults = SamplingParams(seed=5)
    out = m.generate(request(n=3))
    assert len(out) == 3 and fake.count() == 3
    assert all("n" not in r.body for r in fake.requests)
    # One seed for separate requests would make the samples identical.
    assert [r.body["seed"] for r in fake.requests] == [5, 6, 7]


def test_fewer_choices_than_n_requests_the_rest(fake: FakeProviders) -> None:
    fake.script(Fault.fewer(1))
    out = model("vllm:m", fake).generate(request(n=3))
    assert [r.n for r in fake.requests] == [3, 2]
    assert len(out) == 3 and all(c.error is None for c in out)


def test_zero_choices_is_an_error(fake: FakeProviders) -> None:
    fake.script(Fault.fewer(0))
    out = model("vllm:m", fake).generate(request(n=2))
    assert [c.error for c in out] == ["vllm returned no choices"] * 2


# --------------------------------------------------------------------------- Anthropic, Gemini


def test_anthropic_request_and_thinking(fake: FakeProviders) -> None:
    fake.reply = lambda req, i: Reply("def f(): pass", reasoning="plan it")
    m = model("anthropic:claude-x", fake, defaults=SamplingParams(temperature=0.5, top_k=40))
    out = m.generate(request("write f", system="be terse", n=2))
    assert fake.count() == 2  # no n: one request per sample
    sent = fake.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "ak-test"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in sent.headers
    assert sent.body == {
        "model": "claude-x",
        "max_tokens": 4096,
        "system": "be terse",
        "messages": [{"role": "user", "content": "write f"}],
        "temperature": 0.5,
        "top_k": 40,
        "stream": True,
    }
    assert out[0] == Completion(
        text="def f(): pass",
        reasoning="plan it",
        prompt_tokens=4,
        completion_tokens=3,
        latency_s=out[0].latency_s,
        finish_reason="end_turn",
    )


def test_gemini_request_and_thoughts(fake: FakeProviders) -> None:
    fake.reply = lambda req, i: Reply(f"answer {i}", reasoning=f"thought {i}")
    env = {"GOOGLE_API_KEY": "gk-test"}  # the fallback name works too
    params = SamplingParams(temperature=0.2, top_p=0.8, top_k=40, max_tokens=64, seed=1)
    m = model("gemini:gemini-2.0-flash", fake, env=env, defaults=params)
    out = m.generate(request("write f", system="be terse", n=3))
    sent = fake.requests[0]
    assert fake.count() == 1
    assert sent.path == "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"
    assert sent.headers["x-goog-api-key"] == "gk-test"
    assert sent.body == {
        "contents": [{"role": "user", "parts": [{"text": "write f"}]}],
        "systemInstruction": {"parts": [{"text": "be terse"}]},
        "generationConfig": {
            "temperature": 0.2,
            "topP": 0.8,
            "topK": 40,
            "maxOutputTokens": 64,
            "seed": 1,
            "candidateCount": 3,
        },
    }
    assert [(c.text, c.reasoning, c.finish_reason) for c in out] == [
        (f"answer {i}", f"thought {i}", "STOP") for i in range(3)
    ]
    assert sum(c.completion_tokens or 0 for c in out) == 6


def test_gemini_splits_beyond_candidate_limit(fake: FakeProviders) -> None:
    out = model("gemini:g", fake).generate(request(n=10))
    assert [r.n for r in fake.requests] == [8, 2] and len(out) == 10


# --------------------------------------------------------------------------- parameters, keys


@pytest.mark.parametrize(
    ("spec", "params", "message"),
    [
        ("openai:gpt-4o", SamplingParams(top_k=40), "openai does not accept top_k"),
        (
            "anthropic:c",
            SamplingParams(presence_penalty=0.5),
            "anthropic does not accept presence_penalty",
        ),
        ("anthropic:c", SamplingParams(seed=1), "anthropic does not accept seed"),
        ("deepseek:d", SamplingParams(seed=1), "deepseek does not accept seed"),
        ("ollama:q", SamplingParams(top_k=1), "ollama does not accept top_k"),
        ("openai:gpt-4o", WEBAPP1K_PARAMS, "openai does not accept top_k"),
    ],
)
def test_unsupported_params_rejected_at_construction(
    spec: str, params: SamplingParams, message: str
) -> None:
    env = {**KEYS, "DEEPSEEK_API_KEY": "k"}
    with pytest.raises(ModelError, match=message):
        make_provider_model(spec, defaults=params, env=env)


def test_neutral_penalties_are_not_sent(fake: FakeProviders) -> None:
    m = model("anthropic:c", fake, defaults=WEBAPP1K_PARAMS)  # penalties of 0 are defaults
    m.generate(request())
    assert fake.requests[0].body["top_k"] == 40
    assert "presence_penalty" not in fake.requests[0].body


def test_unsupported_request_params_rejected(fake: FakeProviders) -> None:
    with pytest.raises(ModelError, match="openai does not accept top_k"):
        model("openai:gpt-4o", fake).generate(request(params=SamplingParams(top_k=3)))
    assert fake.count() == 0


def test_missing_keys_and_bad_specs() -> None:
    with pytest.raises(ModelError) as info:
        make_provider_model("openai:gpt-4o", env={})
    assert str(info.value) == (
        "model 'openai:gpt-4o' needs OPENAI_API_KEY (or pass --codegen-base-url for a local server)"
    )
    with pytest.raises(ModelError, match="needs GEMINI_API_KEY or GOOGLE_API_KEY"):
        make_provider_model("gemini:g", env={"GEMINI_API_KEY": "  "})
    with pytest.raises(ModelError, match="needs ANTHROPIC_API_KEY"):
        make_provider_model("anthropic:c", env={})
    with pytest.raises(ModelError, match="set OPENAI_COMPATIBLE_BASE_URL or pass --codegen-base"):
        make_provider_model("openai-compatible:m", env={})
    with pytest.raises(ModelError, match=r"unknown model provider 'nope'.*known: openai, "):
        make_provider_model("nope:m", env={})
    with pytest.raises(ModelError, match="is not PROVIDER:MODEL"):
        make_provider_model("gpt-4o", env={})
    for err in (info.value,):
        assert "\n" not in str(err)
    # Local servers need no key; a custom endpoint makes the key optional.
    assert make_provider_model("vllm:m", env={}).base_url == "http://localhost:8000/v1"
    assert make_provider_model("ollama:m", env={}).base_url == "http://localhost:11434/v1"
    local = make_provider_model("openai:m", base_url="http://127.0.0.1:9/v1/", env={})
    assert (local.base_url, local.api_key) == ("http://127.0.0.1:9/v1", None)


def test_endpoints_from_environment(fake: FakeProviders) -> None:
    host = fake.url.removeprefix("http://")
    env = {"OLLAMA_HOST": host, "OLLAMA_API_KEY": "sk-test"}
    ollama = make_provider_model("ollama:qwen2.5-coder:7b", env=env)
    assert ollama.base_url == f"{fake.url}/v1" and ollama.model == "qwen2.5-coder:7b"
    assert ollama.generate(request())[0].error is None
    vllm = make_provider_model("vllm:m", env={"VLLM_BASE_URL": fake.url, **KEYS})
    assert vllm.base_url == f"{fake.url}/v1"
    env = {"OPENAI_BASE_URL": fake.openai_url, "OPENAI_API_KEY": "sk-test"}
    assert make_provider_model("openai:m", env=env).generate(request())[0].error is None
    # The base_url argument wins over the environment.
    other = make_provider_model("openai:m", base_url="http://127.0.0.1:9/v1", env=env)
    assert other.base_url == "http://127.0.0.1:9/v1"
    assert [r.body["model"] for r in fake.requests] == ["qwen2.5-coder:7b", "m"]


@pytest.mark.parametrize(
    ("spec", "suffix", "path"),
    [
        ("openai:m", "/v1", "/v1/chat/completions"),
        ("openai:m", "/v1/", "/v1/chat/completions"),
        ("vllm:m", "", "/v1/chat/completions"),
        ("vllm:m", "/", "/v1/chat/completions"),
        # Anthropic's SDK takes the host; OpenAI-style clients take .../v1 (was /v1/v1/messages).
        ("anthropic:claude-x", "", "/v1/messages"),
        ("anthropic:claude-x", "/", "/v1/messages"),
        ("anthropic:claude-x", "/v1", "/v1/messages"),
        ("anthropic:claude-x", "/v1/", "/v1/messages"),
        # Google's SDK takes the host and adds the version (was /models/m:..., a 404).
        ("gemini:m", "/v1beta", "/v1beta/models/m:streamGenerateContent?alt=sse"),
        ("gemini:m", "/v1beta/", "/v1beta/models/m:streamGenerateContent?alt=sse"),
        ("gemini:m", "", "/v1beta/models/m:streamGenerateContent?alt=sse"),
        ("gemini:m", "/", "/v1beta/models/m:streamGenerateContent?alt=sse"),
    ],
)
def test_a_base_url_as_each_sdk_takes_it_reaches_the_api(
    fake: FakeProviders, spec: str, suffix: str, path: str
) -> None:
    m = make_provider_model(spec, base_url=fake.url + suffix, env=KEYS)
    assert m.generate(request())[0].error is None
    assert [(r.path, r.error) for r in fake.requests] == [(path, None)]


# --------------------------------------------------------------------------- robustness


def test_retry_after_is_honoured(fake: FakeProviders) -> None:
    fake.script(Fault.http(429, retry_after="0.3", message="slow down"))
    out = model("openai:gpt-4o", fake).generate(request())
    assert out[0].error is None
    assert fake.count() == 2
    assert fake.requests[1].time - fake.requests[0].time >= 0.3


def test_retries_on_5xx_dropped_connection_and_timeout(fake: FakeProviders) -> None:
    # The slow reply never comes while the client waits (the server holds it until it
    # closes); every other reply has the whole timeout to spare.
    fake.script(Fault.http(500), Fault.drop(), Fault.http(503), Fault.slow(60))
    m = model("vllm:m", fake, timeout_s=2.0, max_attempts=5)
    out = m.generate(request())
    assert out[0].error is None and out[0].text == "reply to 'write f' #0"
    assert fake.count() == 5


def test_error_completion_after_retries(fake: FakeProviders) -> None:
    fake.script(*[Fault.http(503, message="overloaded\nplease retry")] * 3)
    out = model("openai:gpt-4o", fake, max_attempts=3).generate(request(n=2))
    assert fake.count() == 3
    assert [c.error for c in out] == [
        "HTTP 503 from openai: overloaded please retry (after 3 attempts)"
    ] * 2
    assert all(c.text == "" for c in out)


def test_anthropic_and_gemini_error_messages(fake: FakeProviders) -> None:
    fake.script(Fault.http(400, message="bad thing"), Fault.http(403, message="denied"))
    assert model("anthropic:c", fake).generate(request())[0].error == (
        "HTTP 400 from anthropic: bad thing"
    )
    assert model("gemini:g", fake).generate(request())[0].error == "HTTP 403 from gemini: denied"
    assert fake.count() == 2  # 4xx is not retried


def test_rejected_request_is_not_retried(fake: FakeProviders) -> None:
    env = {"OPENAI_API_KEY": "wrong"}
    out = model("openai:gpt-4o", fake, env=env).generate(request())
    assert out[0].error == "HTTP 401 from openai: invalid api key"
    assert fake.count() == 1


def test_malformed_and_incomplete_responses(fake: FakeProviders) -> None:
    fake.script(Fault.malformed(), Fault.missing(), Fault.missing(), Fault.missing())
    m = model("vllm:m", fake)
    first = m.generate(request())[0].error
    assert first is not None and first.startswith("HTTP 200 from vllm: malformed JSON in response")
    assert m.generate(request())[0].error == "malformed response from vllm: no 'choices' list"
    assert model("anthropic:c", fake).generate(request())[0].error == (
        "malformed response from anthropic: no 'content' list"
    )
    assert model("gemini:g", fake).generate(request())[0].error == (
        "malformed response from gemini: no 'candidates' list"
    )
    assert fake.count() == 4


def test_connection_refused_becomes_error_completion() -> None:
    m = make_provider_model("vllm:m", base_url="http://127.0.0.1:9/v1", max_attempts=2)
    m.backoff_s = 0.01
    out = m.generate(request())
    assert out[0].error is not None
    assert out[0].error.startswith("connection error from vllm")
    assert out[0].error.endswith("(after 2 attempts)")


def test_retry_after_parsing() -> None:
    assert parse_retry_after({"retry-after": "2"}) == 2
    assert parse_retry_after({"retry-after": "0.5"}) == 0.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert 28 <= parse_retry_after({"retry-after": date}, now=now) <= 31  # type: ignore[operator]
    past = email.utils.formatdate(now - 30, usegmt=True)
    assert parse_retry_after({"retry-after": past}, now=now) == 0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


# --------------------------------------------------------------------------- reasoning


@pytest.mark.parametrize(
    ("raw", "text", "reasoning"),
    [
        ("<think>plan</think>\n\ncode", "code", "plan"),
        ("  <think>\na\nb\n</think>code", "code", "a\nb"),
        ("<think>cut off while thinking", "", "cut off while thinking"),
        ("plan only closed</think>\ncode", "code", "plan only closed"),
        ("code with no block", "code with no block", None),
        ("code\n<think>late</think>", "code\n<think>late</think>", None),
    ],
)
def test_split_think(raw: str, text: str, reasoning: str | None) -> None:
    assert split_think(raw) == (text, reasoning)


def test_think_block_and_reasoning_field(fake: FakeProviders) -> None:
    def reply(req: Recorded, i: int) -> Reply:
        if i == 0:
            return Reply("<think>inline plan</think>\nprint(1)")
        return Reply("print(2)", reasoning="field plan")

    fake.reply = reply
    out = model("vllm:m", fake).generate(request(n=2))
    assert [(c.text, c.reasoning) for c in out] == [
        ("print(1)", "inline plan"),
        ("print(2)", "field plan"),
    ]


# --------------------------------------------------------------------------- aliases


def test_models_table_and_alias_resolution() -> None:
    table = parse_models_table(
        [
            "# aliases used by the WebApp1K runs",
            "",
            "llama-v3-70b = fireworks:accounts/fireworks/models/llama-v3-70b-instruct"
            "  preset=webapp1k",
            "local = vllm:qwen temperature=0.8 top_p=0.95 max_tokens=512 "
            "base_url=http://127.0.0.1:8000/v1",
            "coder = ollama:qwen2.5-coder:7b seed=3",
        ]
    )
    assert table["local"] == {
        "provider": "vllm",
        "model": "qwen",
        "temperature": 0.8,
        "top_p": 0.95,
        "max_tokens": 512,
        "base_url": "http://127.0.0.1:8000/v1",
    }
    spec, params, base_url = resolve_alias("llama-v3-70b", table)
    assert spec == "fireworks:accounts/fireworks/models/llama-v3-70b-instruct"
    assert params == WEBAPP1K_PARAMS and base_url is None
    assert resolve_alias("local", table) == (
        "vllm:qwen",
        SamplingParams(temperature=0.8, top_p=0.95, max_tokens=512),
        "http://127.0.0.1:8000/v1",
    )
    assert resolve_alias("coder", table)[:2] == ("ollama:qwen2.5-coder:7b", SamplingParams(seed=3))
    # A table from a file may carry strings and a combined model spec.
    loose = {"x": {"model": "anthropic:claude", "temperature": "0.1", "preset": "webapp1k"}}
    assert resolve_alias("x", loose) == (
        "anthropic:claude",
        SamplingParams(
            temperature=0.1, top_p=0.8, top_k=40, presence_penalty=0, frequency_penalty=0
        ),
        None,
    )


def test_alias_errors() -> None:
    table = {"b": {"provider": "vllm", "model": "m"}, "a": {"provider": "vllm", "model": "m"}}
    with pytest.raises(ModelError, match=r"unknown model alias 'c' \(known aliases: a, b\)"):
        resolve_alias("c", table)
    with pytest.raises(ModelError, match="unknown setting 'temprature'"):
        resolve_alias("a", {"a": {"provider": "vllm", "model": "m", "temprature": 1}})
    with pytest.raises(ModelError, match="unknown provider 'nope'"):
        resolve_alias("a", {"a": {"provider": "nope", "model": "m"}})
    with pytest.raises(ModelError, match="top_k must be an integer"):
        resolve_alias("a", {"a": {"provider": "vllm", "model": "m", "top_k": "4.5"}})
    with pytest.raises(ModelError, match="line 1 .*expected 'alias = provider:model"):
        parse_models_table(["just-a-name"])
    with pytest.raises(ModelError, match="unknown setting 'temp=1'"):
        parse_models_table(["a = vllm:m temp=1"])
    with pytest.raises(ModelError, match="alias 'a' is defined twice"):
        parse_models_table(["a = vllm:m", "a = vllm:n"])
