"""recdiv.algorithms."""
