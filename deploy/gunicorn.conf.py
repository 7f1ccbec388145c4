"""gunicorn behind deploy/nginx.conf: `gunicorn -c deploy/gunicorn.conf.py scorepad.asgi`.

Loopback only: the proxy in front takes the slow clients, TLS and the static files.
Everything is served from uvicorn's workers, the pages and their event streams alike: each
worker is one asyncio loop, where a phone's stream waits for its game's changes at almost
no cost, and each page's (sync) view runs in a thread of its own with a database connection
from psycopg's pool (scorepad/asgi.py turns it on). Why this server: README, Deploy.
"""

import os

bind = os.getenv("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.getenv("GUNICORN_WORKERS", "2"))
# On SQLite a write is told to the streams of its own process only (games/live.py): one
# process serves it, whatever GUNICORN_WORKERS says. PostgreSQL tells every process.
if not os.getenv("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
    workers = 1
# uvicorn's worker (uvicorn-worker), with httptools and uvloop: uvicorn's own parser and
# loop served /healthz ten times slower (bench/servers.py).
worker_class = "uvicorn_worker.UvicornWorker"
# A worker whose loop stops answering for this long is killed and replaced (a slow view
# waits in its thread, not on the loop).
timeout = 30
# A stop lets the requests in flight finish for this long (a page takes milliseconds), then
# cuts the event streams, which never finish by themselves: each phone's EventSource
# reconnects and catches up from the version it had. Nothing listens meanwhile, so deploy
# with a reload (HUP: new workers first, then the old ones stopped) rather than a restart.
graceful_timeout = 5
# An idle connection from nginx is kept longer than nginx keeps it (keepalive_timeout 30s
# in its upstream block), so nginx never sends on one gunicorn is closing.
keepalive = 35

# The access log on stdout (uvicorn's line: client, request, status), every evening token
# in it redacted (the logger).
accesslog = "-"
logger_class = "scorepad.gunicorn_logging.RedactingLogger"

# No runtime control socket: nothing here uses it, and its default path is shared by
# every gunicorn of the same user.
control_socket_disable = True
