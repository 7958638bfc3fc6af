// Live deadline countdowns, and times in the reader's own zone.  The server writes every time in
// the zone the reader chose, or in UTC when it does not know one (<time data-when>): this script
// then rewrites it into the browser's zone, in the same shape, with UTC beside it.  The page reads
// fine without it.
(function () {
  "use strict";
  var DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
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
  function day(at) {
    return DAYS[at.getDay()] + " " + pad(at.getDate()) + " " + MONTHS[at.getMonth()] + ", " + pad(at.getHours()) +
      ":" + pad(at.getMinutes());
  }
  function utc(at) { return pad(at.getUTCHours()) + ":" + pad(at.getUTCMinutes()) + " UTC"; }
  function showLocal() {
    if (new Date(0).getTimezoneOffset() === 0 && new Date(15552000000).getTimezoneOffset() === 0) { return; }  // UTC already
    document.querySelectorAll("time[data-when]").forEach(function (el) {
      var at = new Date(el.getAttribute("datetime"));
      if (isNaN(at.getTime())) { return; }
      el.textContent = day(at);
      el.removeAttribute("data-when");
      var beside = el.closest(".deadline") && el.closest(".deadline").querySelector("[data-utc-for]");
      if (beside) {
        beside.textContent = " · " + utc(at);
      } else {
        var note = document.createElement("span");
        note.className = "muted";
        note.textContent = " (" + utc(at) + ")";
        el.after(note);
      }
    });
  }
  // A zone picker the reader never set (<select data-guess-zone>) starts at the browser's zone, the one
  // pages already show, rather than at UTC.
  function guessZone() {
    var picker = document.querySelector("select[data-guess-zone]");
    if (!picker || !window.Intl) { return; }
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && Array.prototype.some.call(picker.options, function (o) { return o.value === zone; })) {
      picker.value = zone;
    }
  }
  showLocal();
  guessZone();
  document.addEventListener("pbem:updated", showLocal);  // parts of a live page were replaced
  if (document.querySelector("[data-countdown]")) { tick(); setInterval(tick, 1000); }
}());
