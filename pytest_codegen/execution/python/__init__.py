"""Python samples: graded in confined, resource-limited child processes.

``grader`` grades a sample against its problem's tests; ``sandbox`` is the trusted side of one
sample's process, ``zygote`` the launcher that forks them, ``errors`` how a run can fail;
``child`` (with ``confine``) is the sandboxed side, run as a script; ``wire`` is what crosses
between them; ``verdict_seal`` runs a whole program with its tests in a fresh interpreter, where
only the real end of the tests can write its pass.
"""
