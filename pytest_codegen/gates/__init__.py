"""Gates: what turns scores into a CI decision (thresholds, comparison with a baseline) and
what stops a hopeless run early (the tripwire)."""
