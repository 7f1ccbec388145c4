"""The site as an app on the phone's home screen: its manifest, its service worker and
the page that worker answers when the site cannot be reached."""

from __future__ import annotations

import hashlib

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

#: The page's background (static/css/site.css, --bg): the splash screen and the
#: browser's bar blend with the page. The manifest has one colour; the pages' <meta
#: name="theme-color"> give the dark one too.
BACKGROUND = "#fafaf9"

#: What the offline page needs to look like the site; the worker keeps only these (and
#: the offline page), never a game page or an htmx answer: a score shown from a cache
#: could be an old one.
OFFLINE_ASSETS = (
    "css/site.css",
    "js/phone.js",
    "js/scorepad.js",
    "django_htmx/htmx-2.min.js",
    "favicon.svg",
    "icons/icon-192.png",
)


@require_safe
def manifest(request: HttpRequest) -> HttpResponse:
    icon = {"type": "image/png"}
    data = {
        "id": reverse("home"),
        "name": "Scorepad",
        "short_name": "Scorepad",
        "description": _("The score sheet for dice games at the table: Yam’s and Yahtzee."),
        "lang": get_language(),
        "start_url": reverse("home"),
        "scope": reverse("home"),
        "display": "standalone",
        "background_color": BACKGROUND,
        "theme_color": BACKGROUND,
        "icons": [
            {**icon, "src": static("icons/icon-192.png"), "sizes": "192x192"},
            {**icon, "src": static("icons/icon-512.png"), "sizes": "512x512"},
            {
                **icon,
                "src": static("icons/icon-maskable-512.png"),
                "sizes": "512x512",
                "purpose": "maskable",
            },
        ],
    }
    return JsonResponse(data, content_type="application/manifest+json")


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    precache = [reverse("offline"), *(static(name) for name in OFFLINE_ASSETS)]
    # A new worker installs afresh (and drops the old cache) when its text changes: with
    # a new static file (their names carry a hash in production), or in another language,
    # so the offline page it keeps follows the language the visitor switched to.
    seed = "\n".join([get_language(), *precache])
    version = hashlib.sha256(seed.encode()).hexdigest()[:12]
    context = {"precache": precache, "offline_url": reverse("offline"), "version": version}
    response = render(request, "sw.js", context, content_type="application/javascript")
    # Browsers check for a new worker at most daily anyway; no-cache makes each check real.
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    return render(request, "offline.html", {"read_only": True})
