"""Small LiveCodeBench release files in the upstream row format, and samples for them.

Two problems: an AtCoder-style stdin one (sum of the numbers on a line; one hidden test
only a careful answer passes) and a LeetCode one (``twoSum``-like, functional). Hidden tests
are stored as upstream stores them: base64 of zlib of a pickle of a JSON string.
"""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path
from typing import Any


def pack_private(cases: list[dict[str, str]]) -> str:
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode("ascii")


def stdin_case(given: str, expected: str) -> dict[str, str]:
    return {"input": given, "output": expected, "testtype": "stdin"}


def call_case(args: list[Any], expected: Any) -> dict[str, str]:
    return {
        "input": "\n".join(json.dumps(a) for a in args),
        "output": json.dumps(expected),
        "testtype": "functional",
    }


def row(
    question_id: str,
    public: list[dict[str, str]],
    private: list[dict[str, str]],
    *,
    platform: str = "atcoder",
    date: str = "2024-01-06T00:00:00",
    difficulty: str = "easy",
    func_name: str | None = None,
    starter_code: str = "",
) -> dict[str, Any]:
    return {
        "question_title": f"Problem {question_id}",
        "question_content": f"Solve problem {question_id}.",
        "platform": platform,
        "question_id": question_id,
        "contest_id": question_id.split("_")[0],
        "contest_date": date,
        "starter_code": starter_code,
        "difficulty": difficulty,
        "public_test_cases": json.dumps(public),
        "private_test_cases": pack_private(private),
        "metadata": json.dumps({"func_name": func_name} if func_name else {}),
    }


SUM_ROW = row(
    "abc001_a",
    [stdin_case("3\n1 2 3\n", "6\n")],
    [stdin_case("2\n10 20\n", "30\n"), stdin_case("1\n-5\n", "-5\n")],
)
PAIR_ROW = row(
    "1234",
    [call_case([[2, 7, 11, 15], 9], [0, 1])],
    [call_case([[3, 2, 4], 6], [1, 2]), call_case([[3, 3], 6], [0, 1])],
    platform="leetcode",
    date="2024-03-02T00:00:00",
    difficulty="medium",
    func_name="twoSum",
    starter_code=(
        "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n"
    ),
)

SUM_RIGHT = "n = int(input())\nprint(sum(map(int, input().split())))\n"
SUM_POSITIVE_ONLY = (  # right on the public test, wrong on the hidden one with a negative
    "n = int(input())\nprint(sum(abs(int(x)) for x in input().split()))\n"
)
PAIR_RIGHT = (
    "class Solution:\n"
    "    def twoSum(self, nums: List[int], target: int) -> List[int]:\n"
    "        seen = {}\n"
    "        for i, x in enumerate(nums):\n"
    "            if target - x in seen:\n"
    "                return (seen[target - x], i)\n"
    "            seen[x] = i\n"
)


def write_release(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def write_samples(path: Path, samples: list[tuple[str, str]], form: str = "solution") -> Path:
    path.write_text("".join(json.dumps({"task_id": t, form: c}) + "\n" for t, c in samples))
    return path
