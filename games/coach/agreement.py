"""``python -m games.coach.agreement TABLES_DIR [GAMES [SEED]]``: every one-column
configuration whose table is built, its policy's simulated average beside the table's figure
(the lines of docs/coach.md).

A module of its own, above both simulations: Max and Min is played by the columns' one
(``columns.simulate_columns``), which is built on ``simulate``.
"""

from __future__ import annotations

import sys

from .columns import ColumnPlay, simulate_columns
from .model import Unsupported, build_model, one_column_configs
from .simulate import simulate
from .solver import expected_score
from .tables import Tables


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    tables = Tables(args[0])
    games = int(args[1]) if len(args) > 1 else 20_000
    seed = int(args[2]) if len(args) > 2 else 1
    print("| configuration | table | simulated mean | std | std error | gap | time |")
    print("|---|---|---|---|---|---|---|")
    for config in one_column_configs():
        table = tables.load(config)
        try:
            model = build_model(config)
        except Unsupported:
            continue
        if table is None:
            print(f"| `{config.name}` | not built | | | | | |")
            continue
        figure = expected_score(table)
        if model.extra == "max_min":
            # Max and Min's pair rule is played by the columns' simulation (one column).
            play = ColumnPlay(model, table, "free")
            result = simulate_columns([play], games, seed)[0]
        else:
            result = simulate(model, table, games, seed)
        print(
            f"| `{config.name}` | {figure:.4f} | {result.mean:.4f} | {result.std:.2f} "
            f"| {result.stderr:.3f} | {result.mean - figure:+.3f} | {result.seconds:.1f} s |",
            flush=True,
        )


if __name__ == "__main__":
    main()
