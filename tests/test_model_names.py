"""The built-in model names: ``--codegen-model=llama-v3-70b`` end to end against a real HTTP
server on 127.0.0.1, a ``codegen_models`` alias replacing a name, the missing-key line, the
``--codegen-list-models`` listing, and every catalogue entry checked against the rules."""

from __future__ import annotations

import json
import subprocess

import pytest
import test_wheel
from conftest import TINY, XDIST_MODES, read_results
from fake_providers import FakeProviders

from pytest_codegen.models import rules
from pytest_codegen.models.names import NAMED_MODELS, PAPER
from pytest_codegen.models.providers import PROVIDERS

# The wheel installed in a fresh venv (a module-scoped fixture).
installed = test_wheel.installed
PROBLEMS = [json.loads(line) for line in TINY.read_text().splitlines()]
LLAMA_ID = "accounts/fireworks/models/llama-v3-70b-instruct"
# Table 4 of the WebApp1K paper.
PAPER_MODELS = {
    "gpt-4o",
    "gpt-4o-mini",
    "claude-3.5-sonnet",
    "gemini-1.5-pro",
    "gemini-1.5-flash",
    "deepseek-coder-v2-instruct",
    "deepseek-coder-v2-lite-instruct",
    "llama-v3-70b-instruct",
    "llama-v3-8b-instruct",
    "mixtral-8x22b-instruct",
    "mixtral-8x7b-instruct",
}


def solve(request, index: int) -> str:
    """A chat model's answer: the whole function in a fence, found by its prompt."""
    for p in PROBLEMS:
        if json.dumps(p["prompt"])[1:-1] in json.dumps(request.body):
            return f"```python\n{p['prompt']}{p['canonical_solution']}```\n"
    return "I don't know."


@pytest.fixture
def clean_env(monkeypatch):
    """No provider key or endpoint from the machine's environment."""
    for provider in PROVIDERS.values():
        for name in (*provider.key_env, *provider.url_env):
            monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_every_entry_is_one_its_provider_and_model_family_accept():
    for name, entry in NAMED_MODELS.items():
        assert entry.provider in PROVIDERS, name
        assert ":" not in name, name  # would be read as PROVIDER:MODEL
        # Raises ModelError naming the parameter the provider or the model refuses.
        rules.check_params(entry.provider, entry.model, entry.params)


def test_the_papers_models_carry_its_parameters():
    paper = {name: e for name, e in NAMED_MODELS.items() if e.source == PAPER}
    assert PAPER_MODELS <= set(paper)
    for name, entry in paper.items():
        assert (entry.params.temperature, entry.params.top_p) == (0.2, 0.8), name
        # top_k 40 wherever the API takes it (the paper: "whenever applicable").
        expected_top_k = 40 if "top_k" in PROVIDERS[entry.provider].params else None
        assert entry.params.top_k == expected_top_k, name
    assert NAMED_MODELS["llama-v3-70b"].spec == f"fireworks:{LLAMA_ID}"


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_named_model_needs_only_its_key(pytester, clean_env, xdist):
    clean_env.setenv("FIREWORKS_API_KEY", "fw-test")
    tiny = pytester.path / "tiny.jsonl"
    tiny.write_text(TINY.read_text())
    # The server checks the key: a request without "Bearer fw-test" is refused.
    with FakeProviders(reply=solve, openai_key="fw-test") as server:
        result = pytester.runpytest_subprocess(
            "--codegen-model=llama-v3-70b",
            f"--codegen-base-url={server.openai_url}",
            f"--codegen-cache={pytester.path / 'gen-cache'}",
            "--codegen-results=r.jsonl",
            str(tiny),
            *xdist,
        )
        result.assert_outcomes(passed=3)
    assert len(server.requests) == 3
    for request in server.requests:
        assert request.error is None
        assert request.model == LLAMA_ID
        sent = {k: request.body.get(k) for k in ("temperature", "top_p", "top_k")}
        assert sent == {"temperature": 0.2, "top_p": 0.8, "top_k": 40}
    assert {r["outcome"] for r in read_results(pytester.path / "r.jsonl")} == {"passed"}


def test_flags_replace_a_named_models_parameters(pytester, clean_env):
    clean_env.setenv("FIREWORKS_API_KEY", "fw-test")
    tiny = pytester.path / "tiny.jsonl"
    tiny.write_text(TINY.read_text())
    with FakeProviders(reply=solve, openai_key="fw-test") as server:
        pytester.runpytest_subprocess(
            "--codegen-model=llama-v3-70b",
            f"--codegen-base-url={server.openai_url}",
            "--codegen-temperature=0.7",
            str(tiny),
        ).assert_outcomes(passed=3)
    for request in server.requests:
        sent = {k: request.body.get(k) for k in ("temperature", "top_p", "top_k")}
        assert sent == {"temperature": 0.7, "top_p": 0.8, "top_k": 40}


ALIAS_INI = """
[pytest]
codegen_models =
    llama-v3-70b = vllm:my-llama temperature=0.5
"""


def test_a_user_alias_replaces_the_builtin_name(pytester, clean_env):
    pytester.makeini(ALIAS_INI)
    tiny = pytester.path / "tiny.jsonl"
    tiny.write_text(TINY.read_text())
    with FakeProviders(reply=solve, openai_key=None) as server:
        pytester.runpytest_subprocess(
            "--codegen-model=llama-v3-70b", f"--codegen-base-url={server.openai_url}", str(tiny)
        ).assert_outcomes(passed=3)
    assert [r.model for r in server.requests] == ["my-llama"] * 3
    for request in server.requests:
        assert request.body.get("temperature") == 0.5
        assert "top_p" not in request.body and "top_k" not in request.body


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_missing_key_is_one_line_naming_the_variable(pytester, clean_env, xdist):
    tiny = pytester.path / "tiny.jsonl"
    tiny.write_text(TINY.read_text())
    result = pytester.runpytest_subprocess("--codegen-model=llama-v3-70b", str(tiny), *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == [
        f"ERROR: --codegen-model llama-v3-70b: model 'fireworks:{LLAMA_ID}' needs "
        "FIREWORKS_API_KEY (or pass --codegen-base-url for a local server)"
    ]


def _columns(result) -> dict[str, list[str]]:
    """The listing's rows by name, split on the runs of spaces between columns."""
    rows = {}
    for line in result.stdout.lines:
        cells = [c.strip() for c in line.split("  ") if c.strip()]
        if cells:
            rows[cells[0]] = cells[1:]
    return rows


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_listing_shows_what_each_name_resolves_to(pytester, clean_env, xdist):
    result = pytester.runpytest_subprocess("--codegen-list-models", *xdist)
    assert result.ret == pytest.ExitCode.OK
    rows = _columns(result)
    assert rows["NAME"] == ["PROVIDER:MODEL", "SAMPLING", "KEY", "FROM"]
    assert set(rows) - {"NAME"} == set(NAMED_MODELS)
    assert rows["llama-v3-70b"] == [
        f"fireworks:{LLAMA_ID}",
        "temperature=0.2 top_p=0.8 top_k=40",
        "FIREWORKS_API_KEY",
        "WebApp1K paper",
    ]
    assert rows["gpt-4o"][1] == "temperature=0.2 top_p=0.8"
    assert rows["gpt-5"] == ["openai:gpt-5", "provider defaults", "OPENAI_API_KEY", "hosted"]
    assert "collected" not in result.stdout.str()  # no session ran


def test_the_listing_shows_an_alias_in_place_of_the_name_it_replaces(pytester, clean_env):
    pytester.makeini(ALIAS_INI)
    result = pytester.runpytest_subprocess("--codegen-list-models")
    assert result.ret == pytest.ExitCode.OK
    rows = _columns(result)
    assert rows["llama-v3-70b"] == [
        "vllm:my-llama",
        "temperature=0.5",
        "-",
        "codegen_models (replaces built-in)",
    ]
    assert len(result.stdout.lines) == len(NAMED_MODELS) + 1  # header, each name once


def test_a_bad_alias_line_stops_the_listing_with_one_line(pytester, clean_env):
    pytester.makeini("[pytest]\ncodegen_models =\n    broken\n")
    result = pytester.runpytest_subprocess("--codegen-list-models")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("ERROR: codegen_models: model alias line 1")


def test_the_readme_command_in_a_fresh_venv_reaches_the_server_as_the_paper_sampled(
    installed, tmp_path
):
    # The wheel, installed in a venv of its own, run outside the checkout: the catalogue
    # ships with it.
    suite = tmp_path / "tiny.jsonl"
    suite.write_text(TINY.read_text())
    env = {k: v for k, v in installed["env"].items() if not k.startswith("FIREWORKS_")}
    env["FIREWORKS_API_KEY"] = "fw-test"
    with FakeProviders(reply=solve, openai_key="fw-test") as server:
        proc = subprocess.run(
            [
                str(installed["python"]),
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "--codegen-model=llama-v3-70b",
                f"--codegen-base-url={server.openai_url}",
                str(suite),
                "-n",
                "2",
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 passed" in proc.stdout
    assert server.requests
    for request in server.requests:
        assert request.error is None and request.model == LLAMA_ID
        sent = {k: request.body.get(k) for k in ("temperature", "top_p", "top_k")}
        assert sent == {"temperature": 0.2, "top_p": 0.8, "top_k": 40}
