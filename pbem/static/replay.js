// The status page's replay without page reloads: the step links and the select
// fetch the same page for another step and swap in its replay section.  Without
// this script the links, the select and its Show button work as plain requests.
(function () {
  "use strict";
  var section = document.querySelector("[data-replay]");
  if (!section || !window.fetch || !window.DOMParser) { return; }

  function show(url, push) {
    section.setAttribute("aria-busy", "true");
    fetch(url, {credentials: "same-origin"}).then(function (response) {
      if (!response.ok) { throw new Error("HTTP " + response.status); }
      return response.text();
    }).then(function (html) {
      // A drawn board's <style> carries the nonce of the response it came from, which this page's CSP
      // does not name: its rules are taken out before parsing and added to this page's own sheet.
      var css = [];
      html = html.replace(/<style[^>]*>([^<]*)<\/style>/g, function (all, text) { css.push(text); return ""; });
      var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("[data-replay]");
      if (!fresh) { throw new Error("no replay in the page"); }
      var node = document.importNode(fresh, true);
      addRules(css);
      section.replaceWith(node);
      section = node;
      if (push) { history.pushState({replay: url}, "", url); }
      var label = section.querySelector("[data-frame-label]");
      if (label) { label.focus({preventScroll: true}); }
    }).catch(function () {
      window.location.href = url;  // fall back to a plain page load
    });
  }

  function addRules(css) {
    var own = document.querySelector("style[nonce]");
    if (!own || !own.sheet) { return; }
    css.join("").split("}").forEach(function (rule) {
      if (!rule.trim()) { return; }
      try { own.sheet.insertRule(rule + "}", own.sheet.cssRules.length); } catch (error) { /* skip a bad rule */ }
    });
  }

  function stepUrl(value) {
    var url = new URL(window.location.href);
    url.searchParams.set("replay", value);
    url.hash = "replay";
    return url.toString();
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[data-step]") : null;
    if (!link || !section.contains(link) || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    event.preventDefault();
    show(link.href, true);
  });
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("[data-step-select]") && section.contains(event.target)) {
      show(stepUrl(event.target.value), true);
    }
  });
  document.addEventListener("submit", function (event) {
    var select = event.target.querySelector ? event.target.querySelector("[data-step-select]") : null;
    if (!select || !section.contains(event.target)) { return; }
    event.preventDefault();
    show(stepUrl(select.value), true);
  });
  document.addEventListener("keydown", function (event) {
    if (!section.contains(document.activeElement) || event.target.matches("select, input, textarea")) { return; }
    var rel = event.key === "ArrowLeft" ? 0 : event.key === "ArrowRight" ? 1 : -1;
    if (rel < 0) { return; }
    var wanted = section.querySelector(rel === 0 ? 'a[data-step="prev"]' : 'a[data-step="next"]');
    if (wanted) { event.preventDefault(); show(wanted.href, true); }
  });
  window.addEventListener("popstate", function () { show(window.location.href, false); });
}());
