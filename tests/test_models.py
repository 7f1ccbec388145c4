import pytest
from django.db import IntegrityError, transaction

from games.models import Entry, Evening, Game, Player


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
def test_an_instance_read_by_the_services_is_the_one_django_builds(game: Game) -> None:
    from django.db.models.signals import post_init

    from games import services

    fields = ("id", "evening_id", "number", "ruleset", "version")
    values = (game.pk, game.evening_id, game.number, game.ruleset, game.version)
    ours = services.from_db(Game, "default", fields, values)
    django = Game.from_db("default", list(fields), values)
    assert {k: v for k, v in ours.__dict__.items() if k != "_state"} == {
        k: v for k, v in django.__dict__.items() if k != "_state"
    }
    assert (ours._state.adding, ours._state.db) == (False, "default")
    assert ours.get_deferred_fields() == django.get_deferred_fields() != set()
    assert ours == django and ours.evening == game.evening
    # A deferred field is read on first use, as Django's own instance does.
    assert ours.entry_mode == game.entry_mode

    seen: list[Game] = []

    def receiver(sender: type, instance: Game, **kwargs: object) -> None:
        seen.append(instance)

    post_init.connect(receiver, sender=Game)
    try:
        again = services.from_db(Game, "default", fields, values)
    finally:
        post_init.disconnect(receiver, sender=Game)
    assert seen == [again], "with a receiver, Django's from_db (and its signals)"
