"""A chat model's reply to a MultiPL-E or HumanEval-X problem restates the whole function in a
fenced block: it is graded in place of the prompt's open function (``kinds/native_restated``),
so a right answer passes and a wrong one fails, plain and with ``-n 2``, served by a real
OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import collections
import json
import threading

import pytest
from conftest import FIXTURES, XDIST_MODES, read_results, run_vllm, write_replay
from fake_providers import FakeProviders

from pytest_codegen.kinds.native_restated import (
    go_merged,
    restated,
    rust_without_declared_uses,
    without_main,
)

# The prompt's last signature -> a chat reply that restates its function, right.
REPLIES = {
    # MultiPL-E (fixtures/multipl_e/add.jsonl)
    "long add(long x, long y) {": (
        "Here it is:\n```cpp\n#include <bits/stdc++.h>\nlong add(long x, long y) {\n"
        '    return x + y;\n}\n\nint main() {\n    std::cout << add(2, 3) << "}\\n";\n}\n```\n'
        "It adds them."
    ),
    "function add(x, y){": "```javascript\nfunction add(x, y) {\n  return x + y;\n}\n```",
    "func add(x int, y int) int {": (  # its package line, an import the prompt has, one it lacks
        '```go\npackage add_test\n\nimport (\n    "fmt"\n    "math"\n)\n\n'
        "func add(x int, y int) int {\n    return x + y + int(math.Floor(0.5))\n}\n```"
    ),
    "fn add(x: isize, y: isize) -> isize {": (
        "```rust\nfn add(x: isize, y: isize) -> isize {\n    x + y\n}\n\n"
        "fn main() {\n    let c = '{';\n    println!(\"{} {}\", add(2, 3), c);\n}\n```"
    ),
    "public static long add(long x, long y) {": (  # a class of another name than Problem's
        "```java\nimport java.util.*;\n\npublic class Main {\n"
        "    public static long add(long x, long y) {\n        return x + y;\n    }\n\n"
        "    public static void main(String[] args) {\n"
        "        System.out.println(Main.add(2, 3));\n    }\n}\n```"
    ),
    "function add(x: number, y: number): number {": (  # exported, an ES module's
        "```typescript\nexport function add(x: number, y: number): number {\n    return x + y;\n}\n"
        "\nconsole.log(add(2, 3));\n```"
    ),
    "function add($x, $y) {": (  # its own tags, the closing one before the tests
        "```php\n<?php\nfunction add($x, $y) {\n    return $x + $y;\n}\n\necho add(2, 3);\n?>\n```"
    ),
    "add <- function(x, y) {": "```r\nadd <- function(x, y) {\n  x + y\n}\n\nprint(add(2, 3))\n```",
    "(define (add x y)": (  # its own #lang line, which the prompt has
        "```racket\n#lang racket\n\n(define (add x y)\n  (+ x y))\n\n(add 2 3)\n```"
    ),
    "let add (x : int) (y : int) : int =": (
        "```ocaml\nlet add (x : int) (y : int) : int =\n  x + y\n\n"
        'let () = Printf.printf "%d\\n" (add 2 3)\n```'
    ),
    "add() {": "```bash\n#!/bin/bash\nadd() {\n    echo $(( $1 + $2 ))\n}\n\nadd 2 3\n```",
    # HumanEval-X (fixtures/humaneval_x)
    "int add(int x,int y){": "```cpp\nint add(int x, int y) {\n    return x + y;\n}\n```",
    "func Add(x int, y int) int {": (  # an import CodeGeeX adds by use, and one it does not
        '```go\npackage main\n\nimport (\n    "math/bits"\n    "strings"\n)\n\n'
        "func Add(x int, y int) int {\n"
        '    return x + y + bits.OnesCount(0) + strings.Count("", "z")\n}\n```'
    ),
    "public int add(int x, int y) {": (  # the whole class, declared public, named as the tests'
        "```java\nimport java.util.*;\n\npublic class Main {\n"
        "    public int add(int x, int y) {\n        return x + y;\n    }\n"
        "    public static void main(String[] args) {\n"
        "        System.out.println(new Main().add(2, 3)); // }\n    }\n}\n```"
    ),
    "const add = (x, y) => {": (
        "```js\nexport const add = (x, y) => {\n  return x + y;\n};\n\nexport default add;\n```"
    ),
    "fn add(x:i32, y:i32) -> i32{": (  # a main of its own, as the declaration has one
        "```rust\nuse std::collections::HashMap;\nuse std::cmp::{max, min};\n\n"  # declared
        "fn add(x: i32, y: i32) -> i32 {\n    let _: HashMap<i32, i32> = HashMap::new();\n"
        "    max(min(x + y, i32::MAX), i32::MIN)\n}\n\nfn main() {\n"
        '    fn first<\'a>(s: &\'a str) -> &\'a str { s }\n    println!("{}", first("{"));\n}\n```'
    ),
}
MULTIPL_E = ("cpp", "js", "go", "rs", "java", "ts", "php", "r", "rkt", "ml", "sh")
# A right reply's sum -> the wrong reply's product.
WRONG = {"x + y": "x * y", "$x + $y": "$x * $y", "(+ x y)": "(* x y)", "$1 + $2": "$1 * $2"}
HUMANEVAL_X = {"cpp": "CPP_0", "go": "Go_0", "java": "Java_0", "js": "JavaScript_0"}
HUMANEVAL_X["rust"] = "Rust_0"


class ChatReplies:
    """The restated function, right the first time a problem is answered and multiplying
    instead the second (:data:`WRONG`): counted per problem, as ``-n 2`` may ask for a
    problem's two samples in one request (two choices) or in one request each from two
    workers."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answered: collections.Counter[str] = collections.Counter()

    def __call__(self, request, index: int) -> str:
        # The longest signature that the prompt holds (Java's holds C++'s "long add(...)").
        signature = max((s for s in REPLIES if s in request.user_text), key=len)
        with self.lock:
            nth = self.answered[request.user_text]
            self.answered[request.user_text] += 1
        reply = REPLIES[signature]
        return reply if nth == 0 else wrong(reply)


def wrong(reply: str) -> str:
    for right, product in WRONG.items():
        reply = reply.replace(right, product)
    return reply


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_restated_functions_are_graded_in_place_of_the_prompts(pytester, xdist):
    suites = [
        *(f"{FIXTURES / 'multipl_e' / 'add.jsonl'}::HumanEval_53_add_{lang}" for lang in MULTIPL_E),
        *(
            f"{FIXTURES / 'humaneval_x' / f'humaneval_{lang}.jsonl'}::{test_id}"
            for lang, test_id in HUMANEVAL_X.items()
        ),
    ]
    with FakeProviders(reply=ChatReplies(), openai_key=None) as server:
        run_vllm(pytester, server, *suites, "--codegen-samples=2", *xdist)
    records = read_results(pytester.path / "r.jsonl")
    assert len({(r["task_id"], r["sample_index"]) for r in records}) == 2 * len(REPLIES)
    outcomes = collections.defaultdict(dict)  # task -> {right or wrong: outcome}
    for r in records:
        right = any(sum_ in r["completion"] for sum_ in WRONG)
        outcomes[r["task_id"]]["right" if right else "wrong"] = r["outcome"]
    assert len(outcomes) == len(REPLIES), records
    assert all(o == {"right": "passed", "wrong": "failed"} for o in outcomes.values()), outcomes
    assert {r["code_policy"] for r in records} == {"extract"}


GO_PROMPT = 'package p\n\nimport (\n    "fmt"\n)\n\n// Add adds.\nfunc add(x int) int {\n'


def test_a_body_continues_the_prompt_and_a_recursive_call_is_no_definition():
    assert restated("go", GO_PROMPT, "    return x\n}\n") is None
    assert restated("cpp", "long f(long n) {\n", "    return n ? f(n - 1) : 0;\n}\n") is None
    assert restated("ml", "let f x =\n", "  let y = x in\n  y\n") is None  # a nested let
    assert restated("cs", "int F() {\n", "int F() {\n    return 1;\n}\n") is None  # no rule


def test_go_drops_the_answers_package_line_and_imports_what_the_prompt_lacks():
    code = 'package q\n\nimport "fmt"\nimport m "math"\n\nfunc add(x int) int {\n    return x\n}\n'
    fit = restated("go", GO_PROMPT, code)
    assert fit is not None
    prompt_part = GO_PROMPT[: GO_PROMPT.index("func add")]
    assert fit.before == prompt_part
    before, body = go_merged(fit.before, fit.code)
    assert before == prompt_part + 'import (\n    m "math"\n)\n\n'
    assert body == "func add(x int) int {\n    return x\n}\n"
    assert go_merged("", code, 'import (\n    "fmt"\n    "math"\n)\n')[0] == ""


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_replayed_solution_is_the_whole_program_before_the_tests(pytester, xdist):
    """A ``solution`` holds the prompt: it is not appended to it again."""
    rows = [
        ("HumanEval_53_add_cpp", "    return x + y;\n"),
        ("HumanEval_53_add_go", "    return x + y\n"),
    ]
    suite = FIXTURES / "multipl_e" / "add.jsonl"
    prompts = {r["name"]: r["prompt"] for r in map(json.loads, suite.read_text().splitlines())}
    hx_cpp = FIXTURES / "humaneval_x" / "humaneval_cpp.jsonl"
    hx = json.loads(hx_cpp.read_text().splitlines()[0])
    answers = [{"task_id": name, "solution": prompts[name] + body} for name, body in rows]
    answers.append({"task_id": "CPP/0", "solution": hx["prompt"] + hx["canonical_solution"]})
    write_replay(pytester.path / "s.jsonl", answers)
    result = pytester.runpytest_subprocess(
        "--codegen-model=replay:s.jsonl",
        "--codegen-results=r.jsonl",
        *(f"{suite}::{name}" for name, _ in rows),
        f"{hx_cpp}::CPP_0",
        *xdist,
        timeout=900,
    )
    records = read_results(pytester.path / "r.jsonl")
    assert {(r["outcome"], r["code_policy"]) for r in records} == {("passed", "whole")}, records
    result.assert_outcomes(passed=3)


def test_an_answers_own_main_is_left_out_where_the_program_has_one():
    """A chat reply's ``main`` (showing its function at work) would define the program's main a
    second time: it is dropped, braces in its strings, comments and characters notwithstanding."""
    cpp = 'long f() {\n    return 1;\n}\n\nint main(int argc, char** argv) {\n    puts("{");\n}\n'
    assert without_main("cpp", cpp) == "long f() {\n    return 1;\n}\n\n"
    rust = "fn main() {\n    let s: &'static str = \"}\"; // }\n    let c = '}';\n}\nfn g() {}\n"
    assert without_main("rs", rust) == "fn g() {}\n"
    java = (
        "class A {\n    public static void main(String[] a) { /* } */ }\n"
        "    int g() { return 1; }\n}\n"
    )
    assert without_main("java", java) == "class A {\n    int g() { return 1; }\n}\n"
    unclosed = "int main() {\n    return 0;\n"
    assert without_main("cpp", unclosed) == unclosed
    assert without_main("js", "function main() {}\n") == "function main() {}\n"
    # The prompt's function named main is the answer itself: kept.
    fit = restated("cpp", "int main() {\n", "int main() {\n    return 0;\n}\n")
    assert fit is not None and "int main()" in fit.code


def test_a_java_class_of_another_name_takes_the_prompts():
    prompt = "import java.util.*;\nclass Problem {\n    public static long f(long x) {\n"
    reply = (
        "class Pair {}\npublic class Main {\n    public static long f(long x) {\n"
        "        return Main.g(x);\n    }\n    static long g(long x) { return x; }\n}\n"
    )
    fit = restated("java", prompt, reply)
    assert fit is not None and fit.whole_class and fit.before == "import java.util.*;\n"
    assert fit.code == reply.replace("Main", "Problem")
    method = "    public static long f(long x) {\n        return x;\n    }\n"
    assert restated("java", prompt, method).code == method  # a method alone: as it is


def test_php_tags_of_the_reply_are_left_out():
    """The prompt opens PHP; a reply's closing tag would print the tests after it as text
    instead of running them, and any answer would pass."""
    prompt = "<?php\n// Add.\nfunction add($x, $y) {\n"
    for reply in (
        "function add($x, $y) {\n    return $x * $y;\n}\n?>\n",
        "<?php\nfunction add() {}",
    ):
        fit = restated("php", prompt, reply)
        assert fit is not None and fit.before == "<?php\n// Add.\n"
        assert "?>" not in fit.code and "<?php" not in fit.code and fit.code.startswith("function")


def test_rust_uses_that_humaneval_x_declares_are_left_out():
    """HumanEval-X's Rust declaration imports HashMap, max, ...: a reply's own import of one
    is a second (E0252); the rest of its imports stay."""
    declaration = "use std::{cmp::{max, self}, collections::{HashSet, HashMap}};\nuse rand::Rng;\n"
    code = (
        "use std::collections::HashMap;\nuse std::cmp::{max, min};\nuse std::cmp;\n"
        "use std::collections::*;\nuse std::fmt::Write as W;\nuse rand::Rng as R;\nfn f() {}\n"
    )
    assert rust_without_declared_uses(code, declaration) == (
        "use std::cmp::min;\nuse std::collections::*;\nuse std::fmt::Write as W;\n"
        "use rand::Rng as R;\nfn f() {}\n"
    )


def test_javascript_exports_are_left_out():
    """An ``export`` would make the program an ES module, where the tests' require fails."""
    reply = (
        "export async function add(x, y) {\n  return x + y;\n}\nexport { add };\n"
        "export default add;\nconst exported = 1;\n"
    )
    fit = restated("js", "function add(x, y){\n", reply)
    assert fit is not None
    assert fit.code == "async function add(x, y) {\n  return x + y;\n}\nconst exported = 1;\n"
