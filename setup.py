"""Packaging beyond pyproject.toml: the project's own suites go into the built package.

The suites stay in ``benchmarks/`` (the tests, the docs and the perf scripts read them
there); a wheel carries a copy as ``pytest_codegen/collect/builtin/``, in the same
layout, where ``builtin_suites()`` finds them once installed.

Why a ``build_py`` step: it is the one place every wheel build goes through, from the checkout
or from an sdist (``MANIFEST.in`` puts the suites in the sdist), and it leaves the source tree
as it is. A package-dir mapping of ``benchmarks/`` would also ship the perf scripts and
``report_screenshot.py`` as modules, and a copy kept inside the package would be a second
source to keep in step. An editable install builds nothing: it reads ``benchmarks/`` in place.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SUITES = ROOT / "benchmarks"
# What a suite is made of: HumanEval-format files, and the React suite's WebApp1K layout
# (<category>/<name>.js references, <category>/<name>.test.js tests) with its README.
SUITE_FILES = ("python/*.jsonl", "react/README.md", "react/*/*.js")
BUILT_SUITES = ("pytest_codegen", "collect", "builtin")


class BuildPyWithSuites(build_py):
    """``build_py`` that also copies the suites into the built package."""

    def _suite_copies(self) -> list[tuple[Path, Path]]:
        target = Path(self.build_lib, *BUILT_SUITES)
        sources = sorted({p for pattern in SUITE_FILES for p in SUITES.glob(pattern)})
        return [(src, target / src.relative_to(SUITES)) for src in sources if src.is_file()]

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        copies = self._suite_copies()
        if not copies:
            raise RuntimeError(f"no suites found in {SUITES}: the wheel would lack them")
        for src, dest in copies:
            self.mkpath(str(dest.parent))
            self.copy_file(str(src), str(dest))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if self.editable_mode:
            return outputs
        return outputs + [str(dest) for _, dest in self._suite_copies()]


setup(cmdclass={"build_py": BuildPyWithSuites})
