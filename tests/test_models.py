import pytest
from django.db import IntegrityError, transaction

from games.models import Entry, Evening, Game, Player, Seat, move_of
from games.rules import Game as RulesGame
from games.rules import Move


@pytest.fixture
def game() -> Game:
    evening = Evening.objects.create(name="Friday")
    return Game.objects.create(evening=evening, number=1, ruleset="yahtzee")


@pytest.fixture
def player(game: Game) -> Player:
    return Player.objects.create(evening=game.evening, name="Alice")


def _entry(game: Game, player: Player, turn: int = 1, **fields: object) -> Entry:
    values: dict[str, object] = {"column": "main", "row": "ones", "value": 3} | fields
    return Entry.objects.create(game=game, player=player, turn=turn, **values)


@pytest.mark.django_db
def test_it_refuses_a_filled_cell(game: Game, player: Player) -> None:
    _entry(game, player, turn=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        _entry(game, player, turn=2)


@pytest.mark.django_db
def test_it_refuses_two_entries_in_one_turn(game: Game, player: Player) -> None:
    _entry(game, player, turn=1, row="ones")
    with pytest.raises(IntegrityError), transaction.atomic():
        _entry(game, player, turn=1, row="twos")


@pytest.mark.django_db
@pytest.mark.parametrize("die", [0, 7])
def test_it_refuses_a_die_out_of_range(game: Game, player: Player, die: int) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        _entry(game, player, die1=1, die2=2, die3=3, die4=4, die5=die)


@pytest.mark.django_db
def test_it_keeps_dice_in_range(game: Game, player: Player) -> None:
    entry = _entry(game, player, die1=1, die2=1, die3=1, die4=6, die5=6)
    entry.refresh_from_db()
    assert entry.dice == (1, 1, 1, 6, 6)


@pytest.mark.django_db
def test_dice_is_none_when_unknown(game: Game, player: Player) -> None:
    assert _entry(game, player).dice is None


@pytest.mark.django_db
def test_it_refuses_a_duplicate_player_name(game: Game) -> None:
    Player.objects.create(evening=game.evening, name="Bob")
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(evening=game.evening, name="Bob")


@pytest.mark.django_db
def test_it_refuses_a_duplicate_game_number(game: Game) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.create(evening=game.evening, number=1, ruleset="yam")


@pytest.mark.django_db
def test_tokens_are_long_and_distinct() -> None:
    a = Evening.objects.create()
    b = Evening.objects.create()
    tokens = {a.token, a.view_token, b.token, b.view_token}
    assert len(tokens) == 4
    assert all(len(t) >= 43 for t in tokens)
    assert Evening.objects.by_edit_token(a.token).get() == a
    assert Evening.objects.by_view_token(a.token).count() == 0


@pytest.mark.django_db
def test_game_defaults(game: Game) -> None:
    game.refresh_from_db()
    assert game.entry_mode == Game.EntryMode.VALUE
    assert (game.version, game.first_seat, game.options, game.pending) == (0, 0, {}, {})


@pytest.mark.django_db
@pytest.mark.parametrize(
    "move",
    [
        Move(0, "ones", "free", value=3),
        Move(0, "sixes", "free", cross=True),
        Move(0, "full_house", "free", dice=(2, 3, 2, 3, 3), rolls=((1, 2, 3, 4, 5),)),
    ],
    ids=["value", "cross", "dice"],
)
def test_an_entry_stores_the_move_it_is_built_from(game: Game, player: Player, move: Move) -> None:
    played = RulesGame.new(game.ruleset, [player.name]).play(move)
    Entry.from_played(game, player, played, turn=1).save()
    entry = Entry.objects.get(game=game)
    assert move_of(entry, {player.pk: 0}) == move
    assert (entry.value, entry.crossed, entry.turn) == (played.value, played.crossed, 1)


@pytest.mark.django_db
def test_it_finds_a_game_by_its_evening_tokens_with_its_seats(game: Game, player: Player) -> None:
    Seat.objects.create(game=game, player=player, position=0)
    token, view_token = game.evening.token, game.evening.view_token
    assert Game.objects.for_sheet(token, 1).get() == game
    assert Game.objects.for_spectator(view_token, 1).get() == game
    assert not Game.objects.for_sheet(view_token, 1).exists()
    assert not Game.objects.for_spectator(token, 1).exists()
    assert not Game.objects.for_sheet(token, 2).exists()
    found = Game.objects.for_sheet(token, 1).get()
    assert [seat.player.name for seat in found.seats.all()] == ["Alice"]
    assert found.newest == 1
    second = Game.objects.create(evening=game.evening, number=2, ruleset=game.ruleset)
    # A game page says so when a newer game exists: the number comes with the game.
    assert Game.objects.for_sheet(token, 1).get().newest == 2
    # What a live page polls: its game's version and end, and the evening's newest game.
    assert list(Game.objects.poll_row(token, 1)) == [(game.pk, game.version, False, 2)]
    assert list(Game.objects.poll_row(view_token, 2, read_only=True)) == [(second.pk, 0, False, 2)]
    assert not Game.objects.poll_row(token, 3).exists()
    assert not Game.objects.poll_row(view_token, 1).exists()


@pytest.mark.django_db(transaction=True)
def test_the_migration_writes_the_snapshot_of_the_games_already_played() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = (
        [("games", "0003_entry_game_index_from_constraints")],
        [("games", "0005_fill_game_snapshots")],
    )
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    evening = old.get_model("games", "Evening").objects.create()
    ann, bob = (
        old.get_model("games", "Player").objects.create(evening=evening, name=n) for n in "AB"
    )
    game = old.get_model("games", "Game").objects.create(evening=evening, number=1, ruleset="yam")
    for position, player in enumerate((ann, bob)):
        old.get_model("games", "Seat").objects.create(game=game, player=player, position=position)
    state = RulesGame.new("yam", ["A", "B"])
    for move in (Move(0, "ones", value=3), Move(1, "twos", cross=True)):
        played = state.play(move)
        old.get_model("games", "Entry").objects.create(
            game=game,
            player=(ann, bob)[move.player],
            column=played.column,
            row=played.row,
            value=played.value,
            crossed=played.crossed,
            turn=state.turns_played,
        )
    executor = MigrationExecutor(connection)
    executor.migrate(after)
    new = executor.loader.project_state(after).apps
    assert new.get_model("games", "Game").objects.get(pk=game.pk).snapshot == state.snapshot()
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
