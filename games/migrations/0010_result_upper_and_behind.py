"""Each finished game's stored result gains what the group's records read: every seat's
upper sections and how far behind the leader it was after any round, replayed from the
game's entries by the rules engine (the same figures ``selectors.final_result`` now stores
with the turn that ends a game)."""

from django.db import migrations


def add_upper_and_behind(apps, schema_editor):
    from games.models import Entry, move_of
    from games.rules import Game as RulesGame

    Game = apps.get_model("games", "Game")
    Seat = apps.get_model("games", "Seat")
    for game in Game.objects.filter(result__isnull=False).iterator(chunk_size=200):
        seats = list(Seat.objects.filter(game=game).select_related("player").order_by("position"))
        position = {seat.player_id: seat.position for seat in seats}
        entries = (
            apps.get_model("games", "Entry")
            .objects.filter(game=game)
            .order_by("turn")
            .values_list(*Entry.MOVE_FIELDS, named=True)
        )
        state = RulesGame.replay(
            game.ruleset,
            [seat.player.name for seat in seats],
            [move_of(entry, position) for entry in entries],
            game.options,
            game.first_seat,
        )
        if not state.finished:
            continue  # a stored result the entries do not reach: left as it is
        behind = state.behind()
        for index, seat in enumerate(game.result["seats"]):
            seat["upper"] = [state.column_totals(index, c).upper for c in state.columns]
            seat["behind"] = behind[index]
        game.save(update_fields=["result"])


class Migration(migrations.Migration):
    dependencies = [("games", "0009_groups")]

    operations = [migrations.RunPython(add_upper_and_behind, migrations.RunPython.noop)]
