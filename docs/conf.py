"""Sphinx configuration of pytest-codegen's documentation (Markdown pages, read by MyST).

Build: ``pip install -e '.[docs]'`` then ``sphinx-build -W docs docs/_build/html``. The build
needs no network. The reference pages are generated from the code by ``_ext/codegen_reference``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE / "_ext"), str(HERE.parent)]

project = "pytest-codegen"
author = "the pytest-codegen authors"
copyright = "the pytest-codegen authors"

extensions = ["myst_parser", "sphinx.ext.autodoc", "codegen_reference"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "_ext"]
myst_enable_extensions = ["colon_fence", "deflist"]
# Headings up to ### get anchors, so that pages link to each other's sections.
myst_heading_anchors = 3

# The hooks page documents hookspecs.py as written: signatures as strings, in source order.
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"undoc-members": False}

html_theme = "furo"
html_title = "pytest-codegen"
html_static_path = ["_static"]
html_css_files = ["codegen.css"]
# Quotes stay as typed: option help and examples hold shell quoting ('MODEL = IN OUT').
smartquotes = False
