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

R = "n = int(input())\ns = sum(map(int, input().split()))\n"
NEW = [
    ("abc001_a", "quit() after printing", R + "print(s)\nquit()\n"),
    (
        "abc001_a",
        "sys.stdout.buffer.write",
        "import sys\n" + R + "sys.stdout.buffer.write(str(s).encode() + b'\\n')\n",
    ),
    ("abc001_a", "no final newline", "import sys\n" + R + "sys.stdout.write(str(s))\n"),
    ("abc001_a", "crlf line ends", "import sys\n" + R + "sys.stdout.write(str(s) + '\\r\\n')\n"),
    ("abc001_a", "extra output after the answer", R + "print(s)\nprint('done')\n"),
    (
        "abc001_a",
        "stderr output",
        "import sys\n" + R + "print('debug', file=sys.stderr)\nprint(s)\n",
    ),
    ("abc001_a", "input() at EOF", R + "print(s)\ninput()\ninput()\n"),
    ("abc001_a", "blank lines before", R + "print()\nprint()\nprint(s)\n"),
    ("abc001_a", "print then loop forever", R + "print(s)\nwhile True:\n    pass\n"),
    (
        "abc001_a",
        "deep recursion",
        "import sys\nsys.setrecursionlimit(100000)\ndef f(k):\n"
        "    return 0 if k == 0 else 1 + f(k - 1)\n" + R + "print(s + f(30000) - 30000)\n",
    ),
    (
        "abc001_a",
        "main guard not last",
        "def main():\n    n = int(input())\n    print(sum(map(int, input().split())))\n\n"
        "if __name__ == '__main__':\n    main()\nDONE = True\n",
    ),
    (
        "abc001_a",
        "main guard, double quotes",
        "def main():\n    n = int(input())\n    print(sum(map(int, input().split())))\n\n"
        'if __name__ == "__main__":\n    main()\n',
    ),
    (
        "abc001_a",
        "thread joined",
        "import threading\ndef main():\n    n = int(input())\n"
        "    print(sum(map(int, input().split())))\nt = threading.Thread(target=main)\nt.start()\n"
        "t.join()\n",
    ),
    ("abc001_a", "sys.exit(1) after printing", "import sys\n" + R + "print(s)\nsys.exit(1)\n"),
    ("abc001_a", "raise SystemExit after printing", R + "print(s)\nraise SystemExit(3)\n"),
    (
        "abc001_a",
        "os.write to fd 1",
        "import os\n" + R + "os.write(1, (str(s) + '\\n').encode())\n",
    ),
    (
        "abc001_a",
        "readline loop to EOF",
        "import sys\nlines = []\nwhile True:\n    line = sys.stdin.readline()\n    if not line:\n"
        "        break\n    lines.append(line)\nprint(sum(map(int, lines[1].split())))\n",
    ),
    (
        "abc001_a",
        "readlines",
        "import sys\nlines = sys.stdin.readlines()\nprint(sum(map(int, lines[1].split())))\n",
    ),
    ("abc001_a", "print with sep and end", R + "print(s, end='')\nprint()\n"),
    ("abc001_a", "trailing spaces", R + "print(str(s) + '   ')\n"),
    ("abc001_a", "print as float", R + "print(float(s))\n"),
    ("abc001_a", "name shadowing a builtin import", "from math import *\n" + R + "print(s)\n"),
    (
        "abc001_a",
        "input rebound to readline",
        "import sys\ninput = sys.stdin.readline\n" + R + "print(s)\n",
    ),
    ("abc001_a", "print(*list)", R + "print(*[s])\n"),
    (
        "abc002_b",
        "float with more decimals",
        "a, b = map(int, input().split())\nprint(f'{(a + b) / 2:.10f}')\n",
    ),
    (
        "abc002_b",
        "float in exponent form",
        "a, b = map(int, input().split())\nprint(f'{(a + b) / 2:e}')\n",
    ),
    (
        "abc002_b",
        "float slightly off",
        "a, b = map(int, input().split())\nprint((a + b) / 2 + 1e-9)\n",
    ),
    (
        "1234",
        "sys.exit() in the method",
        "import sys\nclass Solution:\n    def twoSum(self, nums, target):\n        sys.exit(0)\n",
    ),
    (
        "1234",
        "prints while computing",
        PAIR_RIGHT.replace(
            "        seen = {}\n", "        seen = {}\n        print('debug', nums)\n"
        ),
    ),
    (
        "1234",
        "returns None",
        "class Solution:\n    def twoSum(self, nums, target):\n        return None\n",
    ),
    (
        "1234",
        "numpy ints in a list",
        "import numpy as np\nclass Solution:\n    def twoSum(self, nums, target):\n"
        "        for i in range(len(nums)):\n            for j in range(i + 1, len(nums)):\n"
        "                if nums[i] + nums[j] == target:\n"
        "                    return [np.int64(i), np.int64(j)]\n",
    ),
    (
        "1234",
        "helper outside the class",
        "def helper(nums, target):\n    seen = {}\n    for i, x in enumerate(nums):\n"
        "        if target - x in seen:\n            return [seen[target - x], i]\n"
        "        seen[x] = i\nclass Solution:\n    def twoSum(self, nums, target):\n"
        "        return helper(nums, target)\n",
    ),
    (
        "1234",
        "a generator",
        "class Solution:\n    def twoSum(self, nums, target):\n"
        "        return (i for i in range(2))\n",
    ),
    (
        "1234",
        "a NumPy array",
        "import numpy as np\nclass Solution:\n    def twoSum(self, nums, target):\n"
        "        return np.array([0, 1])\n",
    ),
    (
        "1234",
        "top-level code reading stdin",
        "x = input()\nclass Solution:\n    def twoSum(self, nums, target):\n"
        "        return [0, 1]\n",
    ),
]
SAMPLES += NEW

# Programs run otherwise than Python runs them: names its import_string binds from sys as the
# program is loaded (before the grader puts the test's stdin and stdout in place), a
# __future__ import (after that import_string), and a return outside a function (the
# grader's wrapper is one).
SAMPLES += [
    ("abc001_a", "stdout.write, stdout from sys", R + "stdout.write(str(s) + '\\n')\n"),
    (
        "abc001_a",
        "stdin.readline with its newline cut",
        "from sys import stdin\ninput = stdin.readline\ninput()\n"
        "print(sum(map(int, input()[:-1].split())))\n",
    ),
    (
        "abc001_a",
        "from __future__ import",
        "from __future__ import annotations\n" + R + "print(s)\n",
    ),
    ("abc001_a", "return outside a function", R + "print(s)\nif s:\n    return\nprint(0)\n"),
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
    # Its reliability guard sets builtins.quit to None (exit it leaves): quit() after the
    # right output raises TypeError there.
    "quit() after printing": (("passed", None), ("error", 0)),
    # Its stdout is a StringIO, which has no .buffer: a correct fast writer fails there.
    "sys.stdout.buffer.write": (("passed", None), ("error", 0)),
    # It unwraps a main guard only when it is the program's last statement: with a
    # statement after it, __name__ is not "__main__", main() never runs, the output is empty.
    "main guard not last": (("passed", None), ("failed", 0)),
    # A program that ends the grading process: its runner finds no metadata (IndexError)
    # and keeps its default result, a wrong answer on test 1. Ours: an error on test 1.
    "sys.exit() in the method": (("error", 0), ("failed", 0)),
    # A NumPy array of two numbers: its `if not prediction == expected` raises ValueError (an
    # array's truth is ambiguous), counted as a runtime error after the array itself was
    # appended as test 1's result (its first element, true): "error on test 2" of one test.
    # Ours: a wrong answer on test 1 (the program ran; its answer is not the expected list).
    "a NumPy array": (("failed", 0), ("error", 1)),
    # Its import_string's `from sys import *` and a program's own imports run when the program
    # is loaded, before its patches: stdout is the grader's own (what is written there is not
    # captured), and stdin's readline, patched on that object, returns lines without "\n".
    "stdout.write, stdout from sys": (("passed", None), ("failed", 0)),
    "stdin.readline with its newline cut": (("passed", None), ("failed", 0)),
    # Its import_string comes first: a __future__ import after it is a SyntaxError.
    "from __future__ import": (("passed", None), ("error", 0)),
    # The program is the body of its function: a return there ends it. Here it does not
    # compile, as Python does not compile it.
    "return outside a function": (("error", 0), ("passed", None)),
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
