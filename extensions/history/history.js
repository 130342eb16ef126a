
(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (!form) { return; }
  var count = document.getElementById("f-count");
  var input = document.getElementById("f-q");
  var show = document.getElementById("f-show");
  var order = document.getElementById("f-sort");
  var SHOWS = {"": 1, real: 1, worse: 1, better: 1, gated: 1, "new": 1};
  var SORTS = {"": null, name: "name", rate: "rate", change: "change", p: "p"};
  var total = 0;
  var state = {q: "", show: "", sort: ""};
  var sorted = false;

  function number(raw) {
    if (raw === null || raw === "") { return null; }
    var value = parseFloat(raw);
    return isNaN(value) ? null : value;
  }
  var groups = Array.prototype.map.call(document.querySelectorAll("section.fn"), function (section) {
    var grid = section.querySelector("div.cards");
    var fn = (section.getAttribute("data-fn") || "").toLowerCase();
    var cards = Array.prototype.map.call(grid.children, function (card) {
      var name = card.querySelector("h3").textContent;
      total += 1;
      return {
        el: card,
        name: name,
        lower: name.toLowerCase(),
        status: card.getAttribute("data-status") || "",
        gated: card.hasAttribute("data-gated"),
        i: parseInt(card.getAttribute("data-i"), 10),
        rate: number(card.getAttribute("data-rate")),
        change: number(card.getAttribute("data-change")),
        p: number(card.getAttribute("data-p"))
      };
    });
    return {section: section, grid: grid, fn: fn, cards: cards};
  });

  function read() {
    var raw = location.hash.replace(/^#/, "");
    if (raw.indexOf("=") < 0) { return false; }
    var params = new URLSearchParams(raw);
    state.q = params.get("q") || "";
    state.show = (params.get("show") || "").toLowerCase();
    if (!Object.prototype.hasOwnProperty.call(SHOWS, state.show)) { state.show = ""; }
    state.sort = params.get("sort") || "";
    return true;
  }
  function write() {
    var params = new URLSearchParams();
    if (state.q) { params.set("q", state.q); }
    if (state.show) { params.set("show", state.show); }
    if (state.sort) { params.set("sort", state.sort); }
    var text = params.toString();
    try {
      history.replaceState(null, "", location.pathname + location.search + (text ? "#" + text : ""));
    } catch (ignored) { /* some file: URLs refuse; the view still works */ }
  }
  function choose(select, value) {
    var found = Array.prototype.some.call(select.options, function (option) {
      return option.value === value;
    });
    select.value = found ? value : "";
  }
  function sync() {
    input.value = state.q;
    choose(show, state.show);
    choose(order, state.sort);
  }
  function wanted(card) {
    switch (state.show) {
      case "real": return card.status === "worse" || card.status === "better";
      case "worse": case "better": case "new": return card.status === state.show;
      case "gated": return card.gated;
      default: return true;
    }
  }
  function filter() {
    var query = state.q.toLowerCase(), shown = 0;
    groups.forEach(function (group) {
      var inGroup = 0, byFunction = !query || group.fn.indexOf(query) >= 0;
      group.cards.forEach(function (card) {
        var keep = wanted(card) && (byFunction || card.lower.indexOf(query) >= 0);
        if (card.el.hidden === keep) { card.el.hidden = !keep; }
        if (keep) { inGroup += 1; }
      });
      if (group.section.hidden === (inGroup > 0)) { group.section.hidden = inGroup === 0; }
      shown += inGroup;
    });
    count.textContent = "showing " + shown + " of " + total + " cases";
  }
  function compare(key, descending) {
    return function (a, b) {
      var x = key === "name" ? a.lower : a[key], y = key === "name" ? b.lower : b[key];
      if (x === null || y === null) {
        if (x === y) { return a.i - b.i; }
        return x === null ? 1 : -1;
      }
      var sign = x < y ? -1 : (x > y ? 1 : 0);
      return (descending ? -sign : sign) || a.i - b.i;
    };
  }
  function sort() {
    var name = state.sort, descending = name.charAt(0) === "-";
    if (descending) { name = name.slice(1); }
    var key = Object.prototype.hasOwnProperty.call(SORTS, name) ? SORTS[name] : null;
    if (!key && !sorted) { return; }
    sorted = true;
    groups.forEach(function (group) {
      var cards = group.cards.slice();
      cards.sort(key ? compare(key, descending) : function (a, b) { return a.i - b.i; });
      var fragment = document.createDocumentFragment();
      cards.forEach(function (card) { fragment.appendChild(card.el); });
      group.grid.appendChild(fragment);
    });
  }
  function apply() { filter(); sort(); }
  function reveal() {
    var raw = location.hash.replace(/^#/, "");
    var target = raw && raw.indexOf("=") < 0 ? document.getElementById(raw) : null;
    if (target && target.closest && target.closest("[hidden]")) {
      state.q = ""; state.show = "";
      sync(); filter();
      target.scrollIntoView();
    }
  }

  form.hidden = false;
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  input.addEventListener("input", function () { state.q = input.value; filter(); write(); });
  show.addEventListener("change", function () { state.show = show.value; filter(); write(); });
  order.addEventListener("change", function () { state.sort = order.value; sort(); write(); });
  window.addEventListener("hashchange", function () {
    if (read()) { sync(); apply(); } else { reveal(); }
  });
  read();
  sync();
  apply();
}());
