"""Generation stage: prompts, and the engine that asks a model for every sample (concurrent,
cached on disk, rate-limited)."""
