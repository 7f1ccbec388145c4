"""The coach: optimal solitaire play, one column at a time (pure Python and numpy).

``Config.of("yahtzee")`` names a configuration, ``build_model`` reads its rows and scores
from the rules engine's registry, ``solve`` computes its table, ``Tables`` keeps the tables
on disk and loads them memory-mapped. ``advice`` answers from a table for one turn, and
``analysis`` reviews a played game's turns with it.
"""

from .model import (
    Config,
    Model,
    Unsupported,
    all_configs,
    build_model,
    column_configs,
    one_column_configs,
    several_column_configs,
)
from .solver import Solver, Turn, expected_score, solve
from .tables import Tables

__all__ = [
    "Config",
    "Model",
    "Solver",
    "Tables",
    "Turn",
    "Unsupported",
    "all_configs",
    "build_model",
    "column_configs",
    "expected_score",
    "one_column_configs",
    "several_column_configs",
    "solve",
]
