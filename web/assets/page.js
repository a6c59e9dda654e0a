// Live updates: the server sends, for each batch of committed transitions,
// the parts of the page it changed, rendered (and escaped) on the server.
(function () {
  "use strict";
  if (!window.EventSource) return;
  var body = document.body;
  var src = new EventSource("events?since=" + encodeURIComponent(body.dataset.seq || "0"));
  src.addEventListener("patch", function (e) {
    var p = JSON.parse(e.data);
    p.parts.forEach(function (part) {
      var el = document.getElementById(part.id);
      if (!el) return;
      var open = el.querySelector && el.querySelector("details[open]");
      var t = document.createElement("template");
      t.innerHTML = part.html;
      var next = t.content.firstElementChild;
      if (!next) { el.remove(); return; }
      if (open) { var d = next.querySelector("details"); if (d) d.open = true; }
      el.replaceWith(next);
      if (next.classList.contains("task")) next.classList.add("flash");
    });
    body.dataset.seq = String(p.seq);
    if (p.title) document.title = p.title;
  });
  // The server lost track of what this page shows (a new run, a missed
  // compaction): the page is read again.
  src.addEventListener("reload", function () { src.close(); location.reload(); });
})();
