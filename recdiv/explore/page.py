"""The explorer's page: a small HTML document; explore.js fills it from the JSON API (texts from data files only
ever go into text nodes), plotly.js (served from the installed plotly package) draws the trade-off chart."""

from __future__ import annotations

from recdiv import __version__
from recdiv.escape import html

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>recdiv explore</title>
<link rel="stylesheet" href="static/explore.css">
<script src="static/plotly.min.js" defer></script>
<script src="static/explore.js" defer></script>
</head>
<body data-state="{state}" data-problem="{problem}">
<header>
  <h1>recdiv explore</h1>
  <span class="version">recdiv {version}</span>
  <span id="status" role="status" aria-live="polite"></span>
</header>
<div id="error" class="error" role="alert" hidden></div>
<div class="layout">
<aside id="controls" aria-label="controls">
  <section>
    <h2>Data</h2>
    <label>dataset <select id="dataset"></select></label>
    <label>split <select id="split"></select></label>
    <div class="row">
      <label>seed <input id="seed" type="number" min="0" step="1"></label>
      <label title="a test item is relevant when its grade is at least this">relevant ≥ <input id="threshold"
             type="number" step="any" placeholder="auto"></label>
    </div>
  </section>
  <section>
    <h2>Baseline</h2>
    <label>recommender <select id="rec"></select></label>
    <p class="help" id="rec-help"></p>
    <div class="params" id="rec-params"></div>
    <div class="row">
      <label title="candidates: the baseline's top n, reranked by A and B">candidates n <input id="n"
             type="number" min="1" step="1"></label>
      <label title="length of the lists shown and evaluated">list length k <input id="k" type="number" min="1"
             step="1"></label>
    </div>
  </section>
  <section class="config" id="config-a">
    <h2>Configuration A</h2>
    <label>reranker <select id="a"></select></label>
    <p class="help" id="a-help"></p>
    <label>aspects <select id="aspects-a"></select></label>
    <div class="params" id="a-params"></div>
  </section>
  <section class="config" id="config-b">
    <h2>Configuration B</h2>
    <label>reranker <select id="b"></select></label>
    <p class="help" id="b-help"></p>
    <label>aspects <select id="aspects-b"></select></label>
    <div class="params" id="b-params"></div>
  </section>
  <section>
    <h2>Measures</h2>
    <ul id="measure-list" class="chips"></ul>
    <div class="row add-measure">
      <select id="measure-name" aria-label="measure to add"></select>
      <label>@<input id="measure-cutoff" type="number" min="1" step="1" aria-label="cutoff"></label>
      <button id="measure-add" type="button">add</button>
    </div>
    <p class="help" id="measure-help"></p>
  </section>
  <section>
    <h2>Export</h2>
    <p><a id="export-toml" download>experiment.toml</a> — <code>recdiv run</code> computes the same numbers</p>
    <p>lists as TREC runs: <a id="export-baseline" download>baseline</a> <a id="export-a" download>A</a>
       <a id="export-b" download>B</a></p>
    <p><button id="copy-link" type="button">copy link to this view</button></p>
  </section>
</aside>
<main>
  <section id="population">
    <h2>Population</h2>
    <p class="note" id="population-note"></p>
    <div class="table-wrap"><table id="measures-table"></table></div>
  </section>
  <section id="tradeoff">
    <h2>Trade-off</h2>
    <div class="row">
      <label>x <select id="curve-x"></select></label>
      <label>y <select id="curve-y"></select></label>
    </div>
    <div id="curve" class="chart" aria-label="trade-off chart"></div>
    <p class="note" id="curve-note"></p>
  </section>
  <section id="user">
    <h2>User</h2>
    <div class="row">
      <button id="user-prev" type="button" aria-label="previous user">◀</button>
      <select id="user-select" aria-label="user"></select>
      <button id="user-next" type="button" aria-label="next user">▶</button>
      <span id="user-summary"></span>
    </div>
    <div id="profile"></div>
    <div id="lists" class="lists"></div>
    <p class="note">✓ relevant test item (grade ≥ threshold) · <span class="tag entered">new</span> entered the
      list (not in the baseline's top k) · <s>struck</s> left the list in A or B · rel / div: the greedy
      objective's relevance and diversity parts when the item was chosen.</p>
  </section>
</main>
</div>
<noscript><p class="error">The explorer needs JavaScript.</p></noscript>
</body>
</html>
"""


def page_html(state: str, problem: str | None = None) -> str:
    """The page; `state` is the query of the view to show first, `problem` a message to show at once."""
    return _PAGE.format(state=html(state), problem=html(problem or ""),
                        version=html(__version__))
