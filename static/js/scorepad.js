// Keep the sheet where the player left it: a tap swaps the whole #game block,
// which would otherwise scroll the sheet back to its top-left corner. When the player to play
// has changed (a score here or on another phone), the sheet follows the turn instead: it
// scrolls sideways to bring that player's columns into view, as the strip does their chip.
(function () {
  "use strict";
  var saved = null;
  var up = null;
  function playerUp() {
    var chip = document.querySelector("nav.strip [aria-current] [data-player]");
    return chip ? chip.dataset.player : null;
  }
  function showPlayerUp(wrap) {
    var heads = wrap.querySelectorAll("thead .colhead.current");
    if (!heads.length || wrap.scrollWidth <= wrap.clientWidth) return;
    var box = wrap.getBoundingClientRect();
    var labels = wrap.querySelector("thead .rowhead");
    // The row labels stay pinned on the left: the columns show right of them.
    var left = labels ? labels.getBoundingClientRect().right : box.left;
    var first = heads[0].getBoundingClientRect();
    var last = heads[heads.length - 1].getBoundingClientRect();
    // Centred, as far as they fit: clear of the fading edge, their neighbours in sight.
    var room = box.right - left;
    var span = Math.min(last.right - first.left, room);
    if (first.left < left || first.left + span > box.right) {
      wrap.scrollLeft += first.left - left - (room - span) / 2;
    }
  }
  document.addEventListener("htmx:beforeSwap", function () {
    var wrap = document.querySelector(".sheet-wrap");
    saved = wrap ? [wrap.scrollTop, wrap.scrollLeft] : null;
    up = playerUp();
  });
  document.addEventListener("htmx:afterSwap", function () {
    var wrap = document.querySelector(".sheet-wrap");
    if (wrap && saved) {
      wrap.scrollTop = saved[0];
      wrap.scrollLeft = saved[1];
      if (playerUp() !== up) showPlayerUp(wrap);
    }
  });
  document.addEventListener("DOMContentLoaded", function () {
    var wrap = document.querySelector(".sheet-wrap");
    if (wrap) showPlayerUp(wrap);
  });
})();

// A weak network loses no tap and doubles none. A write (a POST) that gets no answer (no
// network, a timeout, the server's 503 "try again") stays on the page marked "not sent
// yet", a banner says so, and the very same request (same form, so the same version) is
// sent again when the network returns, or after a short wait: the server stores a write
// once per version, so a copy that did arrive is answered like the first (or with the
// conflict message if another phone wrote first). Until it is through, no other write
// leaves (they would only be refused as out of date) and the polls wait. Polls that fail
// back off from 2 s to 15 s and return to 2 s once answered. A network that returns (the
// browser's online event) ends the back-off: the page asks at once, whatever it was waiting
// for (the back-off was up to 15 s, with the stream open nothing else would ask before).
(function () {
  "use strict";
  var queued = null; // {verb, path, values, elt}
  var retryTimer = null;
  var retryDelay = 0;
  var pollFailures = 0;
  var nextPollAt = 0;
  var returns = 0; // the network's returns (online events) so far

  function isWrite(config) {
    return config && config.verb && config.verb !== "get";
  }
  function isPoll(elt) {
    return elt && elt.classList && elt.classList.contains("poller");
  }
  function text(name) {
    return document.body.dataset[name] || "";
  }
  function banner(message) {
    var note = document.getElementById("request-failed");
    if (!message) {
      if (note) note.remove();
      return;
    }
    if (!note) {
      note = document.createElement("p");
      note.id = "request-failed";
      note.className = "error network";
      note.setAttribute("role", "alert");
      var where = document.getElementById("panel") || document.getElementById("main");
      if (!where) return;
      where.prepend(note);
    }
    note.textContent = message;
  }
  function mark(elt, on) {
    if (!elt || !elt.classList) return;
    elt.classList.toggle("unsent", on);
    if (on) elt.dataset.unsentLabel = text("unsentLabel");
  }
  function offlineText() {
    return text(navigator.onLine === false ? "noNetwork" : "unsent");
  }

  function queue(config) {
    if (!queued) {
      var values = {};
      if (config.formData) {
        config.formData.forEach(function (value, key) {
          values[key] = value;
        });
      }
      queued = { verb: config.verb, path: config.path, values: values, elt: config.elt };
      retryDelay = 0;
    }
    mark(queued.elt, true);
    banner(offlineText());
    schedule();
  }
  function schedule() {
    clearTimeout(retryTimer);
    retryDelay = Math.min(15000, retryDelay ? retryDelay * 2 : 2000);
    retryTimer = setTimeout(resend, retryDelay);
  }
  function resend() {
    clearTimeout(retryTimer);
    if (!queued) return;
    if (navigator.onLine === false) {
      schedule();
      return;
    }
    var write = queued;
    var target = document.getElementById("game") ? "#game" : "#main";
    write.sending = true;
    htmx.ajax(write.verb.toUpperCase(), write.path, {
      target: target,
      swap: "outerHTML",
      values: write.values,
    });
  }

  // The page's event stream (games/views/live.py): while it is open, the poller asks only
  // when the stream says the game moved past what the page shows; when it fails or ends,
  // the 2-second poll (with its back-off) takes over until it is open again. What the
  // stream told last is kept, and held against the page after every swap: a change told
  // while a swap or a write was under way is caught up then, never lost.
  var streaming = false;
  var told = null; // {v: version, n: newest game} as the stream said last
  var writing = 0; // writes sent and not answered: their answer will show the change
  function fromStream(config) {
    var trigger = config && config.triggeringEvent;
    return Boolean(trigger && trigger.type === "live");
  }
  function catchUp() {
    var game = document.getElementById("game");
    if (!told || !game || writing) return;
    var behind = String(told.v) !== game.dataset.version;
    if (behind || Number(told.n) > Number(game.dataset.newest || 0)) {
      htmx.trigger(document.body, "live");
    }
  }
  document.addEventListener("htmx:sseOpen", function (event) {
    streaming = true;
    var source = event.detail && event.detail.source;
    if (!source || source.scorepadListens) return;
    source.scorepadListens = true;
    source.addEventListener("changed", function (message) {
      try {
        told = JSON.parse(message.data);
      } catch (e) {
        return;
      }
      // The leaderboard's stream says only that its evening moved: it asks again each time.
      if (document.getElementById("game")) catchUp();
      else if (!writing) htmx.trigger(document.body, "live");
    });
  });
  document.addEventListener("htmx:sseError", function () {
    streaming = false;
  });
  document.addEventListener("htmx:sseClose", function () {
    streaming = false;
  });
  document.addEventListener("htmx:afterSettle", catchUp);
  // A stream opened again (after a network loss, a server restart) says where the page is now.
  document.addEventListener("htmx:afterSwap", function () {
    var live = document.querySelector("[sse-connect]");
    var game = document.getElementById("game");
    if (!live || !game) return;
    var url = new URL(live.getAttribute("sse-connect"), location.href);
    url.searchParams.set("v", game.dataset.version);
    if (game.dataset.newest) url.searchParams.set("n", game.dataset.newest);
    live.setAttribute("sse-connect", url.pathname + url.search);
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    var config = event.detail.requestConfig;
    if (isPoll(event.detail.elt)) {
      if (queued || Date.now() < nextPollAt) event.preventDefault();
      else if (streaming && !fromStream(config)) event.preventDefault();
      else if (config) config.scorepadReturns = returns;
      return;
    }
    if (isWrite(config) && queued && !queued.sending) {
      // One write at a time, the one not sent yet first: a tap now sends it at once
      // (most often it is the same Confirm tapped again).
      event.preventDefault();
      resend();
    }
  });

  function failed(event) {
    var config = event.detail && event.detail.requestConfig;
    if (isPoll(event.detail.elt)) {
      // Sent before the network returned, it failed for want of it: the poll asked since
      // (queued behind it) goes with no back-off.
      if (config && config.scorepadReturns !== returns) return;
      pollFailures += 1;
      var wait = Math.min(15000, 2000 * Math.pow(2, pollFailures));
      nextPollAt = Date.now() + wait;
      if (!queued) banner(text("stale"));
      // While the stream is open nothing else would ask again (its polls are held back):
      // the change it told is fetched once the back-off is over.
      if (streaming) setTimeout(catchUp, wait + 50);
      return;
    }
    if (!isWrite(config)) {
      banner(text("stale"));
      return;
    }
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    // 429: too many requests, refused before any view ran; 502-504: the server is away.
    // Sent again later, they are the same write (the version guards it).
    if (status && status !== 429 && status !== 503 && status !== 502 && status !== 504) {
      // The server answered and refused: sending it again would change nothing.
      banner(text("failed"));
      return;
    }
    if (queued) queued.sending = false;
    queue(config);
  }
  document.addEventListener("htmx:sendError", failed);
  document.addEventListener("htmx:timeout", failed);
  document.addEventListener("htmx:responseError", failed);

  document.addEventListener("htmx:afterRequest", function (event) {
    if (!event.detail || !event.detail.successful) return;
    var config = event.detail.requestConfig;
    if (isPoll(event.detail.elt)) {
      pollFailures = 0;
      nextPollAt = 0;
    } else if (queued && isWrite(config) && config.path === queued.path) {
      mark(queued.elt, false);
      queued = null;
      clearTimeout(retryTimer);
    }
    if (!queued) banner("");
  });

  // Counted after the handlers above, which may hold a write back (then it is not sent).
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!event.defaultPrevented && isWrite(event.detail.requestConfig)) writing += 1;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (isWrite(event.detail.requestConfig)) writing = Math.max(0, writing - 1);
  });

  window.addEventListener("online", function () {
    returns += 1;
    pollFailures = 0;
    nextPollAt = 0;
    if (queued) {
      banner(text("unsent"));
      resend();
    } else if (document.querySelector(".poller")) {
      // Marked as the stream's, so that it goes even while the stream says it is open.
      htmx.trigger(document.body, "live");
    }
  });
  window.addEventListener("offline", function () {
    banner(text("noNetwork"));
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

// A write the server has not answered within 300 ms says so: its form and its button are
// aria-busy and the button reads "Sending…" (Confirm answered in 8 s would otherwise look
// like a tap that did nothing). Another write tapped meanwhile is not sent, as the one not
// sent yet above is not overtaken: it would carry the same version, so it would only be
// refused as out of date (or be the same write twice); a line says the first is still on
// its way instead. A write that fails is the retry's above ("not sent yet"), no longer busy.
(function () {
  "use strict";
  var BUSY_AFTER_MS = 300;
  var sending = null; // {form, button, timer}: the write under way

  function isWrite(verb) {
    return Boolean(verb) && verb.toLowerCase() !== "get";
  }
  function text(name) {
    return document.body.dataset[name] || "";
  }
  function busy() {
    if (!sending) return;
    [sending.form, sending.button].forEach(function (elt) {
      if (elt) elt.setAttribute("aria-busy", "true");
    });
    if (sending.button) {
      sending.button.dataset.busyLabel = text("sending");
      sending.button.classList.add("sending");
    }
  }
  function stillSending() {
    var note = document.getElementById("still-sending");
    if (!note) {
      note = document.createElement("p");
      note.id = "still-sending";
      note.className = "network still-sending";
      note.setAttribute("role", "status");
      var where = document.getElementById("panel") || document.getElementById("main");
      if (!where) return;
      where.prepend(note);
    }
    note.textContent = text("stillSending");
  }
  function done() {
    if (!sending) return;
    clearTimeout(sending.timer);
    [sending.form, sending.button].forEach(function (elt) {
      if (elt) elt.removeAttribute("aria-busy");
    });
    if (sending.button) sending.button.classList.remove("sending");
    var note = document.getElementById("still-sending");
    if (note) note.remove();
    sending = null;
  }

  // htmx asks this before it sends anything, even a tap it would otherwise drop unseen.
  document.addEventListener("htmx:confirm", function (event) {
    if (!sending || !isWrite(event.detail.verb)) return;
    event.preventDefault();
    busy();
    stillSending();
  });
  // After the retry's handler, which may hold a write back (then it is not under way).
  document.addEventListener("htmx:beforeRequest", function (event) {
    var config = event.detail.requestConfig;
    if (event.defaultPrevented || !config || !isWrite(config.verb)) return;
    var elt = event.detail.elt;
    // A write sent again comes from no form: it is the one marked "not sent yet".
    var form = (elt.closest && elt.closest("form")) || document.querySelector("form.unsent");
    var trigger = config.triggeringEvent;
    var button = (trigger && trigger.submitter) || (elt.tagName === "BUTTON" ? elt : null);
    if (!button && form) button = form.querySelector("button[type=submit]");
    done();
    sending = { form: form, button: button, timer: setTimeout(busy, BUSY_AFTER_MS) };
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var config = event.detail.requestConfig;
    if (config && isWrite(config.verb)) done();
  });
})();

// The sheet by keyboard, a turn in four keys at most: Enter on a box opens its chooser with
// the focus on its first value (the arrows or Space pick one, as radios do), Enter confirms,
// and the focus then waits on the next player's first action. A swap of the game removes
// what had the focus: once htmx has readied the new content, it goes back to the same
// control when the new page has it (Roll, a die, a mode, a box), else, after a key, to the
// first action: Roll, the first die to type, the first open box's chooser. The focus never
// lands on a would-be score by itself, where the next Enter (meant to roll or type a die
// again) would write it: when none of these is left (the last roll, the last die), it waits
// on the sheet, a Tab from the first box to score. "Skip to the sheet" leads to the first
// open box. Moves made after a key only: a tap leaves the focus where the browser puts it.
(function () {
  "use strict";
  var keyboard = false;
  var had = null; // the control that had the focus before a swap, as a selector
  var lost = false; // the swap took away what had the focus

  document.addEventListener("keydown", function () {
    keyboard = true;
  }, true);
  document.addEventListener("pointerdown", function () {
    keyboard = false;
  }, true);

  function firstOpenBox() {
    return document.querySelector(
      "#game .sheet td.cell a.tap:not(.fix), #game .sheet td.cell button.tap.preview"
    );
  }
  // What the player to play does first, none of it a write of a score: Roll, the first die
  // to type, the first box whose chooser opens; else the sheet itself.
  function firstAction() {
    return document.querySelector("#panel button.roll:not(:disabled)") ||
      document.querySelector("#panel form.faces button:not(:disabled)") ||
      document.querySelector("#game .sheet td.cell a.tap:not(.fix)") ||
      document.getElementById("sheet");
  }
  function selectorOf(elt) {
    var cell = elt.closest("td.cell");
    if (cell) {
      return 'td.cell[data-player="' + cell.dataset.player + '"][data-column="' +
        cell.dataset.column + '"][data-row="' + cell.dataset.row + '"] ' +
        elt.tagName.toLowerCase() + ".tap";
    }
    if (elt.id) return "#" + CSS.escape(elt.id);
    var form = elt.form || elt.closest("form");
    if (!form || !form.getAttribute("action")) return null;
    var within = 'form[action="' + CSS.escape(form.getAttribute("action")) + '"] ';
    // A form's one button without a name (Roll): the same form's in the new page.
    if (!elt.name) return elt.tagName === "BUTTON" ? within + "button:not([name])" : null;
    return within + '[name="' + CSS.escape(elt.name) + '"][value="' + CSS.escape(elt.value) +
      '"]';
  }
  function focusable(elt) {
    return elt && !elt.disabled && elt.getClientRects().length > 0;
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var focused = document.activeElement;
    var target = event.detail.target;
    lost = Boolean(focused && focused !== document.body && target && target.contains(focused));
    had = lost ? selectorOf(focused) : null;
  });
  // After the settle, not the swap: htmx readies the new content (its hx-post, its links)
  // only then, and a key sent to a control it has not readied yet would leave the page.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    var picker = target && target.id === "panel" && target.querySelector("form.picker");
    if (picker && keyboard) {
      var value = picker.querySelector("input[name=choice]");
      if (value) value.focus();
      return;
    }
    var focused = document.activeElement;
    if (focused && focused !== document.body && document.contains(focused)) return;
    var again = had && document.querySelector(had);
    if (focusable(again)) {
      again.focus({ preventScroll: !keyboard });
    } else if (keyboard && lost) {
      // Only what a swap took away: a page whose focus was nowhere (a TV's) stays as it is.
      var first = firstAction();
      if (first) first.focus();
    }
  });
  // Enter on a value confirms it, whatever the browser does with Enter on a radio.
  document.addEventListener("keydown", function (event) {
    var input = event.target;
    if (event.key !== "Enter" || input.type !== "radio" || !input.closest("form.picker")) return;
    event.preventDefault();
    if (input.checked || input.form.querySelector("input[name=choice]:checked")) {
      input.form.requestSubmit(input.form.querySelector("button[type=submit]"));
    } else {
      input.form.reportValidity();
    }
  });
  document.addEventListener("click", function (event) {
    var skip = event.target.closest && event.target.closest("a.skip-link");
    if (!skip) return;
    var box = firstOpenBox() || document.querySelector(skip.getAttribute("href"));
    if (!box) return;
    event.preventDefault();
    box.focus();
  });
})();
