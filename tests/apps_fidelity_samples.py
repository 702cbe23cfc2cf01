"""Samples on which APPS's own grader (``run_test`` of its ``eval/testing_util.py``, kept in
``apps_official/``) and ours are compared: one per behaviour APPS's grader has a rule or a
quirk for, on APPS rows of both kinds (stdin programs and ``fn_name`` calls), and a driver
that runs the official grader as APPS's ``test_one_solution.py`` does.
"""

from __future__ import annotations

import json


def labelled(task: str, label: str) -> str:
    """A sample's key in the comparison: what it exercises, and its problem."""
    return f"{label} ({task})"


def apps_row(problem_id: int, io: dict, starter: str = "") -> dict:
    """A row of the ``codeparrot/apps`` test split."""
    return {
        "problem_id": problem_id,
        "question": f"Problem {problem_id}.",
        "solutions": "[]",
        "input_output": json.dumps(io),
        "difficulty": "interview",
        "url": f"https://example.org/{problem_id}",
        "starter_code": starter,
    }


SUM = "5000"
MEAN = "5001"
PAIRS = "5002"
TWICE = "5003"
TWO_SUM = "5004"
COUNTS = "5005"
ECHO = "5006"
TEXT = "5007"

ROWS = [
    # n, then n numbers: their sum. The last test is the only one with n == 1.
    apps_row(
        int(SUM),
        {"inputs": ["3\n1 2 3\n", "2\n10 20\n", "1\n7\n"], "outputs": ["6\n", "30\n", "7\n"]},
    ),
    apps_row(int(MEAN), {"inputs": ["1 2\n", "2 3\n"], "outputs": ["1.5\n", "2.5\n"]}),
    # Inputs and outputs given as lists of lines: each pair's sum on a line.
    apps_row(
        int(PAIRS),
        {"inputs": [["2", "1 2", "3 4"], ["1", "5 5"]], "outputs": [["3", "7"], ["10"]]},
    ),
    apps_row(
        int(TWICE),
        {
            "inputs": [[[1, 2]], [[5]], [[0, 3]]],
            "outputs": [[[2, 4]], [[10]], [[0, 6]]],
            "fn_name": "twice",
        },
        starter="def twice(xs):\n",
    ),
    apps_row(
        int(TWO_SUM),
        {
            "inputs": [[[2, 7, 11, 15], 9], [[3, 2, 4], 6]],
            "outputs": [[0, 1], [1, 2]],
            "fn_name": "twoSum",
        },
        starter="class Solution:\n    def twoSum(self, nums, target):\n",
    ),
    # A dict result: JSON's string keys, which both graders turn back into ints.
    apps_row(
        int(COUNTS),
        {"inputs": [[[1, 1, 2]]], "outputs": [{"1": 2, "2": 1}], "fn_name": "counts"},
        starter="def counts(xs):\n",
    ),
    # Four tests: a sample that takes 3 s on each is within the 4 s per test, not within
    # the 11 s APPS's test_one_solution.py gives a whole sample.
    apps_row(int(ECHO), {"inputs": ["3\n"] * 4, "outputs": ["3\n"] * 4}),
    # Odd text: a lone surrogate (JSON's "\ud800"), NUL and a non-ASCII letter, echoed.
    apps_row(int(TEXT), {"inputs": ["x\ud800y\x00\u00e9\n"], "outputs": ["x\ud800y\x00\u00e9\n"]}),
]

SUM_RIGHT = "input()\nprint(sum(map(int, input().split())))\n"
TWICE_RIGHT = "def twice(xs):\n    return [2 * x for x in xs]\n"

# (task, label, program): ``label`` names what the sample exercises.
SAMPLES = [
    (SUM, "right", SUM_RIGHT),
    (SUM, "wrong", "input()\nprint(0)\n"),
    (
        SUM,
        "wrong only on a later test",
        "n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs) if n > 1 else 0)\n",
    ),
    (SUM, "raising", "n = int(input())\nprint(1 // (n - n))\n"),
    (
        SUM,
        "too slow on a later test",
        "n = int(input())\nxs = list(map(int, input().split()))\n"
        "while n == 1:\n    pass\nprint(sum(xs))\n",
    ),
    (
        SUM,
        "extra whitespace and trailing newlines",
        "input()\nprint('  ', sum(map(int, input().split())), '  ')\nprint()\nprint()\n",
    ),
    (SUM, "syntax error", "print(\n"),
    (SUM, "exit() after printing", SUM_RIGHT + "exit()\n"),
    (SUM, "sys.exit() after printing", "import sys\n" + SUM_RIGHT + "sys.exit(0)\n"),
    (
        SUM,
        "sys.exit() before printing",
        "import sys\ninput()\nsys.exit(0)\nprint(sum(map(int, input().split())))\n",
    ),
    (
        SUM,
        "sys.stdin.buffer reader",
        "import sys\ndata = sys.stdin.buffer.read().split()\nprint(sum(map(int, data[1:])))\n",
    ),
    (
        SUM,
        "sys.stdin.readline",
        "import sys\nsys.stdin.readline()\nprint(sum(map(int, sys.stdin.readline().split())))\n",
    ),
    (
        SUM,
        "sys.stdin.read",
        "import sys\ndata = sys.stdin.read().split()\nprint(sum(map(int, data[1:])))\n",
    ),
    (
        SUM,
        "for line in sys.stdin",
        "import sys\nlines = [line for line in sys.stdin]\n"
        "print(sum(map(int, lines[1].split())))\n",
    ),
    (
        SUM,
        "from sys import stdin",
        "from sys import stdin\nstdin.readline()\nprint(sum(map(int, stdin.readline().split())))\n",
    ),
    (SUM, "open(0)", "data = open(0).read().split()\nprint(sum(map(int, data[1:])))\n"),
    (
        SUM,
        "open('input.txt')",
        "data = open('input.txt').read().split()\nprint(sum(map(int, data[1:])))\n",
    ),
    (
        SUM,
        "main guard",
        "def main():\n    input()\n    print(sum(map(int, input().split())))\n\n"
        "if __name__ == '__main__':\n    main()\n",
    ),
    (
        SUM,
        "global variable",
        "total = 0\ndef add(x):\n    global total\n    total += x\ninput()\n"
        "for x in input().split():\n    add(int(x))\nprint(total)\n",
    ),
    (MEAN, "floats", "a, b = map(int, input().split())\nprint(f'{(a + b) / 2:.4f}')\n"),
    (MEAN, "floats, integer printed", "a, b = map(int, input().split())\nprint((a + b) // 2)\n"),
    (
        PAIRS,
        "lines of input and output",
        "for _ in range(int(input())):\n    print(sum(map(int, input().split())))\n",
    ),
    (
        PAIRS,
        "lines in another order",
        "sums = [sum(map(int, input().split())) for _ in range(int(input()))]\n"
        "print('\\n'.join(map(str, reversed(sums))))\n",
    ),
    (TWICE, "right", TWICE_RIGHT),
    (TWICE, "wrong", "def twice(xs):\n    return xs\n"),
    (
        TWICE,
        "wrong only on a later test",
        "def twice(xs):\n    return [] if 0 in xs else [2 * x for x in xs]\n",
    ),
    (TWICE, "raising", "def twice(xs):\n    return xs[99]\n"),
    (
        TWICE,
        "too slow on a later test",
        "def twice(xs):\n    while 0 in xs:\n        pass\n    return [2 * x for x in xs]\n",
    ),
    (TWICE, "a tuple returned", "def twice(xs):\n    return tuple(2 * x for x in xs)\n"),
    (
        TWO_SUM,
        "right",
        "class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n"
        "        for i, x in enumerate(nums):\n            if target - x in seen:\n"
        "                return [seen[target - x], i]\n            seen[x] = i\n",
    ),
    (
        TWO_SUM,
        "wrong only on a later test",
        "class Solution:\n    def twoSum(self, nums, target):\n        return [0, 1]\n",
    ),
    (ECHO, "3 s on each of 4 tests", "import time\nn = input()\ntime.sleep(3)\nprint(n)\n"),
    (
        COUNTS,
        "int keys",
        "from collections import Counter\ndef counts(xs):\n    return dict(Counter(xs))\n",
    ),
]

R = "input()\ns = sum(map(int, input().split()))\n"
AB = "a, b = map(int, input().split())\n"
NEW = [
    (SUM, "quit() after printing", R + "print(s)\nquit()\n"),
    (
        SUM,
        "sys.stdout.buffer.write",
        "import sys\n" + R + "sys.stdout.buffer.write(str(s).encode() + b'\\n')\n",
    ),
    (SUM, "no final newline", "import sys\n" + R + "sys.stdout.write(str(s))\n"),
    (SUM, "crlf line ends", "import sys\n" + R + "sys.stdout.write(str(s) + '\\r\\n')\n"),
    (SUM, "extra output after the answer", R + "print(s)\nprint('done')\n"),
    (SUM, "stderr output", "import sys\n" + R + "print('debug', file=sys.stderr)\nprint(s)\n"),
    (SUM, "input() at EOF", R + "print(s)\ninput()\ninput()\n"),
    (SUM, "print then loop forever", R + "print(s)\nwhile True:\n    pass\n"),
    (
        SUM,
        "deep recursion",
        "import sys\nsys.setrecursionlimit(100000)\ndef f(k):\n"
        "    return 0 if k == 0 else 1 + f(k - 1)\n" + R + "print(s + f(30000) - 30000)\n",
    ),
    (
        SUM,
        "deep recursion, default limit",
        "def f(k):\n    return 0 if k == 0 else 1 + f(k - 1)\n" + R + "print(s + f(5000) - 5000)\n",
    ),
    (
        SUM,
        "thread joined",
        "import threading\ndef main():\n    input()\n    print(sum(map(int, input().split())))\n"
        "t = threading.Thread(target=main)\nt.start()\nt.join()\n",
    ),
    (SUM, "sys.exit(1) after printing", "import sys\n" + R + "print(s)\nsys.exit(1)\n"),
    (SUM, "os.write to fd 1", "import os\n" + R + "os.write(1, (str(s) + '\\n').encode())\n"),
    (
        SUM,
        "readline loop to EOF",
        "import sys\nlines = []\nwhile True:\n    line = sys.stdin.readline()\n    if not line:\n"
        "        break\n    lines.append(line)\nprint(sum(map(int, lines[1].split())))\n",
    ),
    (
        SUM,
        "readlines",
        "import sys\nlines = sys.stdin.readlines()\nprint(sum(map(int, lines[1].split())))\n",
    ),
    (SUM, "print as float", R + "print(float(s))\n"),
    (SUM, "answer twice", R + "print(s)\nprint(s)\n"),
    (SUM, "answer and its tokens reordered", R + "print(s, 0)\n"),
    (SUM, "multiline string", R + "print('''%d\n''' % s)\n"),
    (SUM, "indented import after code", R + "if s:\n    import os\nprint(s)\n"),
    (
        SUM,
        "tab-indented program",
        "def f():\n\tinput()\n\treturn sum(map(int, input().split()))\nprint(f())\n",
    ),
    (
        SUM,
        "input rebound to readline",
        "import sys\ninput = sys.stdin.readline\n" + R + "print(s)\n",
    ),
    (MEAN, "float with more decimals", AB + "print(f'{(a + b) / 2:.10f}')\n"),
    (MEAN, "float slightly off", AB + "print((a + b) / 2 + 1e-4)\n"),
    (MEAN, "float in exponent form", AB + "print(f'{(a + b) / 2:e}')\n"),
    (TEXT, "echoed", "print(input())\n"),
    (TEXT, "echoed from sys.stdin.read", "import sys\nsys.stdout.write(sys.stdin.read())\n"),
    (TEXT, "printed from the program", "print('x\\ud800y\\x00\\u00e9')\n"),
    (TWICE, "returns None", "def twice(xs):\n    return None\n"),
    (TWICE, "numpy array", "import numpy as np\ndef twice(xs):\n    return np.array(xs) * 2\n"),
    (
        TWICE,
        "prints while computing",
        "def twice(xs):\n    print('debug', xs)\n    return [2 * x for x in xs]\n",
    ),
    (TWICE, "sys.exit() in the function", "import sys\ndef twice(xs):\n    sys.exit(0)\n"),
    (TWICE, "sys.exit() when loaded", "import sys\n" + TWICE_RIGHT + "sys.exit(0)\n"),
    (TWICE, "a generator", "def twice(xs):\n    return (2 * x for x in xs)\n"),
    (TWICE, "a list of tuples", "def twice(xs):\n    return [(2 * x,) for x in xs]\n"),
    (TWICE, "wrapped in a list", "def twice(xs):\n    return [[2 * x for x in xs]]\n"),
    (
        TWO_SUM,
        "a tuple",
        "class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n"
        "        for i, x in enumerate(nums):\n            if target - x in seen:\n"
        "                return (seen[target - x], i)\n            seen[x] = i\n",
    ),
    (
        COUNTS,
        "str keys",
        "from collections import Counter\ndef counts(xs):\n"
        "    return {str(k): v for k, v in Counter(xs).items()}\n",
    ),
]
SAMPLES += NEW

# Programs run otherwise than Python runs them: names bound from sys as the program is loaded
# (before the grader puts the test's stdin and stdout in place), a __future__ import (after
# the grader's own imports), a return outside a function (the grader's wrapper is one), and
# a result that is not plain data.
SAMPLES += [
    (
        SUM,
        "from sys import stdout",
        "from sys import stdout\n" + R + "stdout.write(str(s) + '\\n')\n",
    ),
    (
        SUM,
        "from sys import stdin, read by lines",
        "from sys import stdin\nlines = [line for line in stdin]\n"
        "print(sum(map(int, lines[1].split())))\n",
    ),
    (SUM, "from __future__ import", "from __future__ import annotations\n" + R + "print(s)\n"),
    (SUM, "return outside a function", R + "print(s)\nif s:\n    return\nprint(0)\n"),
    (
        TWICE,
        "fractions returned",
        "from fractions import Fraction\n"
        "def twice(xs):\n    return [Fraction(2 * x) for x in xs]\n",
    ),
]

# Where APPS's grader fails a correct program and we differ on purpose (docs/apps.md):
# "label (task)" -> (ours, theirs), each (verdict, index of the first failing test or None).
KNOWN_DIFFERENCES: dict[str, tuple[tuple[str, int | None], tuple[str, int | None]]] = {
    # Its reliability guard sets builtins.exit to None: exit() raises TypeError, a runtime
    # error even after the right output. Ours ends the program there, its output stands.
    labelled(SUM, "exit() after printing"): (("passed", None), ("error", 0)),
    # It runs a program as the body of a function: a top-level name that a function
    # declares ``global`` is then that function's local, and the program fails.
    labelled(SUM, "global variable"): (("passed", None), ("error", 0)),
    # It executes the program in a fresh dict (pyext's RuntimeModule), where ``__name__`` is
    # not "__main__": main() never runs and the output is empty.
    labelled(SUM, "main guard"): (("passed", None), ("wrong", 0)),
    # Its stdin is a StringIO, which has no .buffer: a correct fast reader fails there.
    labelled(SUM, "sys.stdin.buffer reader"): (("passed", None), ("error", 0)),
    # Its test_one_solution.py kills a sample after 11 s in all (TIMEOUT + 1), whatever its
    # number of tests, and counts 21 runtime errors; ours gives (4 + 1) x tests + 5 s.
    labelled(ECHO, "3 s on each of 4 tests"): (("passed", None), ("error", 0)),
    # The same guard sets builtins.quit to None: quit() raises TypeError after the output.
    labelled(SUM, "quit() after printing"): (("passed", None), ("error", 0)),
    # Its stdout is a StringIO, which has no .buffer: a correct fast writer fails there.
    labelled(SUM, "sys.stdout.buffer.write"): (("passed", None), ("error", 0)),
    # A NumPy array of two or more numbers: its own comparison raises ValueError (an
    # array's truth is ambiguous), which it counts as the program's runtime error. Ours: a
    # wrong answer (the program ran; its answer is not the expected list).
    labelled(TWICE, "numpy array"): (("wrong", 0), ("error", 0)),
    # Its open is unittest.mock's mock_open: any file opened reads the test's input. Here only
    # stdin's names do (0, /dev/stdin); another file is the sandbox's, and input.txt is not there.
    labelled(SUM, "open('input.txt')"): (("error", 0), ("passed", None)),
    # Its import lines run when the program is loaded, before its patches: a name imported
    # from sys is the grader's own stdout (what is written there is not captured) or stdin
    # (whose lines are the grader's, none).
    labelled(SUM, "from sys import stdout"): (("passed", None), ("wrong", 0)),
    labelled(SUM, "from sys import stdin, read by lines"): (("passed", None), ("error", 0)),
    # Its own imports come first: a __future__ import after them is a SyntaxError.
    labelled(SUM, "from __future__ import"): (("passed", None), ("error", 0)),
    # The program is the body of its function: a return there ends it. Here it does not
    # compile, as Python does not compile it.
    labelled(SUM, "return outside a function"): (("error", 0), ("passed", None)),
    # Its == asks the Fraction itself (Fraction(2) == 2); here results are compared as plain
    # data, and a Fraction stays in the sandbox.
    labelled(TWICE, "fractions returned"): (("wrong", 0), ("passed", None)),
}

# Runs APPS's ``run_test`` (the files in argv[1]) on each sample of the JSON file argv[2]
# (a list of {"input_output", "code"}) as APPS's test_one_solution.py runs it: in a
# process of its own per sample (run_test disables os functions and sets alarms), killed
# after its TIMEOUT + 1 s, a result of 21 runtime errors then. Writes the lists to argv[3].
DRIVER = """
import json, multiprocessing, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import testing_util

def run(problem, code, conn):
    results = testing_util.run_test(problem=problem, test=code)
    plain = []
    for e in results:  # as test_one_solution.py turns them into plain values
        if isinstance(e, np.ndarray):
            e = e.item(0)
        if isinstance(e, np.bool_):
            e = bool(e)
        plain.append(e)
    conn.send(plain)

TIMEOUT = 10  # test_one_solution.py's
ctx = multiprocessing.get_context("fork")
out = []
for sample in json.load(open(sys.argv[2])):
    receive, send = ctx.Pipe(duplex=False)
    problem = {"input_output": sample["input_output"]}
    process = ctx.Process(target=run, args=(problem, sample["code"], send))
    process.start()
    send.close()
    process.join(timeout=TIMEOUT + 1)
    if process.is_alive():
        process.kill()
        process.join()
    try:
        out.append(receive.recv())
    except EOFError:  # nothing sent: test_one_solution.py's stand-in result
        out.append([-1] * 21)
json.dump(out, open(sys.argv[3], "w"))
"""
