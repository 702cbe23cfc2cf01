"""Execution stage: a sample's code is extracted from the reply and graded by running it.

``dispatch`` picks the way by the problem's mode: ``python/`` (a sandboxed child process per
sample) or ``jest/`` (a warm Jest runner in a managed Node environment).
"""
