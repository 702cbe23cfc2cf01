"""``python -m pytest_codegen.reporting.html RESULTS -o OUT``: see :mod:`.cli`."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
