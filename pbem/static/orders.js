// The order form, enhanced.  A tap on the board (a square, card, coin, seat or
// unit marked data-pick) offers the legal orders that name it (a phrase that
// starts with "^": the orders that start with it, "^A par" a unit's own); the chosen order is
// shown before it is sent; one that takes effect at once is confirmed first; the
// box for the player's own words shows only for an order that needs them.
// Without this script the same form works as it is (the server asks to confirm).
(function () {
  "use strict";

  function form() { return document.querySelector("[data-order-form]"); }
  // An order's words, lower-case; "spa(sc)" is read as "spa/sc" and "par-bur" as "par - bur".
  function words(text) {
    return text.toLowerCase().replace(/\(/g, "/").replace(/\)/g, "").replace(/-/g, " - ")
      .split(/\s+/).filter(Boolean);
  }

  // True if the order's words hold the phrase's words, in a row (at the start, for "^...").
  function holds(order, phrase) {
    var start = phrase.charAt(0) === "^";
    var o = words(order), p = words(start ? phrase.slice(1) : phrase);
    if (!p.length) { return false; }
    for (var i = 0; i + p.length <= o.length && (i === 0 || !start); i += 1) {
      var all = true;
      for (var j = 0; j < p.length && all; j += 1) { all = o[i + j] === p[j]; }
      if (all) { return true; }
    }
    return false;
  }

  function choices(f) {
    return Array.prototype.filter.call(f.querySelectorAll("[data-order-select] option"), function (o) { return o.value; });
  }

  function matching(f, element) {
    var phrases = element.getAttribute("data-pick").split("|");
    return choices(f).filter(function (option) {
      return phrases.some(function (phrase) { return holds(option.value, phrase); });
    });
  }

  function chosen(f) {
    var select = f.querySelector("[data-order-select]");
    return select.options[select.selectedIndex] || null;
  }

  function line(f) {
    var option = chosen(f), text = f.querySelector("[data-order-text]");
    if (!option || !option.value) { return ""; }
    return option.hasAttribute("data-text") ? option.value + " " + ((text && text.value.trim()) || "…") : option.value;
  }

  function refresh(f) {
    var option = chosen(f);
    var needsText = Boolean(option && option.hasAttribute("data-text"));
    var part = f.querySelector("[data-text-part]"), text = f.querySelector("[data-order-text]");
    if (part) { part.hidden = !needsText; text.required = needsText; }
    var preview = f.querySelector("[data-order-preview]");
    preview.hidden = !(option && option.value);
    if (!preview.hidden) {
      preview.querySelector("[data-preview-line]").textContent = line(f);
      preview.querySelector("[data-preview-note]").textContent = option.hasAttribute("data-final")
        ? "(takes effect at once)" : "(you may change it until the turn ends)";
    }
    f.querySelector("[data-confirm]").hidden = true;
    f.querySelector("[data-send]").hidden = false;
  }

  function choose(f, value) {
    var select = f.querySelector("[data-order-select]");
    select.value = value;
    refresh(f);
    var option = chosen(f);
    var next = option && option.hasAttribute("data-text") ? f.querySelector("[data-order-text]") : f.querySelector("[data-send]");
    if (next) { next.focus({preventScroll: true}); }
  }

  function showPicks(f, element) {
    var found = matching(f, element), panel = f.querySelector("[data-picks]");
    var name = element.getAttribute("data-pick").split("|")[0].replace(/^\^/, "");
    document.querySelectorAll(".picked").forEach(function (el) { el.classList.remove("picked"); });
    element.classList.add("picked");
    panel.textContent = "";
    var head = document.createElement("p");
    panel.appendChild(head);
    if (!found.length) {
      head.textContent = "No legal order names " + name + " now.";
    } else if (found.length === 1) {
      head.textContent = name + ": one order, chosen below.";
      choose(f, found[0].value);
    } else {
      head.textContent = name + ": " + found.length + " orders. Choose one:";
      var list = document.createElement("div");
      list.className = "buttons";
      found.forEach(function (option) {
        var button = document.createElement("button");
        button.type = "button";
        button.className = "secondary";
        button.textContent = option.textContent;
        button.setAttribute("data-pick-order", option.value);
        list.appendChild(button);
      });
      panel.appendChild(list);
    }
    panel.hidden = false;
    panel.scrollIntoView({block: "nearest"});
  }

  function init() {
    var f = form();
    if (!f) { return; }
    var board = document.querySelector(".play-board");
    var any = false;
    if (board) {
      board.querySelectorAll("[data-pick]").forEach(function (element) {
        var usable = matching(f, element).length > 0;
        element.classList.toggle("pickable", usable);
        any = any || usable;
      });
    }
    var hint = f.querySelector("[data-pick-hint]");
    if (hint) { hint.hidden = !any; }
    refresh(f);
  }

  document.addEventListener("click", function (event) {
    var f = form();
    if (!f || !event.target.closest) { return; }
    var order = event.target.closest("[data-pick-order]");
    if (order && f.contains(order)) {
      // The choice is shown in the preview; the list folds away so the board is seen again.
      f.querySelector("[data-picks]").hidden = true;
      choose(f, order.getAttribute("data-pick-order"));
      return;
    }
    var element = event.target.closest(".play-board [data-pick]");
    if (element) { showPicks(f, element); return; }
    if (event.target.closest("[data-confirm-no]") && f.contains(event.target)) {
      f.querySelector("[data-confirm]").hidden = true;
      f.querySelector("[data-send]").hidden = false;
      f.querySelector("[data-order-select]").focus();
    }
  });

  document.addEventListener("change", function (event) {
    var f = form();
    if (f && f.contains(event.target)) { refresh(f); }
  });
  document.addEventListener("input", function (event) {
    var f = form();
    if (f && event.target.matches("[data-order-text]") && f.contains(event.target)) {
      f.querySelector("[data-preview-line]").textContent = line(f);
    }
  });

  document.addEventListener("submit", function (event) {
    var f = event.target;
    if (!f.matches || !f.matches("[data-order-form]")) { return; }
    var submitter = event.submitter;
    if (submitter && submitter.name === "confirmed") { return; }  // the answer to "send?"
    var option = chosen(f);
    if (!option || !option.hasAttribute("data-final")) { return; }
    event.preventDefault();
    f.querySelector("[data-confirm-line]").textContent = line(f);
    f.querySelector("[data-confirm]").hidden = false;
    f.querySelector("[data-send]").hidden = true;
    f.querySelector("[data-confirm-yes]").focus();
  });

  document.addEventListener("pbem:updated", init);
  init();
}());
