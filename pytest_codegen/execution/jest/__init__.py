"""React samples: graded by Jest in a managed Node environment (``node_env`` builds it from
the pinned toolchain in ``node/``, ``runner`` keeps one warm Jest per process)."""
