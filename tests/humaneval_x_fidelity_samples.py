"""Samples for the HumanEval-X fidelity test, on the hand-written problems of
``fixtures/humaneval_x/`` (``<Lang>/0`` is add(x, y), ``<Lang>/1`` counts vowels): per
language one right answer, one wrong, one that raises or panics, one that does not build,
one that prints besides passing, one that never ends, and a few that probe a rule of
CodeGeeX's evaluator. Each carries the status its rules give (``passed``, ``failed``,
``compilation error``, ``timed out``): ours must give it, and CodeGeeX's own evaluator
too, except for ``KNOWN_DIFFERENCES``."""

from __future__ import annotations

# (task id, label, completion, status by HumanEval-X's rules). The samples that never end
# come last: CodeGeeX's evaluator leaves running what it gave up on (a C++ binary, a Rust
# test under cargo), which would take the CPU from the samples after them.
SAMPLES: list[tuple[str, str, str, str]] = [
    ("CPP/0", "cpp right", "    return x+y;\n}\n", "passed"),
    ("CPP/0", "cpp wrong", "    return x-y;\n}\n", "failed"),
    ("CPP/0", "cpp raises", "    throw 1;\n}\n", "failed"),
    ("CPP/0", "cpp does not build", "    return x+;\n}\n", "compilation error"),
    ("CPP/0", "cpp prints", '    printf("debug\\n");\n    return x+y;\n}\n', "passed"),
    (
        "CPP/1",
        "cpp right (vowels)",
        '    int n=0;\n    for (char c: s) if (string("aeiouAEIOU").find(c)!=string::npos) n++;\n'
        "    return n;\n}\n",
        "passed",
    ),
    ("JavaScript/0", "js right", "  return x + y;\n};\n", "passed"),
    ("JavaScript/0", "js wrong", "  return x - y;\n};\n", "failed"),
    ("JavaScript/0", "js raises", '  throw new Error("boom");\n};\n', "failed"),
    ("JavaScript/0", "js does not build", "  return x +;\n};\n", "failed"),
    ("JavaScript/0", "js prints", '  console.log("debug");\n  return x + y;\n};\n', "failed"),
    # Its rule is silence, not the exit status: a program that stops before its tests passes.
    ("JavaScript/0", "js exits early", "  process.exit(3);\n};\n", "passed"),
    # Its check decodes the output strictly: a byte that is not UTF-8 raises there, which
    # leaves no result, "timed out". It is output all the same: never a pass.
    (
        "JavaScript/0",
        "js writes a byte that is not UTF-8",
        "  process.stdout.write(Buffer.from([0xff]));\n  return x + y;\n};\n",
        "timed out",
    ),
    (
        "JavaScript/1",
        "js right (vowels)",
        "  return s.split('').filter((c) => 'aeiouAEIOU'.includes(c)).length;\n};\n",
        "passed",
    ),
    ("Go/0", "go right", "    return x + y\n}\n", "passed"),
    ("Go/0", "go wrong", "    return x - y\n}\n", "failed"),
    ("Go/0", "go panics", '    panic("boom")\n}\n', "failed"),
    # Go's build is part of its one step: a failed build is a failed run.
    ("Go/0", "go does not build", "    return x +\n}\n", "failed"),
    # fmt is imported for it (IMPORT_HELPER), as the code uses it.
    ("Go/0", "go prints", '    fmt.Println("debug")\n    return x + y\n}\n', "passed"),
    # Tests and examples of its own run too (the one go test replays, the other it runs).
    (
        "Go/0",
        "go fails a test of its own",
        '    return x + y\n}\n\nfunc TestOwn(t *testing.T) { t.Fatal("no") }\n',
        "failed",
    ),
    (
        "Go/0",
        "go declares an example",
        "    return x + y\n}\n\nfunc ExampleAdd() {\n    // Output: 1\n}\n",
        "failed",
    ),
    (
        "Go/1",
        "go right (vowels)",
        "    n := 0\n    for _, c := range s {\n"
        '        if strings.ContainsRune("aeiouAEIOU", c) {\n'
        "            n++\n        }\n    }\n    return n\n}\n",
        "passed",
    ),
    ("Rust/0", "rust right", "    return x + y;\n}\n", "passed"),
    ("Rust/0", "rust wrong", "    return x - y;\n}\n", "failed"),
    ("Rust/0", "rust panics", '    panic!("boom");\n}\n', "failed"),
    ("Rust/0", "rust does not build", "    return x +;\n}\n", "compilation error"),
    ("Rust/0", "rust prints", '    println!("debug");\n    return x + y;\n}\n', "passed"),
    # Code that builds, in a test build only, to something that does not.
    (
        "Rust/0",
        "rust tests do not build",
        '    return x + y;\n}\n#[cfg(test)]\nconst BROKEN: i32 = "no";\n',
        "compilation error",
    ),
    (
        "Rust/1",
        "rust right (vowels)",
        '    s.chars().filter(|c| "aeiouAEIOU".contains(*c)).count() as i32\n}\n',
        "passed",
    ),
    ("Java/0", "java right", "        return x + y;\n    }\n}", "passed"),
    ("Java/0", "java wrong", "        return x - y;\n    }\n}", "failed"),
    ("Java/0", "java raises", '        throw new RuntimeException("boom");\n    }\n}', "failed"),
    ("Java/0", "java does not build", "        return x +;\n    }\n}", "compilation error"),
    (
        "Java/0",
        "java prints",
        '        System.out.println("debug");\n        return x + y;\n    }\n}',
        "passed",
    ),
    # `java Main` runs without -ea: a failed `assert` statement is not checked.
    ("Java/0", "java asserts", "        assert x < 0;\n        return x + y;\n    }\n}", "passed"),
    (
        "Java/1",
        "java right (vowels)",
        '        return (int) s.chars().filter(c -> "aeiouAEIOU".indexOf(c) >= 0).count();\n'
        "    }\n}",
        "passed",
    ),
    # Python: the program is its imports, the prompt, the completion up to its first line
    # outside the function, and the tests, run by exec; any exception fails.
    ("Python/0", "python right", "    return x + y\n", "passed"),
    ("Python/0", "python wrong", "    return x - y\n", "failed"),
    ("Python/0", "python raises", "    raise ValueError('boom')\n", "failed"),
    ("Python/0", "python does not build", "    return x +\n", "failed"),
    ("Python/0", "python prints", "    print('debug')\n    return x + y\n", "passed"),
    ("Python/0", "python exits early", "    import sys\n    sys.exit(0)\n", "failed"),
    # What follows the function is cut off: a broken line there never runs ...
    ("Python/0", "python cut at top level", "    return x + y\n\nprint(nowhere)\n", "passed"),
    # ... and neither does a helper defined after it.
    (
        "Python/1",
        "python helper after the function",
        "    return count(s)\n\n\ndef count(s):\n    return sum(c in 'aeiouAEIOU' for c in s)\n",
        "failed",
    ),
    # Its IMPORT_HELPER's modules are there, numpy among them.
    (
        "Python/0",
        "python uses the imported helpers",
        "    return int(np.add(x, y)) + math.floor(0.5)\n",
        "passed",
    ),
    # A NumPy answer is compared as NumPy compares it: an int64 equals its number, and a
    # one-element array's comparison is a one-element array, true when its element is.
    ("Python/0", "python answers a NumPy integer", "    return np.add(x, y)\n", "passed"),
    ("Python/0", "python answers a NumPy array", "    return np.array([x + y])\n", "passed"),
    (
        "Python/1",
        "python right (vowels)",
        "    return len([c for c in s if c.lower() in 'aeiou'])\n",
        "passed",
    ),
    (
        "CPP/0",
        "cpp never ends",
        "    volatile int spin=0;\n    while (true) spin++;\n}\n",
        "timed out",
    ),
    ("JavaScript/0", "js never ends", "  while (true) {}\n};\n", "timed out"),
    ("Go/0", "go never ends", "    for {\n    }\n}\n", "timed out"),
    ("Java/0", "java never ends", "        while (true) {}\n    }\n}", "timed out"),
    ("Rust/0", "rust never ends", "    loop {}\n}\n", "timed out"),
    ("Python/0", "python never ends", "    while True:\n        pass\n", "timed out"),
]

# label -> (ours, CodeGeeX's), each documented in docs/languages.md.
KNOWN_DIFFERENCES = {
    # codegeex 1.0's Java step leaves `java -cp DIR Main` commented out ("uncomment the
    # following line and proceed at your own risk"): every Java program that compiles fails
    # there, on `None.returncode`. Our Java verdicts follow its rules as written.
    "java right": ("passed", "failed"),
    "java prints": ("passed", "failed"),
    "java asserts": ("passed", "failed"),
    "java right (vowels)": ("passed", "failed"),
    "java never ends": ("timed out", "failed"),
    # Its `cargo check` skips #[cfg(test)] code, so the test build's failure comes from
    # `cargo test`, an "execution error"; here the test build is the build.
    "rust tests do not build": ("compilation error", "failed"),
}
