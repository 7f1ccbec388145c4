"""gunicorn's logger with the evening tokens taken out (deploy/gunicorn.conf.py).

gunicorn formats its access line from atoms it builds itself (the request line, the
path, the query, the Referer, any header), out of reach of Django's logging filters.
Every text atom goes through the same redaction as Django's own lines (games/logs.py),
so whatever ``access_log_format`` names, no /e/<token>/ or /s/<token>/ is written.
"""

from __future__ import annotations

from typing import Any

from gunicorn.glogging import Logger

from games.logs import RedactTokens, redact


class RedactingLogger(Logger):
    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        # gunicorn's own error lines ("Invalid request from …") may quote a path too.
        if not any(isinstance(f, RedactTokens) for f in self.error_log.filters):
            self.error_log.addFilter(RedactTokens())

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        atoms = super().atoms(resp, req, environ, request_time)
        return {key: redact(v) if isinstance(v, str) else v for key, v in atoms.items()}
