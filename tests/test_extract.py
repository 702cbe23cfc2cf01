from __future__ import annotations

import pytest

from pytest_codegen.execution.extract import ExtractionError, extract_code, python_candidate

PROMPT = 'def add(a, b):\n    """Add."""\n'


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("    return a + b\n", "    return a + b\n"),
        ("```python\ndef add(a, b):\n    return a + b\n```", "def add(a, b):\n    return a + b\n"),
        (
            "Here you go:\n\n```py\ndef add(a, b):\n    return a + b\n```\nHope it helps!",
            "def add(a, b):\n    return a + b\n",
        ),
        (
            "<think>Maybe ```python\nwrong()\n```</think>\n"
            "```python\ndef add(a, b):\n    return a+b\n```",
            "def add(a, b):\n    return a+b\n",
        ),
        (
            "```bash\npip install x\n```\n```python\ndef add(a, b):\n    return a+b\n```",
            "def add(a, b):\n    return a+b\n",
        ),
        (
            "Sure.\ndef add(a, b):\n    return a + b\n\nThis adds the numbers.",
            "def add(a, b):\n    return a + b\n",
        ),
        ("```python\ndef add(a, b):\n    return a + b\n", "def add(a, b):\n    return a + b\n"),
    ],
)
def test_python_replies(reply, expected):
    assert extract_code(reply, "python", prefer="add") == expected


def test_prefers_block_with_entry_point():
    reply = (
        "```python\nimport math\n```\n\n```python\ndef helper():\n    pass\n"
        "def add(a, b):\n    return a + b\n```\n```python\nprint(add(1, 2))\n```"
    )
    assert "def add" in extract_code(reply, "python", prefer="add")


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   ",
        "<think>only thinking</think>",
        "<think>cut off before the answer",
        "I am sorry, I cannot help with that.",
    ],
)
def test_unextractable(reply):
    with pytest.raises(ExtractionError):
        extract_code(reply, "python")


def test_javascript_fence():
    reply = "Here:\n```jsx\nexport default function App() { return null; }\n```"
    assert extract_code(reply, "javascript").startswith("export default")


def test_candidate_assembly():
    (full,) = python_candidate(PROMPT, "def add(a, b):\n    return a + b\n", "add")
    assert full.startswith(PROMPT.rstrip("\n")) and full.endswith("return a + b\n")
    body = python_candidate(PROMPT, "    return a + b\n", "add")
    assert body == (PROMPT + "    return a + b\n",)
    unindented = python_candidate(PROMPT, "return a + b\n", "add")
    assert unindented == (PROMPT + "return a + b\n", PROMPT + "    return a + b\n")


@pytest.mark.parametrize(
    ("reply", "outcome", "message"),
    [
        ("    return a + b\n", "passed", ""),
        ("return a + b\n", "passed", ""),  # the indented fallback compiles
        ("  if a:\n    return a + b\n  return b\n", "passed", ""),  # any consistent indent
        (
            "    return a +\n",
            "error",
            "SyntaxError",
        ),  # the first source's error, not the fallback's
        ("return a +\n", "error", "line 3"),
    ],
)
def test_the_sandbox_loads_the_first_source_that_compiles(reply, outcome, message):
    from pytest_codegen.execution.dispatch import execute
    from pytest_codegen.execution.python.sandbox import Limits
    from pytest_codegen.problems import MODE_PYTHON_CALL, Problem

    problem = Problem(
        id="t/add",
        suite="extract",
        category="c",
        language="python",
        mode=MODE_PYTHON_CALL,
        prompt=PROMPT,
        tests="def check(candidate):\n    assert candidate(1, 2) == 3\n",
        extra={"entry_point": "add"},
    )
    _, verdict = execute(problem, reply, Limits(timeout_s=10, memory_mb=512))
    assert verdict.outcome == outcome, verdict.message
    assert message in verdict.message + verdict.stderr
