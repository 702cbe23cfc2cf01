"""MultiPL-E's own generation output as a samples file (``--codegen-model=replay:PATH``): one
JSON file per problem (``<name>.json.gz`` or ``.json``, as its ``automodel.py`` writes them)
with the problem's ``name`` and its ``completions``, each the text that continues the
prompt (the MultiPL-E kind cuts it at the problem's stop tokens, as MultiPL-E does). PATH is
one such file or a directory of them; its evaluator's ``*.results.json.gz`` files are not
completions and are passed over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..jsonl import open_text
from .base import CONTINUATION, Completion, ModelError

SUFFIXES = (".json", ".json.gz")
RESULTS = (".results.json", ".results.json.gz")


def is_completions_file(value: Any) -> bool:
    return isinstance(value, dict) and "name" in value and "completions" in value


def completion_files(path: Path) -> list[Path]:
    """The completion files of a directory, by name."""
    files = sorted(p for p in path.iterdir() if p.name.endswith(SUFFIXES) and p.is_file())
    found = [p for p in files if not p.name.endswith(RESULTS)]
    if not found:
        raise ModelError(f"{path}: a directory of MultiPL-E completion files holds none")
    return found


def read_json(path: Path) -> Any:
    try:
        with open_text(path) as fh:
            return json.load(fh)
    except (OSError, ValueError, EOFError) as e:
        raise ModelError(f"cannot read replay file {path}: {e}") from None


def completions_answers(files: list[Path]) -> dict[tuple[str, int, int], Completion]:
    """Sample i of each file's problem: the i-th of its ``completions``."""
    answers: dict[tuple[str, int, int], Completion] = {}
    named: dict[str, Path] = {}
    for path in files:
        row = read_json(path)
        if not is_completions_file(row):
            raise ModelError(
                f"{path}: not a MultiPL-E completions file (an object with 'name' and "
                "'completions')"
            )
        name, texts = row["name"], row["completions"]
        if not isinstance(name, str) or not isinstance(texts, list):
            raise ModelError(f"{path}: 'name' must be a string and 'completions' a list")
        if name in named:
            raise ModelError(f"{path}: problem {name!r} is also in {named[name]}")
        named[name] = path
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise ModelError(f"{path}: completions[{index}] is not a string")
            answers[(name, index, 0)] = Completion(text=text, form=CONTINUATION)
    return answers
