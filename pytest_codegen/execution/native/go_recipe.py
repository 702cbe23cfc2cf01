"""The recipe ``gotest.go`` replays: what ``go test -x`` ran on this host for a probe test file
that imports every package a sample may import without falling back to ``go test`` (the
standard library's public packages that tests and solutions use, with all they import, and
testify for HumanEval-X): the compile, vet, testmain compile, link and run command lines, the
import configurations and vet's configuration, with go test's work folder written ``{WORK}``
(the test package's folder ``{WORK}/t``, the test main's ``{WORK}/m``)."""

from __future__ import annotations

import json
import re
import secrets
import shlex
import shutil
from pathlib import Path
from typing import Any

from .toolchains import ToolchainMissing, run_tool

# What solutions import, besides what testing and testify bring (the probe imports all these
# and everything they import; a sample importing anything else is built by go test itself).
PROBE_IMPORTS = (
    "bufio",
    "bytes",
    "cmp",
    "container/heap",
    "container/list",
    "container/ring",
    "crypto/md5",
    "crypto/sha1",
    "crypto/sha256",
    "encoding/binary",
    "encoding/hex",
    "encoding/json",
    "errors",
    "fmt",
    "maps",
    "math",
    "math/big",
    "math/bits",
    "math/cmplx",
    "math/rand",
    "os",
    "reflect",
    "regexp",
    "slices",
    "sort",
    "strconv",
    "strings",
    "time",
    "unicode",
    "unicode/utf8",
)
TESTIFY = "github.com/stretchr/testify/assert"
PROBE_FILE = "probe_test.go"


def record(go: str, probe: Path, env: dict[str, str], external: bool) -> dict[str, Any]:
    """The recipe for test files of ``probe``'s kind (an external test package ``x_test``, or
    an internal one: HumanEval-X's ``package main``, in a module requiring testify) built in
    ``probe`` (holding the module's go.mod and go.sum where there is one) with ``env``."""
    roots = ["testing", *PROBE_IMPORTS] + ([] if external else [TESTIFY])
    listing = [go, "list", "-e", "-deps", "-f", "{{.ImportPath}} {{.Error}}", *roots]
    listed = run_tool(listing, probe, "go list of the probe", **env).stdout
    packages = sorted(
        path
        for path, error in (line.split(" ", 1) for line in listed.splitlines())
        if error == "<nil>" and _importable(path) and path != "testing"
    )
    blank = "".join(f'\t_ "{path}"\n' for path in packages)
    name = "probe_test" if external else "main"
    for flags in ((), ("-x", "-work")):
        # A constant of its own each time: what go test compiles for it is in no build cache,
        # so every step shows in its -x output. The first run puts what the probe imports in
        # the cache, where the second's steps then find it (not in its work folder).
        (probe / PROBE_FILE).write_text(
            f'package {name}\n\nimport (\n\t"testing"\n\n{blank})\n\n'
            f'const Recorded = "{secrets.token_hex(8)}"\n\nfunc TestProbe(t *testing.T) {{}}\n'
        )
        done = run_tool([go, "test", *flags, PROBE_FILE], probe, "go test of the probe", **env)
    work = next((line[5:] for line in done.stderr.splitlines() if line.startswith("WORK=")), "")
    try:
        return _recipe(done.stdout, done.stderr, Path(work), external)
    except (OSError, ValueError, KeyError, StopIteration) as e:
        raise ToolchainMissing(f"go test's steps could not be recorded: {e}") from None
    finally:
        if work:
            shutil.rmtree(work, ignore_errors=True)


def _importable(path: str) -> bool:
    parts = path.split("/")
    return path not in ("C", "unsafe") and "internal" not in parts and parts[0] != "vendor"


def _recipe(stdout: str, stderr: str, work: Path, external: bool) -> dict[str, Any]:
    lines = stderr.splitlines()
    compile_line = next(x for x in lines if "/compile " in x and x.endswith(f"./{PROBE_FILE}"))
    package_dir = re.search(r"-o \$WORK/(b\d+)/_pkg_\.a", compile_line)
    if package_dir is None:
        raise ValueError("no output of the test package's compile")
    folders = {package_dir.group(1): "t", "b001": "m"}

    def placed(text: str) -> str:
        """``text`` with the work folder and its two folders written as the recipe's."""
        text = text.replace(str(work), "$WORK")
        for folder, short in folders.items():
            text = re.sub(rf"\$WORK/{folder}(?![0-9])", f"{{WORK}}/{short}", text)
        if "$WORK" in text:
            raise ValueError(f"another folder of go test's: {text[:200]}")
        return text

    def argv(line: str) -> tuple[dict[str, str], list[str]]:
        words = shlex.split(placed(line))
        env = {}
        while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
            key, value = words.pop(0).split("=", 1)
            env[key] = value
        return env, words

    _, compile_argv = argv(compile_line)
    # (On a cold cache the dependencies' vet runs show too, for their facts.)
    package_cfg = f"$WORK/{package_dir.group(1)}/vet.cfg"
    _, vet = argv(next(x for x in lines if "/vet " in x and x.endswith(package_cfg)))
    _, main_compile = argv(next(x for x in lines if "/compile " in x and "_testmain.go" in x))
    link_env, link = argv(next(x for x in lines if "/link " in x))
    run_line = next(x for x in lines if re.match(r"\$WORK/b001/\S+\.test ", x))
    _, run = argv(run_line)
    binary = run.pop(0)
    if not run or not run[-1].startswith("-test.timeout="):
        raise ValueError(f"the test binary's flags: {run}")
    # The binary is named after the package, as go test names it.
    named = binary.rsplit("/", 1)[0] + "/{NAME}.test"
    link = [named if word == binary else word for word in link]
    testmain = placed((work / "b001" / "_testmain.go").read_text())
    prefix = "_xtest" if external else "_test"
    test_line = f'\t{{"TestProbe", {prefix}.TestProbe}},'
    if testmain.count(test_line) != 1:
        raise ValueError("the test main lists its tests otherwise")
    vet_cfg = json.loads(placed((work / package_dir.group(1) / "vet.cfg").read_text()))
    packages = {
        path: {
            "file": vet_cfg["PackageFile"][path],
            "vetx": vet_cfg.get("PackageVetx", {}).get(path, ""),
            "standard": bool(vet_cfg.get("Standard", {}).get(path)),
        }
        for path in vet_cfg["PackageFile"]
    }
    summary = next(x for x in stdout.splitlines() if x.startswith("ok  \t")).split("\t")[1]
    return {
        "external": external,
        "compile": compile_argv,
        "importcfg": placed((work / package_dir.group(1) / "importcfg").read_text()),
        "vet": vet,
        "vetcfg": {k: v for k, v in vet_cfg.items() if k not in ("PackageFile", "PackageVetx")},
        "packages": packages,
        "testmain": testmain.replace(test_line, "{TESTS}"),
        "test_line": test_line.replace("TestProbe", "{NAME}"),
        "main_compile": main_compile,
        "main_importcfg": placed((work / "b001" / "importcfg").read_text()),
        "link": link,
        "link_importcfg": placed((work / "b001" / "importcfg.link").read_text()),
        "env": link_env,
        "binary": named,
        "run": run,
        "summary_name": summary,
    }
