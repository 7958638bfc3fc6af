// Live deadline countdowns and local times; the page reads fine without this.
(function () {
  "use strict";
  function left(ms) {
    if (ms <= 0) { return "passed"; }
    var s = Math.floor(ms / 1000), d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600),
        m = Math.floor((s % 3600) / 60), sec = s % 60;
    if (d > 0) { return "in " + d + " d " + h + " h " + m + " min"; }
    if (h > 0) { return "in " + h + " h " + m + " min " + sec + " s"; }
    return "in " + m + " min " + sec + " s";
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll("[data-countdown]").forEach(function (el) {
      var at = Date.parse(el.getAttribute("data-countdown"));
      if (!isNaN(at)) { el.textContent = left(at - now); }
    });
  }
  document.querySelectorAll("[data-local-for]").forEach(function (el) {
    var at = new Date(el.getAttribute("data-local-for"));
    if (!isNaN(at.getTime())) {
      el.textContent = "— your time: " + at.toLocaleString(undefined, {dateStyle: "medium", timeStyle: "short"});
      el.hidden = false;
    }
  });
  if (document.querySelector("[data-countdown]")) { tick(); setInterval(tick, 1000); }
}());
