"""The compilers and interpreters of non-Python samples: found once per process (every
grading process looks, so a remote host states its own), each with its version (asked once
per host: see :func:`_version`).

A language's toolchain is its executables resolved to real files (a sample's sandbox reads
only the system trees and the roots named here: ``/etc/alternatives`` and rustup's proxies
are not in it), the trees it reads, and the first line its compiler prints of its version,
which every record of the language carries (``run.toolchain``). A missing one is one line
naming the language and the Debian package that provides it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from ...cachedir import default_cache_root
from ..host_cache import HostMeasurements

# Where toolchains live besides PATH: Go's tarball, rustup's proxies.
EXTRA_PATH = ("/usr/local/go/bin", os.path.expanduser("~/.cargo/bin"), "/usr/local/bin")


class ToolchainMissing(Exception):
    """A language's compiler or interpreter is not on this host (the message is one line)."""


@dataclasses.dataclass(frozen=True)
class Language:
    """A language samples are graded in; ``key`` is MultiPL-E's name for it."""

    key: str
    label: str
    tools: tuple[str, ...]  # executables it needs, the compiler first
    package: str  # the Debian package that provides them
    memory_mb: int = 2048  # the address space a process needs (JVMs and V8 reserve much)
    max_procs: int = 64  # processes and threads of its uid (JVMs and Go start many threads)
    file_mb: int = 64  # the largest file it writes (Go's build cache holds the runtime's)
    version_args: tuple[str, ...] = ("--version",)  # how its compiler states its version
    # The test library its programs load (MultiPL-E's tests use one): the interpreter's
    # arguments that load it, and the Debian package that provides it.
    probe: tuple[str, ...] = ()
    probe_package: str = ""
    etc: tuple[str, ...] = ()  # configuration it reads outside the system trees


LANGUAGES: dict[str, Language] = {
    lang.key: lang
    for lang in (
        Language("cpp", "C++", ("g++",), "g++"),
        Language("js", "JavaScript", ("node",), "nodejs", memory_mb=4096),
        # npm installs the compiler (``libraries.typescript``); Debian's npm brings nodejs.
        Language("ts", "TypeScript", ("node", "npm"), "npm", memory_mb=4096),
        Language("go", "Go", ("go",), "golang-go", 4096, 256, 512, version_args=("version",)),
        Language("rs", "Rust", ("rustc",), "rustc", max_procs=128),
        Language(
            "java",
            "Java",
            ("javac", "java"),
            "openjdk-17-jdk-headless",
            8192,
            256,
            version_args=("-version",),
        ),
        Language(
            "pl",
            "Perl",
            ("perl",),
            "perl",
            probe=("-MTest::Deep", "-e", "1"),
            probe_package="libtest-deep-perl",
            etc=("/etc/perl",),
        ),
        Language(
            "rb",
            "Ruby",
            ("ruby",),
            "ruby",
            # Loading test/unit arms its runner at exit; there is nothing to run here.
            probe=("-e", "require 'test/unit'; Test::Unit::AutoRunner.need_auto_run = false"),
            probe_package="ruby-test-unit",
        ),
        Language("php", "PHP", ("php",), "php-cli", etc=("/etc/php",)),
        Language("r", "R", ("Rscript",), "r-base-core", etc=("/etc/R",)),
        Language("rkt", "Racket", ("racket",), "racket", etc=("/etc/racket",)),
        Language("ml", "OCaml", ("ocaml",), "ocaml-interp", version_args=("-version",)),
        Language("sh", "Bash", ("bash",), "bash"),
        # MultiPL-E's image runs Debian's lua5.3 with lua-unit (``lua`` there).
        Language(
            "lua",
            "Lua",
            ("lua5.3",),
            "lua5.3",
            version_args=("-v",),
            probe=("-e", "require('luaunit')"),
            probe_package="lua-unit",
        ),
    )
}
# Other names the benchmarks use for the same languages (HumanEval-X's directories,
# MultiPL-E's ``language`` field).
ALIASES = {
    "c++": "cpp",
    "javascript": "js",
    "rust": "rs",
    "golang": "go",
    "go_test.go": "go",
    "typescript": "ts",
    "perl": "pl",
    "ruby": "rb",
    "humaneval_to_r.py": "r",  # what MultiPL-E's R rows say
    "racket": "rkt",
    "ocaml": "ml",
    "bash": "sh",
}


def language(name: str) -> Language | None:
    name = name.lower()
    return LANGUAGES.get(ALIASES.get(name, name))


@dataclasses.dataclass(frozen=True)
class Toolchain:
    language: str  # Language.key
    version: str  # what the compiler says of itself, one line
    tools: dict[str, str]  # executable name -> its real path
    roots: tuple[str, ...]  # trees the sandbox must let the sample read
    env: dict[str, str]  # variables its tools need (GOROOT, JAVA_HOME)
    # The folder of its runtime as a shared library, where it ships one (Rust's libstd-*.so).
    shared_runtime: str = ""


def search_path() -> str:
    parts = os.environ.get("PATH", "").split(os.pathsep) + list(EXTRA_PATH)
    return os.pathsep.join(dict.fromkeys(p for p in parts if p))


@functools.cache
def find(key: str) -> Toolchain:
    """The toolchain of language ``key`` on this host; raises :class:`ToolchainMissing`."""
    lang = LANGUAGES[key]
    found: dict[str, str] = {}
    proxies: dict[str, str] = {}  # as found on the path (rustup's proxy answers as rustc)
    for tool in lang.tools:
        where = shutil.which(tool, path=search_path())
        if where is None:
            raise ToolchainMissing(
                f"{lang.label} samples need {tool}, which is not on this host "
                f"(install the Debian package {lang.package})"
            )
        proxies[tool] = where
        found[tool] = os.path.realpath(where)
    roots: list[str] = []
    env: dict[str, str] = {}
    shared_runtime = ""
    if key == "rs":
        # rustup's proxy needs its home; the toolchain's own rustc does not.
        asked = [proxies["rustc"], "--print", "sysroot", "--print", "target-libdir"]
        sysroot, libdir = (_lines(asked) + ["", ""])[:2]
        found["rustc"] = str(Path(sysroot) / "bin" / "rustc")
        roots.append(sysroot)
        # std as a shared library, in the sysroot (which the sandbox lets samples read).
        if libdir.startswith(sysroot) and any(Path(libdir).glob("libstd-*.so")):
            shared_runtime = libdir
    elif key == "go":
        goroot = _first_line([found["go"], "env", "GOROOT"])
        roots.append(goroot)
        env["GOROOT"] = goroot
    elif key == "java":
        env["JAVA_HOME"] = str(Path(found["javac"]).parents[1])
        roots.append(env["JAVA_HOME"])
        roots += _linked_out(env["JAVA_HOME"])
    roots += [folder for folder in lang.etc if os.path.isdir(folder)]
    compiler = found[lang.tools[0]]
    if lang.probe:
        _check_library(lang, compiler)
    version = _version(compiler, lang.version_args) or "unknown version"
    return Toolchain(key, version, found, tuple(roots), env, shared_runtime)


def _version(compiler: str, args: tuple[str, ...]) -> str:
    """The first line ``compiler`` prints of its version, asked once per host (javac's
    answer starts a JVM: ~0.3 s in each of a run's processes) and kept by the compiler's
    file as it is now: a compiler replaced (upgraded) is asked again."""
    try:
        state = os.stat(compiler)
    except OSError:
        return _first_line([compiler, *args])  # its own error, as before
    asked = f"{compiler}\n{state.st_size}\n{state.st_mtime_ns}\n{args}"
    entry, _cached = HostMeasurements(default_cache_root(), "toolchain-versions").get(
        hashlib.sha256(asked.encode()).hexdigest()[:24],
        lambda: {"version": _first_line([compiler, *args])},
        lambda entry: isinstance(entry.get("version"), str),
    )
    return entry["version"]


def _check_library(lang: Language, interpreter: str) -> None:
    try:
        _first_line([interpreter, *lang.probe])
    except ToolchainMissing:
        raise ToolchainMissing(
            f"{lang.label} samples need a test library that {os.path.basename(interpreter)} "
            f"cannot load (install the Debian package {lang.probe_package})"
        ) from None


def _linked_out(root: str) -> list[str]:
    """The directories outside ``root`` that its files link to (Debian's JDK keeps its
    configuration in ``/etc/java-N-openjdk``)."""
    found: set[str] = set()
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            real = os.path.realpath(os.path.join(folder, name))
            if not real.startswith(root.rstrip("/") + "/") and real.startswith("/etc/"):
                found.add("/".join(real.split("/")[:3]))
    return sorted(found)


def tool_env() -> dict[str, str]:
    """The environment toolchains are asked in: rustup's proxies find their homes beside
    them even where ``HOME`` is elsewhere (a test's)."""
    env = dict(os.environ, PATH=search_path())
    proxy = shutil.which("rustup", path=env["PATH"])
    if proxy:
        home = Path(os.path.realpath(proxy)).parents[2]
        for name, folder in (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")):
            if name not in env and (home / folder).is_dir():
                env[name] = str(home / folder)
    return env


def _first_line(argv: list[str]) -> str:
    return (_lines(argv) or [""])[0]


def _lines(argv: list[str]) -> list[str]:
    """What ``argv`` prints (on stdout, else stderr), line by line; raises
    :class:`ToolchainMissing` when it does not run or fails."""
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            env=tool_env(),
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ToolchainMissing(f"{argv[0]} does not run: {e}") from None
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()[:1]
        raise ToolchainMissing(f"{' '.join(argv)} failed: {' '.join(said)}")
    return [line.strip() for line in (done.stdout.strip() or done.stderr.strip()).splitlines()]


def run_tool(argv: list[str], cwd: Path, what: str, **env: str) -> subprocess.CompletedProcess:
    """Run what makes a library (as the trusted side, with the tools' environment); a
    failure is :class:`ToolchainMissing`, naming ``what`` and its first error line."""
    done = subprocess.run(
        argv,
        cwd=cwd,
        env={**tool_env(), **env},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        # The first line that names an error (npm ends on where its log is), else the last.
        lines = (done.stderr or done.stdout).strip().splitlines() or [""]
        said = next((line for line in lines if "error" in line.lower()), lines[-1])
        raise ToolchainMissing(f"{what}: {' '.join(argv[:3])} failed: {said.strip()}")
    return done
