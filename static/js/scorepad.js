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
