"""recdiv benchmarks: `python -m bench` runs each `bench_*.py` in its default (short) mode."""
