"""The explorer inside a notebook: `embed()` starts it in a background thread and shows the page in the cell.

    from recdiv.explore import embed
    explorer = embed("ml-100k")      # the page, in the output of the cell
    explorer.stop()                  # or restart the kernel

The page is served on 127.0.0.1 and shown in an iframe, so the browser must run on the machine that runs the
kernel (a local Jupyter); on a remote server, forward the port or run `recdiv explore` there.
"""

from __future__ import annotations

import html
from dataclasses import dataclass


@dataclass
class Embedded:
    """A running explorer shown in a notebook; `url` opens it in a browser tab too, `stop()` ends it."""

    served: object
    height: int = 900

    @property
    def url(self) -> str:
        return self.served.url

    def stop(self) -> None:
        self.served.stop()

    def _repr_html_(self) -> str:
        src = html.escape(self.url, quote=True)
        return (f'<iframe src="{src}" width="100%" height="{self.height}" style="border:1px solid #ddd" '
                f'title="recdiv explore"></iframe><p><a href="{src}" target="_blank">open in a new tab</a></p>')


def embed(target: str | None = "ml-100k", *, split: str | None = None, data_dir: str | None = None,
          port: int | None = None, height: int = 900, plugins: tuple[str, ...] = ()) -> Embedded:
    """Start an explorer on `target` (as `recdiv explore TARGET`) in a background thread of this kernel, on
    127.0.0.1 and a free port unless `port` is given, and return what shows it in the cell."""
    from recdiv.explore.server import free_port, plan, serve

    catalog, defaults = plan(target, split=split, data_dir=data_dir, plugins=plugins)
    served = serve(catalog, defaults, port=port or free_port(), background=True, open_browser=False)
    return Embedded(served, height)
