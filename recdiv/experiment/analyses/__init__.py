"""Analyses after the scores: [meta] meta-evaluation per split, [report] user groups."""
