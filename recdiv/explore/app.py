"""The explorer's web application (Starlette): one page, its static files, and a JSON API whose every request
carries the whole state in its query string (`recdiv.explore.state`).

    GET /                     the page (the state in the query restores a view)
    GET /static/NAME          explore.js, explore.css, plotly.min.js (from the installed plotly package)
    GET /api/options?STATE    what the controls offer for the state's dataset
    GET /api/view?STATE       lists of the state's user and the population measures
    GET /api/curve?STATE&x=M&y=M[&only=A]   the trade-off curve over each configuration's parameter
    GET /api/experiment.toml?STATE  the state as an experiment `recdiv run` reproduces
    GET /api/run.trec?STATE&system=baseline|A|B   a system's lists as a TREC run
    GET /api/jobs             long builds in progress (fitting a baseline)

Work: requests are answered by a fixed pool of compute threads (`workers`) in the order they come. A page sends
its session (a random id) with its requests; a request that still waits for a thread when a newer one of the same
session and kind arrives is dropped (status 204: the page shows only the newest state), as is one whose client
went away; beyond `MAX_WAITING` waiting requests the explorer answers 503 (busy) at once rather than queue.

Every answer says in a `Server-Timing` header how long it waited for a compute thread (`queue`) and computed
(`compute`), in milliseconds (browsers' developer tools show it; bench/bench_explore.py sums it up).

Safety: with a token (`recdiv explore --host` other than loopback), every request must carry it (query `token=`,
header ``X-Recdiv-Token`` or the cookie the page sets); without one, only requests addressed to a loopback host
name are served (a web page elsewhere cannot reach the explorer through DNS rebinding). Every error is a JSON
message shown in the page — a bad value (status 400) or, for a bug, a one-line description (status 500) with the
traceback on the server's terminal only; no request reads files other than the catalog's datasets and the static
files named above, and none imports a module (plugins are named at start).
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import logging
import re
import threading
import time
import traceback
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from recdiv.errors import ConfigError, RecdivError
from recdiv.explore import views
from recdiv.explore.engine import Engine
from recdiv.explore.page import page_html
from recdiv.explore.state import State, from_query, to_query

log = logging.getLogger("recdiv.explore")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
STATIC = {"explore.js": "text/javascript; charset=utf-8", "explore.css": "text/css; charset=utf-8",
          "plotly.min.js": "text/javascript; charset=utf-8"}
COOKIE = "recdiv_token"
#: query keys that are not part of a state
EXTRA = ("token", "x", "y", "only", "system", "session")
#: requests waiting for a compute thread at most (more are answered 503 at once)
MAX_WAITING = 256
_SESSION = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class Gone(Exception):
    """The client closed the request, or a newer one of its session came, before its work started."""


class Busy(Exception):
    """Too many requests wait for a compute thread."""


class Latest:
    """The newest request of each (session, kind), by ticket number (a bounded table: the oldest sessions go)."""

    def __init__(self, size: int = 4096):
        self.size = size
        self._n = itertools.count(1)
        self._latest: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key) -> int:
        with self._lock:
            n = next(self._n)
            self._latest[key] = n
            self._latest.move_to_end(key)
            while len(self._latest) > self.size:
                self._latest.popitem(last=False)
            return n

    def superseded(self, key, n: int) -> bool:
        with self._lock:
            return self._latest.get(key, n) > n


class App:
    """The application and what it serves from: the engine, the compute threads, the token."""

    def __init__(self, engine: Engine, defaults: State, *, token: str | None = None, workers: int = 2):
        self.engine = engine
        self.defaults = defaults
        self.token = token
        self.pool = ThreadPoolExecutor(workers, thread_name_prefix="recdiv-explore")
        self.latest = Latest()
        self.dropped = 0  # requests dropped because a newer one of their session came (for the benchmarks)
        self._waiting = 0
        self._lock = threading.Lock()
        routes = [Route("/", self.page), Route("/static/{name}", self.static),
                  Route("/api/options", self.options), Route("/api/view", self.view),
                  Route("/api/curve", self.curve), Route("/api/experiment.toml", self.toml),
                  Route("/api/run.trec", self.run), Route("/api/jobs", self.jobs),
                  Route("/favicon.ico", lambda request: Response(status_code=204))]
        self.starlette = Starlette(routes=routes, middleware=[Middleware(_Guard, app_state=self)],
                                   exception_handlers={404: _not_found, 405: _not_allowed})

    async def __call__(self, scope, receive, send):
        await self.starlette(scope, receive, send)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

    # helpers ------------------------------------------------------------------------------------------------------
    def state(self, request: Request) -> State:
        pairs = [(k, v) for k, v in request.query_params.multi_items() if k not in EXTRA]
        return from_query(pairs, self.defaults)

    async def compute(self, request: Request, work, timing: dict | None = None) -> Any:
        """Run `work` on a compute thread; give up (without computing) if the client went away or a newer request
        of its session and kind came while it waited. `timing` gets the seconds it waited for a thread ("queue")
        and computed ("compute")."""
        session = request.query_params.get("session")
        if session is not None and not _SESSION.match(session):
            raise ConfigError("session: expected 1 to 64 letters, digits, '-' or '_'")
        key = (session, request.url.path)
        ticket = self.latest.take(key) if session else 0
        with self._lock:
            if self._waiting >= MAX_WAITING:
                raise Busy(f"the explorer is busy ({self._waiting} requests wait for it); try again in a moment")
            self._waiting += 1

        t0 = time.perf_counter()

        def run():
            t1 = time.perf_counter()
            with self._lock:
                self._waiting -= 1
            if ticket and self.latest.superseded(key, ticket):
                with self._lock:
                    self.dropped += 1
                raise Gone
            try:
                return work()
            finally:
                if timing is not None:
                    timing.update(queue=t1 - t0, compute=time.perf_counter() - t1)

        fut = self.pool.submit(run)
        waiter = asyncio.wrap_future(fut)
        while True:
            done, _ = await asyncio.wait({waiter}, timeout=0.05)
            if done:
                return waiter.result()
            if not fut.running() and await request.is_disconnected() and fut.cancel():
                with self._lock:
                    self._waiting -= 1
                raise Gone

    async def answer(self, request: Request, work, kind: str = "json") -> Response:
        timing: dict[str, float] = {}
        try:
            result = await self.compute(request, work, timing)
        except Gone:
            return Response(status_code=204)
        except Busy as e:
            return _error(str(e), 503)
        except RecdivError as e:
            return _error(str(e), 400)
        except Exception as e:  # a bug: one line in the page, the traceback on the terminal only
            log.error("recdiv explore: %s", traceback.format_exc())
            return _error(f"recdiv explore could not answer this request ({type(e).__name__}: {e}); the "
                          "terminal that runs the explorer shows the details", 500)
        # where the time went, as browsers' developer tools show it (and bench/bench_explore.py reads it)
        spent = {"Server-Timing": ", ".join(f"{k};dur={1000 * v:.1f}" for k, v in timing.items())}
        if kind == "json":
            return JSONResponse(result, headers=spent)
        text, filename, media = result
        return Response(text, media_type=media,
                        headers={"Content-Disposition": f'attachment; filename="{filename}"', **spent})

    # routes -----------------------------------------------------------------------------------------------------
    async def page(self, request: Request) -> Response:
        try:
            state = self.state(request)
        except RecdivError as e:  # a bad link still opens the page, with the message and the defaults
            state, problem = self.defaults, str(e)
        else:
            problem = None
        response = Response(page_html(to_query(state), problem), media_type="text/html; charset=utf-8",
                            headers={"Cache-Control": "no-store", "Content-Security-Policy": CSP,
                                     "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"})
        if self.token and request.query_params.get("token"):
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict")
        return response

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return _error(f"no static file {name!r}", 404)
        if name == "plotly.min.js":
            from recdiv.eval.html import plotly_js

            body = plotly_js()
        else:
            body = (resources.files("recdiv.explore") / "static" / name).read_text(encoding="utf-8")
        return Response(body, media_type=STATIC[name], headers={"Cache-Control": "max-age=3600"})

    async def options(self, request: Request) -> Response:
        def work():
            return options(self.engine, self.state(request))

        return await self.answer(request, work)

    async def view(self, request: Request) -> Response:
        def work():
            p = self.engine.prepare(self.state(request))
            return {"state": to_query(p.state), "labels": views.labels(p),
                    "measures": views.measure_info(list(p.state.measures)),
                    "population": views.population(self.engine, p), "user": views.user_view(self.engine, p),
                    "users": views.users(self.engine, p)}

        return await self.answer(request, work)

    async def curve(self, request: Request) -> Response:
        x, y = request.query_params.get("x") or None, request.query_params.get("y") or None
        only = request.query_params.get("only") or None

        def work():
            return views.curve(self.engine, self.engine.prepare(self.state(request)), x, y, only)

        return await self.answer(request, work)

    async def toml(self, request: Request) -> Response:
        def work():
            from recdiv.explore.export import experiment_toml

            text = experiment_toml(self.engine, self.engine.prepare(self.state(request)))
            return text, "experiment.toml", "application/toml; charset=utf-8"

        return await self.answer(request, work, kind="file")

    async def run(self, request: Request) -> Response:
        system = request.query_params.get("system", "baseline")

        def work():
            from recdiv.explore.export import run_text

            return run_text(self.engine, self.engine.prepare(self.state(request)), system), \
                f"{system}.run", "text/plain; charset=utf-8"

        return await self.answer(request, work, kind="file")

    async def jobs(self, request: Request) -> Response:
        return JSONResponse({"jobs": self.engine.jobs.running(), "dropped": self.dropped})


#: the page loads its own script, style and plotly.js only; nothing from another origin
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors *")


def options(engine: Engine, state: State) -> dict[str, Any]:
    """What the controls offer: datasets, the dataset's splits and aspect spaces, every recommender and reranker
    (registries and plugins) with the controls of its typed parameters, and every registered measure."""
    from recdiv.algorithms.registry import RECOMMENDERS
    from recdiv.diversifiers.registry import RERANKERS
    from recdiv.eval.catalog import list_measures
    from recdiv.explore.catalog import aspect_choices, controls, split_choices, tradeoff_parameter, with_groups

    cat = engine.catalog
    dataset = engine.dataset(cat.dataset(state.dataset).key)

    def first_line(cls) -> str:
        return ((cls.__doc__ or "").strip().splitlines() or [""])[0]

    recs = [{"name": n, "purpose": getattr(RECOMMENDERS.get(n), "purpose", ""),
             "doc": first_line(RECOMMENDERS.get(n)), "controls": controls(RECOMMENDERS.get(n).Config)}
            for n in cat.recommenders()]
    rers = []
    for n in cat.rerankers():
        cls = RERANKERS.get(n)
        ctrls = controls(cls.Config)
        if "item_groups" in cls.NEEDS:  # FA*IR: the protected group among the dataset's explicit groups
            ctrls = with_groups(ctrls, cat.item_groups(dataset))
        rers.append({"name": n, "doc": first_line(cls), "needs": list(cls.NEEDS), "controls": ctrls,
                     "tradeoff": tradeoff_parameter(cls.Config)})
    measures = [{"name": m.NAME, "family": m.FAMILY, "kind": m.KIND, "doc": first_line(m),
                 "cutoff": bool(getattr(m, "CUTOFF", True))}
                for m in list_measures() if m.KIND != "pairwise" and "previous" not in m.NEEDS]
    return {"datasets": list(cat.datasets), "splits": split_choices(dataset), "aspects": list(aspect_choices(dataset)),
            "recommenders": recs, "rerankers": rers, "measures": measures,
            "dataset": {"name": dataset.name, "users": len(dataset.users), "items": len(dataset.items),
                        "interactions": int(dataset.interactions.nnz), "kind": dataset.interactions.kind}}


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _not_found(request: Request, exc) -> Response:
    return _error(f"no such page: {request.url.path}", 404)


async def _not_allowed(request: Request, exc) -> Response:
    return _error(f"{request.method} is not allowed here (the explorer answers GET requests)", 405)


class _Guard:
    """Token and host checks before any route (pure ASGI middleware)."""

    def __init__(self, app, app_state: App):
        self.app = app
        self.state = app_state

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request = Request(scope)
        problem = self.problem(request)
        if problem is not None:
            return await _error(problem, 403)(scope, receive, send)
        if request.method not in ("GET", "HEAD"):
            return await _error(f"{request.method} is not allowed here (the explorer answers GET requests)",
                                405)(scope, receive, send)
        return await self.app(scope, receive, send)

    def problem(self, request: Request) -> str | None:
        token = self.state.token
        if token is None:
            host = host_name(request.headers.get("host") or "")
            if host not in LOOPBACK_HOSTS:
                return f"this explorer answers requests to 127.0.0.1 or localhost only, not to {host!r}"
            return None
        given = (request.query_params.get("token") or request.headers.get("x-recdiv-token")
                 or request.cookies.get(COOKIE) or "")
        if not hmac.compare_digest(given.encode(), token.encode()):
            return "this explorer needs its access token (printed when it started): open the link it printed"
        return None


def host_name(header: str) -> str:
    """The host of a Host header, without its port: "127.0.0.1:8050" → "127.0.0.1", "[::1]:8050" → "[::1]"."""
    if header.startswith("["):
        return header.split("]")[0] + "]"
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header
