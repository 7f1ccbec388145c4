"""Keep evening tokens out of the logs.

The edit token in /e/<token>/… is the only key to an evening: whoever reads it
can change the scores. Django logs the path of every 4xx/5xx answer ("Not Found:
/e/<token>/g/9/") and runserver logs every request, so the message is rewritten
before any handler sees it: the token becomes "[token]".
"""

from __future__ import annotations

import logging
import re

#: A path's separator as a request line may spell it: "/", or "%2F", which the server decodes
#: to one (/e%2F<token>/g/1/ opens the sheet); a run of them still separates, for a reader.
_SLASH = r"(?:/|%2[fF])+"
#: "e" or "s", or its escape: /%65/<token>/ is /e/<token>/ to the server.
_KIND = r"(?:[es]|%65|%73)"
# /e/<edit token>/… and /s/<view token>/… (the spectator pages), however spelt, whatever follows.
TOKEN_IN_PATH = re.compile(rf"({_SLASH}{_KIND}{_SLASH})[^/\s?#\"']+")


def redact(text: str) -> str:
    return TOKEN_IN_PATH.sub(r"\1[token]", text)


class RedactTokens(logging.Filter):
    """Rewrite the record's message with its tokens hidden (always lets it through)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record is logging's problem, not ours
            return True
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
        # Handlers that print the request itself (AdminEmailHandler) would show the path.
        if hasattr(record, "request"):
            record.request = None
        return True
