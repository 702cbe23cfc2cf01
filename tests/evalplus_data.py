"""A small HumanEval+-like and MBPP+-like dataset in EvalPlus's release format, and samples
with known base and plus verdicts: right, wrong only on plus inputs, wrong on base inputs,
raising, crashing, too slow, printing, close enough for floats, right by a special oracle
only."""

from __future__ import annotations

import json
from pathlib import Path


def _task(task_id, prompt, entry, canonical, base, plus, atol=0):
    return {
        "task_id": task_id,
        "prompt": prompt,
        "entry_point": entry,
        "canonical_solution": canonical,
        "base_input": base,
        "plus_input": plus,
        "atol": atol,
        "contract": "",
    }


HUMANEVAL = [
    _task(
        "HumanEval/0",
        'def add(a: int, b: int) -> int:\n    """Return a + b."""\n',
        "add",
        "    return a + b\n",
        [[1, 2], [0, 0], [-4, 4]],
        [[10**12, 5], [-3, 3000], [123456, 654321]],
    ),
    _task(  # floats, atol 0 in the file: EvalPlus compares them within 1e-6
        "HumanEval/1",
        'def mean(xs: list) -> float:\n    """The mean of xs."""\n',
        "mean",
        "    return sum(xs) / len(xs)\n",
        [[[1.0, 2.0]], [[0.5]]],
        [[[0.1, 0.2, 0.3]], [[0.1] * 10], [[1e-3, 2e-3, 7e-3]]],
    ),
    _task(  # a time limit of 4 x the canonical solution's 1 s on n == 7, 1 s elsewhere
        "HumanEval/2",
        'def triangle(n: int) -> int:\n    """1 + 2 + ... + n."""\n',
        "triangle",
        "    import time\n    if n == 7:\n        time.sleep(1.0)\n    return n * (n + 1) // 2\n",
        [[1], [2], [3]],
        # the last: an output of 6,000 digits, past what Python writes in decimal
        [[7], [1000], [10**6], [10**3000]],
    ),
    _task(  # any root will do (EvalPlus's special oracle)
        "HumanEval/3",
        "import math\n\n\ndef poly(xs: list, x: float):\n"
        "    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])\n\n\n"
        'def find_zero(xs: list):\n    """A zero of the polynomial xs."""\n',
        "find_zero",
        "    lo, hi = -1e3, 1e3\n"
        "    for _ in range(200):\n"
        "        mid = (lo + hi) / 2\n"
        "        if (poly(xs, lo) > 0) == (poly(xs, mid) > 0):\n"
        "            lo = mid\n"
        "        else:\n"
        "            hi = mid\n"
        "    return lo\n",
        [[[-6.0, 11.0, -6.0, 1.0]], [[1.0, 2.0]]],
        [[[-2.0, 1.0]], [[5.0, 3.0, -8.0, 1.0]]],
        atol=1e-4,
    ),
    _task(  # an explicit atol
        "HumanEval/4",
        'def hypot(a: float, b: float) -> float:\n    """The hypotenuse."""\n',
        "hypot",
        "    return (a * a + b * b) ** 0.5\n",
        [[3.0, 4.0], [6.0, 8.0]],
        [[2.5, 7.25], [1e-3, 2e-3]],
        atol=1e-3,
    ),
]

MBPP = [
    _task(  # Mbpp/2: inputs rebuilt as tuples; outputs compared as sets
        "Mbpp/2",
        '"""\nWrite a function to find the shared elements from the given two lists.\n"""\n',
        "similar_elements",
        "def similar_elements(test_tup1, test_tup2):\n"
        "    return tuple(set(test_tup1) & set(test_tup2))\n",
        [[[3, 4, 5, 6], [5, 7, 4, 10]], [[1, 2, 3, 4], [5, 4, 3, 7]]],
        [[[11, 12, 14, 13], [17, 15, 14, 13]], [[9, 8, 7], [7, 8, 9]]],
    ),
    _task(
        "Mbpp/3",
        '"""\nWrite a python function to identify non-prime numbers.\n"""\n',
        "is_not_prime",
        "import math\n\n\ndef is_not_prime(n):\n"
        "    if n < 2:\n        return True\n"
        "    for i in range(2, int(math.sqrt(n)) + 1):\n"
        "        if n % i == 0:\n            return True\n"
        "    return False\n",
        [[2], [10], [4], [1]],
        [[35], [37], [49]],
    ),
    _task(  # a match object: only its being None or not is judged
        "Mbpp/787",
        '"""\nWrite a function that matches a string that has an a followed by three b.\n"""\n',
        "text_match_three",
        "import re\n\n\ndef text_match_three(text):\n    return re.search('ab{3}?', text)\n",
        [["ac"], ["dc"], ["abbbba"]],
        [["caacabbbba"], [""], ["ab"]],
    ),
]

# (task_id, field, code, base verdict, plus verdict): field is EvalPlus's sample field,
# "completion" (after the prompt) or "solution" (the whole program).
SAMPLES = [
    ("HumanEval/0", "completion", "    return a + b\n", True, True),
    ("HumanEval/0", "completion", "    return a + b if a < 1000 else a\n", True, False),
    ("HumanEval/0", "completion", "    return a - b\n", False, False),
    ("HumanEval/0", "completion", "    raise ValueError('no')\n", False, False),
    ("HumanEval/0", "completion", "    print('adding', a, b)\n    return a + b\n", True, True),
    ("HumanEval/0", "solution", "def add(a, b):\n    return b + a\n", True, True),
    ("HumanEval/0", "completion", "    return a +\n", False, False),
    ("HumanEval/1", "completion", "    import math\n    return math.fsum(xs) / len(xs)\n", 1, 1),
    ("HumanEval/1", "completion", "    return sum(xs) / len(xs) + 1e-5\n", False, False),
    ("HumanEval/1", "completion", "    return round(sum(xs) / len(xs), 2)\n", True, False),
    # its process ends on a plus input
    (
        "HumanEval/1",
        "completion",
        "    import os\n    if len(xs) == 10:\n        os._exit(3)\n    return sum(xs) / len(xs)\n",
        True,
        False,
    ),
    # differs (KNOWN_DIFFERENCES): stdin reads raise IOError there
    (
        "HumanEval/1",
        "completion",
        "    import sys\n    sys.stdin.read()\n    return sum(xs) / len(xs)\n",
        True,
        True,
    ),
    ("HumanEval/2", "completion", "    return n * (n + 1) // 2\n", True, True),
    # 1.5 s on n == 7: past the 1 s floor, within 4 x the canonical solution's 1 s by a
    # margin that load cannot eat
    (
        "HumanEval/2",
        "completion",
        "    import time\n    if n == 7:\n        time.sleep(1.5)\n    return n * (n + 1) // 2\n",
        True,
        True,
    ),
    # 10 s on n == 7: far past 4 x 1 s
    (
        "HumanEval/2",
        "completion",
        "    import time\n    if n == 7:\n        time.sleep(10)\n    return n * (n + 1) // 2\n",
        True,
        False,
    ),
    # 1.5 s on n == 1000, where the canonical solution is instant: past the 1 s floor
    (
        "HumanEval/2",
        "completion",
        "    import time\n    if n == 1000:\n        time.sleep(1.5)\n"
        "    return n * (n + 1) // 2\n",
        True,
        False,
    ),
    # differs (KNOWN_DIFFERENCES): 985 frames deep, within Python's 1000 here; there the
    # frames its process pool and fork leave on the stack make it too deep
    (
        "HumanEval/2",
        "completion",
        "    def depth(k):\n        return 0 if k == 0 else 1 + depth(k - 1)\n"
        "    depth(983)\n    return n * (n + 1) // 2\n",
        True,
        True,
    ),
    (
        "HumanEval/3",
        "completion",
        "    x = 0.0\n    for _ in range(100):\n"
        "        d = sum(i * c * x ** (i - 1) for i, c in enumerate(xs) if i)\n"
        "        x = x - poly(xs, x) / d\n    return x\n",
        True,
        True,
    ),
    ("HumanEval/3", "completion", "    return 0.0\n", False, False),
    ("HumanEval/4", "completion", "    return round((a * a + b * b) ** 0.5, 4)\n", True, True),
    ("HumanEval/4", "completion", "    return round((a * a + b * b) ** 0.5, 1)\n", True, False),
    ("HumanEval/4", "completion", "    return int((a * a + b * b) ** 0.5)\n", True, False),
    # never done loading: each set ends at its whole budget, min(60 s, sum of limits) + 2 s
    ("HumanEval/4", "solution", "while True:\n    pass\n", False, False),
    # differs (KNOWN_DIFFERENCES): a Fraction, not plain data, equal to the right float
    (
        "HumanEval/4",
        "completion",
        "    from fractions import Fraction\n    return Fraction((a * a + b * b) ** 0.5)\n",
        False,
        False,
    ),
    (
        "Mbpp/2",
        "solution",
        "def similar_elements(a, b):\n    return tuple(sorted(set(a) & set(b), reverse=True))\n",
        True,
        True,
    ),
    (
        "Mbpp/2",
        "solution",
        "def similar_elements(a, b):\n    return tuple(set(a) | set(b))\n",
        False,
        False,
    ),
    # set(out) there: each shared element many times over, or any iterable of them
    (
        "Mbpp/2",
        "solution",
        "def similar_elements(a, b):\n    return [x for x in a if x in b] * 10\n",
        True,
        True,
    ),
    (
        "Mbpp/2",
        "solution",
        "def similar_elements(a, b):\n    return filter(lambda x: x in b, a)\n",
        True,
        True,
    ),
    (
        "Mbpp/3",
        "solution",
        "def is_not_prime(n):\n"
        "    return n < 2 or any(n % i == 0 for i in range(2, int(n ** 0.5) + 1))\n",
        True,
        True,
    ),
    (
        "Mbpp/3",
        "solution",
        "def is_not_prime(n):\n    return n < 2 or (n % 2 == 0 and n != 2)\n",
        True,
        False,
    ),
    ("Mbpp/3", "solution", "def is_not_prime(n):\n    return n > 3\n", False, False),
    (
        "Mbpp/787",
        "solution",
        "import re\n\ndef text_match_three(text):\n    return re.search('abbb?', text)\n",
        True,
        True,
    ),
    (
        "Mbpp/787",
        "solution",
        "def text_match_three(text):\n    return 'abbb' in text\n",
        True,
        True,
    ),
    (
        "Mbpp/787",
        "solution",
        "def text_match_three(text):\n    return 'ab' in text\n",
        True,
        False,
    ),
    # A float subclass: close enough is not enough there, as its type is not float's.
    (
        "HumanEval/1",
        "completion",
        "    class Mean(float):\n        pass\n    return Mean(sum(xs) / len(xs) + 1e-9)\n",
        False,
        False,
    ),
    (
        "HumanEval/1",
        "completion",
        "    class Mean(float):\n        pass\n    return Mean(sum(xs) / len(xs))\n",
        True,
        True,
    ),
]


def write_dataset(directory: Path) -> tuple[Path, Path, Path]:
    """``HumanEvalPlus-tiny.jsonl``, ``MbppPlus-tiny.jsonl`` and ``samples.jsonl`` (in EvalPlus's
    sample format) in ``directory``."""
    paths = []
    for name, rows in (("HumanEvalPlus-tiny", HUMANEVAL), ("MbppPlus-tiny", MBPP)):
        path = directory / f"{name}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        paths.append(path)
    samples = directory / "samples.jsonl"
    samples.write_text(
        "".join(json.dumps({"task_id": t, field: code}) + "\n" for t, field, code, *_ in SAMPLES)
    )
    return paths[0], paths[1], samples


def expected_verdicts() -> dict[tuple[str, int], tuple[bool, bool]]:
    """(task_id, sample index) -> (base passes, plus passes), as this dataset means them."""
    verdicts, seen = {}, {}
    for task_id, _, _, base, plus in SAMPLES:
        index = seen[task_id] = seen.get(task_id, -1) + 1
        verdicts[(task_id, index)] = (bool(base), bool(plus))
    return verdicts


def grade_args(humaneval: Path, mbpp: Path, samples: Path) -> list[str]:
    """pytest's arguments to grade every sample of both suites (7: the most a task has)."""
    return [
        str(humaneval),
        str(mbpp),
        f"--codegen-model=replay:{samples}",
        "--codegen-samples=7",
        "--codegen-k=1",
        "--codegen-results=r.jsonl",
    ]
