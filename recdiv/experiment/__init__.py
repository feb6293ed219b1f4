"""recdiv.experiment."""
