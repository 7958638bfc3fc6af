// Live deadline countdowns and local times; the page reads fine without this.
(function () {
  "use strict";
  function left(ms) {
    if (ms <= 0) { return "passed"; }
    var s = Math.floor(ms / 1000), d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600),
        m = Math.floor((s % 3600) / 60), sec = s % 60;
    // the server's words (no minutes beside days): the text keeps its length and the page does not move
    if (d > 0) { return "in " + d + " d " + h + " h"; }
    if (h > 0) { return "in " + h + " h " + m + " min"; }
    return "in " + m + " min " + sec + " s";
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll("[data-countdown]").forEach(function (el) {
      var at = Date.parse(el.getAttribute("data-countdown"));
      if (!isNaN(at)) { el.textContent = left(at - now); }
    });
  }
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  // Written out by hand: the first toLocaleString() loads the browser's locale data, a long task on a phone.
  function local(at) {
    var offset = -at.getTimezoneOffset(), sign = offset >= 0 ? "+" : "-";
    offset = Math.abs(offset);
    return at.getFullYear() + "-" + pad(at.getMonth() + 1) + "-" + pad(at.getDate()) + " " + pad(at.getHours()) +
      ":" + pad(at.getMinutes()) + " (UTC" + sign + pad(Math.floor(offset / 60)) + ":" + pad(offset % 60) + ")";
  }
  function showLocal() {
    document.querySelectorAll("[data-local-for]").forEach(function (el) {
      var at = new Date(el.getAttribute("data-local-for"));
      if (!isNaN(at.getTime())) {
        el.textContent = "your time: " + local(at);
        el.hidden = false;
      }
    });
  }
  showLocal();
  document.addEventListener("pbem:updated", showLocal);  // parts of a live page were replaced
  if (document.querySelector("[data-countdown]")) { tick(); setInterval(tick, 1000); }
}());
