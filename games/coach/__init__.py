"""The coach: optimal solitaire play for the one-column rule sets (pure Python and numpy).

``Config.of("yahtzee")`` names a configuration, ``build_model`` reads its rows and scores
from the rules engine's registry, ``solve`` computes its table, ``Tables`` keeps the tables
on disk and loads them memory-mapped.
"""

from .model import Config, Model, Unsupported, build_model, one_column_configs
from .solver import Solver, Turn, expected_score, solve
from .tables import Tables

__all__ = [
    "Config",
    "Model",
    "Solver",
    "Tables",
    "Turn",
    "Unsupported",
    "build_model",
    "expected_score",
    "one_column_configs",
    "solve",
]
