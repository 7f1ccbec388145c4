"""The words a rule set shows (its name, its rows' names and help), marked for translation.

The engine has no Django: it keeps each word as its English msgid, marked so that the
catalogue's tools find it, and the web layer translates it in the reader's language
(``games.labels.say``), as it does the messages of ``IllegalMove``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .errors import N_

__all__ = ["C_", "N_", "P_", "Msg", "Text", "Word"]


@dataclass(frozen=True)
class Msg:
    """A msgid looked up with a gettext context (``C_``) or with a plural (``P_``)."""

    text: str
    context: str = ""
    plural: str = ""


#: A word of a rule set: a plain msgid (``N_``), or one with a context or a plural.
Word = str | Msg


def C_(context: str, message: str) -> Msg:
    """Mark ``message`` for translation in ``context`` (gettext's pgettext, done later)."""
    return Msg(message, context=context)


def P_(singular: str, plural: str) -> Msg:
    """Mark a message with its plural (ngettext, done later with the count ``n``)."""
    return Msg(singular, plural=plural)


@dataclass(frozen=True)
class Text:
    """A sentence of help, as a scorer words its box: a msgid with ``%(name)s`` placeholders
    and their values. ``runs`` are the values that are runs of faces (1-2-3-4-5, or a
    choice of them), which the page keeps each on one line."""

    message: str
    params: Mapping[str, int | str] = field(default_factory=dict)
    runs: Mapping[str, tuple[tuple[int, ...], ...]] = field(default_factory=dict)
