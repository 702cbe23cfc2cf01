"""Exec-CSN loader, prompt, extraction and splicing, checked against the tiny fixture suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_codegen.kinds.execcsn_program import (
    MASK,
    code_from_reply,
    extract_function,
    program_from_reply,
    splice,
)
from pytest_codegen.kinds.execcsn_rows import (
    STDERR_FAIL_WORDS,
    build_prompt,
    load_execcsn,
)
from pytest_codegen.problems import MODE_PYTHON_PROGRAM, Problem, SuiteError

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "suites" / "execcsn-tiny.json"


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def problems() -> dict[str, Problem]:
    return {p.extra["func_name"]: p for p in load_execcsn(FIXTURE, "execcsn-tiny")}


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
    # (with `code` but no `masked_code` the masked fields are derived: the stored dataset)
    "missing masked_code": (
        lambda r: _without(_without(r, "code"), "masked_code"),
        "'masked_code'",
    ),
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


def test_a_file_cut_short_is_placed_where_it_ends(tmp_path, rows):
    # json would place both past the last newline: a line after the last, column 1.
    listed = "[\n" + ",\n".join(json.dumps(row) for row in rows[:2]) + "\n"
    path = tmp_path / "suite.json"
    path.write_text(listed, encoding="utf-8")
    column = len(json.dumps(rows[1])) + 1
    with pytest.raises(SuiteError) as info:
        load_execcsn(path, "s")
    assert str(info.value) == (
        f"{path}: line 3: not valid JSON (Expecting ',' delimiter, column {column}: "
        "the file ends before its JSON value does)"
    )
    path.write_text(json.dumps(rows[0]) + "\n" + json.dumps(rows[1])[:-1] + "\n")
    with pytest.raises(SuiteError) as info:
        load_execcsn(path, "s")
    assert str(info.value).endswith(
        f"example 1 (line 2): not valid JSON (Expecting ',' delimiter, column {column - 1}: "
        "the line ends before its JSON value does)"
    )


def test_a_line_separator_inside_a_string_is_part_of_its_line(tmp_path, rows):
    # JSON lets U+2028 and U+2029 stand unescaped in a string; they end no JSON line.
    described = dict(rows[0], docstring="first\u2028second\u2029third")
    path = tmp_path / "suite.jsonl"
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in (described, rows[1])),
        encoding="utf-8",
    )
    assert len(load_execcsn(path, "s")) == 2


def test_missing_file(tmp_path):
    with pytest.raises(SuiteError, match="cannot read"):
        load_execcsn(tmp_path / "nope.json", "s")


# --------------------------------------------------------------------------- running
# Every sample below is a reply graded by the plugin itself (pytest with --codegen-model=
# replay:...), in one run per set of options: exit status, stderr rule, time and memory
# limits are the plugin's, as it applies them to Exec-CSN.

NAMES = ["parse_duration", "Version.from_string", "TokenBucket.consume", "temporary_env"]

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


def _prefixed(problem: Problem, lines: str) -> str:
    """``problem``'s reference with ``lines`` run first in its body."""
    header, body = problem.reference.split("\n", 1)
    indent = body[: len(body) - len(body.lstrip())]
    return f"{header}\n{textwrap.indent(lines, indent)}\n{body}"


def _noisy(problem: Problem, text: str, stream: str = "stderr") -> str:
    """The reference of parse_duration, writing ``text`` to ``stream`` on each call."""
    noisy = problem.reference.replace(
        "    text = text.strip()",
        f"    import sys\n    sys.{stream}.write({text!r})\n    text = text.strip()",
    )
    assert noisy != problem.reference
    return noisy


def harness_samples(problems: dict[str, Problem], rows: list[dict]) -> list[tuple]:
    """``(key, problem, reply)`` of every sample graded under the default options."""
    parse = problems["parse_duration"]
    method = problems["TokenBucket.consume"]
    indented = textwrap.indent(method.reference, "        ")
    # a def at column 0 with the body left at its class indentation (tree-sitter node text)
    raw_node_text = (
        method.reference.split("\n", 1)[0]
        + "\n"
        + textwrap.indent(method.reference.split("\n", 1)[1], "    ")
    )
    version = problems["Version.from_string"]
    samples = [(("reference", n), problems[n], problems[n].reference) for n in NAMES]
    samples += [(("wrong", n), problems[n], textwrap.dedent(WRONG[n])) for n in NAMES]
    # The mask replaced by nothing at all.
    samples += [(("empty", n), problems[n], "```python\npass\n```") for n in NAMES]
    for n in NAMES:
        code = next(r["code"] for r in rows if r["func_name"] == n)
        samples.append((("whole-file", n), problems[n], f"Here is it:\n```python\n{code}\n```\nOk"))
    for i, source in enumerate(
        [method.reference, indented, "\n\n" + indented + "\n\n", raw_node_text]
    ):
        samples.append((("indentation", i), method, source))
    samples.append(
        (
            ("decorators",),
            version,
            "@staticmethod\n@classmethod\n" + version.reference.split("\n", 1)[1],
        )
    )
    # The target defined, but not by a def the harness finds: inside an if.
    samples.append((("no-target",), parse, "if True:\n" + textwrap.indent(parse.reference, "    ")))
    undecorated = problems["temporary_env"].reference.split("\n", 1)[1]
    assert undecorated.startswith("def temporary_env")
    samples.append((("undecorated",), problems["temporary_env"], undecorated))
    samples.append((("stderr", "error"), parse, _noisy(parse, "deprecation error\n")))
    for word in STDERR_FAIL_WORDS:
        samples.append((("stderr-word", word), parse, _noisy(parse, f"a {word} here")))
    samples.append((("stderr", "quiet"), parse, _noisy(parse, "all fine\n")))
    samples.append((("stdout", "error"), parse, _noisy(parse, "error\n", stream="stdout")))
    # Address space, as `ulimit -v` counts it: 3 GiB fit in Exec-CSN's 4 GiB, 5 GiB do not.
    for gib in (3, 5):
        mapping = f"import mmap\nmapping = mmap.mmap(-1, {gib} << 30)"
        samples.append((("memory", gib), parse, _prefixed(parse, mapping)))
    samples.append((("sleeps",), parse, _prefixed(parse, "import time\ntime.sleep(60)")))
    return samples


def lenient_samples(problems: dict[str, Problem]) -> list[tuple]:
    """Samples graded with the stderr rule off and the user's own limits."""
    parse = problems["parse_duration"]
    return [
        (("stderr", "error"), parse, _noisy(parse, "deprecation error\n")),
        (("memory", 3), parse, _prefixed(parse, "import mmap\nmapping = mmap.mmap(-1, 3 << 30)")),
        (("sleeps",), parse, _prefixed(parse, "import time\ntime.sleep(60)")),
    ]


def grade_with_plugin(directory: Path, samples: list[tuple], *args: str) -> dict:
    """Grade ``samples`` with pytest and the plugin in a subprocess: their records by key."""
    directory.mkdir()
    suite = directory / FIXTURE.name
    suite.write_text(FIXTURE.read_text(encoding="utf-8"), encoding="utf-8")
    counts: dict[str, int] = {}
    replay, nodeids = [], {}
    for key, problem, reply in samples:
        index = counts[problem.id] = counts.get(problem.id, -1) + 1
        replay.append({"task_id": problem.id, "sample_index": index, "completion": reply})
        nodeids[key] = f"{suite.name}::{problem.node_name}[s{index}]"
    (directory / "replay.jsonl").write_text("".join(json.dumps(r) + "\n" for r in replay))
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            suite.name,
            "--codegen-model=replay:replay.jsonl",
            f"--codegen-samples={max(counts.values()) + 1}",
            "--codegen-results=results.jsonl",
            "--codegen-tripwire=0",
            *args,
        ],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    records = {
        r["nodeid"]: r
        for r in map(json.loads, (directory / "results.jsonl").read_text().splitlines())
    }
    return {key: records[nodeid] for key, nodeid in nodeids.items()}


@pytest.fixture(scope="module")
def graded(problems, rows, tmp_path_factory) -> dict:
    """The records of :func:`harness_samples`, graded with -n 2 and default options."""
    base = tmp_path_factory.mktemp("execcsn")
    return grade_with_plugin(base / "harness", harness_samples(problems, rows), "-n", "2")


@pytest.fixture(scope="module")
def graded_lenient(problems, tmp_path_factory) -> dict:
    """The records of :func:`lenient_samples`: the stderr rule off by its ini key, memory
    and time limits set by flags."""
    base = tmp_path_factory.mktemp("execcsn")
    return grade_with_plugin(
        base / "lenient",
        lenient_samples(problems),
        "-o",
        "codegen_stderr_rule=off",
        "--codegen-memory=2048",
        "--codegen-timeout=2",
    )


def test_graded_in_program_mode(graded):
    assert {r["mode"] for r in graded.values()} == {"python-program"}


@pytest.mark.parametrize("name", NAMES)
def test_reference_passes(graded, name):
    assert graded["reference", name]["outcome"] == "passed"


@pytest.mark.parametrize("name", list(WRONG))
def test_wrong_function_fails(graded, name):
    record = graded["wrong", name]
    assert record["outcome"] in ("failed", "error"), record
    assert "Error" in record["error"]  # the program's own failure, not an extraction's


def test_empty_mask_fails(graded):
    for name in NAMES:
        record = graded["empty", name]
        assert record["outcome"] in ("failed", "error"), record
        assert "Error" in record["error"]


def test_reply_without_the_target_runs_with_an_empty_mask(graded):
    # As CodeBenchGen's harness: its tests then fail, however the reply defines the target.
    record = graded["no-target",]
    assert record["outcome"] in ("failed", "error"), record
    assert "NameError" in record["error"] and "parse_duration" in record["error"]


@pytest.mark.parametrize("name", NAMES)
def test_whole_file_reply_passes(graded, name):
    assert graded["whole-file", name]["outcome"] == "passed"


def test_stderr_error_word_fails(graded):
    record = graded["stderr", "error"]
    assert record["outcome"] == "failed"
    assert "its stderr says 'error'" in record["error"]
    assert "deprecation error" in record["stderr"]


@pytest.mark.parametrize("word", STDERR_FAIL_WORDS)
def test_each_error_word_on_stderr_fails(graded, word):
    record = graded["stderr-word", word]
    assert record["outcome"] == "failed"
    assert f"its stderr says {word!r}" in record["error"]


def test_stderr_without_error_word_and_error_on_stdout_pass(graded):
    quiet, stdout = graded["stderr", "quiet"], graded["stdout", "error"]
    assert quiet["outcome"] == "passed" and "all fine" in quiet["stderr"]
    assert stdout["outcome"] == "passed" and "error" in stdout["stdout"]


def test_stderr_rule_can_be_turned_off(graded_lenient):
    record = graded_lenient["stderr", "error"]
    assert record["outcome"] == "passed"
    assert "deprecation error" in record["stderr"]


def test_memory_limit_is_the_harness_4_gib(graded):
    assert graded["memory", 3]["outcome"] == "passed"  # over the plugin's default 2 GiB
    record = graded["memory", 5]
    assert record["outcome"] in ("error", "crashed"), record
    assert "memory" in (record["error"] + record["stderr"]).lower()


def test_time_limit_is_the_harness_10_s(graded):
    record = graded["sleeps",]
    assert record["outcome"] == "timeout"
    assert "within 10 s" in record["error"]


def test_limits_given_by_the_user_win(graded_lenient):
    memory, sleeps = graded_lenient["memory", 3], graded_lenient["sleeps",]
    assert memory["outcome"] in ("error", "crashed"), memory
    assert sleeps["outcome"] == "timeout" and "within 2 s" in sleeps["error"]


# --------------------------------------------------------------------------- splicing


def test_splice_indents_method_to_mask(problems):
    problem = problems["TokenBucket.consume"]
    program = splice(problem, "def consume(self, amount=1):\n    if amount:\n        return 1\n")
    expected = "\n    def consume(self, amount=1):\n        if amount:\n            return 1\n"
    assert expected in program
    assert MASK not in program
    compile(program, "<spliced>", "exec")


def test_splice_accepts_any_source_indentation(graded):
    # The reference as written, indented deeper, with blank lines around, and as a node's
    # text (see harness_samples).
    for i in range(4):
        assert graded["indentation", i]["outcome"] == "passed", i


def test_splice_top_level_keeps_columns(problems):
    problem = problems["parse_duration"]
    program = splice(problem, "def parse_duration(text):\n    return 0")
    assert "\ndef parse_duration(text):\n    return 0\n" in program


def test_splice_drops_reply_decorators(problems, graded):
    problem = problems["Version.from_string"]
    program = splice(problem, "@staticmethod\n@classmethod\n" + problem.reference.split("\n", 1)[1])
    assert program.count("@classmethod") == 1
    assert "@staticmethod" not in program
    assert "    @classmethod\n    def from_string(cls, text):\n" in program
    assert graded["decorators",]["outcome"] == "passed"  # that very reply, graded


def test_splice_keeps_contextmanager_from_masked_program(graded):
    # temporary_env's reference without its decorator (see harness_samples)
    assert graded["undecorated",]["outcome"] == "passed"


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
    # CodeBenchGen's harness finds only a module-level def of the method (its lookup in the
    # class raises): a difference in docs/explanation/fidelity.md.
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


def test_extract_one_line_function():
    # Graded here; CodeBenchGen's harness drops a target without a newline (it counts as
    # failed): a difference in docs/explanation/fidelity.md.
    assert extract_function("def parse_duration(t): return 1\n", "parse_duration") == (
        "def parse_duration(t): return 1"
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
