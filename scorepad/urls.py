from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from games import limits
from scorepad import views

#: A database out of reach answers 503 "try again", not a 500 (scorepad/views.py).
handler500 = "scorepad.views.server_error"
#: Neither reads the body of the request they answer (scorepad/views.py).
handler400 = "scorepad.views.bad_request"
handler404 = "scorepad.views.page_not_found"

urlpatterns = [
    path("", include("games.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    # What nginx shows when its own rate limits refuse a request (error_page 429).
    path("too-many", limits.proxy_refused, name="too_many"),
    # Readiness: the database answers (503 while it cannot be reached); /healthz is liveness.
    path("readyz", views.readyz, name="readyz"),
]

# Not routed at all unless DJANGO_ADMIN=1: nobody can hammer a login that is not there.
if settings.ADMIN_ENABLED:
    urlpatterns.append(path("admin/", admin.site.urls))
