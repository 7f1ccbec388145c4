"""A group's event stream (games/views/live.py ``group_events``): every change of a game of
its evenings told, an evening joining told to the group, nothing of other evenings; on
SQLite through this process, on PostgreSQL through LISTEN/NOTIFY."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import sync_to_async
from django.db import transaction
from django.test import Client

from games import live, models, services
from games.rules import Move
from tests.test_live import open_stream, run, score

pytestmark = pytest.mark.django_db(transaction=True)

CHANGED = "id: g\nevent: changed\ndata: {}"


def grouped(group: models.Group, names: list[str]) -> models.Game:
    game = services.create_evening(names, "yam")
    models.Evening.objects.filter(pk=game.evening_id).update(group=group)
    return game


def test_the_groups_stream_tells_each_change_of_its_evenings_games_and_no_other() -> None:
    group = models.Group.objects.create(name="Jeudi")
    game = grouped(group, ["Ann", "Bob"])
    other = services.create_evening(["Cy"], "yam")

    async def scenario() -> None:
        for turn, url in enumerate([f"/g/{group.token}/events", f"/gs/{group.view_token}/events"]):
            _response, stream = await open_stream(url)
            await stream.nothing(0.2)
            await score(other.pk, Move(0, ("ones", "twos")[turn], value=turn + 1), None)
            await stream.nothing(0.3)  # an evening of no group
            await score(game.pk, Move(turn, "ones", value=3), None)
            assert await stream.next() == CHANGED

    run(scenario)


def test_an_evening_joining_the_group_is_told_and_its_games_then_are() -> None:
    group = models.Group.objects.create(name="Jeudi")
    grouped(group, ["Ann", "Bob"])
    later = services.create_evening(["Cy", "Dee"], "yam")

    def join() -> None:
        with transaction.atomic():
            models.Evening.objects.filter(pk=later.evening_id).update(group=group)
            live.announce_group(group.pk)

    async def scenario() -> None:
        _response, stream = await open_stream(f"/g/{group.token}/events")
        await score(later.pk, Move(0, "ones", value=3), None)
        await stream.nothing(0.3)  # not the group's yet
        await sync_to_async(join)()
        assert await stream.next() == CHANGED
        assert await stream.next() == CHANGED  # listening on its evenings anew: look once more
        await score(later.pk, Move(1, "ones", value=2), None)
        assert await stream.next() == CHANGED

    run(scenario)


def test_a_wrong_token_is_a_404_and_without_asgi_the_group_page_polls() -> None:
    group = models.Group.objects.create(name="Jeudi")
    game = grouped(group, ["Ann", "Bob"])

    async def scenario() -> None:
        from django.test import AsyncClient

        for url in (f"/g/{group.view_token}/events", f"/gs/{game.evening.view_token}/events"):
            assert (await AsyncClient().get(url)).status_code == 404

    run(scenario)
    with ThreadPoolExecutor(1) as thread:
        answer = thread.submit(Client().get, f"/g/{group.token}/events").result()
    assert answer.status_code == 204


def test_a_groups_notify_payload_is_told_apart_from_a_games() -> None:
    async def scenario() -> None:
        hub = live.Hub()
        async with (
            hub.stream(live.group_key(7)) as group_told,
            hub.stream(live.evening_key(3)) as evening_told,
        ):
            hub.told(f"{live.GROUP_PAYLOAD}7")
            assert group_told.get_nowait() is None and evening_told.empty()
            change = live.Change(5, 2, True)
            hub.told(change.payload(11, 3))
            assert evening_told.get_nowait() == change and group_told.empty()

    run(scenario)
