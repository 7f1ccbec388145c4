"""ASGI entry point: the pages and their event streams (games/views/live.py) from one app,
`gunicorn -c deploy/gunicorn.conf.py scorepad.asgi` (uvicorn's workers) or `make run`."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorepad.settings")
# Each sync view runs in a thread of its own request under ASGI, so a connection kept by a
# thread would never serve another request: PostgreSQL's connections come from psycopg's
# pool instead (scorepad/settings.py, DB_POOL). DJANGO_DB_POOL=0 turns it off.
os.environ.setdefault("DJANGO_DB_POOL", "1")

application = get_asgi_application()
