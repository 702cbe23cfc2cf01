"""The warm Jest runner, against real Jest in a real Node (no mocks).

Fixtures: ``fixtures/react/comments/commentBox.test.js`` (two tests: POST a comment, show the
confirmation / the server error) with its correct ``CommentBox.js``, and
``fixtures/react/samples/``: complete components, and ``*.prelude.js`` attacks put in front of
a component. ``fake_base.js`` is wrong (never calls fetch, shows both messages at once): every
tampering prelude makes it pass under *plain* Jest - that is checked too, so each tampering
test shows an attack that works without the guard and is stopped with it.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest
from conftest import XDIST_MODES, react_samples, shared_cache

from pytest_codegen.execution.jest.node_env import PACKAGE_DIR, ensure_toolchain, find_node
from pytest_codegen.execution.jest.warm_runner import JestRunner
from pytest_codegen.kinds.webapp1k import check_problem, load_webapp1k, run_in
from pytest_codegen.outcomes import CRASHED, ERROR, FAILED, PASSED, TIMEOUT
from pytest_codegen.problems import MODE_JEST

ROOT = Path(__file__).resolve().parents[1]
REACT = ROOT / "fixtures" / "react"
SAMPLES = REACT / "samples"
TEST_FILE = "commentBox.test.js"
SOLUTION_FILE = "CommentBox.js"
TEST_SOURCE = (REACT / "comments" / TEST_FILE).read_text()
CORRECT = (REACT / "comments" / SOLUTION_FILE).read_text()
FAKE = (SAMPLES / "fake_base.js").read_text()
TIMEOUT_S = 30.0


def sample(name: str, base: str | None = None, marker: Path | None = None) -> str:
    code = (SAMPLES / name).read_text()
    if marker is not None:
        code = code.replace("MARKER", str(marker))
    return code if base is None else f"{code}\n{base}"


@pytest.fixture(scope="module")
def runner():
    os.environ["PCG_TEST_SECRET"] = "sk-test-do-not-leak"  # must not reach the sample
    with JestRunner(find_node(), cache_root=shared_cache()) as jest_runner:
        jest_runner.start()
        yield jest_runner
    os.environ.pop("PCG_TEST_SECRET", None)


@pytest.fixture(scope="module")
def plain_runner():
    """Jest without the guard: shows what each attack achieves when nothing stops it."""
    with JestRunner(find_node(), cache_root=shared_cache(), hardened=False) as jest_runner:
        yield jest_runner


def node_probe(probe: str, *args: object, timeout: float = 60) -> Any:
    """What a Node script (``node -e probe args...``) prints as JSON; it must succeed."""
    done = subprocess.run(
        [find_node().path, "-e", probe, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def grade(jest_runner: JestRunner, code: str, timeout_s: float = TIMEOUT_S):
    return jest_runner.run(TEST_SOURCE, TEST_FILE, SOLUTION_FILE, code, timeout_s)


# ---- honest outcomes ------------------------------------------------------------------------
def test_correct_solution_passes(runner):
    verdict = grade(runner, CORRECT)
    assert verdict.outcome == PASSED, verdict.message
    assert verdict.mode == MODE_JEST
    assert [(t["name"], t["status"]) for t in verdict.tests] == [
        ("posts a comment and confirms it", "passed"),
        ("reports a server error", "passed"),
    ]
    assert all(t["assertions"] == 2 for t in verdict.tests)


def test_isolation_is_in_force(runner):
    facts = runner.isolation
    assert facts["permission_model"] in ("--permission", "--experimental-permission")
    assert facts["hardened"] is True
    if os.geteuid() == 0:
        from pytest_codegen.execution.jest.confinement import _world_accessible

        reachable = all(
            _world_accessible(Path(p)) for p in (runner.node.path, runner.toolchain, PACKAGE_DIR)
        )
        # The uid drop needs node, the toolchain and our JS reachable by another uid (not so
        # in a checkout under a private 0700 directory): then only the permission model holds.
        if reachable:
            assert facts["uid"] is not None and facts["uid"] != 0
        else:
            assert facts["uid"] is None


def test_wrong_solution_fails_naming_the_test_and_the_assertion(runner):
    verdict = grade(runner, (SAMPLES / "wrong_message.js").read_text())
    assert verdict.outcome == FAILED
    assert verdict.message.startswith("posts a comment and confirms it: ")
    assert "Unable to find an element with the text: /comment posted/i" in verdict.message
    statuses = {t["name"]: t["status"] for t in verdict.tests}
    assert statuses == {
        "posts a comment and confirms it": "failed",
        "reports a server error": "passed",
    }
    assert "\x1b[" not in verdict.tests[0]["message"]  # ANSI stripped


def test_syntax_error_is_an_error(runner):
    verdict = grade(runner, (SAMPLES / "syntax_error.js").read_text())
    assert verdict.outcome == ERROR
    assert verdict.message == (
        "test suite failed to run: SyntaxError: CommentBox.js: Unexpected token (3:0)"
    )


def test_a_syntax_error_babel_says_what_it_expected_is_named_by_the_file_alone(runner):
    # Jest adds no advice to such an error: its first line named the runner's work directory.
    verdict = grade(runner, CORRECT.replace("return (", "return ((", 1))
    assert verdict.outcome == ERROR
    assert verdict.message == (
        'test suite failed to run: SyntaxError: CommentBox.js: Unexpected token, expected ","'
        " (22:3)"
    )


BROKEN_TESTS = {  # what does not parse: Babel says what it expected, or not
    "afterEach(() => {": ("afterEach(() => {{", "Unexpected token (*)"),
    "render(<CommentBox />);": ("render(<CommentBox />;", 'Unexpected token, expected "," (*)'),
}


@pytest.mark.parametrize("mode", XDIST_MODES)
@pytest.mark.parametrize("broken", BROKEN_TESTS)
def test_what_does_not_parse_is_one_line_naming_the_file_plain_and_with_xdist(
    pytester, mode, broken
):
    suite = pytester.path / "suite" / "comments"
    suite.mkdir(parents=True)
    replacement, babel_says = BROKEN_TESTS[broken]
    (suite / TEST_FILE).write_text(TEST_SOURCE.replace(broken, replacement))
    rows = [{"task_id": "comments/commentBox", "completion": CORRECT}]
    (pytester.path / "replay.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = pytester.runpytest_subprocess(
        "suite", "--codegen-model=replay:replay.jsonl", "--codegen-samples=1", *mode, timeout=600
    )
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [f"error: test suite failed to run: SyntaxError: commentBox.test.js: {babel_says}"]
    )


def test_a_test_file_that_does_not_parse_is_named_with_the_place(runner):
    source = TEST_SOURCE.replace("afterEach(() => {", "afterEach(() => {{", 1)
    verdict = runner.run(source, TEST_FILE, SOLUTION_FILE, CORRECT, TIMEOUT_S)
    assert verdict.outcome == ERROR
    assert verdict.message.startswith("test suite failed to run: SyntaxError: commentBox.test.js: ")
    assert verdict.message.endswith(")") and "\n" not in verdict.message


def test_exception_at_render_is_an_error(runner):
    verdict = grade(runner, (SAMPLES / "render_exception.js").read_text())
    assert verdict.outcome == ERROR
    assert "TypeError" in verdict.message or "Cannot read properties" in verdict.message


def test_a_stack_trace_names_the_samples_own_lines(runner):
    # Babel's output is longer than the sample; the runner's source maps (written to its
    # transform cache, then read back) put the error at line 5 of what the model wrote.
    code = (
        "import React from 'react';\n\nexport default function CommentBox() {\n"
        "  const none = null;\n  return <div>{none.text}</div>;\n}\n"
    )
    verdict = grade(runner, code)
    assert verdict.outcome == ERROR
    assert f"{SOLUTION_FILE}:5:21)" in verdict.tests[0]["message"]


def test_infinite_render_loop_times_out_and_the_runner_is_replaced(runner):
    starts = runner.starts
    verdict = grade(runner, (SAMPLES / "infinite_render.js").read_text(), timeout_s=5)
    assert verdict.outcome == TIMEOUT
    assert "runner replaced" in verdict.message
    again = grade(runner, CORRECT)  # the next sample gets a fresh runner and passes
    assert again.outcome == PASSED, again.message
    assert runner.starts == starts + 1


def test_process_exit_is_not_a_pass(runner):
    verdict = grade(runner, sample("process_exit.prelude.js", CORRECT))
    assert verdict.outcome in (FAILED, ERROR)
    assert "process.exit" in verdict.message
    assert runner.alive or grade(runner, CORRECT).outcome == PASSED


def test_a_sample_that_makes_the_runner_exit_is_a_crash_not_a_timeout(runner):
    # The runner exits at once. Its answer pipe closes before it is reaped, and the verdict was
    # a timeout whenever it was looked for in between (about one time in three): "no result
    # within 30 s", given after a third of a second. Three tries, each of them a crash.
    source = "import Box from './Box';\ntest('a', () => { expect(Box()).toBe(null); });\n"
    code = sample("reject_at_load.prelude.js", "export default function Box() { return null; }")
    for _ in range(3):
        verdict = runner.run(source, "box.test.js", "Box.js", code, TIMEOUT_S)
        assert verdict.outcome == CRASHED, verdict.message
        assert verdict.message.startswith("the Jest runner died: exited with status")
    # A sample that closes the answer pipe: the runner exits once the file is done, always
    # after the pipe closed (a timeout every time).
    verdict = grade(runner, sample("close_answer_pipe.prelude.js", CORRECT))
    assert verdict.outcome == CRASHED, verdict.message
    assert grade(runner, CORRECT).outcome == PASSED


def test_two_gigabyte_allocation_is_an_error_or_a_crash(runner):
    verdict = grade(runner, (SAMPLES / "alloc_2gb.js").read_text())
    assert verdict.outcome in (ERROR, CRASHED)
    assert grade(runner, CORRECT).outcome == PASSED


def test_a_runner_that_fails_after_a_sample_is_replaced_before_the_next(runner):
    # The runner answers that it failed, and exits: the next sample was sent to it all the same
    # and came back 'crashed: the Jest runner died: exited with status 70'.
    starts = runner.starts
    verdict = grade(runner, sample("fatal_listener.prelude.js", CORRECT))
    assert verdict.outcome == CRASHED
    assert "the Jest runner failed: Error: planted listener" in verdict.message
    again = grade(runner, CORRECT)
    assert again.outcome == PASSED, again.message
    assert runner.starts == starts + 1


def test_a_timer_a_sample_leaves_in_the_runners_realm_fails_no_later_sample(runner):
    # Unreferenced, it was not counted among what a file leaves running, and failed every
    # later sample the runner graded ("planted timer").
    grade(runner, sample("plant_timer.prelude.js", CORRECT))  # its own verdict is its own
    later = [grade(runner, CORRECT) for _ in range(3)]
    assert [v.outcome for v in later] == [PASSED] * 3, [v.message for v in later]


def test_a_timer_of_timers_promises_left_unreferenced_is_counted(runner):
    # timers/promises unreferences a timer on request ({ref: false}), which hid it from the
    # count of what a file leaves running: the runner graded the next file with it armed.
    grade(runner, CORRECT)
    starts = runner.starts
    grade(runner, sample("plant_timer_promise.prelude.js", CORRECT))
    later = grade(runner, CORRECT)
    assert runner.starts == starts + 1  # replaced before the next file: the timer counted
    assert later.outcome == PASSED, later.message


def test_the_runner_is_recycled_after_its_quota_of_files():
    # Every `recycle_after` files the runner process is replaced by a fresh one, and grading
    # goes on with the same verdicts.
    with JestRunner(find_node(), cache_root=shared_cache(), recycle_after=2) as jest_runner:
        verdicts, starts = [], []
        for _ in range(5):
            verdicts.append(grade(jest_runner, CORRECT).outcome)
            starts.append(jest_runner.starts)
    assert verdicts == [PASSED] * 5
    assert starts == [1, 1, 2, 2, 3]


# ---- what a sample cannot do ------------------------------------------------------------------
def test_child_processes_are_blocked(runner):
    marker = Path(tempfile.gettempdir()) / f"pcg-exec-{uuid.uuid4().hex}"
    verdict = grade(runner, sample("exec.prelude.js", CORRECT, marker))
    assert verdict.outcome == ERROR
    assert "ERR_ACCESS_DENIED" in verdict.message or "restricted" in verdict.message
    assert not marker.exists()


def test_file_writes_outside_the_sample_directory_are_blocked(runner):
    marker = Path(tempfile.gettempdir()) / f"pcg-write-{uuid.uuid4().hex}"
    verdict = grade(runner, sample("fs_write.prelude.js", CORRECT, marker))
    assert verdict.outcome == PASSED, verdict.message  # the sample caught the denial
    assert not marker.exists()


@pytest.mark.parametrize("sandbox_uid", ["auto", None], ids=["as-root-drops-uid", "own-uid"])
def test_a_sample_cannot_leave_a_package_for_the_next_sample(sandbox_uid):
    # With its own uid (a user without root) only Node's permissions and Landlock hold the
    # runner: its work root and each sample's directory must be read-only to it all the same.
    plant = sample("plant_module.prelude.js", CORRECT)
    use = "import planted from 'planted';\n" + CORRECT
    with JestRunner(find_node(), cache_root=shared_cache(), sandbox_uid=sandbox_uid) as runner:
        planting = grade(runner, plant)
        assert planting.outcome == PASSED, planting.message  # it caught the refusals
        targets = [line.split()[2] for line in planting.stdout.splitlines() if "refused:" in line]
        assert len(targets) == 2, planting.stdout
        assert not any(Path(target).exists() for target in targets)
        assert runner.alive  # the next sample runs in the same runner, after the attempt
        using = grade(runner, use)
    assert using.outcome == ERROR
    assert "Cannot find module 'planted'" in using.message


def test_environment_secrets_are_not_visible(runner):
    assert os.environ["PCG_TEST_SECRET"]
    verdict = grade(runner, sample("env_secret.prelude.js", CORRECT))
    assert verdict.outcome == PASSED, verdict.message
    assert "sk-test-do-not-leak" not in verdict.stdout + verdict.stderr


def test_other_processes_cannot_be_signalled(runner):
    # kill(ppid, 0) is refused (the sample catches that) and the attempt voids the verdict
    verdict = grade(runner, sample("signal_parent.prelude.js", CORRECT))
    assert verdict.outcome == FAILED
    assert "violation: process.kill() is not available" in verdict.message


# ---- tampering ----------------------------------------------------------------------------
TAMPERING = [
    "tamper_expect.prelude.js",  # replace the global expect
    "tamper_test.prelude.js",  # replace global test/it with empty bodies
    "tamper_fetchmock.prelude.js",  # stub fetchMock.calls
    "tamper_objectis.prelude.js",  # patch a built-in toBe relies on
    "tamper_circus.prelude.js",  # swap the registered bodies in Jest's own state
]


@pytest.mark.parametrize("attack", TAMPERING, ids=lambda name: name.split(".")[0])
def test_tampering_that_fools_plain_jest_never_passes(runner, plain_runner, attack):
    code = sample(attack, FAKE)
    assert grade(plain_runner, code).outcome == PASSED  # the attack is real
    verdict = grade(runner, code)
    assert verdict.outcome != PASSED
    assert verdict.outcome in (FAILED, ERROR)


def test_overwriting_screen_queries_fools_plain_jest_but_not_the_guard(runner, plain_runner):
    code = (SAMPLES / "tamper_screen.js").read_text()
    assert grade(plain_runner, code).outcome == PASSED
    verdict = grade(runner, code)
    assert verdict.outcome == ERROR
    assert "read only" in verdict.message or "Cannot assign" in verdict.message


@pytest.mark.parametrize(
    "attack",
    [
        "tamper_array.prelude.js",  # monkeypatch Array.prototype
        "tamper_promise.prelude.js",  # monkeypatch Promise.prototype.then
    ],
    ids=lambda name: name.split(".")[0],
)
def test_patching_builtins_is_refused(runner, attack):
    for base in (FAKE, CORRECT):
        verdict = grade(runner, sample(attack, base))
        assert verdict.outcome == ERROR
        assert "read only" in verdict.message or "Cannot assign" in verdict.message


# The test file runs in the same frozen window (docs/explanation/fidelity.md): its spies on the
# built-ins and the DOM's interfaces fail every answer, as documented; replacing a property of
# the window itself works as under plain Jest.
SPY_TESTS = {
    "jest.spyOn(Storage.prototype, 'setItem')": ("localStorage.setItem('a', '1')", ERROR),
    "jest.spyOn(Math, 'random')": ("Math.random()", ERROR),
    "(window.alert = jest.fn())": ("alert('hi')", PASSED),
}


@pytest.mark.parametrize(("spy", "call"), [(k, v[0]) for k, v in SPY_TESTS.items()])
def test_a_test_files_spies_on_the_built_ins_fail_as_documented(runner, plain_runner, spy, call):
    source = (
        "import Box from './Box';\n"
        f"test('calls it', () => {{ const spy = {spy}; Box();"
        " expect(spy).toHaveBeenCalled(); });\n"
    )
    component = f"export default function Box() {{ {call}; return null; }}\n"
    plain = plain_runner.run(source, "box.test.js", "Box.js", component, TIMEOUT_S)
    verdict = runner.run(source, "box.test.js", "Box.js", component, TIMEOUT_S)
    assert plain.outcome == PASSED, plain.message
    assert verdict.outcome == SPY_TESTS[spy][1], verdict.message


# A test that checks a component against the real clock.
CURRENT_YEAR_TEST = """\
import { render, screen } from '@testing-library/react';
import Year from './Year';

test('shows the current year', () => {
  render(<Year />);
  expect(screen.getByText(String(new Date().getUTCFullYear()))).toBeTruthy();
});
"""


def test_fake_timers_do_not_turn_a_wrong_sample_into_a_pass(runner, plain_runner):
    # The sample prints 2020 and sets Jest's fake clock to 2020 for the test to compare with.
    wrong = "export default function Year() { return <p>2020</p>; }\n"
    code = sample("fake_timers.prelude.js", wrong)

    def year(jest_runner: JestRunner, code: str):
        return jest_runner.run(CURRENT_YEAR_TEST, "year.test.js", "Year.js", code, TIMEOUT_S)

    assert year(plain_runner, wrong).outcome == FAILED
    assert year(plain_runner, code).outcome == PASSED  # the attack is real
    verdict = year(runner, code)
    assert verdict.outcome == ERROR
    assert "jest.useFakeTimers() is not available to the code under test" in verdict.message


def test_module_mocking_from_the_sample_is_refused(runner):
    verdict = grade(runner, sample("jest_mock.prelude.js", CORRECT))
    assert verdict.outcome == ERROR
    assert "jest.mock() is not available to the code under test" in verdict.message


def test_a_forged_result_record_is_detected(runner):
    wrong = grade(runner, sample("forged_record.prelude.js", FAKE))
    assert wrong.outcome != PASSED
    correct = grade(runner, sample("forged_record.prelude.js", CORRECT))
    assert correct.outcome == FAILED
    assert "wrote to the result channel" in correct.message
    assert grade(runner, CORRECT).outcome == PASSED  # a clean runner afterwards


# Ways for a sample to have Jest skip the tests it fails: a focused test of its own, or Jest's
# own state (a test's mode, the name pattern, the focus flag) changed before the tests run.
SKIPPING = {
    "own_focused_test": (SAMPLES / "focus_own_test.prelude.js").read_text(),
    "own_focused_describe": "describe.only('mine', () => { test('renders', () => {}); });\n",
    "state": """\
const key = Object.getOwnPropertySymbols(globalThis).find((s) => /JEST_STATE/.test(String(s)));
const state = () => globalThis[key];
Promise.resolve().then(() => {
  const skip = (block) => block.children.forEach((child) => {
    if (child.type !== 'test') skip(child);
    else if (child.name.includes('server error')) child.mode = 'skip';
  });
  skip(state().rootDescribeBlock);
});
""",
    "name_pattern": """\
Promise.resolve().then(() => {
  const key = Object.getOwnPropertySymbols(globalThis).find((s) => /JEST_STATE/.test(String(s)));
  globalThis[key].testNamePattern = /confirms/;
});
""",
}


# confirms the comment whatever the server answers: passes the first test, fails the second
ALWAYS_POSTED = CORRECT.replace(
    "response.ok ? 'Comment posted' : 'Could not post comment'", "'Comment posted'"
)


@pytest.mark.parametrize("attack", SKIPPING)
def test_a_sample_cannot_have_jest_skip_the_tests_it_fails(runner, plain_runner, attack):
    wrong = ALWAYS_POSTED
    assert wrong != CORRECT
    code = f"{SKIPPING[attack]}\n{wrong}"
    assert grade(plain_runner, wrong).outcome == FAILED
    assert grade(plain_runner, code).outcome == PASSED  # the attack is real
    verdict = grade(runner, code)
    assert verdict.outcome == FAILED
    assert "the test file declared it to run" in verdict.message
    assert "patching" in {a["category"] for a in verdict.attempts}


@pytest.mark.parametrize("attack", ["own_focused_test", "own_focused_describe"])
def test_a_test_file_that_speaks_of_focus_in_words_lets_no_sample_skip_its_tests(runner, attack):
    # Only a file that focuses tests in its code may have Jest skip the others.
    words = "// One case at a time: test.only(...) or fit(...), never committed.\n"
    source = f"{words}const tip = 'describe.only(';\n{TEST_SOURCE}"
    code = f"{SKIPPING[attack]}\n{ALWAYS_POSTED}"
    verdict = runner.run(source, TEST_FILE, SOLUTION_FILE, code, TIMEOUT_S)
    assert verdict.outcome == FAILED
    assert "the test file declared it to run" in verdict.message


# Test files that skip and focus tests themselves, every way Jest has: each test is run, skipped
# or listed as todo as plain Jest does it.
DECLARED_MODES = [
    """test('a', () => {}); test.skip('b', () => {}); it.todo('c'); xit('d', () => {});""",
    """describe.skip('s', () => {
  test('a', () => {});
  describe.only('o', () => { test('b', () => {}); });
});
test('c', () => {});""",
    """describe.only('o', () => { test('a', () => {}); test.skip('b', () => {}); });
test('c', () => {});
describe('d', () => { test('e', () => {}); });""",
    """describe.only('o', () => { test.only('a', () => {}); test('b', () => {}); });
test('c', () => {});""",
    """fit('a', () => {}); test('b', () => {}); xdescribe('x', () => { test('c', () => {}); });""",
    """fdescribe('f', () => { describe('inner', () => { test('a', () => {}); }); });
test('b', () => {});""",
    """describe.skip('s', () => { test.only('a', () => {}); }); test('b', () => {});""",
    """describe('d', () => {
  describe.skip('s', () => { test('a', () => {}); });
  test('b', () => {});
});""",
    """test.only.each([1, 2])('a%i', () => {}); test('b', () => {});
describe.each([1])('d%i', () => { test('c', () => {}); });""",
]


@pytest.mark.parametrize("body", DECLARED_MODES)
def test_tests_the_file_skips_or_focuses_are_as_plain_jest_reports_them(runner, plain_runner, body):
    source = f"import Box from './Box';\n{body}\n"
    component = "export default function Box() { return null; }\n"
    plain = plain_runner.run(source, "box.test.js", "Box.js", component, TIMEOUT_S)
    verdict = runner.run(source, "box.test.js", "Box.js", component, TIMEOUT_S)
    assert [(t["name"], t["status"]) for t in verdict.tests] == [
        (t["name"], t["status"]) for t in plain.tests
    ]
    assert {t["status"] for t in plain.tests} >= {"passed", "skipped"}
    assert (verdict.outcome, plain.outcome) == (PASSED, PASSED), verdict.message


# test.failing passes when its body does not succeed (it throws, or Jest times it out);
# concurrent tests start together. Each is recorded and observed like any other test, and gets
# the verdict of plain Jest (checked against `jest` on each file, one run per file).
FAILING_AND_CONCURRENT = [
    (
        """test.failing('throws', () => { expect(Box()).toBe('x'); });
test('runs', () => { expect(Box()).toBe(null); });""",
        PASSED,
    ),
    ("""test.failing('throws', () => { expect(Box()).toBe(null); });""", FAILED),
    ("""test.failing('never settles', () => new Promise(() => {}), 200);""", PASSED),
    ("""test.failing.each([1, 2])('row %i', (n) => { expect(Box()).toBe(n); });""", PASSED),
    (
        """test.only.failing('f', () => { throw new Error('x'); });
test('a', () => { expect(1).toBe(2); });""",
        PASSED,
    ),
    (
        """test.concurrent('a', async () => { expect(Box()).toBe(null); });
it.concurrent.each([1, 2])('b%i', async (n) => { expect(n).toBeGreaterThan(0); });
test.concurrent.skip('c', async () => { expect(1).toBe(2); });""",
        PASSED,
    ),
    ("""it.concurrent('a', async () => { expect(Box()).toBe('x'); });""", FAILED),
    ("""test.concurrent.failing('a', async () => { expect(Box()).toBe('x'); });""", PASSED),
]


@pytest.mark.parametrize(("body", "outcome"), FAILING_AND_CONCURRENT)
def test_failing_and_concurrent_tests_give_plain_jests_verdicts(
    runner, plain_runner, body, outcome
):
    source = f"import Box from './Box';\n{body}\n"
    component = "export default function Box() { return null; }\n"
    plain = plain_runner.run(source, "box.test.js", "Box.js", component, TIMEOUT_S)
    verdict = runner.run(source, "box.test.js", "Box.js", component, TIMEOUT_S)
    assert (verdict.outcome, plain.outcome) == (outcome, outcome), verdict.message
    assert [(t["name"], t["status"]) for t in verdict.tests] == [
        (t["name"], t["status"]) for t in plain.tests
    ]


# A table of cases: each row is a test of its own, recorded by the guard like any other.
EACH_TEST = """\
import Double from './Double';

test.each([[1, 2], [2, 4], [5, 10]])('doubles %i', (n, expected) => {
  expect(Double(n)).toBe(expected);
});
describe.each([[3]])('with %i', (n) => {
  it.each([['twice', 2]])('%s', (_, times) => { expect(Double(n)).toBe(n * times); });
});
"""


@pytest.mark.parametrize(
    ("component", "outcome"),
    [("n * 2", PASSED), ("n === 5 ? 11 : n * 2", FAILED)],
    ids=["right", "wrong"],
)
def test_tables_of_cases_give_plain_jests_verdicts(runner, plain_runner, component, outcome):
    code = f"export default function Double(n) {{ return {component}; }}\n"
    plain = plain_runner.run(EACH_TEST, "double.test.js", "Double.js", code, TIMEOUT_S)
    verdict = runner.run(EACH_TEST, "double.test.js", "Double.js", code, TIMEOUT_S)
    assert (verdict.outcome, plain.outcome) == (outcome, outcome), verdict.message
    assert [(t["name"], t["status"]) for t in verdict.tests] == [
        (t["name"], t["status"]) for t in plain.tests
    ]
    assert len(verdict.tests) == 4


# With fake timers on, the Testing Library's waitFor() advances them through the `jest` object
# of its own module, which the runner builds only when a toolchain module first uses it.
FAKE_TIMERS_TEST = """\
import { render, screen } from '@testing-library/react';
import Later from './Later';

test('shows the message once its timer fires', async () => {
  jest.useFakeTimers({ legacyFakeTimers: true });
  render(<Later />);
  expect(await screen.findByText('ready')).toBeTruthy();
  jest.useRealTimers();
});
"""
LATER = """\
import { useEffect, useState } from 'react';
export default function Later() {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const id = setTimeout(() => setReady(true), 500);
    return () => clearTimeout(id);
  }, []);
  return <p>{ready ? 'ready' : 'waiting'}</p>;
}
"""


def test_the_testing_library_drives_fake_timers_through_its_own_jest_object(runner):
    # The component's half-second timer fires only if the library's own
    # jest.advanceTimersByTime() reaches the test file's fake clock: nothing else advances it.
    verdict = runner.run(FAKE_TIMERS_TEST, "later.test.js", "Later.js", LATER, TIMEOUT_S)
    assert verdict.outcome == PASSED, verdict.message
    never = LATER.replace("setReady(true)", "setReady(false)")
    assert (
        runner.run(FAKE_TIMERS_TEST, "later.test.js", "Later.js", never, TIMEOUT_S).outcome
        == FAILED
    )


# Modern fake timers replace the window's Date with their clock's, which the guard otherwise
# keeps read-only.
CLOCK_TEST = """\
import { render, screen } from '@testing-library/react';
import Year from './Year';

test('shows the year of the fake clock', () => {
  jest.useFakeTimers();
  jest.setSystemTime(new Date('2020-06-01T00:00:00Z'));
  render(<Year />);
  expect(screen.getByText('2020')).toBeTruthy();
  jest.useRealTimers();
  expect(new Date().getUTCFullYear()).toBeGreaterThan(2020);
});
"""
YEAR = "export default function Year() { return <p>{new Date().getUTCFullYear()}</p>; }\n"


def clock(jest_runner: JestRunner, code: str):
    return jest_runner.run(CLOCK_TEST, "year.test.js", "Year.js", code, TIMEOUT_S)


def test_modern_fake_timers_give_the_verdicts_of_plain_jest(runner, plain_runner):
    wrong = YEAR.replace("{new Date().getUTCFullYear()}", "1999")
    for jest_runner in (runner, plain_runner):
        assert clock(jest_runner, YEAR).outcome == PASSED
        assert clock(jest_runner, wrong).outcome == FAILED


def test_a_sample_cannot_replace_date(runner):
    verdict = clock(runner, "globalThis.Date = function Date() { return 0; };\n" + YEAR)
    assert verdict.outcome == ERROR
    assert "Cannot assign to read only property 'Date'" in verdict.message


def test_a_date_slipped_in_while_jest_swaps_its_timers_is_a_violation(runner):
    # Jest reads the window's timer functions while it may assign Date; a getter of the
    # sample's runs then and tries to put its own Date there.
    sneak = """\
let stored = globalThis.queueMicrotask;
Object.defineProperty(globalThis, 'queueMicrotask', {
  configurable: true,
  get() {
    try { globalThis.Date = function Date() { return { getUTCFullYear: () => 2020 }; }; } catch {}
    return stored;
  },
  set(value) { stored = value; },
});
"""
    verdict = clock(runner, sneak + YEAR)
    assert verdict.outcome != PASSED
    assert "Date was replaced while Jest's fake timers were" in verdict.message
    assert clock(runner, YEAR).outcome == PASSED  # a clean runner afterwards


# A probe: finds a button by its role, and expects that no attack in front of the component
# succeeded (each prelude counts its successes in globalThis.__tampered).
PROBE_TEST = """\
import { render, screen } from '@testing-library/react';
import Probe from './Probe';

test('finds the button by its role', () => {
  render(<Probe />);
  expect(screen.getByRole('button', { name: 'go' })).toBeTruthy();
  expect(globalThis.__tampered || 0).toBe(0);
});
"""
PROBE = "export default function Probe() { return <button>go</button>; }\n"


def probe(jest_runner: JestRunner, code: str):
    """``code`` (a component named Probe) graded against PROBE_TEST."""
    return jest_runner.run(PROBE_TEST, "probe.test.js", "Probe.js", code, TIMEOUT_S)


def test_the_shared_aria_role_tables_cannot_be_changed(runner, plain_runner):
    # The runner evaluates aria-query once and hands every test file the same frozen tables.
    hostile = sample("tamper_aria.prelude.js", PROBE)
    tampered = probe(plain_runner, hostile)
    assert tampered.outcome == FAILED  # under plain Jest the tables can be emptied
    assert probe(runner, hostile).outcome == PASSED
    # and the next file still finds roles: nothing was changed for it
    assert probe(runner, PROBE).outcome == PASSED


SHARED_VIEW_PROBE = r"""
const [runtimeJs, viewJs, logJs, toolchain] = process.argv.slice(1);
const {deepFreeze, SHARED_MODULES} = require(runtimeJs);
const {share, viewFor} = require(viewJs);
const attemptLog = require(logJs);
const aria = require(require.resolve('aria-query', {paths: [toolchain]}));
const size = aria.roles.entries().length;
share('aria-query', aria, deepFreeze(SHARED_MODULES[0].state(aria)));
const view = viewFor(aria);
const READS = {
  keys: q => [
    Object.keys(q), Object.getOwnPropertyNames(q.roles), Reflect.ownKeys(q.dom.entries()),
  ],
  definition: q => [
    q.roles.get('button'), Object.getOwnPropertyDescriptor(q.roles.get('link'), 'props'),
  ],
  arrays: q => [
    Array.isArray(q.dom.entries()), q.dom.entries() instanceof Array, `${q.dom.keys()}`,
  ],
  iteration: q => [
    [...q.roles].map(([name]) => name), [...q.elementRoles].map(([key, v]) => [key, [...v]]),
  ],
  forEach: q => {
    const seen = [];
    q.roles.forEach((definition, name) => seen.push([name, definition.props]));
    return seen;
  },
  fresh: q => [q.roles.values().map(d => d.superClass), q.roles.keys().slice(3)],
  methods: q => [
    q.roles.entries().map(([name]) => name.length), q.dom.entries().slice(0, 2), {...q.aria},
  ],
  shape: q => [
    Object.isFrozen(q.roles), Object.isExtensible(q), typeof q.roles.get, q.roles.get.name,
    'get' in q.roles, q.roles.has('button'), Object.getPrototypeOf(q.roles) === Object.prototype,
  ],
  identity: q => [q.roles === q.roles, q.roles.entries() === q.roles.entries()],
};
const differ = Object.keys(READS).filter(name =>
  JSON.stringify(READS[name](aria)) !== JSON.stringify(READS[name](view)));
const WRITES = `[
  q => { q.roles.entries().length = 0; },
  q => { q.elementRoles.entries().splice(0); },
  q => { q.roles.get('button').props['aria-pressed'] = 'tampered'; },
  q => { q.roles.get = () => undefined; },
  q => { delete q.roles.get; },
  q => { Object.setPrototypeOf(q.roles, null); },
  q => { Object.defineProperty(q.dom, 'extra', {value: 1}); },
  q => { for (const [, definition] of q.roles) definition.props.x = 1; },
  q => { q.roles.values()[0].props.y = 1; },
  q => { q.roles.forEach(definition => { definition.props.z = 1; }); },
  q => { Object.freeze(q.roles); },  // accepted: it changes nothing
  q => { q.roles.values().length = 0; },  // a new array, the caller's own
]`;
const outcome = (write, q) => {
  try {
    write(q);
    return 'done';
  } catch (error) {
    return error.constructor.name;
  }
};
const outcomes = {};
const attempts = {};
for (const mode of ['strict', 'sloppy']) {
  const writes = Function(`${mode === 'strict' ? "'use strict';" : ''} return ${WRITES};`)();
  attemptLog.start();
  outcomes[mode] = writes.map(write => [outcome(write, aria), outcome(write, view)]);
  attempts[mode] = attemptLog.take();
}
const intact = aria.roles.entries().length === size;
console.log(JSON.stringify({differ, outcomes, attempts, intact}));
"""


def test_a_samples_view_of_a_shared_package_reads_and_refuses_as_the_package():
    # What a sample's module gets for aria-query (shared_view.js): every read gives what the
    # frozen package gives; every write, in strict and in sloppy code, succeeds or fails as on
    # the package; a refused one is noted.
    toolchain = ensure_toolchain(find_node(), shared_cache())
    found = node_probe(
        SHARED_VIEW_PROBE,
        *(PACKAGE_DIR / name for name in ("runtime.js", "shared_view.js", "attempt_log.js")),
        toolchain,
    )
    assert found["differ"] == []
    assert found["intact"]
    strict, sloppy = found["outcomes"]["strict"], found["outcomes"]["sloppy"]
    assert [pair for pair in strict + sloppy if pair[0] != pair[1]] == []
    assert [package for package, _ in strict] == ["TypeError"] * 10 + ["done"] * 2
    # sloppy code: assignments and deletes fail silently; splice and Object.* still throw
    assert [package for package, _ in sloppy].count("done") == 9
    # strict code stops at the first refusal of each write: one attempt each
    noted = found["attempts"]["strict"]
    assert {category for category, _ in noted} == {"patching"} and len(noted) == 10
    evidence = [e for _, e in noted]
    assert evidence[2:7] == [
        "changed aria-query's roles.get('button').props['aria-pressed']",
        "changed aria-query's roles.get",
        "deleted aria-query's roles.get",
        "replaced the prototype of aria-query's roles",
        "changed aria-query's dom.extra",
    ]
    # sloppy code goes on after a refused assignment: each is noted (up to the log's cap)
    assert len(found["attempts"]["sloppy"]) > 10


def test_the_runners_own_require_is_out_of_reach(runner, plain_runner):
    # require('module')._cache would lead to the Jest modules that grade every later sample.
    hostile = sample("escape_require.prelude.js", PROBE)
    assert probe(plain_runner, hostile).outcome == FAILED  # reachable under plain Jest
    verdict = probe(runner, hostile)
    assert verdict.outcome == PASSED, verdict.message


def test_a_sample_that_changes_a_core_module_fails_and_the_runner_is_replaced(runner, plain_runner):
    # Core modules are the runner's own: under plain Jest the patch reaches the next file.
    hostile = sample("patch_core.prelude.js", PROBE)
    first, second = (probe(plain_runner, hostile) for _ in range(2))
    assert (first.outcome, second.outcome) == (PASSED, FAILED)
    starts = runner.starts
    for _ in range(2):
        verdict = probe(runner, hostile)
        # the probe's own test passed (no mark from the file before): only the check fails it
        assert verdict.outcome == FAILED
        assert "a core module was changed: " in verdict.message, verdict.message
        assert "url.parse" in verdict.message and "fs.promises.readFile" in verdict.message
    assert probe(runner, PROBE).outcome == PASSED
    assert runner.starts == starts + 2


FORM_TEST = """\
import { render, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import Form from './Form';

test('form values compare as jest-dom documents', async () => {
  fetchMock.get('http://bücher.example/api/tags', { tags: ['a', 'c'] });
  render(<Form />);
  expect(screen.getByRole('form')).toHaveFormValues({ tags: ['a', 'c'], title: 'x' });
  expect(screen.getByRole('listbox')).toHaveValue(['a', 'c']);
  const response = await fetch('http://bücher.example/api/tags');
  expect((await response.json()).tags).toEqual(['a', 'c']);
  fetchMock.reset();
});
"""
FORM = """\
export default function Form({ picked = ['a', 'c'] }) {
  return (
    <form aria-label="tags">
      <input name="title" defaultValue="x" />
      <select name="tags" multiple defaultValue={picked}>
        <option value="a">a</option><option value="b">b</option><option value="c">c</option>
      </select>
    </form>
  );
}
"""


def test_matchers_built_on_shared_modules_agree_with_plain_jest(runner, plain_runner):
    # jest-dom compares values with the runner's shared lodash, fetch-mock and node-fetch parse
    # hosts with the shared tr46s: the verdicts are those of plain Jest, right form and wrong.
    wrong = FORM.replace("picked = ['a', 'c']", "picked = ['a', 'b']")
    for code, expected in ((FORM, PASSED), (wrong, FAILED)):
        for jest_runner in (plain_runner, runner):
            verdict = jest_runner.run(FORM_TEST, "form.test.js", "Form.js", code, TIMEOUT_S)
            assert verdict.outcome == expected, verdict.message


def test_each_sample_of_a_problem_is_graded_afresh(runner):
    # The same test file at the same path, again and again: the runner's memo of transformed
    # files must never hand one sample's code to another.
    outcomes = [grade(runner, code).outcome for code in (CORRECT, FAKE, CORRECT, FAKE)]
    assert outcomes == [PASSED, FAILED, PASSED, FAILED]


THROWER_TEST = """
import { check } from './Thrower';
test('does not throw', () => {
  expect(() => check(2)).not.toThrow();
});
"""
THROWER = """export function check(n) {
  if (n > 1) {
    throw new Error('too big: ' + n);
  }
  return n;
}
"""


def test_a_package_the_framework_loads_on_first_use_gives_plain_jests_message(runner, plain_runner):
    # jest-message-util's code frames (@babel/code-frame) are loaded only when a failure is
    # formatted (runtime.js's LAZY_REQUIRES): the message is still plain Jest's, frame included.
    messages = [
        jest_runner.run(THROWER_TEST, "thrower.test.js", "Thrower.js", THROWER, TIMEOUT_S).message
        for jest_runner in (plain_runner, runner)
    ]
    assert "> 3 |     throw new Error('too big: ' + n);" in messages[0]
    assert messages[1] == messages[0]


LAZY_PROBE = r"""
const path = require('path');
const fs = require('fs');
const [runtimeJs, toolchain] = process.argv.slice(1);
const found = require(runtimeJs).LAZY_REQUIRES.map(spec => {
  const by = path.join(toolchain, 'node_modules', spec.by);
  const exports = require(require.resolve(spec.module, {paths: [path.dirname(by)]}));
  return {
    module: spec.module,
    required: fs.readFileSync(by, 'utf8').includes(`require('${spec.module}')`),
    esModule: [exports.__esModule ?? null, spec.esModule ?? null],
    callable: [typeof exports === 'function', spec.callable === true],
  };
});
console.log(JSON.stringify(found));
"""


def test_lazily_required_packages_are_declared_as_they_are():
    # What runtime.js says of each package it loads on first use must hold for the pinned
    # toolchain: the file named requires it, and Babel's interop flag and whether it is a
    # function are as declared (the proxy answers them before the package exists).
    toolchain = ensure_toolchain(find_node(), shared_cache())
    found = node_probe(LAZY_PROBE, PACKAGE_DIR / "runtime.js", toolchain)
    assert {spec["module"] for spec in found} >= {"semver", "pure-rand", "micromatch"}
    for spec in found:
        assert spec["required"], spec
        assert spec["esModule"][0] == spec["esModule"][1], spec
        assert spec["callable"][0] == spec["callable"][1], spec


SAME_AS_BABEL_JEST_PROBE = r"""
const fs = require('fs');
const [transformerJs, babelConfigJs, toolchain, listFile] = process.argv.slice(1);
const babel = require(babelConfigJs)(name => require.resolve(name, {paths: [toolchain]}));
const ours = require(transformerJs).createTransformer({toolchain, babel});
const babelJest = require(require.resolve('babel-jest', {paths: [toolchain]}));
const theirs = (babelJest.default || babelJest).createTransformer(babel);
const {root, files} = JSON.parse(fs.readFileSync(listFile, 'utf8'));
const differ = [];
let compared = 0;
for (const dynamic of [false, true]) {
  const jestOptions = {
    config: {cwd: root, rootDir: root}, configString: '{}', instrument: false,
    supportsDynamicImport: dynamic, supportsExportNamespaceFrom: false,
    supportsStaticESM: false, supportsTopLevelAwait: false,
  };
  for (const {path, source} of files) {
    const a = ours.process(source, path, jestOptions);
    const b = theirs.process(source, path, jestOptions);
    compared += 1;
    if (a.code !== b.code || JSON.stringify(a.map) !== JSON.stringify(b.map)) differ.push(path);
  }
}
console.log(JSON.stringify({compared, differ}));
"""


def test_the_runners_transform_is_babel_jests_for_every_react_file(tmp_path):
    # transformer.js compiles as babel-jest does but loads Babel's configuration once: for every
    # test file and sample of our React suite (reference, wrong, empty), laid out as the runner
    # lays them out, and a dynamic import(), its code and source map are byte for byte
    # babel-jest's own, with and without Jest's support for dynamic imports.
    toolchain = ensure_toolchain(find_node(), shared_cache())
    problems, rows = react_samples()
    files = []
    for i, problem in enumerate(problems.values()):
        files.append(
            {
                "path": str(tmp_path / f"sample-{i}" / problem.extra["test_filename"]),
                "source": problem.tests,
            }
        )
    for j, row in enumerate(rows):
        problem = problems[row["task_id"]]
        files.append(
            {
                "path": str(tmp_path / f"sample-{j}" / problem.extra["solution_filename"]),
                "source": row["completion"],
            }
        )
    # Compiled differently as Jest's runtime allows dynamic import() or not.
    files.append(
        {
            "path": str(tmp_path / "lazy.js"),
            "source": "export const load = () => import('./App.js');\n",
        }
    )
    listing = tmp_path / "files.json"
    listing.write_text(json.dumps({"root": str(tmp_path), "files": files}))
    node_dir = PACKAGE_DIR
    result = node_probe(
        SAME_AS_BABEL_JEST_PROBE,
        node_dir / "transformer.js",
        node_dir / "babel.config.js",
        toolchain,
        listing,
        timeout=300,
    )
    assert result == {"compared": 2 * len(files), "differ": []}
    assert len(files) == 4 * len(problems) + 1 >= 4 * 40


# ---- the suite loader on our fixtures --------------------------------------------------------
def test_fixture_suite_loads_and_its_reference_passes(runner):
    problems = load_webapp1k(REACT, "fixtures")
    assert [p.id for p in problems] == ["comments/commentBox"]
    problem = problems[0]
    assert problem.extra == {"test_filename": TEST_FILE, "solution_filename": SOLUTION_FILE}
    assert check_problem(problem) == []
    assert run_in(runner, problem, problem.reference).outcome == PASSED


# ---- what the runner keeps between test files --------------------------------------------------
TRANSFORMER_PROBE = r"""
const {createTransformer} = require(process.argv[1]);
const options = {toolchain: process.argv[2], babel: {presets: []}};
const jestOptions = {config: {cwd: '/', rootDir: '/'}, configString: '{}'};
// Jest builds a new transformer for every test file it runs.
const first = createTransformer(options);
const second = createTransformer(options);
const outputs = [
  first.process('const a = 1;', '/p/a.test.js', jestOptions).code,
  second.process('const a = 1;', '/p/a.test.js', jestOptions).code,
  second.process('const a = 2;', '/p/a.test.js', jestOptions).code,
  second.process('const a = 2;', '/p/b.test.js', jestOptions).code,
];
const {calls, configs} = require('@babel/core');
console.log(JSON.stringify({outputs, calls, configs}));
"""

# Stand-ins for what babel-jest loads: Babel, counting its configurations and transforms.
FAKE_BABEL = {
    "babel-jest/index.js": "module.exports = {createTransformer: () => ({canInstrument: true})};",
    "babel-jest/node_modules/babel-preset-jest/index.js": "module.exports = {};",
    "babel-jest/node_modules/@babel/core/index.js": """
module.exports = {
  calls: 0,
  configs: 0,
  loadPartialConfig(options) {
    module.exports.configs += 1;
    return {options: {...options, cwd: '/'}};
  },
  transformSync(source, options) {
    module.exports.calls += 1;
    return {code: `/* ${module.exports.calls} ${options.filename} */ ${source}`, map: null};
  },
};""",
}


def test_babels_output_for_a_file_is_remembered_from_one_test_file_to_the_next(tmp_path):
    # A counting stand-in for Babel shows which transforms reach it: the same source at the
    # same path, asked for by the transformer of a later test file, is not transformed again;
    # a changed source or another path is. Babel's configuration is loaded once for them all.
    for name, text in FAKE_BABEL.items():
        (tmp_path / "node_modules" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "node_modules" / name).write_text(text)
    transformer = PACKAGE_DIR / "transformer.js"
    done = subprocess.run(
        [find_node().path, "-e", TRANSFORMER_PROBE, str(transformer), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={
            "PATH": os.environ["PATH"],
            "NODE_PATH": str(tmp_path / "node_modules" / "babel-jest" / "node_modules"),
        },
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["calls"], result["configs"]) == (3, 1)
    assert result["outputs"] == [
        "/* 1 /p/a.test.js */ const a = 1;",
        "/* 1 /p/a.test.js */ const a = 1;",
        "/* 2 /p/a.test.js */ const a = 2;",
        "/* 3 /p/b.test.js */ const a = 2;",
    ]


# ---- as WebApp1K's harness (react-scripts) configures Jest ---------------------------------
REACT_SCRIPTS_ALLOWS = {
    # babel-preset-react-app strips Flow's annotations
    "flow annotations": ("const post = async () =>", "const post = async (): Promise<void> =>"),
    # packages react-scripts installs, which answers import
    "uuid": (
        "export default function CommentBox() {",
        "import { v4 as uuidv4 } from 'uuid';\n\nexport default function CommentBox() {\n"
        "  const [id] = useState(() => uuidv4());",
    ),
    "prop-types": (
        "export default function CommentBox() {",
        "import PropTypes from 'prop-types';\n\n"
        "CommentBox.propTypes = { label: PropTypes.string };\n\n"
        "export default function CommentBox() {",
    ),
    # its moduleNameMapper: a CSS module is an object that names its classes
    "a CSS module": (
        "export default function CommentBox() {",
        "import styles from './CommentBox.module.css';\n\nexport default function CommentBox() {",
    ),
}


@pytest.mark.parametrize("change", sorted(REACT_SCRIPTS_ALLOWS))
def test_what_webapp1ks_harness_compiles_and_loads_passes(runner, change):
    old, new = REACT_SCRIPTS_ALLOWS[change]
    assert old in CORRECT
    code = CORRECT.replace(old, new, 1)
    if change == "a CSS module":
        code = code.replace("<div>", "<div className={styles.box}>", 1)
    verdict = grade(runner, code)
    assert verdict.outcome == PASSED, verdict.message


def test_every_mock_is_reset_before_each_test_as_react_scripts_resets_it(runner):
    """react-scripts sets Jest's resetMocks: a mock the answer made with an implementation
    at import time returns undefined in every test, so this right answer fails its first."""
    code = CORRECT.replace(
        "export default function CommentBox() {",
        "const accepted = jest.fn(() => true);\n\nexport default function CommentBox() {",
    ).replace("response.ok ?", "response.ok && accepted() ?")
    assert code.count("accepted") == 2
    verdict = grade(runner, code)
    assert verdict.outcome == FAILED, verdict.message
    assert [t["status"] for t in verdict.tests] == ["failed", "passed"], verdict.tests


# Posts the comment but always confirms it: passes the first test, fails the second.
HALF_RIGHT = CORRECT.replace(
    "response.ok ? 'Comment posted' : 'Could not post comment'", "'Comment posted'"
)
assert HALF_RIGHT != CORRECT


def test_a_sample_cannot_patch_the_dom_classes_every_window_shares(runner, plain_runner):
    # jsdom's implementation classes live in the runner's realm: under plain Jest a patch of
    # NodeImpl's textContent makes a half-right component pass, and the next file too.
    hostile = sample("patch_jsdom_impl.prelude.js", HALF_RIGHT)
    assert grade(plain_runner, HALF_RIGHT).outcome == FAILED
    assert grade(plain_runner, hostile).outcome == PASSED
    verdict = grade(runner, hostile)
    assert verdict.outcome == ERROR
    refused = "TypeError: Cannot redefine property: textContent"
    assert verdict.message == f"test suite failed to run: {refused}"
    assert verdict.attempts == [{"category": "patching", "evidence": refused}]
    # the half-right component graded next in the same runner fails, as on a fresh one
    verdict = grade(runner, HALF_RIGHT)
    assert verdict.outcome == FAILED
    assert verdict.message.startswith("reports a server error: "), verdict.message


def test_a_sample_that_changes_the_runners_error_handling_fails_and_the_runner_is_replaced(runner):
    # The window's process leads to the runner's global object, whose Error and process are
    # the runner's own: a stack formatter set there would stay for every later file.
    starts = runner.starts
    verdict = probe(runner, sample("runner_handlers.prelude.js", PROBE))
    assert verdict.outcome == FAILED
    assert "the runner's error handling was changed: Error.prepareStackTrace" in verdict.message
    assert {"category": "patching", "evidence": "changed the runner's Error.prepareStackTrace"} in (
        verdict.attempts
    )
    assert probe(runner, PROBE).outcome == PASSED
    assert runner.starts == starts + 1
