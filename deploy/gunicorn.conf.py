"""gunicorn behind deploy/nginx.conf: `gunicorn -c deploy/gunicorn.conf.py scorepad.wsgi`.

Loopback only: the proxy in front takes the slow clients, TLS and the static files.
"""

import os

bind = os.getenv("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.getenv("GUNICORN_WORKERS", "2"))
# A request that takes longer is a stuck worker: it is killed and replaced.
timeout = 30
graceful_timeout = 20

# The access log on stdout, in the combined format plus the client nginx saw and the
# time taken; every path, query and Referer in it has its tokens redacted (the logger).
accesslog = "-"
access_log_format = '%(h)s %({x-real-ip}i)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(M)sms'
logger_class = "scorepad.gunicorn_logging.RedactingLogger"

# No runtime control socket: nothing here uses it, and its default path is shared by
# every gunicorn of the same user.
control_socket_disable = True
