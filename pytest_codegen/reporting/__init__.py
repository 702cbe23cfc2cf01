"""Reporting stage: per-sample records, the results file, the terminal summary and the HTML
report."""
