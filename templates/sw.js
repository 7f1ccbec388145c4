// Scorepad's service worker, served from the site root by games/views/app.py so that its
// scope is the whole site. At install it keeps the offline page and the static files that
// page needs. Pages always come from the network, the offline page only when the network
// fails. Nothing else ever enters the cache: a game page or an htmx answer kept there
// could show a score that is no longer true.
"use strict";

var VERSION = "{{ version }}";
var CACHE = "scorepad-" + VERSION;
var OFFLINE = {{ offline_url|tojson }};
var PRECACHE = {{ precache|tojson }};

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(CACHE).then(function (cache) {
      // Past the browser's HTTP cache. The request carries the visitor's cookies, so the
      // offline page is kept in the language they chose.
      return cache.addAll(PRECACHE.map(function (url) {
        return new Request(url, { cache: "reload" });
      }));
    }).then(function () {
      return self.skipWaiting();
    })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name.indexOf("scorepad-") === 0 && name !== CACHE;
      }).map(function (name) {
        return caches.delete(name);
      }));
    }).then(function () {
      // The page's request starts while the worker wakes up, rather than after it.
      return self.registration.navigationPreload && self.registration.navigationPreload.enable();
    }).then(function () {
      return self.clients.claim();
    })
  );
});

function offlinePage() {
  return caches.match(OFFLINE, { ignoreVary: true }).then(function (page) {
    return page || Response.error();
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  // Writes and htmx's requests go straight to the network, as if there were no worker.
  if (request.method !== "GET") {
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(
      Promise.resolve(event.preloadResponse).then(function (preloaded) {
        return preloaded || fetch(request);
      }).catch(offlinePage)
    );
    return;
  }
  var url = new URL(request.url);
  if (url.origin === self.location.origin && PRECACHE.indexOf(url.pathname) !== -1) {
    // The network first (fresh in development, the HTTP cache in production), the
    // copy kept at install when it fails.
    event.respondWith(fetch(request).catch(function () {
      return caches.match(request, { ignoreVary: true }).then(function (kept) {
        return kept || Response.error();
      });
    }));
  }
});
