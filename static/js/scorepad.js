// Keep the sheet where the player left it: a tap swaps the whole #game block,
// which would otherwise scroll the sheet back to its top-left corner.
(function () {
  "use strict";
  var saved = null;
  document.addEventListener("htmx:beforeSwap", function () {
    var wrap = document.querySelector(".sheet-wrap");
    saved = wrap ? [wrap.scrollTop, wrap.scrollLeft] : null;
  });
  document.addEventListener("htmx:afterSwap", function () {
    var wrap = document.querySelector(".sheet-wrap");
    if (wrap && saved) {
      wrap.scrollTop = saved[0];
      wrap.scrollLeft = saved[1];
    }
  });
})();

// A request that got no answer (no network, a server error): say so where the eyes are,
// rather than leave a tap looking as if it was saved. A write says it was not saved; a
// read (the 2-second poll) that the page may be out of date. Gone at the next answer.
(function () {
  "use strict";
  function warn(event) {
    var config = event.detail && event.detail.requestConfig;
    var write = config && config.verb && config.verb !== "get";
    var text = document.body.dataset[write ? "unsaved" : "stale"];
    var where = document.getElementById("panel") || document.getElementById("main");
    if (!text || !where) {
      return;
    }
    var note = document.getElementById("request-failed");
    if (!note) {
      note = document.createElement("p");
      note.id = "request-failed";
      note.className = "error";
      note.setAttribute("role", "alert");
      where.prepend(note);
    }
    note.textContent = text;
  }
  document.addEventListener("htmx:sendError", warn);
  document.addEventListener("htmx:responseError", warn);
  document.addEventListener("htmx:timeout", warn);
  document.addEventListener("htmx:afterRequest", function (event) {
    var note = document.getElementById("request-failed");
    if (note && event.detail && event.detail.successful) {
      note.remove();
    }
  });
})();

// The player strip scrolls sideways when the names do not fit (eight players on a phone):
// bring the player whose turn it is into it, on load and after each swap of the game.
(function () {
  "use strict";
  function showCurrent() {
    var strip = document.querySelector("nav.strip");
    var chip = strip && strip.querySelector("[aria-current]");
    if (!chip || strip.scrollWidth <= strip.clientWidth) {
      return;
    }
    var box = strip.getBoundingClientRect();
    var at = chip.getBoundingClientRect();
    if (at.left < box.left || at.right > box.right) {
      strip.scrollLeft += at.left - box.left - (box.width - at.width) / 2;
    }
  }
  document.addEventListener("DOMContentLoaded", showCurrent);
  document.addEventListener("htmx:afterSwap", showCurrent);
})();
