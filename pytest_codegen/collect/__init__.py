"""Collection stage: suites become pytest items, one per (problem, sample).

``suites/`` reads every supported format into :class:`~pytest_codegen.problems.Problem` s;
``items`` turns them into the suite collector and its sample items.
"""
