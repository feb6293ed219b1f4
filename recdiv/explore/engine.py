"""The explorer's computations: the library's own objects, step by step as `recdiv run` takes them, cached.

A request's state is first turned into its experiment (`recdiv.explore.experiment.checked_experiment`: the
checks of `recdiv run`), and everything is computed from that validated configuration as the experiment's tasks
compute it (`recdiv.experiment.tasks`): the dataset and split (`load_dataset`, `make_split`), the baseline fitted
on the training part (`make_recommender`, seed filled in as the experiment does) and its top-n candidates for the
evaluated users, the aspect spaces (explicit ones from the dataset, latent ones from a fitted model) in the form
the experiment stores them, the rerankers (`make_reranker(...).rerank`) over a `Context` with the same parts, and
the measures (`recdiv.eval.evaluate`) over the evaluation context of the experiment. So its lists and values are
`recdiv run`'s (tests/explore/test_equal_cli.py).

What several requests share is kept in bounded, thread-safe caches keyed by content (`Memo`): datasets, splits,
fitted models, candidates, aspect spaces, reranked lists and per-user values. A value is built once however many
sessions ask for it at the same time; long builds (loading a dataset, fitting a model) are listed in `jobs` while
they run (the page shows them) and reported on the terminal. Contexts (and the caches inside them) belong to one
worker thread each: the library's `Context` is not meant to be shared between threads.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from recdiv.explore.catalog import Catalog
from recdiv.explore.experiment import checked_experiment
from recdiv.explore.state import MAX_DEPTH, State


class Memo:
    """A bounded cache (least recently used out) whose values are built once: concurrent callers of a key that
    is being built wait for it. A failed build is not kept (the next caller tries again)."""

    def __init__(self, size: int):
        self.size = size
        self._values: OrderedDict = OrderedDict()
        self._building: dict[Any, threading.Event] = {}
        self._lock = threading.Lock()

    def get(self, key, build: Callable[[], Any]):
        while True:
            with self._lock:
                if key in self._values:
                    self._values.move_to_end(key)
                    return self._values[key]
                event = self._building.get(key)
                if event is None:
                    event = self._building[key] = threading.Event()
                    break
            event.wait()
        try:
            value = build()
        except BaseException:
            with self._lock:
                del self._building[key]
            event.set()
            raise
        with self._lock:
            self._values[key] = value
            while len(self._values) > self.size:
                self._values.popitem(last=False)
            del self._building[key]
        event.set()
        return value

    def peek(self, key):
        """The value of `key`, or None (nothing is built)."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        return None

    def put(self, key, value):
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.size:
                self._values.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._values)


class Jobs:
    """Long builds in progress (what the page shows while a baseline trains), reported on the terminal."""

    def __init__(self, log: Callable[[str], None] | None = None):
        self._running: dict[int, tuple[str, float]] = {}
        self._lock = threading.Lock()
        self._log = log
        self._n = 0

    def run(self, text: str, build: Callable[[], Any]):
        with self._lock:
            self._n += 1
            job = self._n
            self._running[job] = (text, time.perf_counter())
        if self._log:
            self._log(f"{text} …")
        t0 = time.perf_counter()
        try:
            return build()
        finally:
            with self._lock:
                del self._running[job]
            if self._log:
                self._log(f"{text}: {time.perf_counter() - t0:.1f} s")

    def running(self) -> list[dict[str, Any]]:
        now = time.perf_counter()
        with self._lock:
            return [{"text": t, "seconds": round(now - t0, 1)} for t, t0 in self._running.values()]


@dataclass
class Data:
    """A dataset's split and what every request on it shares."""

    key: tuple
    dataset: Any
    split: Any
    qrels: Any


@dataclass(frozen=True)
class Prepared:
    """A checked state: its experiment `config`, the split's `data`, the relevance threshold in force."""

    state: State
    config: Any
    data: Data

    @property
    def threshold(self) -> float:
        return float(self.config.metrics.threshold)


def _json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=str)


class Engine:
    """Computations of the explorer for any number of sessions (see the module docstring)."""

    def __init__(self, catalog: Catalog, *, log: Callable[[str], None] | None = None, threads: int = 1,
                 systems: int = 256):
        self.catalog = catalog
        self.jobs = Jobs(log)
        self.threads = threads  # user blocks reranked in parallel inside one request (Context.threads)
        self._datasets = Memo(2)
        self._splits = Memo(4)
        self._models = Memo(8)
        self._candidates = Memo(8)
        self._spaces = Memo(12)
        self._rankings = Memo(systems)
        #: what candidate blocks derive from candidates and a context (`ranking`): ~80 MB each at ML-100K × 500
        self._blocks = Memo(2)
        self._scores = Memo(systems * 4)
        self._items = Memo(4)
        self._views = Memo(systems)
        self._prepared = Memo(64)  # checked states (`prepare`)
        self._statistics = Memo(systems * 48)  # intervals and p-values of `Results.compare` (views.population)
        self._local = threading.local()

    # data ------------------------------------------------------------------------------------------------------
    def dataset(self, key: str):
        choice = self.catalog.dataset(key)

        def load():
            from recdiv.data.load import load_dataset

            return load_dataset(choice.name, data_dir=choice.data_dir, **choice.options)

        return self._datasets.get(key, lambda: self.jobs.run(f"load dataset {key}", load))

    def prepare(self, state: State) -> Prepared:
        """Check `state` (catalog names, then the experiment's checks) and load its dataset and split; a state
        checked before is not checked again."""
        key = state.model_dump_json()
        p = self._prepared.get(key, lambda: self._prepare(state))
        if self._splits.peek(p.data.key) is not p.data:  # its split was dropped since: check and load it again
            p = self._prepared.put(key, self._prepare(state))
        return p

    def _prepare(self, state: State) -> Prepared:
        dataset = self.dataset(state.dataset)
        state = self.catalog.check(state, dataset)
        data = self._data(state, dataset)
        if state.threshold is None:
            from recdiv.data.export import relevance_threshold

            state = state.replace(threshold=relevance_threshold(data.split))
        config = checked_experiment(state, self.catalog, dataset, state.threshold)
        return Prepared(state, config, data)

    def _data(self, state: State, dataset) -> Data:
        key = (state.dataset, state.split, state.seed)

        def build() -> Data:
            from recdiv.data.qrels import Qrels
            from recdiv.data.splits import make_split

            split = make_split(dataset, state.split, seed=state.seed)
            return Data(key, dataset, split, Qrels.from_interactions(split.test))

        return self._splits.get(key, build)

    def users(self, p: Prepared) -> np.ndarray:
        """Dense indices of the evaluated users (whose lists are computed), as the experiment's candidates."""
        m = p.config.metrics
        return p.data.qrels.population(m.threshold, m.population)

    # models, candidates, spaces -------------------------------------------------------------------------------
    def model(self, p: Prepared, name: str, params: dict[str, Any]):
        """A model fitted on the training part (the experiment's seed filled in as `recdiv run` does)."""
        from recdiv.experiment.plan.graph import recommender_params
        from recdiv.experiment.tasks.model import side_information

        params = recommender_params(name, dict(params), p.config.seed)
        key = (p.data.key, name, _json(params))

        def fit():
            from recdiv.algorithms.registry import make_recommender

            model = make_recommender(name, **params)
            return model.fit(p.data.split.train, **side_information(model, p.data.dataset))

        what = f"fit {name} on {p.data.key[0]} / {p.data.key[1]}"
        return self._models.get(key, lambda: self.jobs.run(what, fit)), key

    def candidates(self, p: Prepared):
        """The baseline's top-n candidates of the evaluated users: the first n of its top `MAX_DEPTH`, computed
        once per model and population (`recommend` orders by score, then by item id: its top n is the first n of
        any deeper top list, so a change of n costs no new scores)."""
        from recdiv.data.rankings import Rankings

        r = p.config.recommenders[0]
        model, mkey = self.model(p, r.name, r.params)
        m = p.config.metrics
        n = p.config.candidates.n
        deep = self._candidates.get((mkey, MAX_DEPTH, m.threshold, m.population), lambda: model.recommend(
            self.users(p), MAX_DEPTH, exclude=p.data.split.train))
        key = (mkey, n, m.threshold, m.population)

        def first_n():
            return Rankings(deep.users, np.ascontiguousarray(deep.items[:, :n]),
                            np.ascontiguousarray(deep.scores[:, :n]), deep.user_vocab, deep.item_vocab)

        return deep if n >= deep.k else self._candidates.get(key, first_n), key

    def space(self, p: Prepared, name: str):
        """(aspect space, item factors or None, similarity) of the experiment's aspect space `name`, in the form
        the experiment stores it (`recdiv.experiment.tasks.spaces.save_space` / `load_space`)."""
        from recdiv.experiment.tasks.spaces import build_explicit_space, build_latent_space

        cfg = {a.name: a for a in p.config.aspects}[name]
        key = (p.data.key, _json(cfg.model_dump(mode="json")))

        def build():
            if cfg.kind == "explicit":
                space, factors = build_explicit_space(cfg, p.data.dataset), None
            else:
                model, _ = self.model(p, cfg.model, cfg.params)
                space, factors = build_latent_space(cfg, model, p.data.split, dict(cfg.params), p.config.seed)
            space, factors = stored(space, p.data.split.train.items, factors)
            return space, factors, cfg

        space, factors, cfg = self._spaces.get(key, build)
        return space, factors, cfg, key

    # contexts (one set per worker thread) -----------------------------------------------------------------------
    def _context(self, key, build):
        ctxs = getattr(self._local, "contexts", None)
        if ctxs is None:
            ctxs = self._local.contexts = OrderedDict()
        if key not in ctxs:
            ctxs[key] = build()
            while len(ctxs) > 6:
                ctxs.popitem(last=False)
        ctxs.move_to_end(key)
        return ctxs[key]

    def rerank_context(self, p: Prepared, space_name: str | None):
        from recdiv.models.context import Context

        space = factors = cfg = skey = None
        if space_name is not None:
            space, factors, cfg, skey = self.space(p, space_name)
        groups, gkey = self.item_groups(p)
        key = ("rerank", p.data.key, skey, p.config.seed, gkey)
        return self._context(key, lambda: Context(
            train=p.data.split.train, aspects=space, seed=p.config.seed, threads=self.threads, item_groups=groups,
            similarity=_similarity(cfg and cfg.similarity, space, factors, p.data.split.train, cfg))), gkey

    def item_groups(self, p: Prepared):
        """(item groups, their key) of the experiment's `item_groups` space (FAIR, AWRF, GroupExposure), or
        (None, None)."""
        if p.config.item_groups is None:
            return None, None
        space, _, _, key = self.space(p, p.config.item_groups)
        return space, key

    def eval_context(self, p: Prepared):
        from recdiv.models.context import Context

        m = p.config.metrics
        name = p.config.evaluation_aspects
        space = factors = cfg = skey = None
        if name is not None:
            space, factors, cfg, skey = self.space(p, name)
        groups, gkey = self.item_groups(p)
        key = ("eval", p.data.key, skey, m.threshold, m.population, m.similarity, gkey)
        return self._context(key, lambda: Context(
            threshold=m.threshold, population=m.population, train=p.data.split.train, aspects=space,
            scale=p.data.split.train.scale, threads=self.threads, item_groups=groups,
            similarity=_similarity(cfg and (m.similarity or cfg.similarity), space, factors, p.data.split.train,
                                   cfg))), key

    # systems ----------------------------------------------------------------------------------------------------
    def diversifier(self, p: Prepared, label: str):
        return next(d for d in p.config.diversifiers if d.label == label)

    def ranking(self, p: Prepared, label: str | None, params: dict[str, Any] | None = None):
        """The top-k lists of the baseline (label None) or of configuration `label` (its parameters overridden
        by `params`, for trade-off curves), and their cache key.

        A reranker whose top-j lists are the first j of its top-k lists (`Reranker.DEPTH_FREE`: the greedy ones
        but PM-2 and FA*IR) reranks to the depth `depth(k)` and gives the first k: a change of k within the
        depth costs no reranking. What the candidates' blocks derive from them alone (aspect probabilities) is
        kept across the rerankings of the same candidates (`Reranker.rerank(blocks=)`): a new λ costs its greedy
        selection only."""
        cands, ckey = self.candidates(p)
        k = p.config.candidates.k
        if label is None:  # the first k of any candidate depth n ≥ k (`candidates`): one key for every n
            key = ("baseline", ckey[0], *ckey[2:], k)
            return self._rankings.get(key, lambda: cands.truncate(k)), key
        from recdiv.diversifiers.registry import RERANKERS

        d = self.diversifier(p, label)
        params = {**d.params, **(params or {})}
        space_name = d.aspects[0] if d.aspects else None
        skey = space_name and self.space(p, space_name)[3]
        cls = RERANKERS.get(d.name)
        deep = depth(k, cands.k) if cls.DEPTH_FREE else k

        def key_at(depth_: int) -> tuple:
            return ("rerank", ckey, depth_, d.name, _json(params), skey)

        def rerank():
            from recdiv.diversifiers.base import Reranker
            from recdiv.diversifiers.registry import make_reranker

            reranker = make_reranker(d.name, **params)
            ctx, gkey = self.rerank_context(p, space_name)
            if ":" in d.name or type(reranker).rerank is not Reranker.rerank:  # a plugin, or its own rerank
                return reranker.rerank(cands, deep, ctx)
            blocks = self._blocks.get((ckey, skey, gkey, p.config.seed), dict)
            return reranker.rerank(cands, deep, ctx, blocks=blocks)

        ranking = self._rankings.get(key_at(deep), rerank)
        if deep == k:
            return ranking, key_at(k)
        return self._rankings.get(key_at(k), lambda: first(ranking, k)), key_at(k)

    def memo(self, key, build: Callable[[], Any]):
        """A view part kept for the next request that asks for the same (population tables, user lists)."""
        return self._views.get(key, build)

    def statistics(self, key, build: Callable[[], Any]):
        """The memo of `Results.compare` (`keys=`, `memo=`): its intervals and p-values, kept per system."""
        return self._statistics.get(key, build)

    def trace(self, p: Prepared, label: str, cands, row: int):
        """`GreedyReranker.trace` of configuration `label` for the user at `row` of the candidates (None for a
        reranker that is not greedy); kept for the next request that shows the same user and configuration."""
        from recdiv.diversifiers.greedy import GreedyReranker
        from recdiv.diversifiers.registry import make_reranker

        d = self.diversifier(p, label)
        reranker = make_reranker(d.name, **d.params)
        if not isinstance(reranker, GreedyReranker):
            return None

        def build():
            one = cands.for_users(cands.users[row:row + 1])
            ctx = self.rerank_context(p, d.aspects[0] if d.aspects else None)[0]
            return reranker.trace(one, p.config.candidates.k, ctx)

        return self.memo(("trace", self.ranking(p, label)[1], row), build)

    def items(self, p: Prepared, space):
        """Titles and aspect names of the dataset's items (`recdiv.data.items.Items`) over `space`."""
        from recdiv.data.items import Items

        key = (p.data.key[0], id(space))
        return self._items.get(key, lambda: (space, Items.of(p.data.dataset, space)))[1]

    def scores(self, p: Prepared, ranking, rkey, measures: list[str]) -> dict[str, np.ndarray | float]:
        """{measure: per-user values (or the value of a system-level measure)} of a ranking, each measure
        computed once per ranking and evaluation context."""
        ctx, ekey = self.eval_context(p)
        out: dict[str, Any] = {}
        missing = []
        for m in measures:
            hit = self._scores.peek((rkey, ekey, m))
            if hit is None:
                missing.append(m)
            else:
                out[m] = hit
        if missing:
            from recdiv.eval import evaluate, parse_measure

            parsed = [parse_measure(m) for m in missing]
            try:
                result = evaluate({"system": ranking}, p.data.qrels, parsed, ctx)
            finally:
                ctx.cache.forget(ranking)
            for text, m in zip(missing, parsed):
                value = result.value("system", m) if m.KIND == "system" else \
                    np.asarray(result.user_values("system", m), dtype=np.float64)
                out[text] = self._scores.put((rkey, ekey, text), value)
        return {m: out[m] for m in measures}


#: the depths a reranker that is `DEPTH_FREE` reranks to: the list length k rounded up to one of them
DEPTHS = (10, 20, 50, 100, 200, 500, MAX_DEPTH)


def depth(k: int, n: int) -> int:
    """The depth to rerank to for lists of length k from n candidates: k rounded up to one of `DEPTHS` (at most
    n, at least k)."""
    return max(k, min(next(d for d in DEPTHS if d >= k), n))


def first(ranking, k: int):
    """The first k of a reranked `ranking`, as `Reranker.rerank` gives a top-k list (scores k, k−1, …, 1)."""
    from recdiv.data.rankings import Rankings

    items = np.ascontiguousarray(ranking.items[:, :k])
    scores = np.where(items >= 0, np.arange(k, 0, -1, dtype=np.float64)[None, :], np.nan)
    return Rankings(ranking.users.copy(), items, scores, ranking.user_vocab, ranking.item_vocab)


def _similarity(name, space, factors, train, cfg):
    """The similarity `recdiv run` gives a context over `space` (None without a space); built only with a new
    context."""
    if cfg is None:
        return None
    from recdiv.experiment.tasks.spaces import similarity_for

    return similarity_for(name, space, factors, train, cfg.kind)


def stored(space, items, factors):
    """An aspect space (and item factors) as `recdiv run` reads them back from its store
    (`recdiv.experiment.tasks.spaces.save_space` / `load_space`): membership in CSR with sorted indices, aspect names as
    strings, factors as float64 — the same arrays, so the same sums in the same order."""
    import scipy.sparse as sp

    from recdiv.aspects.space import AspectSpace
    from recdiv.data.vocab import Vocab

    m = sp.csr_matrix(space.membership, copy=True)
    m.sort_indices()
    names = Vocab(np.asarray(space.names.index.astype(str), dtype=str).tolist())
    out = AspectSpace(items, names, sp.csr_matrix((m.data, m.indices, m.indptr), shape=m.shape), space.name)
    return out, None if factors is None else np.asarray(factors, dtype=np.float64)
