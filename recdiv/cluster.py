"""Joining Ray, one way for every part of recdiv that runs on a cluster: the experiment runner's and the streamed
evaluation's ``--backend ray`` (docs/scale.md, "On a Ray cluster").

With ``RAY_ADDRESS`` set, recdiv joins that cluster; without it, Ray starts a local instance. Ray's token
authentication (Ray >= 2.52; docs.ray.io, "Ray token authentication") is used as Ray documents it: with
``RAY_AUTH_MODE=token`` every process presents the token of ``RAY_AUTH_TOKEN``, of the file ``RAY_AUTH_TOKEN_PATH``
names, or of ``~/.ray/auth_token``. Ray itself is not symmetric when ``RAY_AUTH_MODE`` is unset: ``ray start`` turns
token authentication on when a token exists (and any earlier local ``ray.init()`` writes ``~/.ray/auth_token``),
while a driver given an explicit address (``RAY_ADDRESS=host:port``) never does, so the cluster refuses it
("Authentication token is missing or incorrect"). `connect_ray` therefore presents the available token when
``RAY_AUTH_MODE`` is unset, as Ray's own ``address="auto"`` does (a cluster without authentication accepts such a
driver too); ``RAY_AUTH_MODE=disabled`` keeps it off.
"""

from __future__ import annotations

import os
from pathlib import Path

from recdiv.errors import ConfigError, RecdivError


class ClusterError(RecdivError):
    """The Ray cluster could not be joined, or could not finish the work: nothing partial is reported."""


def token_available() -> bool:
    """Whether one of the token sources Ray documents holds a token."""
    if os.environ.get("RAY_AUTH_TOKEN", "").strip():
        return True
    path = os.environ.get("RAY_AUTH_TOKEN_PATH")
    path = Path(path) if path else Path.home() / ".ray" / "auth_token"
    return path.is_file()


def connect_ray(**init_options):
    """The `ray` module, initialised: the session this process already has, else the cluster ``RAY_ADDRESS`` names
    (with the available token when ``RAY_AUTH_MODE`` is unset), else a local instance (`init_options` are
    ``ray.init``'s). A cluster that cannot be joined is one `ClusterError` saying what to check."""
    try:
        import ray
    except ImportError:
        raise ConfigError("--backend ray needs Ray: pip install 'recdiv[ray]'") from None
    if ray.is_initialized():
        return ray
    address = os.environ.get("RAY_ADDRESS") or None
    if address and "RAY_AUTH_MODE" not in os.environ and token_available():
        os.environ["RAY_AUTH_MODE"] = "token"  # inherited by the processes Ray starts
        from ray._raylet import Config

        Config.initialize("")  # Ray read its configuration at import: read it again (as Ray's own auto mode does)
    try:
        ray.init(**({"address": address} if address else {}), **init_options)
    except Exception as e:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ClusterError(f"cannot connect to {where}: {first} (docs/scale.md: RAY_ADDRESS, RAY_AUTH_MODE=token and "
                           "the cluster's token in RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token)") from None
    return ray
