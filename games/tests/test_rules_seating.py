"""Who starts the next game when players join or leave between games."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.rules import next_starter

TABLE = ("Ann", "Bob", "Cy", "Dee")


@pytest.mark.parametrize("first", range(4))
def test_with_everyone_the_start_passes_to_the_next_seat(first: int) -> None:
    assert next_starter(TABLE, first, TABLE) == (first + 1) % 4


def test_a_player_left_out_is_skipped() -> None:
    # Ann started; Bob sits out: Cy, the next one round the table who plays, starts.
    assert next_starter(TABLE, 0, ("Ann", "Cy", "Dee")) == 1


def test_when_the_previous_starter_leaves_the_next_one_round_the_table_starts() -> None:
    # Bob started and leaves: Cy sat after him.
    assert next_starter(TABLE, 1, ("Ann", "Cy", "Dee")) == 1
    # Dee started and leaves: round the table to Ann.
    assert next_starter(TABLE, 3, ("Ann", "Bob", "Cy")) == 0


def test_a_newcomer_sits_after_the_last_seat() -> None:
    # Dee started; Eve joins after Dee's seat, so she is next round the table.
    assert next_starter(TABLE, 3, (*TABLE, "Eve")) == 4
    # Cy started: Dee is still next, Eve after her.
    assert next_starter(TABLE, 2, (*TABLE, "Eve")) == 3


def test_only_newcomers_start_with_the_first_of_them() -> None:
    assert next_starter(TABLE, 2, ("Eve", "Fay")) == 0


@given(
    first=st.integers(0, 3),
    kept=st.lists(st.booleans(), min_size=4, max_size=4),
    newcomers=st.integers(0, 3),
)
def test_the_starter_is_the_first_player_after_the_previous_one_going_round(
    first: int, kept: list[bool], newcomers: int
) -> None:
    playing = [name for name, keep in zip(TABLE, kept, strict=True) if keep]
    playing += [f"New {n}" for n in range(newcomers)]
    if not playing:
        return
    # Going round: the seats after the previous starter, the newcomers, then from the top.
    circle = [*TABLE[first + 1 :], *playing[len(playing) - newcomers :], *TABLE[: first + 1]]
    expected = next(name for name in circle if name in playing)
    assert playing[next_starter(TABLE, first, playing)] == expected
