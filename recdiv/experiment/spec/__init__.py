"""The specifications of an experiment (lowest layer of `recdiv.experiment`): the TOML file's sections, the whole
experiment, recommender grids, typed validation of the components it names."""
