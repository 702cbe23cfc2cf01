"""The documentation's examples run: every ``pytest`` command line of its pages and of the
README is parsed by pytest with this plugin's real options and resolved into settings (so a
renamed flag or a bad value fails here, not in a reader's terminal), every flag and every
file of the project named in the prose exists, every conftest.py example is loaded by a real
run and does what its page says, the ini examples pass ``--strict-config``, and the
``--codegen-list-models`` output shown is what the command prints."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from conftest import read_results
from docs_pages import ROOT, code_blocks, pages

from pytest_codegen.options import OPTIONS

# The workflows are read with PyYAML, which comes with the docs extra (myst-parser needs it).
yaml = pytest.importorskip("yaml", reason="the docs extra is not installed")


def _id(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT).as_posix()}:{line}"


# What a CI workflow fills in, given a value a run could have.
_WORKFLOW_VALUES = [
    (re.compile(r"\$\{\{[^}]*\}\}"), "1"),
    (re.compile(r"\$\(printf -- '([^']*)%s ' ([^)]*)\)"), r"\1\2"),
]


def _shell_lines(block: str) -> list[str]:
    """The block's command lines, continuations joined and shell variables it sets expanded."""
    variables: dict[str, str] = {}
    lines = []
    for line in block.replace("\\\n", " ").splitlines():
        for pattern, value in _WORKFLOW_VALUES:
            line = pattern.sub(value, line)
        assignment = re.fullmatch(r"([A-Z_]+)=(\S+)", line.strip())
        if assignment:
            variables[assignment[1]] = assignment[2]
            continue
        for name, value in variables.items():
            line = line.replace(f"${name}", value)
        lines.append(line)
    return lines


def _workflow_runs(block: str) -> list[str]:
    """The ``run:`` steps of a GitHub Actions workflow."""
    runs: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "run" and isinstance(value, str):
                    runs.append(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(block))
    return runs


def _pytest_args(line: str) -> list[list[str]]:
    """The arguments of each ``pytest`` (or ``python -m pytest``) command of a shell line."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words = list(lexer)
    commands: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", "||", ";", "|"):
            commands.append([])
        else:
            commands[-1].append(word)
    found = []
    for command in commands:
        while command and re.fullmatch(r"[A-Z_]+=\S*", command[0]):
            command = command[1:]  # an environment variable set for the command
        for i, word in enumerate(command):
            if Path(word).name == "pytest" and (i == 0 or command[i - 1] == "-m"):
                found.append(command[i + 1 :])
                break
    return found


def command_lines() -> list[pytest.ParameterSet]:
    """Every ``pytest`` command of the docs and the README, with its page and line."""
    params = []
    for path in pages():
        for line, block in code_blocks(path, ("bash", "console", "sh")):
            for text in _shell_lines(block):
                for args in _pytest_args(text):
                    params.append(pytest.param(args, id=_id(path, line)))
        for line, block in code_blocks(path, ("yaml", "yml")):
            for run in _workflow_runs(block):
                for text in _shell_lines(run.replace("\n", " ")):
                    for args in _pytest_args(text):
                        params.append(pytest.param(args, id=_id(path, line)))
    return params


COMMANDS = command_lines()


def test_the_docs_show_commands_of_every_kind():
    # The extraction itself: commands from plain blocks, workflows and shell variables.
    ids = [p.id for p in COMMANDS]
    assert len(COMMANDS) >= 40
    assert any("ci-gate.md" in i for i in ids) and any("select.md" in i for i in ids)
    assert any("--codegen-merge=shard-1.jsonl" in p.values[0] for p in COMMANDS)


@pytest.mark.parametrize("args", COMMANDS)
def test_a_command_of_the_docs_parses_with_the_real_options(pytester, args):
    from pytest_codegen.settings import resolve

    # In the directory a reader runs it in; no network, no collection: only the options.
    config = pytester.parseconfig(*args)
    settings = resolve(config)
    given = {a.split("=", 1)[0] for a in args if a.startswith("--codegen-")}
    assert given <= {o.flag_name for o in OPTIONS}
    if "--codegen-model" in given:
        assert settings.model


FLAGS = {o.flag_name for o in OPTIONS}


@pytest.mark.parametrize("path", pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_flag_a_page_names_exists(path):
    text = path.read_text(encoding="utf-8")
    named = set(re.findall(r"--codegen-[a-z][a-z-]*[a-z]", text))
    assert sorted(named - FLAGS) == []


def conftest_examples() -> list[pytest.ParameterSet]:
    return [
        pytest.param(block, id=_id(path, line))
        for path in pages()
        for line, block in code_blocks(path, ("python",))
        if block.startswith("# conftest.py")
    ]


# What an example leaves to the reader, and a record of what the run registered.
EXAMPLE_STUBS = """

def my_generate(prompt):
    return "```python\\ndef add(a, b):\\n    return a + b\\n```"


def pytest_sessionfinish(session):
    from pathlib import Path
    from pytest_codegen.kinds.registry import kinds_of
    Path("kinds.txt").write_text(" ".join(sorted(k.name for k in kinds_of(session.config))))
"""


@pytest.mark.parametrize("example", conftest_examples())
def test_a_conftest_example_of_the_docs_runs(pytester, tiny, example):
    assert conftest_examples(), "the docs lost their conftest.py examples"
    pytester.makeconftest(example + EXAMPLE_STUBS)
    spec = re.search(r'^\s+spec = "([^"]+)"', example, flags=re.M)
    model = spec[1] if spec else "reference"
    result = pytester.runpytest_subprocess(
        f"--codegen-model={model}", str(tiny), "--codegen-results=r.jsonl", "-p", "no:cacheprovider"
    )
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stderr.str()
    records = read_results(pytester.path / "r.jsonl")
    # Every problem of the suite graded, by the example's model.
    assert len(records) == len(tiny.read_text().splitlines())
    assert {r["model"] for r in records} == {model}
    assert not [r for r in records if r["outcome"] == "api_error"]
    kind = re.search(r'^\s+name = "([^"]+)"', example, flags=re.M)
    if kind and "pytest_codegen_add_kinds" in example:
        assert kind[1] in (pytester.path / "kinds.txt").read_text().split()


def config_examples() -> list[pytest.ParameterSet]:
    return [
        pytest.param(lang, block, id=_id(path, line))
        for path in pages()
        for lang in ("ini", "toml")
        for line, block in code_blocks(path, (lang,))
        if "codegen_" in block
    ]


@pytest.mark.parametrize("lang, example", config_examples())
def test_a_config_example_of_the_docs_is_accepted(pytester, tiny, lang, example):
    assert config_examples(), "the docs lost their ini examples"
    if lang == "toml":
        pytester.makepyprojecttoml(example)
    else:
        pytester.makeini(example)
    listed = pytester.runpytest_subprocess("--strict-config", "--codegen-list-models")
    assert listed.ret == pytest.ExitCode.OK, listed.stderr.str()
    for alias in re.findall(r'^\s*"([\w.-]+) = ', example, flags=re.M):
        listed.stdout.fnmatch_lines([f"{alias} *codegen_models*"])
    graded = pytester.runpytest_subprocess(
        "--strict-config", "--codegen-model=reference", str(tiny), "-p", "no:cacheprovider"
    )
    assert graded.ret == pytest.ExitCode.OK, graded.stderr.str()


def test_the_model_listing_shown_is_what_the_command_prints(pytester):
    shown = [
        block
        for path in pages()
        for _, block in code_blocks(path, ("text",))
        if block.startswith("NAME ") and "PROVIDER:MODEL" in block
    ]
    assert shown
    printed = pytester.runpytest_subprocess("--codegen-list-models").stdout.lines
    printed_rows = {" ".join(line.split()) for line in printed}
    for block in shown:
        rows = [" ".join(line.split()) for line in block.splitlines() if line.strip() != "..."]
        assert [row for row in rows if row not in printed_rows] == []


def test_the_json_examples_of_the_docs_are_json():
    for path in pages():
        for _, block in code_blocks(path, ("json",)):
            text = block.strip()
            json.loads("{" + text + "}" if text.startswith('"') else text)


# A path of the project named in the docs: a module, a test, a script, a data file or a page.
_PROJECT_PATH = re.compile(
    r"\b((?:pytest_codegen|tests|benchmarks|fixtures|docs)/[\w./-]+\.(?:py|json|jsonl|md))\b"
)
# A module named inside the package (``execution/python/verdict_seal.py``).
_PACKAGE_PATH = re.compile(
    r"`((?:execution|reporting|generation|models|collect|builder|gates|kinds|datasets)"
    r"/[\w./-]+\.py)`"
)


@pytest.mark.parametrize("path", pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_file_a_page_names_exists(path):
    text = path.read_text(encoding="utf-8")
    named = {ROOT / m for m in _PROJECT_PATH.findall(text)}
    named |= {ROOT / "pytest_codegen" / m for m in _PACKAGE_PATH.findall(text)}
    assert sorted(str(p.relative_to(ROOT)) for p in named if not p.exists()) == []
