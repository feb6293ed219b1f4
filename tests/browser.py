"""Look at a report as a reader does: headless Chromium renders it at a given width, and a script in the page
measures the layout (tests/experiment/test_report_browser.py; needs Debian's ``chromium``).

    python -m tests.browser [OUT_DIR]   # run the demo experiment, check its report, write docs/img/report-*.png

`layout_check(html_path, width)` returns what the page reports after its charts are drawn:

- ``page_overflow``: pixels by which the page is wider than the window (0: no horizontal scroll bar);
- ``overflowing``: elements whose right edge passes the window and that are not inside a scrolling box;
- ``charts``: per chart, its displayed width and the width of the SVG drawn into it (a figure is legible at its
  displayed size when it is drawn at least that wide, not scaled down from a smaller bitmap);
- ``clipped_text``: chart texts (titles, tick and axis labels, legend entries, point labels) outside their chart;
- ``images``: per <img>, displayed and natural width; ``resources``: what the page fetched (nothing, offline).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--host-resolver-rules=MAP * ~NOTFOUND"]

_CHECK = r"""<script>
window.addEventListener('load', function () { setTimeout(function () {
  var W = document.documentElement.clientWidth, out = {width: W, overflowing: [], charts: [], clipped_text: [],
      images: [], resources: performance.getEntriesByType('resource').map(function (e) { return e.name; })};
  out.page_overflow = Math.max(0, document.documentElement.scrollWidth - W);
  function scrolled(el) {
    for (var p = el.parentElement; p; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX; if (o === 'auto' || o === 'scroll' || o === 'hidden') return true; }
    return false; }
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > W + 1 && !scrolled(el) && !el.closest('svg'))
      out.overflowing.push(el.tagName + '.' + el.className + ' right=' + Math.round(r.right)); });
  document.querySelectorAll('.chart').forEach(function (c) {
    var box = c.getBoundingClientRect(), svg = c.querySelector('svg.main-svg');
    out.charts.push({id: c.id, displayed: Math.round(box.width),
                     drawn: svg ? Math.round(svg.getBoundingClientRect().width) : 0,
                     svg_width: svg ? parseFloat(svg.getAttribute('width')) : 0});
    c.querySelectorAll('svg text').forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (r.width === 0 || !t.textContent.trim()) return;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.clipped_text.push(c.id + ': ' + t.textContent); }); });
  document.querySelectorAll('img').forEach(function (im) {
    out.images.push({displayed: im.getBoundingClientRect().width, natural: im.naturalWidth}); });
  document.body.setAttribute('data-layout', JSON.stringify(out));
}, 300); });
</script>"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        exe = shutil.which(name)
        if exe:
            return exe
    raise FileNotFoundError("headless checks need Chromium (Debian: apt-get install chromium)")


def _run(args: list[str], timeout: float) -> str:
    with tempfile.TemporaryDirectory(prefix="recdiv-chromium-") as profile:
        r = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                           text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"chromium failed ({r.returncode}): {r.stderr[-2000:]}")
    return r.stdout


def layout_check(html_path: str | Path, width: int = 1280, height: int = 900, timeout: float = 120) -> dict:
    """Render `html_path` at `width` × `height` and return the page's own layout measurements (module docstring)."""
    page = Path(html_path).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="recdiv-layout-") as tmp:
        probe = Path(tmp) / "probe.html"
        probe.write_text(page.replace("</body>", _CHECK + "</body>"), encoding="utf-8")
        dom = _run([f"--window-size={width},{height}", "--virtual-time-budget=15000", "--dump-dom",
                    probe.as_uri()], timeout)
    m = re.search(r"data-layout=\"([^\"]*)\"", dom)
    if not m:
        raise RuntimeError("the page did not report its layout (did its scripts run?)")
    import html

    return json.loads(html.unescape(m.group(1)))


def screenshot(html_path: str | Path, png: str | Path, width: int = 1280, height: int = 900, css: str = "",
               timeout: float = 120) -> Path:
    """A PNG of the top `height` pixels of the page at `width` (extra `css` e.g. hides sections)."""
    page = Path(html_path).read_text(encoding="utf-8")
    png = Path(png).resolve()
    with tempfile.TemporaryDirectory(prefix="recdiv-shot-") as tmp:
        src = Path(tmp) / "page.html"
        src.write_text(page.replace("</style>", css + "</style>", 1), encoding="utf-8")
        _run([f"--window-size={width},{height}", "--virtual-time-budget=15000", f"--screenshot={png}",
              src.as_uri()], timeout)
    return png


def small_png(src: Path, dest: Path, colors: int = 64) -> Path:
    """`src` as a palette PNG (docs screenshots stay small)."""
    from PIL import Image

    Image.open(src).convert("RGB").quantize(colors=colors, method=Image.Quantize.MEDIANCUT).save(dest,
                                                                                                 optimize=True)
    return dest


def main(argv: list[str] | None = None) -> int:
    import sys

    from recdiv.data.locate import REPO_ROOT
    from recdiv.experiment.run.demo import run_demo

    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else Path(tempfile.mkdtemp(prefix="recdiv-demo-"))
    report = out / "report.html"
    if not report.is_file():
        run_demo(out, progress=False)
    print(json.dumps({k: v for k, v in layout_check(report).items() if k != "charts"}, indent=1))
    img = REPO_ROOT / "docs" / "img"
    with tempfile.TemporaryDirectory() as tmp:
        shot = Path(tmp) / "shot.png"
        screenshot(report, shot, 1280, 1000)
        print(small_png(shot, img / "report-table.png"))
        screenshot(report, shot, 1280, 1000, css=".table-wrap,details,p.note,label.toggle{display:none}")
        print(small_png(shot, img / "report-charts.png"))
        hide = ".table-wrap,details,p.note,label.toggle,h3,.tradeoff{display:none}"
        screenshot(report, shot, 1280, 1000, css=hide)
        print(small_png(shot, img / "report-means.png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
