// What the phone itself does for the table: the site installs and answers an
// offline page, the screen stays awake during a game, a link shares in one tap. Each part
// does nothing where the browser lacks what it needs: the page works the same without.

// The service worker (templates/sw.js): registered once the page has loaded, so it never
// competes with the page's own first requests.
(function () {
  "use strict";
  var script = document.currentScript;
  var url = script && script.dataset.serviceWorker;
  if (!url || !("serviceWorker" in navigator)) {
    return;
  }
  window.addEventListener("load", function () {
    navigator.serviceWorker.register(url).catch(function () {
      // Refused (a private window, an insecure origin): the site is simply not offline-ready.
    });
  });
  // The offline page comes back by itself when the network does.
  if (document.body && document.body.hasAttribute("data-offline")) {
    window.addEventListener("online", function () {
      window.location.reload();
    });
  }
})();

// The screen stays on while a game page is open (body[data-keep-awake]): a phone lying on
// the table between turns would otherwise dim and lock. The browser drops the lock when
// the page is hidden; it is asked again when the page shows. The Game menu's switch turns
// it off, remembered on this phone.
(function () {
  "use strict";
  var KEY = "scorepad.keepAwake";
  if (!("wakeLock" in navigator) || !document.body.hasAttribute("data-keep-awake")) {
    return;
  }
  var lock = null;
  var asking = false;

  function wanted() {
    try {
      return window.localStorage.getItem(KEY) !== "off";
    } catch (e) {
      return true;
    }
  }

  function remember(on) {
    try {
      window.localStorage.setItem(KEY, on ? "on" : "off");
    } catch (e) {
      // Storage refused: the switch still holds for this page.
    }
  }

  function take() {
    if (lock || asking || !wanted() || document.visibilityState !== "visible") {
      return;
    }
    asking = true;
    navigator.wakeLock.request("screen").then(function (sentinel) {
      asking = false;
      // Switched off or hidden while the browser was answering.
      if (!wanted() || document.visibilityState !== "visible") {
        sentinel.release();
        return;
      }
      lock = sentinel;
      sentinel.addEventListener("release", function () {
        if (lock === sentinel) {
          lock = null;
        }
      });
    }, function () {
      // Refused (battery saver, a policy): the screen sleeps as it always did.
      asking = false;
    });
  }

  function drop() {
    var held = lock;
    lock = null;
    if (held) {
      held.release();
    }
  }

  // htmx swaps the whole game, menu included: each new switch shows this phone's choice.
  function showSwitches() {
    var boxes = document.querySelectorAll("[data-keep-awake-switch]");
    for (var i = 0; i < boxes.length; i++) {
      boxes[i].checked = wanted();
      boxes[i].closest(".keep-awake").hidden = false;
    }
  }

  document.addEventListener("change", function (event) {
    if (!event.target.matches("[data-keep-awake-switch]")) {
      return;
    }
    remember(event.target.checked);
    if (event.target.checked) {
      take();
    } else {
      drop();
    }
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      take();
    } else {
      drop();
    }
  });
  window.addEventListener("pagehide", drop);
  // Back from the browser's page cache, where pagehide let the lock go.
  window.addEventListener("pageshow", take);
  document.addEventListener("htmx:afterSettle", showSwitches);
  showSwitches();
  take();
})();

// Share in one tap (the evening's share page): the phone's share sheet where there is one,
// else "Copy link" and a "Copied" notice in the card's status line. The link and its QR
// code stay as they are, for the other phones.
(function () {
  "use strict";
  var canShare = typeof navigator.share === "function";
  var canCopy = !!(navigator.clipboard && navigator.clipboard.writeText);

  function say(button) {
    var status = button.parentNode.querySelector("[role=status]");
    if (!status) {
      return;
    }
    status.textContent = status.dataset.copied;
    window.clearTimeout(status.timer);
    status.timer = window.setTimeout(function () {
      status.textContent = "";
    }, 4000);
  }

  function copy(button, url) {
    navigator.clipboard.writeText(url).then(function () {
      say(button);
    }, function () {
      // Refused: the link stays on the page to select by hand.
    });
  }

  var shares = document.querySelectorAll("[data-share]");
  var copies = document.querySelectorAll("[data-copy]");
  for (var i = 0; i < shares.length; i++) {
    shares[i].hidden = !canShare;
  }
  for (var j = 0; j < copies.length; j++) {
    copies[j].hidden = canShare || !canCopy;
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-share], [data-copy]");
    if (!button) {
      return;
    }
    if (button.dataset.share) {
      var url = button.dataset.share;
      navigator.share({ title: document.title, url: url }).catch(function (error) {
        // Closed by the person: nothing to do. Anything else: copy instead.
        if (error && error.name !== "AbortError" && canCopy) {
          copy(button, url);
        }
      });
    } else {
      copy(button, button.dataset.copy);
    }
  });
})();
