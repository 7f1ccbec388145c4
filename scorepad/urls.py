from django.conf import settings
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("games.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
]

# Not routed at all unless DJANGO_ADMIN=1: nobody can hammer a login that is not there.
if settings.ADMIN_ENABLED:
    urlpatterns.append(path("admin/", admin.site.urls))
