"""Scorepad's rules engine: pure Python, no Django.

It is the one place that knows rows, columns, scores, offered values, order,
Joker and bonuses. Everything else asks it.
"""

from .dice import ALL_HANDS, Dice, parse_dice
from .errors import IllegalMove
from .game import Box, ColumnTotals, Game, Move, Played, max_min_points
from .ruleset import UPPER_ROWS, Column, Option, Row, RuleSet
from .rulesets import RULESETS, get_ruleset, register
from .seating import next_starter

__all__ = [
    "ALL_HANDS",
    "RULESETS",
    "UPPER_ROWS",
    "Box",
    "Column",
    "ColumnTotals",
    "Dice",
    "Game",
    "IllegalMove",
    "Move",
    "Option",
    "Played",
    "Row",
    "RuleSet",
    "get_ruleset",
    "max_min_points",
    "next_starter",
    "parse_dice",
    "register",
]
