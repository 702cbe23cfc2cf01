"""Samples on which LiveCodeBench's own grader and ours are compared (one per behaviour the
official grader has a rule or a known quirk for), with the release rows they answer, and a
driver that runs the official grader (``evaluate_generations``, what ``codegen_metrics``
runs) from the
``nvidia-livecodebench`` wheel's files. The package's ``__init__`` imports pandas and model
clients it does not need for grading: the driver puts the package's directories in place of
its ``__init__`` modules, so only the grading modules (numpy, tqdm) are imported.
"""

from __future__ import annotations

from livecodebench_data import (
    PAIR_RIGHT,
    PAIR_ROW,
    SUM_POSITIVE_ONLY,
    SUM_RIGHT,
    SUM_ROW,
    row,
    stdin_case,
)

MEAN_ROW = row(
    "abc002_b",
    [stdin_case("1 2\n", "1.5\n")],
    [stdin_case("1 1\n", "1.0\n"), stdin_case("2 3\n", "2.5\n")],
)
ROWS = [SUM_ROW, PAIR_ROW, MEAN_ROW]

# (task, label, program): ``label`` names what the sample exercises.
SAMPLES = [
    ("abc001_a", "right", SUM_RIGHT),
    ("abc001_a", "wrong", "input()\nprint(0)\n"),
    ("abc001_a", "wrong only on hidden tests", SUM_POSITIVE_ONLY),
    ("abc001_a", "raising", "n = int(input())\nprint(1 // (n - n))\n"),
    (
        "abc001_a",
        "too slow on a hidden test",
        "n = int(input())\nxs = list(map(int, input().split()))\n"
        "while n == 1:\n    pass\nprint(sum(xs))\n",
    ),
    (
        "abc001_a",
        "extra whitespace",
        "input()\nprint('  ', sum(map(int, input().split())), '  ')\nprint()\nprint()\n",
    ),
    ("abc001_a", "exit() inside", "input()\nprint(sum(map(int, input().split())))\nexit()\n"),
    (
        "abc001_a",
        "exit() before printing",
        "import sys\ninput()\nsys.exit(0)\nprint(sum(map(int, input().split())))\n",
    ),
    (
        "abc001_a",
        "sys.stdin.buffer reader",
        "import sys\ndata = sys.stdin.buffer.read().split()\nprint(sum(map(int, data[1:])))\n",
    ),
    (
        "abc001_a",
        "sys.stdin.readline",
        "import sys\nsys.stdin.readline()\nprint(sum(map(int, sys.stdin.readline().split())))\n",
    ),
    (
        "abc001_a",
        "main guard",
        "def main():\n    input()\n    print(sum(map(int, input().split())))\n\n"
        "if __name__ == '__main__':\n    main()\n",
    ),
    ("abc001_a", "syntax error", "print(\n"),
    (
        "abc001_a",
        "from sys import stdin",
        "from sys import stdin\nstdin.readline()\nprint(sum(map(int, stdin.readline().split())))\n",
    ),
    (
        "abc001_a",
        "global variable",
        "total = 0\ndef add(x):\n    global total\n    total += x\ninput()\n"
        "for x in input().split():\n    add(int(x))\nprint(total)\n",
    ),
    ("abc001_a", "open(0)", "data = open(0).read().split()\nprint(sum(map(int, data[1:])))\n"),
    (
        "abc001_a",
        "sys.stdout.write",
        "import sys\ninput()\nsys.stdout.write(str(sum(map(int, input().split()))) + '\\n')\n",
    ),
    ("abc002_b", "floats", "a, b = map(int, input().split())\nprint(f'{(a + b) / 2:.4f}')\n"),
    (
        "abc002_b",
        "floats, integer printed",
        "a, b = map(int, input().split())\nprint((a + b) // 2)\n",
    ),
    ("1234", "right, a tuple", PAIR_RIGHT),
    (
        "1234",
        "wrong only on hidden tests",
        "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 1]\n",
    ),
    (
        "1234",
        "raising",
        "class Solution:\n    def twoSum(self, nums, target):\n        return nums[99]\n",
    ),
    (
        "1234",
        "too slow",
        "class Solution:\n    def twoSum(self, nums, target):\n        while True:\n"
        "            pass\n",
    ),
    (
        "1234",
        "typing names without imports",
        "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n"
        "        d: Dict[int, int] = {}\n        for i, x in enumerate(nums):\n"
        "            if target - x in d:\n                return [d[target - x], i]\n"
        "            d[x] = i\n",
    ),
]

# Where the official grader is wrong, and we differ on purpose (docs/livecodebench.md):
# label -> (ours, theirs), each (verdict, index of the first failing test or None).
KNOWN_DIFFERENCES = {
    # Its stdin is a StringIO, which has no .buffer: a correct fast reader fails there.
    "sys.stdin.buffer reader": (("passed", None), ("error", 0)),
    # It runs a program as the body of a function it wraps it in: a top-level name a
    # function declares ``global`` is then that function's local, and the program fails.
    "global variable": (("passed", None), ("error", 0)),
    # Its patched open() reads the input only through mock_open's read(), not open(0) as a
    # file object a program reads and splits: a correct program fails there.
    "open(0)": (("passed", None), ("failed", 0)),
}

# Runs LiveCodeBench's grading on the problems and generations in the JSON file argv[2], with the
# wheel's files unpacked at argv[1]; prints the per-sample results as JSON.
DRIVER = """
import json, os, sys, types
root = sys.argv[1]
for name in ("livecodebench", "livecodebench.evaluation"):
    package = types.ModuleType(name)
    package.__path__ = [os.path.join(root, *name.split("."))]
    sys.modules[name] = package
try:
    import tqdm  # only its progress bar is used
except ImportError:
    shim = types.ModuleType("tqdm")
    class _Bar:
        def __init__(self, *a, **k): pass
        def __enter__(self): return self
        def __exit__(self, *a): return False
        def update(self, n=1): pass
    shim.tqdm = _Bar
    sys.modules["tqdm"] = shim
from livecodebench.evaluation.compute_code_generation_metrics import evaluate_generations
job = json.load(open(sys.argv[2]))
# What codegen_metrics runs (it then insists on as many generations for every problem).
results, _ = evaluate_generations(
    job["samples"], job["generations"], num_process_evaluate=2, timeout=6
)
out = {
    str(n): [[r if isinstance(r, (bool, int)) else int(r) for r in res] for res in per_sample]
    for n, per_sample in results.items()
}
print("RESULTS " + json.dumps({"results": out}))
"""
