"""The one error the engine raises for a move or a setup it refuses."""

from __future__ import annotations


def N_(message: str) -> str:
    """Mark a message for translation without translating it (the engine has no Django)."""
    return message


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
