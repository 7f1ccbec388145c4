"""The admin, when DJANGO_ADMIN=1 routes it: its login throttled per client.

A failed login costs a worker the time of a password hash (~0.6 s), so a client that
failed five times in a minute is answered 429 at once, before any hashing.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest, HttpResponse

from games import limits

FAILURES = 5
WINDOW = 60


class ThrottledAdminSite(admin.AdminSite):
    def login(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        if request.method == "POST":
            wait = limits.wait_for("admin-login", limits.client_ip(request), FAILURES, WINDOW)
            if wait:
                return limits.too_many(request, wait)
        return super().login(request, extra_context)


def count_failure(sender: Any, credentials: Any, request: HttpRequest | None = None, **_: Any):
    if request is not None:
        limits.count("admin-login", limits.client_ip(request), WINDOW)


class ScorepadAdminConfig(AdminConfig):
    default_site = "scorepad.admin.ThrottledAdminSite"

    def ready(self) -> None:
        super().ready()
        user_login_failed.connect(count_failure, dispatch_uid="scorepad.admin.count_failure")
