"""The explorer's screenshots in docs/img/, taken by headless Chromium at the width they are shown (1280 px):

    RECDIV_DATA=../shared/data python -m tests.explore.screenshots

explore-overview.png: the controls, the population table and the trade-off chart; explore-user.png: one user's
profile and lists. Palette PNGs (tests/browser.py `small_png`), so the docs stay small.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from recdiv.data.locate import REPO_ROOT
from recdiv.explore.server import free_port, plan, serve
from tests.browser import small_png
from tests.explore.test_browser import CHROMIUM, FLAGS, counter

WIDTH = 1280


def main() -> int:
    from playwright.sync_api import sync_playwright

    catalog, defaults = plan("ml-100k")
    served = serve(catalog, defaults.replace(user="13"), port=free_port(), background=True, open_browser=False)
    img = REPO_ROOT / "docs" / "img"
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport={"width": WIDTH, "height": 1000})
            for _ in range(2):  # the second load is answered from the caches, as a class sees it after the first
                page.goto(served.url)
                t0 = time.monotonic()
                while counter(page, "curve") < 1 and time.monotonic() - t0 < 300:
                    page.wait_for_timeout(100)
            page.wait_for_timeout(500)
            shot = Path(tmp) / "shot.png"
            page.screenshot(path=shot, clip={"x": 0, "y": 0, "width": WIDTH, "height": 1000})
            print(small_png(shot, img / "explore-overview.png", colors=256))  # 64 merge the curves' colours
            box = page.locator("#user").bounding_box()
            clip = {"x": box["x"], "y": box["y"], "width": box["width"], "height": min(box["height"], 900)}
            page.screenshot(path=shot, full_page=True, clip=clip)
            print(small_png(shot, img / "explore-user.png", colors=256))
            browser.close()
    finally:
        served.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
