"""The work of one task (fit a model; rerank and score a system) in its typed environment."""
