"""The report of an experiment's output folder (`build_report`), rebuilt from its result files alone."""
