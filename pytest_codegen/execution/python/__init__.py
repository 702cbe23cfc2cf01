"""Python samples: graded in confined, resource-limited child processes (``sandbox`` is the
trusted side, ``child`` the sandboxed one, ``wire`` what crosses between them)."""
