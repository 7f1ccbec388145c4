"""A stand-in for the group page (its own is games/views/group.py, on another branch): the
site's URLs, and a page at ``g/<token>/`` that shows only the group's statistics, as the
group page includes them (tests/test_browser_group_standings.py)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.urls import include, path

from games.views.access import Access, with_access
from games.views.standings import open_group, standings_context

PAGE = engines["jinja2"].from_string(
    '{% extends "base.html" %}{% block content %}'
    '{% include "groups/partials/standings.html" %}{% endblock %}'
)


@with_access
def group_page(request: HttpRequest, access: Access) -> HttpResponse:
    group = open_group(access)
    context = {"read_only": access.read_only, **standings_context(request, group, access)}
    return HttpResponse(PAGE.render(context, request))


urlpatterns = [
    path("g/<str:token>/", group_page, name="group"),
    path("gs/<str:view_token>/", group_page, name="watch_group"),
    path("", include("scorepad.urls")),
]
