"""Where and in what order tasks run: executors (inline, worker processes, Ray), worker processes, the scheduler."""
