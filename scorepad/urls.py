from django.contrib import admin
from django.urls import include, path

#: A database out of reach answers 503 "try again", not a 500 (scorepad/views.py).
handler500 = "scorepad.views.server_error"

urlpatterns = [
    path("", include("games.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
