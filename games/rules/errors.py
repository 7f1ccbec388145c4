"""The one error the engine raises for a move or a setup it refuses."""

from __future__ import annotations

from dataclasses import dataclass


def N_(message: str) -> str:
    """Mark a message for translation without translating it (the engine has no Django)."""
    return message


@dataclass(frozen=True)
class Owner:
    """A player's name in a message as the owner of what it speaks of: "Ana's" in the
    engine's English ("It is {expected} turn" with ``expected=Owner("Ana")``); the web
    layer words it in the reader's language ("d’Ana", "de Ben")."""

    name: str

    def __str__(self) -> str:
        return f"{self.name}'s"


class IllegalMove(ValueError):
    """A move, a setup or a file the rules refuse.

    ``rule`` is a short stable code (``"filled"``, ``"order"``, ``"turn"``, …),
    ``template`` an English message with ``{placeholders}`` that the web layer can
    translate, and ``params`` the values to put in it.
    """

    def __init__(self, rule: str, template: str, **params: object) -> None:
        self.rule = rule
        self.template = template
        self.params = params
        super().__init__(template.format(**params))
