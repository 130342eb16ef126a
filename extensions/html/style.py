"""The page's stylesheet and script, written for this report.

The stylesheet: light and dark (``prefers-color-scheme``), readable from phone width to a
wide screen, and printable. The script, plain JavaScript, sorts and filters the case table;
its state lives in the URL fragment, so a view can be shared or bookmarked:
``#filter=fail,flaky&fn=classify&gate=undecided&q=pii&sort=-fraction`` (``filter``: status
keys; ``sort``: a column key, ``-`` first for descending). Without the script the page is
complete, in report order. Pure module: never imports pytest.

PYTEST_DONT_REWRITE
"""

from __future__ import annotations

import base64
import hashlib

CSS = """
:root {
  color-scheme: light dark;
  --bg: #fdfdfc; --fg: #1d232b; --muted: #5b6570; --line: #d5dae0; --soft: #f1f3f5;
  --head: #e9edf1; --link: #1f5fbf;
  --pass: #23824a; --flaky: #b5650b; --fail: #c8283a; --error: #7b46c9;
  --skipped: #7a838c; --undecided: #b5650b; --accent: #2f6db5; --gate: #1d232b;
  --ci-alpha: 0.35;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15191e; --fg: #e3e7ec; --muted: #9aa4ae; --line: #343b44; --soft: #1d2229;
    --head: #232a32; --link: #7fb1f0;
    --pass: #4cc17a; --flaky: #e0a24a; --fail: #f0646f; --error: #b596f0;
    --skipped: #98a1aa; --undecided: #e0a24a; --accent: #7fb1f0; --gate: #e3e7ec;
    --ci-alpha: 0.45;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
a { color: var(--link); }
code, pre, .nodeid { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
main { max-width: 1500px; margin: 0 auto; padding: 0 1rem 3rem; }
header.top { padding: 1rem 0 .5rem; }
h1 { font-size: 1.5rem; margin: .2rem 0; }
h2 { font-size: 1.2rem; margin: 0 0 .6rem; }
h3 { font-size: 1rem; margin: .8rem 0 .2rem; }
.muted, .subtitle { color: var(--muted); }
.subtitle { margin: 0 0 .8rem; }
nav.toc {
  position: sticky; top: 0; z-index: 2; background: var(--bg);
  border-bottom: 1px solid var(--line); padding: .4rem 0; margin-bottom: 1rem;
  display: flex; flex-wrap: wrap; gap: .2rem .9rem; font-size: .92rem;
}
nav.toc a { text-decoration: none; }
nav.toc a:hover { text-decoration: underline; }
section { margin: 0 0 2rem; scroll-margin-top: 3rem; }
section.panel { border: 1px solid var(--line); border-radius: 6px; padding: .8rem 1rem; }
section.failed { border-color: var(--fail); }
section.failed h2 { color: var(--fail); }
.cards { display: flex; flex-wrap: wrap; gap: .6rem; margin: .4rem 0 .8rem; }
.card {
  border: 1px solid var(--line); border-radius: 6px; padding: .5rem .8rem;
  min-width: 11rem; background: var(--soft);
}
.card .label { font-size: .8rem; color: var(--muted); text-transform: uppercase; }
.card .value { font-size: 1.3rem; font-weight: 600; }
.card .note { font-size: .85rem; color: var(--muted); margin-bottom: .2rem; }
.card.ok .value { color: var(--pass); }
.card.bad .value { color: var(--fail); }
dl.settings {
  display: flex; flex-wrap: wrap; gap: .2rem 1.4rem; margin: 0; font-size: .9rem;
}
dl.settings div { display: flex; gap: .4rem; }
dl.settings dt { color: var(--muted); }
dl.settings dd { margin: 0; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: .92rem; }
th, td { padding: .22rem .55rem; text-align: left; vertical-align: top; }
thead th {
  background: var(--head); position: sticky; top: 0; font-weight: 600; white-space: nowrap;
}
tbody tr:nth-child(even) > * { background: transparent; }
table.numbers td, td.num, th.num { font-variant-numeric: tabular-nums; }
td.num { text-align: right; white-space: nowrap; }
caption { text-align: left; color: var(--muted); padding: .2rem 0; font-size: .88rem; }
table.cases { width: 100%; }
table.cases > tbody { border-top: 1px solid var(--line); }
table.cases > tbody:hover { background: var(--soft); }
table.cases th.case {
  font-weight: 500; min-width: 9rem; max-width: 34rem; overflow-wrap: break-word;
}
.id { white-space: nowrap; }
table.cases > tbody > tr > td {
  text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums;
}
table.cases > tbody > tr > td.l, table.cases > tbody > tr > td.plot { text-align: left; }
table.cases > tbody > tr > td.l { white-space: normal; }
table.cases > tbody > tr.runs-row > td { text-align: left; white-space: normal; }
table.cases td.plot span { font-variant-numeric: tabular-nums; }
table.cases tr.runs-row > td { padding-top: 0; padding-bottom: .3rem; }
thead button {
  all: unset; cursor: pointer; display: inline-block;
}
thead button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
thead button::after { content: " \\2195"; color: var(--muted); font-size: .8em; }
th[aria-sort="ascending"] button::after { content: " \\25B2"; color: var(--fg); }
th[aria-sort="descending"] button::after { content: " \\25BC"; color: var(--fg); }
details > summary { cursor: pointer; color: var(--muted); font-size: .85rem; }
details[open] > summary { color: var(--fg); }
details.rundetails[open] { padding: .2rem 0 .4rem; }
.nodeid { font-size: .8rem; color: var(--muted); margin: .2rem 0; overflow-wrap: anywhere; }
table.runs { font-size: .85rem; margin-top: .2rem; }
table.runs th { background: var(--head); }
table.runs td { border-top: 1px solid var(--line); }
pre.msg {
  margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .82rem;
  max-height: 16rem; overflow-y: auto;
}
.cut, .same { color: var(--muted); font-style: italic; font-size: .82rem; }
.tag {
  display: inline-block; border: 1px solid var(--line); border-radius: 3px;
  padding: 0 .3rem; margin-right: .3rem; font-size: .78rem; color: var(--muted);
}
.warn { color: var(--fail); font-size: .82rem; }
p.expl, .reading p { max-width: 60rem; }
p.expl { margin: .2rem 0; font-size: .88rem; }
ol.steps { margin: 0; padding-left: 1.2rem; }
ul.fgroups { margin: .2rem 0 .4rem; padding-left: 1.2rem; font-size: .88rem; }
ol.steps li.ok::marker { color: var(--pass); }
ol.steps li.bad { color: var(--fail); }
.badge {
  display: inline-block; font-size: .75rem; font-weight: 700; letter-spacing: .02em;
  padding: .05rem .4rem; border-radius: 3px; color: #fff; background: var(--skipped);
}
.s-pass, .v-pass, .o-pass { --c: var(--pass); }
.s-flaky { --c: var(--flaky); }
.s-fail, .v-fail, .o-fail { --c: var(--fail); }
.s-errored, .s-error, .o-error { --c: var(--error); }
.s-skipped, .o-skip { --c: var(--skipped); }
.v-undecided { --c: var(--undecided); }
.badge[class*="s-"], .badge[class*="v-"] { background: var(--c); }
@media (prefers-color-scheme: dark) { .badge { color: #111; } }
b[class^="o-"] { color: var(--c); }
svg { overflow: visible; vertical-align: middle; }
svg.bar {
  background: linear-gradient(90deg, var(--line) 1px, transparent 1px) 4.5px 0 / 37.5px 100%
    repeat-x;
}
svg.bar .ci { fill: var(--c, var(--accent)); fill-opacity: var(--ci-alpha); }
svg.bar .pt, svg.forest .pt { fill: var(--c, var(--accent)); }
svg .gate { stroke: var(--gate); stroke-width: 1.5; stroke-dasharray: 2 2; }
svg.forest .ci, svg.forest .cap { stroke: var(--c, var(--accent)); stroke-width: 2; fill: none; }
svg.forest .zero { stroke: var(--muted); stroke-width: 1; }
svg.forest .margin { stroke: var(--flaky); stroke-width: 1.5; stroke-dasharray: 4 3; }
svg.forest .axis { stroke: var(--muted); }
svg.forest text { fill: var(--muted); font-size: 11px; }
svg.forest.overall { --c: var(--fg); }
table.forest-table td.plot, table.forest-table th.plot { padding-top: 0; padding-bottom: 0; }
table.forest-table td { white-space: nowrap; }
table.forest-table td:last-child { white-space: normal; min-width: 5rem; }
table.forest-table th[scope="row"] { min-width: 8rem; overflow-wrap: break-word; }
table.forest-table tr.overall th { font-weight: 700; }
table.forest-table tr.sub th { padding-left: 1.6rem; font-weight: 400; color: var(--muted); }
table.forest-table tr.axis-line td { border: 0; }
table.forest-table tbody tr:not(.axis-line) > * { border-top: 1px solid var(--soft); }
svg.stack rect.s-pass, svg rect.s-pass { fill: var(--pass); }
svg rect.s-flaky { fill: var(--flaky); }
svg rect.s-fail { fill: var(--fail); }
svg rect.s-errored, svg rect.s-error { fill: var(--error); }
svg rect.s-skipped { fill: var(--skipped); }
svg.stack { display: block; margin-top: .25rem; max-width: 100%; }
svg.valbar rect { fill: var(--accent); fill-opacity: .7; }
form.filters {
  display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center;
  margin: .4rem 0 .6rem; font-size: .9rem;
}
form.filters select, form.filters input {
  font: inherit; padding: .15rem .3rem; background: var(--bg); color: var(--fg);
  border: 1px solid var(--line); border-radius: 4px;
}
form.filters input { width: 14rem; max-width: 60vw; }
#f-count { color: var(--muted); }
.sr {
  position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap;
}
p.plain { white-space: pre-wrap; overflow-wrap: anywhere; }
.hint { font-size: .85rem; margin: 0; }
.reading h3 { font-size: .95rem; }
.reading p { margin: .1rem 0 .4rem; }
dl.glossary dt { font-weight: 600; }
dl.glossary dd { margin: 0 0 .4rem 1rem; }
footer { color: var(--muted); font-size: .85rem; border-top: 1px solid var(--line);
  padding-top: .6rem; }
@media (max-width: 700px) {
  body { font-size: 14px; }
  main { padding: 0 .5rem 2rem; }
  .card { min-width: 0; flex: 1 1 45%; }
  nav.toc { position: static; }
}
@media print {
  nav.toc, form.filters, .hint { display: none; }
  details > :not(summary) { display: block; }
  thead th { position: static; }
}
"""

#: Sort keys: ``sort=KEY`` → the ``data-*`` attribute and how it compares.
SORT_KEYS = {
    "order": ("i", "n"),
    "case": ("", "t"),
    "function": ("fn", "t"),
    "fn": ("fn", "t"),
    "runs": ("n", "n"),
    "fraction": ("rate", "n"),
    "rate": ("rate", "n"),
    "low": ("low", "n"),
    "high": ("high", "n"),
    "status": ("status", "s"),
    "gate": ("gate", "g"),
    "latency": ("lat", "n"),
    "cost": ("cost", "n"),
}

_KEYS_JS = ",".join(f'"{key}":["{attr}","{kind}"]' for key, (attr, kind) in SORT_KEYS.items())

SCRIPT = (
    """
(function () {
  "use strict";
  var table = document.getElementById("cases");
  if (!table) { return; }
  var form = document.getElementById("case-filters");
  var count = document.getElementById("f-count");
  var bodies = Array.prototype.slice.call(table.tBodies);
  var KEYS = {"""
    + _KEYS_JS
    + """};
  var RANK = {
    s: {fail: 0, error: 1, errored: 2, flaky: 3, pass: 4, skipped: 5},
    g: {fail: 0, undecided: 1, pass: 2}
  };
  var state = {filter: [], fn: "", gate: "", q: "", sort: ""};
  var sorted = false;

  function keyOf(name) {
    if (Object.prototype.hasOwnProperty.call(KEYS, name)) { return KEYS[name]; }
    if (/^m[0-9]+$/.test(name)) { return [name, "n"]; }
    return null;
  }
  function read() {
    var raw = location.hash.replace(/^#/, "");
    if (raw.indexOf("=") < 0) { return false; }
    var params = new URLSearchParams(raw);
    state.filter = (params.get("filter") || "").toLowerCase().split(",")
      .map(function (s) { return s.trim(); }).filter(Boolean);
    state.fn = params.get("fn") || "";
    state.gate = (params.get("gate") || "").toLowerCase();
    state.q = params.get("q") || "";
    state.sort = params.get("sort") || "";
    return true;
  }
  function write() {
    var params = new URLSearchParams();
    if (state.filter.length) { params.set("filter", state.filter.join(",")); }
    if (state.fn) { params.set("fn", state.fn); }
    if (state.gate) { params.set("gate", state.gate); }
    if (state.q) { params.set("q", state.q); }
    if (state.sort) { params.set("sort", state.sort); }
    var text = params.toString();
    var url = location.pathname + location.search + (text ? "#" + text : "");
    try {
      history.replaceState(null, "", url);
    } catch (ignored) { /* some file: URLs refuse; the view still works */ }
  }
  function choose(select, value) {
    if (!select) { return; }
    var found = false;
    Array.prototype.forEach.call(select.options, function (option) {
      if (option.value === value) { found = true; }
    });
    if (!found && value) {
      var extra = document.createElement("option");
      extra.value = value;
      extra.textContent = value;
      select.appendChild(extra);
    }
    select.value = value;
  }
  function sync() {
    choose(document.getElementById("f-filter"), state.filter.join(","));
    choose(document.getElementById("f-fn"), state.fn);
    choose(document.getElementById("f-gate"), state.gate);
    var query = document.getElementById("f-q");
    if (query) { query.value = state.q; }
  }
  function caseText(body) { return body.rows[0].cells[0].textContent; }
  function value(body, attr, kind) {
    var raw = attr ? body.getAttribute("data-" + attr) : caseText(body);
    if (raw === null || raw === "") { return null; }
    if (kind === "n") { var x = parseFloat(raw); return isNaN(x) ? null : x; }
    if (kind === "s" || kind === "g") {
      return Object.prototype.hasOwnProperty.call(RANK[kind], raw) ? RANK[kind][raw] : 9;
    }
    return raw.toLowerCase();
  }
  function sort() {
    var name = state.sort, descending = false;
    if (name.charAt(0) === "-") { descending = true; name = name.slice(1); }
    var key = keyOf(name);
    if (!key) { key = KEYS.order; descending = false; name = ""; }
    if (!name && !sorted) { markHeaders(null, false); return; }
    sorted = true;
    var rows = bodies.map(function (body) {
      return [value(body, key[0], key[1]), parseInt(body.getAttribute("data-i"), 10), body];
    });
    rows.sort(function (a, b) {
      if (a[0] === null || b[0] === null) {
        if (a[0] === b[0]) { return a[1] - b[1]; }
        return a[0] === null ? 1 : -1;
      }
      var order = a[0] < b[0] ? -1 : (a[0] > b[0] ? 1 : 0);
      return (descending ? -order : order) || a[1] - b[1];
    });
    var fragment = document.createDocumentFragment();
    rows.forEach(function (row) { fragment.appendChild(row[2]); });
    table.appendChild(fragment);
    markHeaders(name ? key : null, descending);
  }
  function markHeaders(key, descending) {
    Array.prototype.forEach.call(table.tHead.querySelectorAll("th"), function (th) {
      var button = th.querySelector("button[data-sort]");
      var own = button ? keyOf(button.getAttribute("data-sort")) : null;
      var active = key && own && own[0] === key[0];
      th.setAttribute("aria-sort", active ? (descending ? "descending" : "ascending") : "none");
    });
  }
  function filter() {
    var query = state.q.toLowerCase(), shown = 0;
    bodies.forEach(function (body) {
      var keep = (!state.filter.length ||
          state.filter.indexOf(body.getAttribute("data-status")) >= 0) &&
        (!state.fn || body.getAttribute("data-fn") === state.fn) &&
        (!state.gate || body.getAttribute("data-gate") === state.gate) &&
        (!query || caseText(body).toLowerCase().indexOf(query) >= 0);
      body.hidden = !keep;
      if (keep) { shown += 1; }
    });
    if (count) { count.textContent = shown + " of " + bodies.length + " cases shown"; }
  }
  function apply() { filter(); sort(); }

  if (form) {
    form.hidden = false;
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("change", function (event) {
      var target = event.target, param = target.getAttribute("data-param");
      if (param === "filter") {
        state.filter = target.value ? target.value.split(",") : [];
      } else if (param === "fn" || param === "gate") {
        state[param] = target.value;
      } else { return; }
      filter(); write();
    });
    var query = document.getElementById("f-q");
    if (query) {
      query.addEventListener("input", function () { state.q = query.value; filter(); write(); });
    }
  }
  table.tHead.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button[data-sort]") : null;
    if (!button) { return; }
    var name = button.getAttribute("data-sort");
    state.sort = state.sort === name ? "-" + name : name;
    sort(); write();
  });
  window.addEventListener("hashchange", function () { if (read()) { sync(); apply(); } });
  read();
  sync();
  apply();
}());
"""
)


def script_hash(script: str = SCRIPT) -> str:
    """The CSP source expression allowing exactly this script (``'sha256-…'``)."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"
