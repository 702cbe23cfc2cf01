"""The prompt of each build stage.

The paper does not print its prompts; these follow what CodeBenchGen's scripts ask for (see
the notes on its code): keep the input, change as little as possible, one fenced block back.
Each can be replaced per stage with ``--codegen-prompt-template build:STAGE=PATH``; the
template's ``{prompt}`` is the text below, ``{task_id}`` the fragment's id, ``{entry_point}``
the target's name, ``{file}`` its source path and ``{tests}`` the program the stage works on.

* ``sandbox`` (step 1): rewrite the file so the target runs on its own.
* ``tests`` (step 2): add ``test_<name>()`` with at least three asserts and a ``__main__`` call.
* ``debug`` (step 3): the whole program and its error log; return the fixed program.
* ``instruction`` (step 4): Functionality / Inputs / Outputs, about 45 words.
* ``augment`` (step 4): one more test function, ``test_extra_<name>()``, of edge cases.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..generation.prompts import fill

STAGES = ("sandbox", "tests", "debug", "instruction", "augment")
#: How much of an error log a debug prompt quotes (CodeBenchGen: 500 words of stderr).
LOG_WORDS = 500


def _fenced(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```"


def sandbox_prompt(func_name: str, context: str) -> str:
    return (
        f"The Python file below contains the function `{func_name}`. Rewrite the file so that "
        f"`{func_name}` can be executed by running this file alone, in an isolated environment "
        "without network access, external files, GPUs or API keys:\n"
        "- keep the code as it is, and remove as little as possible;\n"
        "- add code only where needed: mock external calls and services, simulate files with "
        "in-memory strings, define the classes or functions it needs that are missing;\n"
        f"- keep `{func_name}` with the same name, arguments and behaviour.\n"
        "Output the complete file in one ```python block.\n\n" + _fenced(context)
    )


def tests_prompt(func_name: str, program: str) -> str:
    short = func_name.rsplit(".", 1)[-1]
    return (
        f"Write a test function `test_{short}()` for `{func_name}` in the code below. It must "
        f"call `{short}` and check its results with at least three `assert` statements. Copy "
        "the input code without omitting anything, add the test function after it, and end "
        f'the file with `if __name__ == "__main__":` calling `test_{short}()`. Output the '
        "complete file in one ```python block.\n\nExample of the expected form:\n"
        "```python\ndef foo(x):\n    return x + 1\n\n\ndef test_foo():\n"
        "    assert foo(1) == 2\n    assert foo(-1) == 0\n    assert foo(10) == 11\n\n\n"
        'if __name__ == "__main__":\n    test_foo()\n```\n\nThe code:\n' + _fenced(program)
    )


def debug_prompt(func_name: str, program: str, log: str) -> str:
    words = log.split()
    if len(words) > LOG_WORDS:
        log = "[...] " + " ".join(words[-LOG_WORDS:])
    return (
        "The Python program below fails when it is run. Fix it with as few changes as "
        f"possible, especially to the tests and to `{func_name}`; keep every test function. "
        "Output the complete fixed program in one ```python block.\n\n"
        + _fenced(program)
        + f"\n\nThe error:\n```\n{log.strip()}\n```"
    )


def instruction_prompt(func_name: str, program: str) -> str:
    return (
        f"Describe the function `{func_name}` in the code below as an interview question of "
        "about 45 words, without revealing its tests. Use exactly three lines in one ``` "
        "block:\nFunctionality: what it does\nInputs: its arguments\nOutputs: what it "
        "returns or changes\n\n" + _fenced(program)
    )


def augment_prompt(func_name: str, program: str) -> str:
    short = func_name.rsplit(".", 1)[-1]
    return (
        f"Write one more test function, `test_extra_{short}()`, for `{func_name}` in the "
        "code below: four or five corner cases the existing tests miss, each checked with an "
        "`assert`. It may use everything the code defines. Output only the new function in "
        "one ```python block.\n\n" + _fenced(program)
    )


def render(
    stage: str,
    text: str,
    templates: Mapping[str | None, str],
    fields: Mapping[str, str],
) -> str:
    """``text``, or the user's template for ``build:<stage>`` filled with it."""
    template = templates.get(f"build:{stage}")
    if template is None:
        return text
    all_fields = {
        "prompt": text,
        "suite": "build",
        "category": stage,
        "language": "python",
        "task_id": "",
        "file": "",
        "tests": "",
        "entry_point": "",
    }
    all_fields.update(fields)
    return fill(template, all_fields)
