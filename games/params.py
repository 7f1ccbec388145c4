"""The one parser of the integers a request brings: a query (``?n=``, ``?p=``), a header
(``Last-Event-ID``), a form field (a version, a seat, a die's face).

``int()`` takes what no page prints (signs, spaces, underscores, every script's digits:
'٣' is 3) and raises past 4,300 digits; ``str.isdigit()`` passes superscripts that
``int()`` then refuses ('²'). A number here is ASCII digits only, and at most nine of them
(after a minus sign where a caller takes one):
anything else is None, which each caller answers as a number missing (a refusal in words,
or a hint ignored), never a server error.
"""

from __future__ import annotations

import re

#: More than any version, seat, turn or value reaches (a version counts a game's writes),
#: and below 2**31, so every database's integer column takes it.
MOST = 999_999_999
_DIGITS = re.compile(r"-?[0-9]{1,9}")


def integer(raw: object, *, least: int = 0, most: int = MOST) -> int | None:
    """``raw`` as a number from ``least`` to ``most``, or None if it is not one as a page
    prints it."""
    if not isinstance(raw, str) or not _DIGITS.fullmatch(raw):
        return None
    if raw[0] == "-" and least >= 0:  # "-0" included: no page prints a sign it never needs
        return None
    number = int(raw)
    return number if least <= number <= most else None
