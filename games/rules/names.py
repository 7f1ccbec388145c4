"""What a player's name may hold: one rule for the names typed at the table and the names
of a game file, so that every name the site stores reads back from its export."""

from __future__ import annotations

import unicodedata

from .errors import N_, IllegalMove

#: Characters, as Python counts them (code points; the database's column counts the same).
MAX_LENGTH = 40
#: The two invisible characters a name keeps: the zero-width joiner, which draws emoji
#: sequences as one picture (👨‍👩‍👧‍👦 is four faces joined by three of them), and the
#: non-joiner, which Persian, Kurdish or Urdu spelling needs inside words (نام‌خانوادگی).
#: Every other character Python does not print is refused: controls (NUL, escapes),
#: bidi overrides and isolates, which reorder the text around the name on the page
#: (U+202E shows "evil" as "live"), invisible spaces and byte-order marks, which make two
#: names look alike.
JOINERS = frozenset("\u200c\u200d")


def allowed(character: str) -> bool:
    return character.isprintable() or character in JOINERS


def check(name: str) -> str:
    """``name`` without the spaces around it; IllegalMove if it is too long or holds a
    character no name holds. An empty name is the caller's to word."""
    name = name.strip()
    if len(name) > MAX_LENGTH:
        raise IllegalMove("players", N_("A name has at most {max} characters."), max=MAX_LENGTH)
    if not all(allowed(character) for character in name):
        raise IllegalMove("players", N_("A name cannot hold control characters."))
    return name


def key(name: str) -> str:
    """One spelling per person: "Élodie", "ELODIE" and "elodie " are one player (no
    accents, no case, single spaces). It can be longer than the name ("ß" is "ss", and
    NFKD spells some single characters in many)."""
    decomposed = unicodedata.normalize("NFKD", name)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.casefold().split())
