// Pages that update themselves.  Every few seconds (while the tab is visible) the
// page asks for itself again with If-None-Match: an unchanged page is a bodiless
// 304.  On a change, each part marked data-live is replaced by the fresh one,
// except a part the reader is editing (it is kept, and the cue says so), and the
// cue (an aria-live region) says what changed.  Without this script the page is
// the same and a reload shows the news.
(function () {
  "use strict";
  var body = document.body;
  var etag = body.getAttribute("data-live-etag");
  if (!etag || !window.fetch || !window.DOMParser) { return; }
  if (etag.indexOf('"') < 0) { etag = 'W/"' + etag + '"'; }  // the page carries its tag's bare value
  var timer = null, failures = 0, served = {};

  // The parts as served, to tell a real change from the marks of this page's other scripts (which run after this one).
  document.querySelectorAll("[data-live]").forEach(function (region) {
    served[region.getAttribute("data-live")] = region.innerHTML;
  });

  function every() { return (parseInt(body.getAttribute("data-live-every"), 10) || 0) * 1000; }

  function edited(field) {
    if (field.type === "hidden" || field.type === "submit" || field.type === "button") { return false; }
    if (field.tagName === "SELECT") {
      return Array.prototype.some.call(field.options, function (o) { return o.selected !== o.defaultSelected; });
    }
    if (field.type === "checkbox" || field.type === "radio") { return field.checked !== field.defaultChecked; }
    return field.value !== field.defaultValue;
  }

  function busy(region) {
    var active = document.activeElement;
    if (active && active !== body && region.contains(active) && active.matches("input, select, textarea")) { return true; }
    return Array.prototype.some.call(region.querySelectorAll("input, select, textarea"), edited);
  }

  function addRules(css) {
    // A drawn board's <style> carries the nonce of the response it came from, which this page's
    // Content-Security-Policy does not name: its rules go into this page's own sheet instead.
    var own = document.querySelector("head style[nonce]") || document.querySelector("style[nonce]");
    if (!own || !own.sheet) { return; }
    css.join("").split("}").forEach(function (rule) {
      if (!rule.trim()) { return; }
      try { own.sheet.insertRule(rule + "}", own.sheet.cssRules.length); } catch (error) { /* skip a bad rule */ }
    });
  }

  function openDetails(region) {
    return Array.prototype.filter.call(region.querySelectorAll("details[open] > summary"), Boolean)
      .map(function (summary) { return summary.textContent; });
  }

  function swap(html) {
    var css = [];
    html = html.replace(/<style[^>]*>([^<]*)<\/style>/g, function (all, text) { css.push(text); return ""; });
    var fresh = new DOMParser().parseFromString(html, "text/html");
    addRules(css);
    var kept = 0;
    document.querySelectorAll("[data-live]").forEach(function (region) {
      var name = region.getAttribute("data-live");
      var next = fresh.querySelector('[data-live="' + name + '"]');
      if (!next || next.innerHTML === served[name]) { return; }
      if (busy(region)) { kept += 1; return; }
      var wasOpen = openDetails(region);
      var node = document.importNode(next, true);
      node.querySelectorAll("details > summary").forEach(function (summary) {
        if (wasOpen.indexOf(summary.textContent) >= 0) { summary.parentNode.open = true; }
      });
      node.classList.add("live-updated");
      region.replaceWith(node);
      served[name] = next.innerHTML;
    });
    if (fresh.title) { document.title = fresh.title; }
    body.setAttribute("data-live-every", fresh.body.getAttribute("data-live-every") || "0");
    var cue = document.querySelector("[data-live-cue]");
    if (cue) {
      var said = fresh.body.getAttribute("data-live-summary") || "this page changed.";
      var time = new Date().toLocaleTimeString(undefined, {hour: "2-digit", minute: "2-digit"});
      cue.textContent = "Updated at " + time + ": " + said +
        (kept ? " The part you are editing was kept as it is; reload the page to see all of it." : "");
    }
    document.dispatchEvent(new CustomEvent("pbem:updated"));
  }

  function poll() {
    timer = null;
    if (document.visibilityState === "hidden") { return; }  // asked again when the tab is shown
    fetch(window.location.pathname + window.location.search, {
      headers: {"If-None-Match": etag}, credentials: "same-origin", cache: "no-store"
    }).then(function (response) {
      if (response.status === 304) { return null; }
      if (!response.ok) { throw new Error("HTTP " + response.status); }
      var tag = response.headers.get("ETag");
      return response.text().then(function (html) {
        swap(html);
        if (tag) { etag = tag; }
      });
    }).then(function () { failures = 0; schedule(); }, function () { failures += 1; schedule(); });
  }

  function schedule() {
    clearTimeout(timer);
    if (every()) { timer = setTimeout(poll, every() * Math.pow(2, Math.min(failures, 4))); }
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && every()) { clearTimeout(timer); poll(); }
  });
  schedule();
}());
