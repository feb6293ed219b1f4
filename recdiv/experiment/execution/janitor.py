"""Preloaded by the forkserver of `recdiv run --jobs N`: when the forkserver ends, it removes the run's
multiprocessing temporary folder (``pymp-*``, which holds the forkserver's socket).

Only the main process's exit handlers would remove that folder, so a main process killed with SIGKILL left it
behind. The forkserver ends whenever the main process does (its pipe from the main process reaches EOF), SIGKILL
included, and exits through Python's normal shutdown, so an `atexit` handler registered here runs then; the
workers it forks leave with ``os._exit`` and never run it. `executors.PoolExecutor` names the folder (and its own
pid) in the environment variable `TEMPDIR_ENV` only while it starts the forkserver; the forkserver removes the
variable when it imports this module, before it forks any worker, so no other process acts on it.
"""

from __future__ import annotations

import atexit
import os
import shutil

TEMPDIR_ENV = "RECDIV_MP_TEMPDIR"

_pid, _, _folder = os.environ.get(TEMPDIR_ENV, "").partition(":")
if _pid and _pid != str(os.getpid()):  # not the main process that set it
    del os.environ[TEMPDIR_ENV]
    if os.path.basename(_folder).startswith("pymp-"):  # multiprocessing's folder, never anything else
        atexit.register(shutil.rmtree, _folder, True)
