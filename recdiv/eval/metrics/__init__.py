"""Metric families, one module each (`accuracy`, `sets`, `rating`, `correlation`, `novelty`, `diversity`,
`categories`, `popularity`, `exposure`, `fairness`, `intent_aware`, `intent_utility`, `unified`, `preference`). The
built-in measures are registered in `recdiv.eval.catalog` by name and ``module:Class`` (imported on first lookup)."""
