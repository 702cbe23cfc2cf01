"""Exec-CSN loader, prompt, extraction and splicing, checked against the tiny fixture suite."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_codegen.collect.suites.execcsn import (
    STDERR_FAIL_WORDS,
    TIMEOUT_S,
    build_prompt,
    load_execcsn,
)
from pytest_codegen.collect.suites.execcsn_program import (
    MASK,
    code_from_reply,
    extract_function,
    program_from_reply,
    splice,
)
from pytest_codegen.problems import MODE_PYTHON_PROGRAM, Problem, SuiteError

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "suites" / "execcsn-tiny.json"


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def problems() -> dict[str, Problem]:
    return {p.extra["func_name"]: p for p in load_execcsn(FIXTURE, "execcsn-tiny")}


def passes(program: str, tmp_path: Path) -> bool:
    """The reference harness's verdict: exit status 0 and no error word on stderr."""
    script = tmp_path / "program.py"
    script.write_text(program, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        cwd=tmp_path,
    )
    return proc.returncode == 0 and not any(w in proc.stderr for w in STDERR_FAIL_WORDS)


def write_rows(tmp_path: Path, rows: list, name: str = "suite.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- loader


def test_loads_every_example_with_common_fields(problems, rows):
    assert list(problems) == [r["func_name"] for r in rows]
    for problem, row in zip(problems.values(), rows, strict=True):
        assert problem.id == str(row["idx"])
        assert problem.suite == "execcsn-tiny"
        assert problem.category == "exec-csn"
        assert problem.language == "python"
        assert problem.mode == MODE_PYTHON_PROGRAM
        assert problem.tests == row["masked_code"]
        assert problem.tests.count(MASK) == 1
        assert problem.extra["mask"] == MASK
        assert problem.extra["idx"] == row["idx"]
        assert problem.extra["timeout_s"] == 10
        assert problem.node_name == str(row["idx"])


def test_mask_indentation_and_decorators(problems):
    extra = {name: p.extra for name, p in problems.items()}
    assert extra["parse_duration"]["mask_indent"] == ""
    assert extra["Version.from_string"]["mask_indent"] == "    "
    assert extra["TokenBucket.consume"]["mask_indent"] == "    "
    assert extra["temporary_env"]["mask_indent"] == ""
    assert extra["Version.from_string"]["mask_decorators"] == ["@classmethod"]
    assert extra["temporary_env"]["mask_decorators"] == ["@contextlib.contextmanager"]
    assert extra["parse_duration"]["mask_decorators"] == []


def test_prompt_is_the_reference_template(problems, rows):
    for problem, row in zip(problems.values(), rows, strict=True):
        first, second = problem.prompt.split("\n")[:2]
        assert first == (
            f"Complete the {row['func_name']} function in the code below based on the docstring."
        )
        assert second.startswith("Output one complete piece of code.")
        assert problem.prompt.endswith("\n```")
        assert "insert the instruction here" not in problem.prompt
        assert "def test_" not in problem.prompt  # tests are never shown
        assert row["revised_instruction"].split("\n")[0] in problem.prompt


def test_prompt_exact_text(problems):
    prompt = problems["parse_duration"].prompt
    expected_docstring = '    """Functionality: Converts a human-readable duration'
    assert expected_docstring in prompt
    # Continuation lines are indented by the width of '    """' (upstream behaviour).
    assert "\n       Inputs: text (str)" in prompt
    assert prompt.split("\n")[:4] == [
        "Complete the parse_duration function in the code below based on the docstring.",
        "Output one complete piece of code. Your code should start with a ```python delimiter"
        " and end with a ``` delimiter.",
        "",
        "```python",
    ]
    assert 'def parse_duration(text):\n    """Functionality' in prompt
    assert 'invalid duration %r" % text)' not in prompt  # the body is hidden


def test_build_prompt_without_placeholder_keeps_context():
    context = "def f(x):\n    ...\n"
    assert build_prompt("f", context, "Functionality: x") == (
        "Complete the f function in the code below based on the docstring.\n"
        "Output one complete piece of code. Your code should start with a ```python delimiter"
        " and end with a ``` delimiter.\n\n```python\ndef f(x):\n    ...\n\n```"
    )


def test_build_prompt_tolerates_backslashes():
    context = 'def f(x):\n    """insert the instruction here"""\n    ...'
    prompt = build_prompt("f", context, r"Matches \d+ digits")
    assert r'"""Matches \d+ digits"""' in prompt


def test_reference_keeps_decorators(problems):
    assert problems["Version.from_string"].reference.startswith(
        "@classmethod\ndef from_string(cls, text):\n"
    )
    assert problems["temporary_env"].reference.startswith(
        "@contextlib.contextmanager\ndef temporary_env(**overrides):\n"
    )
    assert problems["parse_duration"].reference.startswith("def parse_duration(text):\n")


def test_reference_from_ref_func_or_none(tmp_path, rows):
    no_code = [{k: v for k, v in rows[0].items() if k != "code"}]
    assert load_execcsn(write_rows(tmp_path, no_code), "s")[0].reference is None
    no_code[0]["ref_func"] = ["def parse_duration(text):\n    return 0"]
    ref = load_execcsn(write_rows(tmp_path, no_code), "s")[0].reference
    assert ref == "def parse_duration(text):\n    return 0"


def test_jsonl_is_accepted(tmp_path, rows, problems):
    path = tmp_path / "suite.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    loaded = load_execcsn(path, "execcsn-tiny")
    assert [p.id for p in loaded] == [p.id for p in problems.values()]
    assert [p.prompt for p in loaded] == [p.prompt for p in problems.values()]


def test_ids_without_id_field_are_name_and_index(tmp_path, rows):
    stripped = [{k: v for k, v in r.items() if k != "idx"} for r in rows]
    ids = [p.id for p in load_execcsn(write_rows(tmp_path, stripped), "s")]
    assert ids == [
        "parse_duration_0",
        "Version.from_string_1",
        "TokenBucket.consume_2",
        "temporary_env_3",
    ]
    assert ids == [p.id for p in load_execcsn(write_rows(tmp_path, stripped), "s")]


def test_id_field_and_category_field(tmp_path, rows):
    row = dict(rows[0], id="csn/parse", repo="someone/durations")
    [problem] = load_execcsn(write_rows(tmp_path, [row]), "s")
    assert problem.id == "csn/parse"
    assert problem.category == "someone/durations"


def test_duplicate_ids_are_rejected(tmp_path, rows):
    path = write_rows(tmp_path, [rows[0], rows[1], dict(rows[2], idx=rows[0]["idx"])])
    with pytest.raises(SuiteError) as info:
        load_execcsn(path, "s")
    assert str(path) in str(info.value)
    assert "example 2" in str(info.value) and "example 0" in str(info.value)


def _without(row: dict, key: str) -> dict:
    return {k: v for k, v in row.items() if k != key}


BAD_EXAMPLES = {
    "missing func_name": (lambda r: _without(r, "func_name"), "'func_name'"),
    "bad func_name": (lambda r: dict(r, func_name="not a name"), "'func_name'"),
    "func_name not str": (lambda r: dict(r, func_name=3), "'func_name'"),
    "missing masked_code": (lambda r: _without(r, "masked_code"), "'masked_code'"),
    "masked_code not str": (lambda r: dict(r, masked_code=["x"]), "'masked_code'"),
    "no mask": (lambda r: dict(r, masked_code=r["code"]), "'masked_code'"),
    "two masks": (lambda r: dict(r, masked_code=r["masked_code"] + MASK), "'masked_code'"),
    "mask not alone": (
        lambda r: dict(r, masked_code=r["masked_code"].replace(MASK, "x = " + MASK)),
        "'masked_code'",
    ),
    "missing context": (lambda r: _without(r, "masked_method_no_test"), "'masked_method_no_test'"),
    "missing instruction": (lambda r: _without(r, "revised_instruction"), "'revised_instruction'"),
    "empty instruction": (lambda r: dict(r, revised_instruction="  "), "'revised_instruction'"),
    "bad idx": (lambda r: dict(r, idx=[1]), "'idx'"),
    "bool idx": (lambda r: dict(r, idx=True), "'idx'"),
    "not an object": (lambda r: ["func_name", "masked_code"], "JSON object"),
}


@pytest.mark.parametrize("case", list(BAD_EXAMPLES))
def test_bad_example_names_file_index_and_field(tmp_path, rows, case):
    make_bad, needle = BAD_EXAMPLES[case]
    path = write_rows(tmp_path, [rows[0], rows[1], make_bad(dict(rows[2])), rows[3]])
    with pytest.raises(SuiteError) as info:
        load_execcsn(path, "s")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: example 2")
    assert needle in message


def test_bad_jsonl_line_names_index_and_line(tmp_path, rows):
    path = tmp_path / "suite.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n\n{not json\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=r"example 1 \(line 3\): not valid JSON"):
        load_execcsn(path, "s")
    path.write_text(json.dumps(rows[0]) + "\n" + json.dumps(_without(rows[1], "func_name")))
    with pytest.raises(SuiteError, match=r"example 1 \(line 2\): missing field 'func_name'"):
        load_execcsn(path, "s")


@pytest.mark.parametrize(
    "content, needle",
    [
        ("", "no examples"),
        ("[]", "no examples"),
        ('[{"func_name": ', "not valid JSON"),
        ("42", "expected a list"),
    ],
)
def test_bad_file(tmp_path, content, needle):
    path = tmp_path / "suite.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_execcsn(path, "s")
    assert str(info.value).startswith(str(path))
    assert needle in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(SuiteError, match="cannot read"):
        load_execcsn(tmp_path / "nope.json", "s")


# --------------------------------------------------------------------------- running


@pytest.mark.parametrize(
    "name", ["parse_duration", "Version.from_string", "TokenBucket.consume", "temporary_env"]
)
def test_reference_passes(problems, tmp_path, name):
    problem = problems[name]
    assert passes(splice(problem, problem.reference), tmp_path)


WRONG = {
    "parse_duration": """
        def parse_duration(text):
            total = 0
            for amount, unit in re.findall(r"(\\d+)([wdhms])", text):
                total += int(amount) * _UNITS[unit]
            return total
    """,
    "Version.from_string": """
        @classmethod
        def from_string(cls, text):
            major, minor, patch = (text.split(".") + ["0"])[:3]
            return cls(int(major), int(minor), int(patch))
    """,
    "TokenBucket.consume": """
        def consume(self, amount=1):
            if self.tokens >= amount:
                self.tokens -= amount
                return True
            return False
    """,
    "temporary_env": """
        @contextlib.contextmanager
        def temporary_env(**overrides):
            saved = dict(os.environ)
            os.environ.update({k: str(v) for k, v in overrides.items() if v is not None})
            yield os.environ
            os.environ.clear()
            os.environ.update(saved)
    """,
}


@pytest.mark.parametrize("name", list(WRONG))
def test_wrong_function_fails(problems, tmp_path, name):
    assert not passes(splice(problems[name], textwrap.dedent(WRONG[name])), tmp_path)


def test_empty_mask_fails(problems, tmp_path):
    for problem in problems.values():
        assert not passes(problem.tests.replace(MASK, ""), tmp_path)


@pytest.mark.parametrize(
    "name", ["parse_duration", "Version.from_string", "TokenBucket.consume", "temporary_env"]
)
def test_whole_file_reply_passes(problems, rows, tmp_path, name):
    row = next(r for r in rows if r["func_name"] == name)
    reply = f"Here is the code:\n```python\n{row['code']}\n```\nIt works."
    program = program_from_reply(problems[name], code_from_reply(reply))
    assert program is not None and passes(program, tmp_path)


def test_stderr_error_word_fails(problems, tmp_path):
    problem = problems["parse_duration"]
    noisy = problem.reference.replace(
        "    text = text.strip()",
        "    import sys\n    sys.stderr.write('deprecation error\\n')\n    text = text.strip()",
    )
    assert noisy != problem.reference
    assert not passes(splice(problem, noisy), tmp_path)


# --------------------------------------------------------------------------- splicing


def test_splice_indents_method_to_mask(problems):
    problem = problems["TokenBucket.consume"]
    program = splice(problem, "def consume(self, amount=1):\n    if amount:\n        return 1\n")
    expected = "\n    def consume(self, amount=1):\n        if amount:\n            return 1\n"
    assert expected in program
    assert MASK not in program
    compile(program, "<spliced>", "exec")


def test_splice_accepts_any_source_indentation(problems, tmp_path):
    problem = problems["TokenBucket.consume"]
    indented = textwrap.indent(problem.reference, "        ")
    # a def at column 0 with the body left at its class indentation (tree-sitter node text)
    raw_node_text = (
        problem.reference.split("\n", 1)[0]
        + "\n"
        + textwrap.indent(problem.reference.split("\n", 1)[1], "    ")
    )
    for source in (problem.reference, indented, "\n\n" + indented + "\n\n", raw_node_text):
        assert passes(splice(problem, source), tmp_path)


def test_splice_top_level_keeps_columns(problems):
    problem = problems["parse_duration"]
    program = splice(problem, "def parse_duration(text):\n    return 0")
    assert "\ndef parse_duration(text):\n    return 0\n" in program


def test_splice_drops_reply_decorators(problems, tmp_path):
    problem = problems["Version.from_string"]
    program = splice(problem, "@staticmethod\n@classmethod\n" + problem.reference.split("\n", 1)[1])
    assert program.count("@classmethod") == 1
    assert "@staticmethod" not in program
    assert "    @classmethod\n    def from_string(cls, text):\n" in program
    assert passes(program, tmp_path)


def test_splice_keeps_contextmanager_from_masked_program(problems, tmp_path):
    problem = problems["temporary_env"]
    undecorated = problem.reference.split("\n", 1)[1]
    assert undecorated.startswith("def temporary_env")
    assert passes(splice(problem, undecorated), tmp_path)


def test_splice_tests_survive(problems):
    problem = problems["Version.from_string"]
    program = splice(problem, problem.reference)
    assert program.endswith(problem.tests.split(MASK, 1)[1])
    assert program.startswith(problem.tests.split(MASK, 1)[0])


# --------------------------------------------------------------------------- extraction


REPLY_WITH_EXTRAS = '''
import re
from functools import wraps


def helper(x):
    return x * 2


def traced(fn):
    @wraps(fn)
    def inner(*a, **k):
        return fn(*a, **k)
    return inner


@traced
@other.decorator(
    level=2,
)
def parse_duration(text):
    """Docstring."""
    return helper(len(text))


if __name__ == "__main__":
    print(parse_duration("1h"))
'''


def test_extract_with_decorators_and_extra_code():
    assert extract_function(REPLY_WITH_EXTRAS, "parse_duration") == (
        "@traced\n@other.decorator(\n    level=2,\n)\ndef parse_duration(text):\n"
        '    """Docstring."""\n    return helper(len(text))'
    )
    # helpers are not carried along
    assert extract_function(REPLY_WITH_EXTRAS, "helper") == "def helper(x):\n    return x * 2"


def test_extract_method_from_whole_class_is_dedented():
    reply = textwrap.dedent('''
        class Other:
            def consume(self):
                return "other"


        class TokenBucket:
            def __init__(self):
                self.tokens = 1

            @some.decorator
            def consume(self, amount=1):
                text = """
        keep me
                """
                return amount
    ''')
    assert extract_function(reply, "TokenBucket.consume") == (
        "@some.decorator\ndef consume(self, amount=1):\n"
        '    text = """\nkeep me\n    """\n    return amount'
    )


def test_extract_method_written_at_module_level():
    reply = "import time\n\ndef consume(self, amount=1):\n    return True\n"
    assert extract_function(reply, "TokenBucket.consume") == (
        "def consume(self, amount=1):\n    return True"
    )


def test_extract_async_and_longest_duplicate():
    reply = (
        "async def fetch(url):\n    return 1\n\n"
        "async def fetch(url):\n    data = await get(url)\n    return data\n"
    )
    assert extract_function(reply, "fetch") == (
        "async def fetch(url):\n    data = await get(url)\n    return data"
    )


@pytest.mark.parametrize(
    "reply, name",
    [
        ("def other():\n    pass\n", "parse_duration"),
        ("", "parse_duration"),
        ("def outer():\n    def parse_duration(t):\n        return 1\n", "parse_duration"),
        ("class Other:\n    def consume(self):\n        pass\n", "TokenBucket.consume"),
        ("class TokenBucket:\n    def refill(self):\n        pass\n", "TokenBucket.consume"),
        ("if True:\n    def parse_duration(t):\n        return 1\n", "parse_duration"),
        ("this is prose, not code at all", "parse_duration"),
    ],
)
def test_extract_missing_function_is_none(reply, name):
    assert extract_function(reply, name) is None


def test_extract_from_reply_that_does_not_parse():
    reply = (
        "Sure! Here it is:\n\n"
        "@cache\n"
        "def parse_duration(\n"
        "    text,\n"
        "):\n"
        "    return len(text)\n"
        "\n"
        "This function returns the length.\n"
    )
    assert extract_function(reply, "parse_duration") == (
        "@cache\ndef parse_duration(\n    text,\n):\n    return len(text)"
    )
    assert extract_function("def broken(:\n    pass\n", "broken") is None


def test_extract_handles_crlf():
    reply = "x = 1\r\ndef f():\r\n    return 2\r\n"
    assert extract_function(reply, "f") == "def f():\n    return 2"


def test_program_from_reply_none_when_missing(problems):
    assert program_from_reply(problems["parse_duration"], "def nope():\n    pass\n") is None


def test_code_from_reply():
    assert code_from_reply("a\n```python\nx = 1\n```\nb\n```\nyy = 22\n```") == "yy = 22"
    assert code_from_reply("[PYTHON]\nz = 1\n[/PYTHON]") == "z = 1"
    assert code_from_reply("```python\ndef f():\n    pass\n") == "def f():\n    pass\n"
    assert code_from_reply("def g():\n    pass") == "def g():\n    pass"
