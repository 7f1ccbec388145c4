"""gunicorn's logger with the evening tokens taken out (deploy/gunicorn.conf.py).

Under uvicorn's workers (as shipped), uvicorn writes the access line (client, request line,
status) through gunicorn's handlers, on its own loggers: those get the same filter as
Django's lines (games/logs.py). Under gunicorn's own workers, gunicorn formats the line
from atoms it builds itself (the request line, the path, the query, the Referer, any
header), out of reach of logging filters: every text atom is redacted, so whatever
``access_log_format`` names, no /e/<token>/ or /s/<token>/ is written.
"""

from __future__ import annotations

import logging
from typing import Any

from gunicorn.glogging import Logger

from games.logs import RedactTokens, redact


class RedactingLogger(Logger):
    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        # gunicorn's own error lines ("Invalid request from …") may quote a path too, and
        # uvicorn's workers write every request line on loggers of their own.
        uvicorn = [logging.getLogger(name) for name in ("uvicorn.access", "uvicorn.error")]
        for log in (self.error_log, *uvicorn):
            if not any(isinstance(f, RedactTokens) for f in log.filters):
                log.addFilter(RedactTokens())

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        atoms = super().atoms(resp, req, environ, request_time)
        return {key: redact(v) if isinstance(v, str) else v for key, v in atoms.items()}
