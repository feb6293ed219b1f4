"""The explorer's request queue: a fixed pool of compute threads; a waiting request of a session is dropped when a
newer one of the same session and kind comes (only the newest state is computed), others are all answered, and
beyond MAX_WAITING waiting requests the answer is 503 at once."""

from __future__ import annotations

import asyncio
import threading

import httpx2 as httpx  # the client starlette's TestClient uses (dev dependency)
import pytest

from recdiv.explore import app as app_module
from recdiv.explore.app import App
from recdiv.explore.engine import Engine
from recdiv.explore.state import to_query
from tests.explore.conftest import synthetic_state

Q = to_query(synthetic_state())


async def _with_busy_worker(app: App, requests: list[str], waiting: int) -> list[httpx.Response]:
    """Occupy the one compute thread, send `requests` at once, release the thread when `waiting` of them wait."""
    release = threading.Event()
    app.pool.submit(release.wait)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        tasks = []
        for url in requests:
            tasks.append(asyncio.create_task(c.get(url)))
            while app._waiting < len(tasks):  # in this order
                await asyncio.sleep(0.005)
        assert app._waiting == waiting
        release.set()
        return list(await asyncio.gather(*tasks))


@pytest.fixture
def app(synthetic_catalog):
    a = App(Engine(synthetic_catalog), synthetic_state(), workers=1)
    yield a
    a.close()


def test_a_waiting_request_is_dropped_when_its_session_asks_again(app):
    urls = [f"/api/view?{Q.replace('a.lambda=0.5', 'a.lambda=0.1')}&session=s1",
            f"/api/view?{Q.replace('a.lambda=0.5', 'a.lambda=0.2')}&session=s2",
            f"/api/view?{Q.replace('a.lambda=0.5', 'a.lambda=0.3')}&session=s1",  # supersedes the first
            f"/api/curve?{Q}&session=s1",  # another kind: not a newer view
            f"/api/view?{Q.replace('a.lambda=0.5', 'a.lambda=0.4')}"]  # no session: always answered
    r = asyncio.run(_with_busy_worker(app, urls, 5))
    assert [x.status_code for x in r] == [204, 200, 200, 200, 200]
    assert "a.lambda=0.3" in r[2].json()["state"] and "a.lambda=0.2" in r[1].json()["state"]
    assert app.dropped == 1 and app._waiting == 0


def test_beyond_max_waiting_the_explorer_says_it_is_busy(app, monkeypatch):
    monkeypatch.setattr(app_module, "MAX_WAITING", 2)
    urls = [f"/api/view?{Q}&session=a", f"/api/view?{Q}&session=b", f"/api/view?{Q}&session=c"]

    async def go():
        release = threading.Event()
        app.pool.submit(release.wait)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as c:
            first = [asyncio.create_task(c.get(u)) for u in urls[:2]]
            while app._waiting < 2:
                await asyncio.sleep(0.005)
            busy = await c.get(urls[2])
            release.set()
            return busy, await asyncio.gather(*first)

    busy, served = asyncio.run(go())
    assert busy.status_code == 503 and "busy (2 requests wait" in busy.json()["error"]
    assert [x.status_code for x in served] == [200, 200] and app._waiting == 0


def test_a_bad_session_id_is_refused(app):
    async def go():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as c:
            return await c.get(f"/api/view?{Q}&session=a%20b")

    r = asyncio.run(go())
    assert r.status_code == 400 and "session: expected" in r.json()["error"]
