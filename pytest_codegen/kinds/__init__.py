"""Benchmark kinds: what makes one kind of problem differ from another.

One module per kind behind :mod:`.protocol`, as pytest-xdist keeps one file per scheduler:
how its files are recognised and read, what an empty answer is, how a sample is graded, its
time-limit policy. :mod:`.registry` holds the kinds of a run; another plugin or a conftest.py
adds its own through the ``pytest_codegen_add_kinds`` hook.
"""
