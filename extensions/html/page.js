
(function () {
  "use strict";
  var table = document.getElementById("cases");
  if (!table) { return; }
  var form = document.getElementById("case-filters");
  var count = document.getElementById("f-count");
  var bodies = Array.prototype.slice.call(table.tBodies);
  var KEYS = {/* SORT_KEYS */};
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
