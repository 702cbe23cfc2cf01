"""Generation stage: prompts and prices, and the engine that asks a model for every sample
(concurrent, cached on disk, rate-limited)."""
