"""Groups: the group, its roster (people, not names), its evenings, its files, and who may
write what (games/roster.py, games/views/group.py)."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile

import pytest
from django.test import Client
from django.urls import reverse
from evening_support import best, by_player, cross, evening, least, play

from games import known, models, roster, selectors, services, standings
from games.rules import IllegalMove

pytestmark = pytest.mark.django_db


def _group(client: Client, name: str = "Jeudi chez Marc") -> models.Group:
    response = client.post(reverse("new_group"), {"name": name})
    assert response.status_code == 302
    return models.Group.objects.get(token=response["Location"].split("/")[2])


def _members(client: Client, group: models.Group, *names: str) -> list[models.Member]:
    for name in names:
        answer = client.post(reverse("group_add_member", args=[group.token]), {"name": name})
        assert answer.status_code == 302, answer.content
    return list(group.members.order_by("pk"))


def _first_evening(client: Client, group: models.Group, ruleset: str = "yam") -> models.Game:
    ids = [m.pk for m in group.members.order_by("pk")]
    answer = client.post(
        reverse("group_next_evening", args=[group.token]), {"players": ids, "ruleset": ruleset}
    )
    assert answer.status_code == 302, answer.content.decode()
    return models.Game.objects.filter(evening__group=group).latest("evening__created_at", "pk")


def test_a_group_is_made_remembered_and_listed_on_the_home_page() -> None:
    client = Client()
    group = _group(client)
    assert group.token in client.cookies[known.GROUPS_COOKIE].value
    home = client.get(reverse("home")).content.decode()
    assert "Jeudi chez Marc" in home
    # Above the evenings: the list of groups comes first.
    assert home.index("Jeudi chez Marc") < home.index("Start a game")
    assert Client().get(reverse("home")).content.decode().count("Jeudi chez Marc") == 0


def test_a_group_needs_a_name_and_nothing_is_made_without_one() -> None:
    answer = Client().post(reverse("new_group"), {"name": "   "})
    assert answer.status_code == 302
    assert not models.Group.objects.exists()


def test_members_are_one_spelling_each_and_two_marcs_stay_two_people() -> None:
    client = Client()
    group = _group(client)
    _members(client, group, "Marc", "Marc B.", "Élodie")
    refused = client.post(reverse("group_add_member", args=[group.token]), {"name": "ELODIE "})
    assert refused.status_code == 422
    assert "already has a member called Élodie" in refused.content.decode()
    assert [m.name for m in group.members.order_by("pk")] == ["Marc", "Marc B.", "Élodie"]


def test_the_next_evening_seats_the_members_as_last_time_and_passes_the_start_on() -> None:
    client = Client()
    group = _group(client)
    anna, bruno, chloe, dev = _members(client, group, "Anna", "Bruno", "Chloé", "Dev")
    game = _first_evening(client, group)
    assert [s.player.member for s in selectors.seats_of(game)] == [anna, bruno, chloe, dev]
    play(game, by_player(best, least, cross, least))
    # The next evening, Chloé sits out and Eve joins: the others keep their order, the start
    # passes on from the first game's starter (Anna) to Bruno.
    answer = client.post(
        reverse("group_next_evening", args=[group.token]),
        {"players": [dev.pk, bruno.pk, anna.pk], "name": "Eve"},
    )
    assert answer.status_code == 302
    second = models.Game.objects.filter(evening__group=group).exclude(pk=game.pk).get()
    seats = [s.player for s in selectors.seats_of(second)]
    assert [p.name for p in seats] == ["Anna", "Bruno", "Dev", "Eve"]
    assert seats[second.first_seat].name == "Bruno"
    assert all(p.member is not None and p.member.group == group for p in seats)
    assert group.members.filter(name="Eve").exists()
    assert second.ruleset == "yam"


def test_one_tap_starts_the_next_evening_as_the_last_game_sat() -> None:
    client = Client()
    group = _group(client)
    _members(client, group, "Anna", "Bruno", "Chloé")
    first = _first_evening(client, group, ruleset="yatzy")
    play(first, by_player(best, least, cross))
    page = client.get(reverse("group", args=[group.token])).content.decode()
    assert "With Anna, Bruno, Chloé, seated as last time" in page
    answer = client.post(reverse("group_next_evening", args=[group.token]), {"same": "1"})
    assert answer.status_code == 302
    second = models.Game.objects.filter(evening__group=group).exclude(pk=first.pk).get()
    names = [s.player.name for s in selectors.seats_of(second)]
    assert names == ["Anna", "Bruno", "Chloé"]
    assert (second.ruleset, second.first_seat) == ("yatzy", 1)  # the start passed on


def test_the_next_evening_form_is_a_page_of_its_own() -> None:
    client = Client()
    group = _group(client)
    _members(client, group, "Anna")
    page = client.get(reverse("group_next_evening", args=[group.token]))
    assert page.status_code == 200 and 'name="ruleset"' in page.content.decode()
    refused = client.post(reverse("group_next_evening", args=[group.token]), {"ruleset": "yam"})
    assert refused.status_code == 422
    assert "Tick who plays, or add a member." in refused.content.decode()
    assert not models.Evening.objects.exists()


def test_renaming_a_member_renames_them_in_every_evening_and_the_standings() -> None:
    client = Client()
    group = _group(client)
    anna, *_ = _members(client, group, "Anna", "Bruno")
    game = _first_evening(client, group)
    play(game, by_player(best, least))
    version = models.Game.objects.get(pk=game.pk).version
    client.post(
        reverse("group_rename_member", args=[group.token]), {"member": anna.pk, "name": "Annie"}
    )
    assert models.Player.objects.get(member=anna).name == "Annie"
    # The game moved on: nothing kept for its old version shows the old name.
    assert models.Game.objects.get(pk=game.pk).version == version + 1
    figures = standings.compute(*standings.load(group))
    assert [line.name for line in figures.rulesets[0].lines] == ["Annie", "Bruno"]


def test_two_entries_for_one_person_merge_and_the_standings_follow() -> None:
    client = Client()
    group = _group(client)
    first = _first_evening_with(client, group, ["Anna", "Bruno"])
    play(first, by_player(best, least))
    # A second evening where Anna was typed "Ana": a new member.
    second = services.create_evening(["Ana", "Bruno"], "yam")
    roster.attach_evening(group, second.evening)
    play(second, by_player(best, least))
    anna, ana = group.members.get(name="Anna"), group.members.get(name="Ana")
    before = standings.compute(*standings.load(group)).rulesets[0]
    assert {line.name: line.games for line in before.lines} == {"Anna": 1, "Ana": 1, "Bruno": 2}
    answer = client.post(
        reverse("group_merge_members", args=[group.token]), {"keep": anna.pk, "gone": ana.pk}
    )
    assert answer.status_code == 302
    after = standings.compute(*standings.load(group)).rulesets[0]
    assert {line.name: (line.games, line.wins) for line in after.lines} == {
        "Anna": (2, 2),
        "Bruno": (2, 0),
    }
    assert models.Player.objects.get(evening=second.evening, member=anna).name == "Anna"
    assert not group.members.filter(name="Ana").exists()


def test_two_members_who_played_one_evening_are_two_people_and_never_merge() -> None:
    client = Client()
    group = _group(client)
    _first_evening_with(client, group, ["Anna", "Bruno"])
    anna, bruno = group.members.get(name="Anna"), group.members.get(name="Bruno")
    with pytest.raises(IllegalMove):
        roster.merge_members(group, anna.pk, bruno.pk)
    assert group.members.count() == 2


def _first_evening_with(client: Client, group: models.Group, names: list[str]) -> models.Game:
    _members(client, group, *names)
    return _first_evening(client, group)


def test_an_evening_joins_a_group_after_a_confirmation_and_leaves_it() -> None:
    client = Client()
    group = _group(client)
    _members(client, group, "Anna")
    game = evening(("anna", "Zoé"))
    join = reverse("evening_join_group", args=[game.evening.token])
    asked = client.post(join, {"group": group.token})
    page = asked.content.decode()
    assert asked.status_code == 200 and "member Anna" in page and "Zoé → new member" in page
    assert models.Evening.objects.get(pk=game.evening.pk).group is None
    client.post(join, {"group": group.token, "confirm": "1"})
    players = models.Player.objects.filter(evening=game.evening).order_by("pk")
    assert [p.member.name for p in players] == ["Anna", "Zoé"]
    client.post(reverse("evening_leave_group", args=[game.evening.token]))
    assert models.Evening.objects.get(pk=game.evening.pk).group is None
    assert not models.Player.objects.filter(evening=game.evening, member__isnull=False).exists()
    assert group.members.count() == 2  # the roster stays


def test_an_evening_link_joins_no_group_whose_edit_link_the_browser_lacks() -> None:
    owner, stranger = Client(), Client()
    group = _group(owner)
    game = evening(("Ann", "Bob"))
    answer = stranger.post(
        reverse("evening_join_group", args=[game.evening.token]),
        {"group": group.token, "confirm": "1"},
    )
    assert answer.status_code == 404
    assert not group.evenings.exists()


def test_the_view_link_reads_everything_and_writes_nothing() -> None:
    client = Client()
    group = _group(client)
    _first_evening_with(client, group, ["Anna", "Bruno"])
    page = client.get(reverse("watch_group", args=[group.view_token])).content.decode()
    assert group.token not in page and "<form" not in page
    evening_tokens = models.Evening.objects.filter(group=group).values_list("token", flat=True)
    assert not any(token in page for token in evening_tokens)
    member = group.members.first()
    writes = [
        ("group_rename", {"name": "x"}),
        ("group_add_member", {"name": "x"}),
        ("group_rename_member", {"member": member.pk, "name": "x"}),
        ("group_merge_members", {"keep": member.pk, "gone": member.pk}),
        ("group_next_evening", {"players": [member.pk]}),
        ("group_import", {}),
    ]
    before = (models.Evening.objects.count(), list(group.members.values_list("name", flat=True)))
    for name, data in writes:
        assert client.post(reverse(name, args=[group.view_token]), data).status_code == 404
    assert (models.Evening.objects.count(), list(group.members.values_list("name", flat=True))) == (
        before
    )


def test_an_evening_edit_token_opens_nothing_of_its_group() -> None:
    client = Client()
    group = _group(client)
    game = _first_evening_with(client, group, ["Anna", "Bruno"])
    token = game.evening.token
    assert client.get(reverse("group", args=[token])).status_code == 404
    assert client.post(reverse("group_add_member", args=[token]), {"name": "x"}).status_code == 404
    assert client.get(reverse("group_games_csv", args=[token])).status_code == 404


def test_the_group_files_say_each_game_with_its_date_and_evening_and_import_back() -> None:
    client = Client()
    group = _group(client)
    game = _first_evening_with(client, group, ["Anna", "Bruno"])
    models.Evening.objects.filter(pk=game.evening_id).update(name="Soirée crêpes")
    play(game, by_player(best, least))
    rows = list(csv.reader(io.StringIO(_text(client, "group_games_csv", group))))
    assert rows[0] == [
        "date",
        "evening",
        "game",
        "ruleset",
        "seat",
        "player",
        "total",
        "rank",
        "won",
    ]
    result = models.Game.objects.get(pk=game.pk).result
    day = game.evening.created_at.date().isoformat()
    assert rows[1:] == [
        [day, "Soirée crêpes", "1", "yam", "1", "Anna", str(result["seats"][0]["total"]), "1", "1"],
        [
            day,
            "Soirée crêpes",
            "1",
            "yam",
            "2",
            "Bruno",
            str(result["seats"][1]["total"]),
            "2",
            "0",
        ],
    ]
    french = _text(client, "group_standings_csv", group, "?lang=fr")
    assert french.splitlines()[0].split(";")[:3] == ["Règles", "Rang", "Joueur"]
    archive = zipfile.ZipFile(
        io.BytesIO(client.get(reverse("group_files", args=[group.token])).content)
    )
    (name,) = archive.namelist()
    document = archive.read(name)
    assert json.loads(document)["format"] == "scorepad.game.v1"
    # A file of the group imports back, into a new evening of the group, once confirmed.
    asked = client.post(
        reverse("group_import", args=[group.token]),
        {"file": _upload(document)},
    )
    assert asked.status_code == 200 and "member Anna" in asked.content.decode()
    assert group.evenings.count() == 1
    carried = re.search(r'name="document" value="([^"]+)"', asked.content.decode())[1]
    done = client.post(reverse("group_import", args=[group.token]), {"document": carried})
    assert done.status_code == 302
    assert group.evenings.count() == 2
    imported = models.Game.objects.filter(evening__group=group).exclude(pk=game.pk).get()
    assert {p.member.name for p in models.Player.objects.filter(evening=imported.evening)} == {
        "Anna",
        "Bruno",
    }
    assert group.members.count() == 2


def test_a_refused_game_file_leaves_the_group_as_it_was() -> None:
    client = Client()
    group = _group(client)
    answer = client.post(
        reverse("group_import", args=[group.token]), {"file": _upload(b'{"format": "nope"}')}
    )
    assert answer.status_code == 422
    tampered = client.post(reverse("group_import", args=[group.token]), {"document": "!!"})
    assert tampered.status_code == 422
    assert not group.evenings.exists() and not models.Evening.objects.exists()


def test_the_group_page_is_french_too() -> None:
    client = Client(headers={"Accept-Language": "fr"})
    group = _group(client)
    _members(client, group, "Anna")
    page = client.get(reverse("group", args=[group.token])).content.decode()
    assert "Soirée suivante" in page and "Membres" in page


def _text(client: Client, name: str, group: models.Group, query: str = "") -> str:
    return client.get(reverse(name, args=[group.token]) + query).content.decode("utf-8-sig")


def _upload(data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("game.json", data, content_type="application/json")


def test_groups_are_made_within_the_new_evenings_budget(settings) -> None:
    settings.NEW_EVENINGS_PER_HOUR = 2
    client = Client()
    for name in ("One", "Two"):
        assert client.post(reverse("new_group"), {"name": name}).status_code == 302
    refused = client.post(reverse("new_group"), {"name": "Three"})
    assert refused.status_code == 429 and "Retry-After" in refused
    assert list(models.Group.objects.values_list("name", flat=True).order_by("name")) == [
        "One",
        "Two",
    ]


def test_the_evenings_are_listed_newest_first_twenty_a_page() -> None:
    from datetime import UTC, datetime, timedelta

    client = Client()
    group = _group(client)
    start = datetime(2026, 1, 1, 20, tzinfo=UTC)
    for week in range(21):
        game = services.create_evening(["Ann", "Bob"], "yam", evening_name=f"Week {week}")
        roster.attach_evening(group, game.evening)
        models.Evening.objects.filter(pk=game.evening_id).update(
            created_at=start + timedelta(weeks=week)
        )
    url = reverse("watch_group", args=[group.view_token])
    first = re.findall(r"Week (\d+)", client.get(url).content.decode())
    second = re.findall(r"Week (\d+)", client.get(url + "?page=2").content.decode())
    assert first == [str(week) for week in range(20, 0, -1)]
    assert second == ["0"]
    assert client.get(url + "?page=99").status_code == 200  # the last page, not an error


def test_a_first_evening_needs_its_rules_and_nothing_is_made_without() -> None:
    group = roster.create_group("Jeudi")
    anna = roster.add_member(group, "Anna")
    with pytest.raises(IllegalMove, match="Choose the rules"):
        roster.start_evening(group, [anna.pk])
    assert not models.Evening.objects.exists()
