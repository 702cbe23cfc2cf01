"""A loopback model that answers a benchmark build's prompts like a model would.

It runs on :class:`fake_providers.FakeProviders` (real HTTP on 127.0.0.1, the OpenAI chat
format) and answers each stage from the script in ``fixtures/build/answers.py``: the file
back (or its scripted rewrite) for sandboxing, the file plus a scripted test for test
generation, scripted revisions for debugging, Functionality/Inputs/Outputs from the target's
docstring, extra tests for augmentation (the first sample wrong), and API faults.

    with BuildModel() as model:
        pytester.runpytest("--codegen-model=vllm:m", f"--codegen-base-url={model.url}", ...)
"""

from __future__ import annotations

import ast
import collections
import importlib.util
import re
import threading
from pathlib import Path
from typing import Any

from fake_providers import FakeProviders, Fault, Recorded

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "build"
_PY_BLOCK = re.compile(r"```python\n(.*?)\n```", re.DOTALL)
_TARGET = {
    "sandbox": re.compile(r"contains the function `([\w.]+)`"),
    "tests": re.compile(r"`test_\w+\(\)` for `([\w.]+)`"),
    "debug": re.compile(r"to the tests and to `([\w.]+)`"),
    "instruction": re.compile(r"Describe the function `([\w.]+)`"),
    "augment": re.compile(r"`test_extra_\w+\(\)`, for `([\w.]+)`"),
}


def load_answers() -> dict[str, dict[str, Any]]:
    spec = importlib.util.spec_from_file_location("build_answers", FIXTURES / "answers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ANSWERS


def stage_of(text: str) -> tuple[str, str]:
    """(stage, target) of a build prompt."""
    for stage in ("sandbox", "debug", "instruction", "augment", "tests"):
        match = _TARGET[stage].search(text)
        if match:
            return stage, match.group(1)
    raise AssertionError(f"not a build prompt: {text[:80]!r}")


def fenced(code: str) -> str:
    return f"Here is the code:\n\n```python\n{code.rstrip()}\n```\n"


def without_target(program: str, func_name: str) -> str:
    """``program`` with the target's def removed (a sandboxing that loses it)."""
    tree = ast.parse(program)
    short = func_name.rsplit(".", 1)[-1]
    lines = program.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == short:
            return "\n".join(lines[: node.lineno - 1] + lines[node.end_lineno :]) + "\n"
    return program


def replace_test(program: str, short: str, new_test: str | None) -> str:
    """``program`` with ``test_<short>`` replaced by ``new_test`` (None drops it and its call)."""
    tree = ast.parse(program)
    lines = program.splitlines()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == f"test_{short}":
            replacement = [] if new_test is None else new_test.rstrip().splitlines()
            out = lines[: node.lineno - 1] + replacement + lines[node.end_lineno :]
            text = "\n".join(out) + "\n"
            if new_test is None:
                text = text.replace(f"    test_{short}()\n", "    pass\n")
            return text
    return program


class BuildModel:
    """The scripted model behind a real loopback HTTP server (``url`` is its /v1 base)."""

    def __init__(self, latency_s: float = 0.0, answers: dict | None = None) -> None:
        self.answers = answers if answers is not None else load_answers()
        self.counts: collections.Counter[tuple[str, str]] = collections.Counter()
        self.transient_done: set[str] = set()
        self._lock = threading.Lock()
        self.server = FakeProviders(
            self.reply, latency_s=latency_s, fault=self.fault, openai_key=None
        )

    def __enter__(self) -> BuildModel:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    @property
    def url(self) -> str:
        return self.server.openai_url

    def requests_for(self, func_name: str | None = None) -> list[tuple[str, str]]:
        """(stage, target) of every request received (for ``func_name`` only, if given)."""
        seen = [stage_of(r.user_text) for r in self.server.requests if r.api == "openai"]
        return [s for s in seen if func_name is None or s[1] == func_name]

    def fault(self, request: Recorded) -> Fault | None:
        _, func = stage_of(request.user_text)
        kind = self.answers.get(func, {}).get("fault")
        if kind == "down":
            return Fault.http(400, message="this request cannot be served")
        if kind == "transient":
            with self._lock:
                if func not in self.transient_done:
                    self.transient_done.add(func)
                    return Fault.http(429, retry_after="0.1")
        return None

    def reply(self, request: Recorded, index: int) -> str:
        text = request.user_text
        stage, func = stage_of(text)
        entry = self.answers.get(func, {})
        short = func.rsplit(".", 1)[-1]
        blocks = _PY_BLOCK.findall(text)
        with self._lock:
            if index == 0:
                self.counts[(stage, func)] += 1
            attempt = self.counts[(stage, func)]
        if stage == "sandbox":
            context = entry.get("sandbox") or blocks[-1] + "\n"
            if attempt <= entry.get("sandbox_bad", 0):
                return fenced(without_target(context, func))
            return fenced(context)
        if stage == "tests":
            program = blocks[-1]
            main = f'if __name__ == "__main__":\n    test_{short}()\n'
            return fenced(f"{program.rstrip()}\n\n\n{entry['test'].rstrip()}\n\n\n{main}")
        if stage == "debug":
            program = blocks[0] + "\n"
            revisions = entry.get("debug") or [None]
            revision = revisions[min(attempt, len(revisions)) - 1]
            if revision is None:
                return fenced(program)  # the model changes nothing
            if revision == "DROP":
                return fenced(replace_test(program, short, None))
            return fenced(replace_test(program, short, revision))
        if stage == "instruction":
            doc = _docstring(blocks[-1], func)
            return (
                "```\n"
                f"Functionality: {doc}\n"
                f"Inputs: the arguments of {short}, as in its signature.\n"
                f"Outputs: what {short} returns, as the docstring says.\n"
                "```"
            )
        # augment
        extra = entry.get("aug")
        if extra is None:
            return "The existing tests already cover the corner cases I can think of."
        if index == 0:  # a wrong expectation: the target fails this set
            extra = extra.replace(" == ", " != ", 1)
        return fenced(extra)


def _docstring(program: str, func_name: str) -> str:
    short = func_name.rsplit(".", 1)[-1]
    for node in ast.walk(ast.parse(program)):
        if isinstance(node, ast.FunctionDef) and node.name == short:
            return " ".join((ast.get_docstring(node) or f"implements {short}").split())
    return f"implements {short}"


def run_build(pytester: Any, model: BuildModel, spec: str, *args: str) -> Any:
    """A pytest run that builds ``spec`` (``--codegen-build``) with ``model``, its generation
    cache in the test's directory; ``args`` are pytest's further arguments."""
    return pytester.runpytest_subprocess(
        "--codegen-model=vllm:tiny-builder",
        f"--codegen-base-url={model.url}",
        f"--codegen-cache={pytester.path / 'gen-cache'}",
        f"--codegen-build={spec}",
        *args,
    )
