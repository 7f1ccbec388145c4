"""ASGI entry point: the pages and their event streams (games/views/live.py) from one app,
`uvicorn scorepad.asgi:application` (or gunicorn with uvicorn workers, deploy/)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorepad.settings")

application = get_asgi_application()
