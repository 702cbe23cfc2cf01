"""Just enough of pyext for APPS's ``eval/testing_util.py``, which imports ``RuntimeModule``
from it and calls ``RuntimeModule.from_string(name, doc, source)``.

pyext itself cannot be used: its last release, 0.6 (2014), calls ``inspect.getargspec`` when
it is imported (and in its ``setup.py``), and Python 3.11 removed that function, so it neither
installs nor imports. This is what its ``from_string`` does, nothing more: the source is
executed in a fresh dict (so the program's ``__name__`` is not ``"__main__"``, and its
functions' globals are that dict), and the names it defined become a new module's
attributes, the module registered in ``sys.modules`` under ``name``.
"""

from __future__ import annotations

import sys
import types
from typing import Any

# pyext leaves out the names its own module started with (its ``g_backup``): these.
MODULE_NAMES = {
    "__name__",
    "__doc__",
    "__package__",
    "__loader__",
    "__spec__",
    "__file__",
    "__cached__",
    "__builtins__",
}


class RuntimeModule:
    @staticmethod
    def from_string(name: str, doc: str, source: str) -> types.ModuleType:
        namespace: dict[str, Any] = {}
        exec(source, namespace)
        module = types.ModuleType(name, doc)
        module.__dict__.update({k: v for k, v in namespace.items() if k not in MODULE_NAMES})
        module.__file__ = "<runtime_module>"
        sys.modules[name] = module
        return module
