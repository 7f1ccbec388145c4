"""Write the snapshot of every game already stored, by replaying its entries."""

from django.db import migrations

from games.rules import Game as RulesGame
from games.rules import Move


def _move(entry, position):
    # A frozen copy of Entry.as_move as the entries stood at this migration (historical
    # models have no methods).
    player, rolls = position[entry.player_id], entry.rolls or ()
    dice = (entry.die1, entry.die2, entry.die3, entry.die4, entry.die5)
    if entry.crossed:
        return Move(player, entry.row, entry.column, cross=True, rolls=rolls)
    if None not in dice:
        return Move(player, entry.row, entry.column, dice=dice, rolls=rolls)
    return Move(
        player,
        entry.row,
        entry.column,
        value=entry.value,
        yahtzee_bonus=entry.yahtzee_bonus,
        rolls=rolls,
    )


def fill(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    Seat = apps.get_model("games", "Seat")
    Entry = apps.get_model("games", "Entry")
    for game in Game.objects.all().iterator():
        seats = list(Seat.objects.filter(game=game).select_related("player").order_by("position"))
        if not seats:
            continue
        position = {seat.player_id: seat.position for seat in seats}
        entries = Entry.objects.filter(game=game).order_by("turn")
        state = RulesGame.restore(
            game.ruleset,
            [seat.player.name for seat in seats],
            ((_move(entry, position), entry.value) for entry in entries),
            game.options,
            game.first_seat,
        )
        Game.objects.filter(pk=game.pk).update(snapshot=state.snapshot())


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_game_snapshot"),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
    ]
