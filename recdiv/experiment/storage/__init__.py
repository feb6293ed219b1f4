"""Storage of an experiment: the content-addressed artefact cache, the output folder and its stamps."""
