"""The plan of a run: its inputs (datasets, splits), systems, hyperparameter selection and the task graph of
each split."""
