"""Running an experiment: checks before any work, the run itself, the demo."""
