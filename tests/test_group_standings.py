"""A group's standings (games/standings.py) and its live partial (games/views/standings.py):
each figure held to a computation of the test's own, straight from the stored results."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from itertools import combinations
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from games import models, selectors, services, standings
from games.rules import RULESETS, Move
from tests.evening_support import again, evening, play, seen

HTMX = {"HX-Request": "true"}
START = datetime(2026, 3, 5, 19, 0, tzinfo=UTC)


# --- the test's own computation ---------------------------------------------------------------


def expected(games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """From plain games in play order (each: ruleset, threshold, when = (date, number), and
    seats of member/total/rank/won/yahtzees/upper/behind), what the standings must say:
    per rule set each member's (games, wins, total, best), each record as (value, member,
    when) with the first in time on a tie, each member's totals in order; head to head."""
    out: dict[str, Any] = {"rulesets": {}, "h2h": {}}
    for key in dict.fromkeys(game["ruleset"] for game in games):
        played = [game for game in games if game["ruleset"] == key]
        lines: dict[int, list[int]] = {}
        series: dict[int, list[int]] = defaultdict(list)
        candidates: dict[str, list[tuple[int, tuple[Any, ...], int, int]]] = defaultdict(list)
        for game in played:
            seen_members: set[int] = set()
            for seat_index, seat in enumerate(game["seats"]):
                member = seat["member"]
                if member is None or member in seen_members:
                    continue
                seen_members.add(member)
                line = lines.setdefault(member, [0, 0, 0, -1])
                line[0] += 1
                line[1] += int(seat["won"])
                line[2] += seat["total"]
                line[3] = max(line[3], seat["total"])
                series[member].append(seat["total"])
                order = (game["when"], seat_index)

                def add(kind: str, value: int, bigger: bool = True) -> None:
                    candidates[kind].append((-value if bigger else value, order, member, value))  # noqa: B023

                add("highest", seat["total"])
                if seat["won"]:
                    add("lowest_win", seat["total"], bigger=False)
                    if seat["behind"] > 0:
                        add("comeback", seat["behind"])
                if seat["yahtzees"]:
                    add("five_alike", seat["yahtzees"])
                if game["threshold"] is not None:
                    over = [u - game["threshold"] for u in seat["upper"] if u >= game["threshold"]]
                    if over:
                        add("upper_margin", max(over))
        # Streaks: each member's games of the rule set in order, counted apart.
        for member in lines:
            run = 0
            for game in played:
                seat_index, seat = next(
                    ((i, s) for i, s in enumerate(game["seats"]) if s["member"] == member),
                    (None, None),
                )
                if seat is None:
                    continue
                run = run + 1 if seat["won"] else 0
                if run:
                    candidates["streak"].append((-run, (game["when"], seat_index), member, run))
        records = {
            kind: (best[3], best[2], best[1][0])
            for kind, found in candidates.items()
            for best in [min(found)]
        }
        out["rulesets"][key] = {
            "lines": {member: tuple(line) for member, line in lines.items()},
            "records": records,
            "series": dict(series),
        }
    for game in games:
        by_member: dict[int, int] = {}
        for seat in game["seats"]:
            if seat["member"] is not None and seat["member"] not in by_member:
                by_member[seat["member"]] = seat["rank"]
        for one, other in combinations(sorted(by_member), 2):
            counts = out["h2h"].setdefault((one, other), [0, 0, 0, 0])
            counts[0] += 1
            if by_member[one] < by_member[other]:
                counts[1] += 1
            elif by_member[other] < by_member[one]:
                counts[2] += 1
            else:
                counts[3] += 1
    return out


def computed(result: standings.Standings) -> dict[str, Any]:
    """The module's answer in the shape of ``expected``'s (members by id, roster order
    dropped from the head to head: pairs are sorted by id)."""
    out: dict[str, Any] = {"rulesets": {}, "h2h": {}}
    for part in result.rulesets:
        out["rulesets"][part.ruleset] = {
            "lines": {
                line.member: (line.games, line.wins, line.total, line.best) for line in part.lines
            },
            "records": {
                record.kind: (
                    record.value,
                    record.member,
                    ((record.game.date, record.game.number)),
                )
                for record in part.records
            },
            "series": part.series,
        }
    for pair in result.head_to_head:
        one, other = pair.first, pair.second
        counts = [pair.games, pair.first_above, pair.second_above, pair.level]
        if one > other:
            one, other = other, one
            counts = [counts[0], counts[2], counts[1], counts[3]]
        out["h2h"][(one, other)] = counts
    return out


def plain(played: standings.Played) -> dict[str, Any]:
    return {
        "ruleset": played.ruleset,
        "threshold": played.threshold,
        "when": (played.date, played.number),
        "seats": [
            {
                "member": seat.member,
                "total": seat.total,
                "rank": seat.rank,
                "won": seat.won,
                "yahtzees": seat.yahtzees,
                "upper": list(seat.upper),
                "behind": seat.behind,
            }
            for seat in played.seats
        ],
    }


# --- the computation alone, on made-up games ----------------------------------------------------


@st.composite
def made_up_games(draw: st.DrawFn) -> tuple[list[standings.Played], dict[int, str]]:
    members = {pk: f"M{pk}" for pk in range(1, draw(st.integers(2, 5)) + 1)}
    games = []
    for index in range(draw(st.integers(0, 14))):
        seated = draw(
            st.lists(st.sampled_from([*members, None]), min_size=1, max_size=5, unique=True)
        )
        totals = [draw(st.integers(0, 60)) for _ in seated]
        seats = tuple(
            standings.Seat(
                member=member,
                total=total,
                rank=1 + sum(other > total for other in totals),
                won=total == max(totals),
                yahtzees=draw(st.integers(0, 3)),
                upper=tuple(draw(st.lists(st.integers(40, 80), min_size=1, max_size=3))),
                behind=draw(st.integers(0, 30)),
            )
            for member, total in zip(seated, totals, strict=True)
        )
        ruleset = draw(st.sampled_from(["yam", "yahtzee"]))
        games.append(
            standings.Played(
                game_id=index,
                number=index % 3 + 1,
                evening_id=index // 3,
                evening_token="t",
                evening_view_token="v",
                evening_name="",
                date=START + timedelta(days=index // 3),
                ruleset=ruleset,
                threshold=draw(st.sampled_from([None, 63])),
                seats=seats,
            )
        )
    return games, members


@settings(max_examples=150, deadline=None)
@given(made_up_games())
def test_it_counts_standings_records_and_head_to_head_as_the_tests_own_count(
    case: tuple[list[standings.Played], dict[int, str]],
) -> None:
    games, members = case
    assert computed(standings.compute(games, members)) == expected([plain(g) for g in games])


def test_a_record_tied_later_stays_with_the_first_to_set_it() -> None:
    def game(number: int, a: int, b: int) -> standings.Played:
        seats = tuple(
            standings.Seat(member, total, 1 + (total < max(a, b)), total == max(a, b), 0, (), 0)
            for member, total in ((1, a), (2, b))
        )
        return standings.Played(number, number, 1, "t", "v", "", START, "yam", None, seats)

    part = standings.compute([game(1, 200, 150), game(2, 150, 200)], {1: "Ann", 2: "Bob"})
    [highest] = [r for r in part.rulesets[0].records if r.kind == standings.HIGHEST]
    assert (highest.value, highest.name, highest.game.number) == (200, "Ann", 1)


def test_a_merged_member_counts_once_and_two_members_of_one_name_count_apart() -> None:
    seats = (
        standings.Seat(1, 100, 1, True, 0, (), 0),
        standings.Seat(2, 90, 2, False, 0, (), 0),
        standings.Seat(1, 80, 3, False, 0, (), 0),  # a second entry of member 1, merged
    )
    played = standings.Played(1, 1, 1, "t", "v", "", START, "yam", None, seats)
    result = standings.compute([played], {1: "Marc", 2: "Marc"})
    lines = {
        (line.member, line.name): (line.games, line.total) for line in result.rulesets[0].lines
    }
    assert lines == {(1, "Marc"): (1, 100), (2, "Marc"): (1, 90)}


# --- a group's games played through the services ----------------------------------------------


def random_pick(seed: int) -> Callable[[int, str, tuple[int, ...]], int | None]:
    rng = random.Random(seed)

    def pick(_player: int, _row: str, offered: tuple[int, ...]) -> int | None:
        return None if rng.random() < 0.15 else rng.choice(offered)

    return pick


def group_evening(
    group: models.Group,
    members: Sequence[models.Member],
    ruleset: str,
    days: int,
    seeds: Sequence[int],
) -> list[models.Game]:
    """An evening of ``group`` ``days`` after START, ``members`` seated, one game a seed."""
    game = evening([member.name for member in members], ruleset)
    models.Evening.objects.filter(pk=game.evening_id).update(
        group=group, created_at=START + timedelta(days=days)
    )
    by_name = {member.name: member for member in members}
    for player in game.evening.players.all():
        player.member = by_name[player.name]
        player.save(update_fields=["member"])
    games = []
    for index, seed in enumerate(seeds):
        if index:
            game = again(game)
        play(game, random_pick(seed))
        games.append(game)
    return games


def roster(group: models.Group, *names: str) -> list[models.Member]:
    return [
        models.Member.objects.create(group=group, name=name, key=name.lower()) for name in names
    ]


def stored(group: models.Group) -> list[dict[str, Any]]:
    """The group's finished games as plain data, read straight from the models."""
    member_of = {p.pk: p.member_id for p in models.Player.objects.all()}
    games = models.Game.objects.filter(evening__group=group, result__isnull=False)
    out = []
    for game in sorted(games, key=lambda g: (g.evening.created_at, g.number)):
        bonus = RULESETS[game.ruleset].bonus(game.options)
        out.append(
            {
                "ruleset": game.ruleset,
                "threshold": None if bonus is None else bonus.threshold,
                "when": (game.evening.created_at, game.number),
                "seats": [
                    {**seat, "member": member_of[seat["player"]]} for seat in game.result["seats"]
                ],
            }
        )
    return out


@pytest.fixture
def thursday(db: None) -> tuple[models.Group, list[models.Member]]:
    """Four members, three evenings on three dates: Yam, then Yahtzee, then both."""
    group = models.Group.objects.create(name="Jeudi")
    ann, bob, cy, dee = roster(group, "Ann", "Bob", "Cy", "Dee")
    group_evening(group, [ann, bob, cy], "yam", 0, [1, 2])
    group_evening(group, [bob, cy, dee], "yahtzee", 7, [3, 4])
    group_evening(group, [ann, bob, cy, dee], "yam", 14, [5])
    return group, [ann, bob, cy, dee]


def test_a_groups_standings_are_the_tests_own_count_of_its_stored_results(thursday: Any) -> None:
    group, _members = thursday
    assert computed(standings.standings(group)) == expected(stored(group))


def test_loading_takes_the_same_queries_whatever_the_number_of_games(thursday: Any) -> None:
    group, members = thursday
    client = Client()
    url = reverse("group_poll", args=[group.token])
    with CaptureQueriesContext(connection) as before:
        assert client.get(url, headers=HTMX).status_code == 200
    group_evening(group, members, "yahtzee", 21, [6, 7, 8])
    with CaptureQueriesContext(connection) as after:
        assert client.get(url, headers=HTMX).status_code == 200
    assert len(after) == len(before) <= 6, "\n".join(q["sql"][:150] for q in after.captured_queries)


def test_the_poll_answers_204_while_nothing_it_shows_moved_and_the_partial_after(
    thursday: Any,
) -> None:
    group, members = thursday
    client = Client()
    page = client.get(reverse("group_poll", args=[group.token]), headers=HTMX)
    poll = page.content.decode().split('hx-get="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    with CaptureQueriesContext(connection) as asked:
        assert client.get(poll, headers=HTMX).status_code == 204
    assert len(asked) <= 2
    # A turn of a game being played shows nowhere in the standings: still 204.
    game = evening([m.name for m in members[:2]], "yam")
    models.Evening.objects.filter(pk=game.evening_id).update(group=group)
    services.record_turn(game.pk, Move(0, "ones", value=3), None)
    assert client.get(poll, headers=HTMX).status_code == 204
    # The game ends: the partial, with its games counted.
    play(game, random_pick(9))
    answer = client.get(poll, headers=HTMX)
    assert answer.status_code == 200
    assert 'id="standings"' in answer.content.decode()


def test_a_wrong_token_is_a_404_and_an_evenings_token_opens_nothing(thursday: Any) -> None:
    group, _members = thursday
    evening_token = models.Evening.objects.filter(group=group).first().token
    client = Client()
    assert client.get(reverse("group_poll", args=["nope"])).status_code == 404
    assert client.get(reverse("group_poll", args=[evening_token])).status_code == 404
    assert client.get(reverse("watch_group_poll", args=[group.token])).status_code == 404


def test_every_record_and_best_links_to_its_games_review_with_the_links_own_token(
    thursday: Any,
) -> None:
    group, _members = thursday
    client = Client()
    edit = client.get(reverse("group_poll", args=[group.token]), headers=HTMX).content.decode()
    view = client.get(
        reverse("watch_group_poll", args=[group.view_token]), headers=HTMX
    ).content.decode()
    result = standings.standings(group)
    for part in result.rulesets:
        assert len(part.records) >= 3
        for record in part.records:
            game = record.game
            assert reverse("review", args=[game.evening_token, game.number]) in edit
            assert reverse("watch_review", args=[game.evening_view_token, game.number]) in view
    for played_evening in models.Evening.objects.filter(group=group):
        assert played_evening.token not in view
        assert group.token not in view
    assert view.count('class="record"') == edit.count('class="record"') > 0


def test_a_corrected_game_changes_the_standings_at_the_next_poll(thursday: Any) -> None:
    group, _members = thursday
    client = Client()
    page = client.get(reverse("group_poll", args=[group.token]), headers=HTMX).content.decode()
    poll = page.split('hx-get="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    first = models.Game.objects.filter(evening__group=group).order_by("pk").first()
    assert first is not None
    written = selectors.load_current(first.pk).state.box(0, "free", "ones")
    fix = Move(0, "", value=4 if written.value == 5 else 5)
    before = models.Game.objects.get(pk=first.pk).result["seats"][0]["total"]
    services.correct(first.pk, seen(first), 0, "free", "ones", fix)
    assert models.Game.objects.get(pk=first.pk).result["seats"][0]["total"] != before
    assert computed(standings.standings(group)) == expected(stored(group))
    answer = client.get(poll, headers=HTMX)
    assert answer.status_code == 200


def test_the_partial_reads_in_french(thursday: Any) -> None:
    group, _members = thursday
    answer = Client().get(
        reverse("group_poll", args=[group.token]), headers={**HTMX, "accept-language": "fr"}
    )
    text = answer.content.decode()
    assert "Head to head" not in text and "Standings" not in text
    assert "Face-à-face" in text and "Classement" in text


def test_a_member_renamed_or_merged_moves_the_poll_and_the_standings_follow(
    thursday: Any,
) -> None:
    group, (ann, bob, _cy, _dee) = thursday
    client = Client()

    def poll_url() -> str:
        page = client.get(reverse("group_poll", args=[group.token]), headers=HTMX)
        return page.content.decode().split('hx-get="', 1)[1].split('"', 1)[0].replace("&amp;", "&")

    shown = poll_url()
    models.Member.objects.filter(pk=ann.pk).update(name="Anne")
    renamed = client.get(shown, headers=HTMX)
    assert renamed.status_code == 200 and "Anne" in renamed.content.decode()
    shown = poll_url()
    # "Bob" was a typo of Anne's: his players become hers, his entry goes.
    models.Player.objects.filter(member=bob).update(member=ann)
    bob.delete()
    merged = client.get(shown, headers=HTMX)
    assert merged.status_code == 200
    result = standings.standings(group)
    assert bob.pk not in {line.member for part in result.rulesets for line in part.lines}
    assert computed(result) == expected(stored(group))


def test_points_lost_per_turn_come_from_each_games_kept_coach_figures() -> None:
    def game(number: int, coach: dict[str, Any] | None) -> standings.Played:
        seats = (
            standings.Seat(1, 200, 1, True, 0, (), 0),
            standings.Seat(2, 150, 2, False, 0, (), 0),
        )
        return standings.Played(number, number, 1, "t", "v", "", START, "yam", None, seats, coach)

    analysed = {"seats": [{"analysed": 10, "lost": 5.0}, {"analysed": 8, "lost": 16.0}]}
    result = standings.compute([game(1, analysed), game(2, None)], {1: "Ann", 2: "Bob"})
    lines = {line.name: line.coach for line in result.rulesets[0].lines}
    assert lines["Ann"].per_turn == 0.5 and lines["Bob"].per_turn == 2.0
    assert lines["Ann"].pending == 1  # the second game was not analysed
