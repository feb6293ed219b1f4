"""Streamed evaluation on a Ray cluster: every group of partitions is one Ray task that reads only its partitions
from the folder (which must be on storage every node sees), evaluates them and writes its per-user values into the
folder as a Parquet file; the driver merges them (`recdiv.eval.stream.merge_parts`).

The cluster is the one `RAY_ADDRESS` names, else a local Ray instance, joined with its token authentication as
`recdiv.cluster.connect_ray` says (docs/scale.md, "On a Ray cluster"). A task whose worker dies is retried
(`MAX_RETRIES`); when a task still fails the evaluation stops with one error naming the partitions — no partial
result is ever returned.
"""

from __future__ import annotations

import contextlib

from recdiv.cluster import ClusterError
from recdiv.errors import RecdivError

#: how often Ray reruns a task whose worker process or node died
MAX_RETRIES = 3


def _connect():
    from recdiv.cluster import connect_ray

    return connect_ray(include_dashboard=False, log_to_driver=False, configure_logging=False)


def run_on_ray(fn, calls: list[tuple], names: list[str]) -> list:
    """`fn(*call)` for every call, as Ray tasks, results in call order; the first failure (after retries) cancels the
    rest and raises one `ClusterError` naming the call (`names`), or the task's own `RecdivError`."""
    ray = _connect()
    remote = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(fn)
    refs = [remote.remote(*call) for call in calls]
    out = []
    for ref, name in zip(refs, names):
        try:
            out.append(ray.get(ref))
        except Exception as e:
            for r in refs:
                with contextlib.suppress(Exception):
                    ray.cancel(r, force=True)
            cause = getattr(e, "cause", None)
            if isinstance(cause, RecdivError):
                raise cause from None
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ClusterError(f"the Ray task of {name} failed after {MAX_RETRIES} retries ({type(e).__name__}: "
                               f"{first}); no result was written") from None
    return out
