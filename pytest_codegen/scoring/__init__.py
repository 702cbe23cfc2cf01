"""5. Scoring: pass@k (passk), its intervals (intervals) and paired tests between runs
(paired)."""
