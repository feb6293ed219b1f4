"""Starting the explorer: what it offers (from a dataset, an experiment file or an experiment's output folder),
the HTTP server (uvicorn) on loopback, the token for any other address, the browser, and a clean stop on Ctrl-C.
"""

from __future__ import annotations

import ipaddress
import json
import secrets
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recdiv.errors import ConfigError

if TYPE_CHECKING:  # imported where used: `recdiv explore --help` imports neither pydantic nor the registries
    from recdiv.explore.catalog import Catalog, DatasetChoice
    from recdiv.explore.state import State

DEFAULT_PORT = 8765
DEFAULT_RECOMMENDER = "user-knn"
DEFAULT_N, DEFAULT_K = 100, 10
#: seconds an idle connection stays open (uvicorn's default 5 s closes a thinking student's connection, and a
#: request sent as it closes is reset)
KEEP_ALIVE = 75


def default_measures(k: int, has_aspects: bool) -> tuple[str, ...]:
    """Accuracy, novelty, diversity and intent-aware measures at the list length."""
    return (f"nDCG@{k}", f"EPC@{k}", *((f"ILD@{k}", f"alpha-nDCG@{k}") if has_aspects else ()))


def plan(target: str | None, *, split: str | None = None, data_dir: str | None = None,
         plugins: tuple[str, ...] = ()) -> tuple[Catalog, State]:
    """The catalog and the first state of an explorer started on `target`: a dataset name or folder (also a
    `recdiv data export` folder), an experiment TOML file, an experiment's output folder, or None (every dataset
    of the data folders)."""
    from recdiv.explore.catalog import Catalog, dataset_choice, find_datasets

    datasets = find_datasets(data_dir)
    experiment = _experiment(target) if target is not None else None
    if experiment is not None:
        return _from_experiment(experiment, datasets, split, plugins)
    if target is not None:
        choice = dataset_choice(target, data_dir)
        datasets = {choice.key: choice, **{k: v for k, v in datasets.items() if k != choice.key}}
    elif not datasets:
        raise ConfigError("no dataset found: name one (recdiv explore ml-100k), pass --data-dir, or use synthetic")
    first = next(iter(datasets.values())) if target is not None else _preferred(datasets)
    catalog = Catalog(datasets, plugins=tuple(plugins))
    _check_plugins(catalog)
    return catalog, _defaults(catalog, first, split)


def _preferred(datasets: dict[str, DatasetChoice]) -> DatasetChoice:
    return datasets.get("ml-100k") or next(iter(datasets.values()))


def _defaults(catalog: Catalog, choice: DatasetChoice, split: str | None, **over: Any) -> State:
    from recdiv.data.load import load_dataset
    from recdiv.explore.catalog import split_choices
    from recdiv.explore.state import Diversifier, State

    dataset = load_dataset(choice.name, data_dir=choice.data_dir, **choice.options)
    splits = split_choices(dataset)
    has_aspects = bool(dataset.attributes)
    k = over.pop("k", DEFAULT_K)
    fields: dict[str, Any] = {
        "dataset": choice.key, "split": split or splits[0], "recommender": DEFAULT_RECOMMENDER, "n": DEFAULT_N,
        "k": k, "measures": default_measures(k, has_aspects),
        "a": Diversifier(reranker="MMR", params={"lambda": 0.5}),
        "b": Diversifier(reranker="xQuAD", params={"lambda": 0.5}) if has_aspects else None, **over}
    return State(**fields)


def _experiment(target: str) -> Any:
    """The experiment config of an experiment file or output folder, else None (a dataset)."""
    from recdiv.experiment.spec.experiment import load_experiment, validate

    path = Path(target)
    if path.is_file() and path.suffix == ".toml":
        return load_experiment(path)
    if path.is_dir() and (path / "experiment.json").is_file():
        try:
            data = json.loads((path / "experiment.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ConfigError(f"{path / 'experiment.json'}: cannot read it ({e})") from None
        return validate(data, str(path / "experiment.json"))
    return None


def _from_experiment(config, datasets: dict[str, DatasetChoice], split: str | None, plugins) -> tuple[Catalog, State]:
    """An explorer over an experiment's first dataset, recommender and (up to) two diversifiers, with its
    measures, threshold, statistics, candidates and seed; its plugins (module:Class) are allowed."""
    from recdiv.explore.catalog import Catalog, DatasetChoice
    from recdiv.explore.state import Diversifier
    d = config.datasets[0]
    own = {x.key: DatasetChoice(x.key, x.name, x.data_dir, dict(x.options)) for x in config.datasets}
    names = [r.name for r in config.recommenders] + [x.name for x in config.diversifiers]
    catalog = Catalog({**own, **{k: v for k, v in datasets.items() if k not in own}},
                      plugins=tuple(dict.fromkeys([*plugins, *(n for n in names if ":" in n)])),
                      statistics=config.statistics.model_dump(), confidence=config.report.confidence)
    _check_plugins(catalog)
    rec = config.recommenders[0]
    sides = []
    for x in config.diversifiers[:2]:
        point = x.grid_points()[0]
        sides.append(Diversifier(reranker=x.name, params={**x.params, **point}))
    per_user = [m for m in config.metrics.measures if ":" not in m][:12]
    over = {"recommender": rec.name, "recommender_params": dict(rec.params), "n": config.candidates.n,
            "k": config.candidates.k, "measures": tuple(per_user), "threshold": config.metrics.threshold,
            "population": config.metrics.population, "seed": config.seed,
            "a": sides[0] if sides else None, "b": sides[1] if len(sides) > 1 else None}
    return catalog, _defaults(catalog, own[d.key], split or d.splits[0], **over)


def _check_plugins(catalog: Catalog) -> None:
    """Every plugin named at start loads and is a recommender or a reranker."""
    from recdiv.algorithms.registry import RECOMMENDERS
    from recdiv.diversifiers.registry import RERANKERS

    for spec in catalog.plugins:
        problems = []
        for registry in (RECOMMENDERS, RERANKERS):
            try:
                registry.entry(spec)
                break
            except ConfigError as e:
                problems.append(str(e))
        else:
            raise ConfigError(f"--plugin {spec}: {problems[-1]}")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass
class Served:
    """A running explorer: its address, and how to stop it (`stop()`)."""

    url: str
    server: Any
    thread: threading.Thread | None
    app: Any

    def stop(self) -> None:
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=10)
        self.app.close()


def make_app(catalog: Catalog, defaults: State, *, token: str | None = None, log=None, workers: int = 2):
    from recdiv.explore.app import App
    from recdiv.explore.engine import Engine

    return App(Engine(catalog, log=log), defaults, token=token, workers=workers)


def serve(catalog: Catalog, defaults: State, *, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
          open_browser: bool = True, background: bool = False, token: str | None = None,
          log=None) -> Served:
    """Start the server (in this thread until Ctrl-C, or in a background thread); a non-loopback `host` gets a
    token (printed in the URL) that every request must carry."""
    import uvicorn

    from recdiv.explore.state import to_query

    if not is_loopback(host) and token is None:
        token = secrets.token_urlsafe(18)
    check_port(host, port)
    app = make_app(catalog, defaults, token=token, log=log)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=3, timeout_keep_alive=KEEP_ALIVE)
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    query = to_query(defaults) + (f"&token={token}" if token else "")
    url = f"http://{shown}:{port}/?{query}"
    warm = threading.Thread(target=_warm, args=(app, defaults), daemon=True, name="recdiv-explore-warm")
    if background:
        thread = threading.Thread(target=server.run, daemon=True, name="recdiv-explore")
        thread.start()
        _wait_started(server)
        warm.start()
        return Served(url, server, thread, app)
    one_native_thread()
    print(f"recdiv explore: {url}", file=sys.stderr)
    if token:
        print("recdiv explore: anyone who can reach this address and has the link (with its token) can use the "
              "explorer; stop it with Ctrl-C", file=sys.stderr)
    else:
        print("recdiv explore: serving on this computer only; stop with Ctrl-C", file=sys.stderr)
    warm.start()
    if open_browser:
        threading.Timer(0.8, _open, args=(url,)).start()
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn stops gracefully on Ctrl-C, then raises it again: the stop is the answer
        pass
    finally:
        app.close()
    print("recdiv explore: stopped", file=sys.stderr)
    return Served(url, server, None, app)


NATIVE_THREAD_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_native_thread() -> None:
    """BLAS on one thread in this process, as in `recdiv run`'s workers: the server's compute workers are the
    parallelism (a bootstrap interval's 1000 × n product takes 1.4 ms on one thread and 30 ms with two threads
    per worker spinning against each other on a busy machine); the values do not depend on it
    (tests/explore/test_equal_cli.py computes the explorer's side with one thread)."""
    import os

    from threadpoolctl import threadpool_limits

    for var in NATIVE_THREAD_ENV:  # the libraries loaded later (SciPy's own OpenBLAS)
        os.environ[var] = "1"
    threadpool_limits(1, user_api="blas")  # and those loaded already


def free_port() -> int:
    """A port of 127.0.0.1 free now (for embedded explorers and tests)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_port(host: str, port: int) -> None:
    """ConfigError unless the server can listen on host:port (a port in use, an address of another machine)."""
    import socket

    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host.strip("[]"), port))
        except OSError as e:
            hint = "in use: choose another with --port" if e.errno in (98, 48) else e.strerror or str(e)
            raise ConfigError(f"cannot listen on {host}:{port} ({hint})") from None


def _wait_started(server, timeout: float = 20.0) -> None:
    import time

    t0 = time.perf_counter()
    while not getattr(server, "started", False):
        if time.perf_counter() - t0 > timeout or server.should_exit:
            raise ConfigError("the explorer's server did not start (is the port in use? choose another)")
        time.sleep(0.05)


def _warm(app, state: State) -> None:
    """Compute the first view before the browser asks: load its dataset, fit its baseline, its lists, table and
    trade-off curve (errors show in the page)."""
    from recdiv.explore import views

    try:
        p = app.engine.prepare(state)
        views.population(app.engine, p)
        views.user_view(app.engine, p)
        views.curve(app.engine, p)  # its grid's lists and measures: a λ move onto the grid is then a lookup
    except Exception:  # the page reports the same problem when it asks
        pass


def _open(url: str) -> None:
    import webbrowser

    try:
        webbrowser.open(url)
    except Exception:  # no browser here: the URL is printed
        pass
