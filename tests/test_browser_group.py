"""The group that comes back, played as a group would: four friends start a group on the
home page, play three evenings on three dates (Yam, then Yahtzee), a member is renamed,
one joins in the third evening, two entries for one person are merged; the group page's
standings, records, head-to-head and bests are then those this test counts from the
games itself, every record links to its game, and a correction afterwards moves them.

The group's writes go through the browser (its forms); the turns of the games through
the services (the table's own taps are the other browser tests'), with seeded dice so
that the winners vary.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from datetime import UTC, datetime
from itertools import combinations
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games import models, selectors, services
from games.rules import Game as RulesGame
from games.rules import Move, get_ruleset

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: The three evenings' dates, set by the test (an evening's date is its creation).
DATES = [datetime(2026, 10, 1, 19, tzinfo=UTC), datetime(2026, 11, 5, 19, tzinfo=UTC)]
DATES.append(datetime(2026, 12, 3, 19, tzinfo=UTC))
#: Who each name of the games is in the end: Bruno renamed, "Ana" merged into Anna.
PERSON = {"Ana": "Anna", "Bruno": "Bruno M."}
FIVE_ALIKE_ROWS = {"five_of_a_kind", "yatzy", "maxi_yatzy"}


def play_out(game: models.Game, rng: random.Random) -> None:
    """Every turn, in value mode: an offered value at random, or now and then a cross."""
    loaded = selectors.load_current(game.pk)
    while not loaded.state.finished:
        state = loaded.state
        player = state.current_player
        column, row = rng.choice(state.playable_cells())
        offered = state.offered_values(row)
        if rng.random() < 0.15 or not offered:
            move = Move(player, row, column, cross=True)
        else:
            move = Move(player, row, column, value=rng.choice(offered))
        loaded, _ = services.record_turn(game.pk, move, None)


def yam_then_yahtzee(first: models.Game, rng: random.Random, played: list[Any]) -> None:
    """The evening's Yam, then its Yahtzee with the same players; each game's pk and its
    players' names (as they were) kept for this test's own count."""
    play_out(first, rng)
    seated = [seat.player for seat in selectors.seats_of(first)]
    second = services.next_game(first.pk, [p.pk for p in seated], [], "yahtzee", {})
    play_out(second, rng)
    for game in (first, second):
        played.append((game.pk, [s.player.name for s in selectors.seats_of(game)]))


# --- this test's own count --------------------------------------------------------------------


def count(played: list[Any]) -> dict[str, Any]:
    """Standings, records, bests and head-to-head from the games' entries, replayed."""
    rows: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    records: dict[str, dict[str, tuple[int, str, int]]] = defaultdict(dict)
    streak: dict[tuple[str, str], int] = defaultdict(int)
    pairs: dict[frozenset[str], dict[str, int]] = {}

    def beat(ruleset: str, kind: str, value: int, who: str, pk: int, lower: bool = False) -> None:
        held = records[ruleset].get(kind)
        if held is None or (value < held[0] if lower else value > held[0]):
            records[ruleset][kind] = (value, who, pk)

    for pk, names in played:
        record = models.Game.objects.get(pk=pk)
        seats = selectors.seats_of(record)
        position = {seat.player_id: seat.position for seat in seats}
        state = RulesGame.new(record.ruleset, names, record.options, record.first_seat)
        people = [PERSON.get(name, name) for name in names]
        behind = [0] * len(names)
        for turn, entry in enumerate(record.entries.order_by("turn"), start=1):
            state.play(models.move_of(entry, position))
            if turn % len(names) == 0:
                totals = state.totals()
                behind = [max(b, max(totals) - t) for b, t in zip(behind, totals, strict=True)]
        totals = state.totals()
        top = max(totals)
        ruleset = record.ruleset
        rules = get_ruleset(ruleset)
        bonus = rules.bonus(record.options)
        for index, who in enumerate(people):
            total, won = totals[index], totals[index] == top
            line = rows[ruleset].setdefault(who, {"games": 0, "wins": 0, "points": 0, "best": 0})
            line["games"] += 1
            line["wins"] += won
            line["points"] += total
            line["best"] = max(line["best"], total)
            beat(ruleset, "highest", total, who, pk)
            if won:
                beat(ruleset, "lowest_win", total, who, pk, lower=True)
                if behind[index]:
                    beat(ruleset, "comeback", behind[index], who, pk)
            fives = sum(
                1
                for row in rules.rows(record.options)
                if row in FIVE_ALIKE_ROWS
                for column in state.columns
                if state.box(index, column, row).value
            )
            if rules.yahtzee_bonus:
                fives += state.yahtzee_bonus(index) // rules.yahtzee_bonus
            if fives:
                beat(ruleset, "five_alike", fives, who, pk)
            if bonus is not None:
                margins = [
                    state.column_totals(index, c).upper - bonus.threshold for c in state.columns
                ]
                earned = [m for m in margins if m >= 0]
                if earned:
                    beat(ruleset, "upper_margin", max(earned), who, pk)
            streak[(ruleset, who)] = streak[(ruleset, who)] + 1 if won else 0
            if streak[(ruleset, who)]:
                beat(ruleset, "streak", streak[(ruleset, who)], who, pk)
        for one, other in combinations(range(len(people)), 2):
            pair = pairs.setdefault(frozenset((people[one], people[other])), defaultdict(int))
            pair["games"] += 1
            if totals[one] != totals[other]:
                pair[people[one] if totals[one] > totals[other] else people[other]] += 1
    return {"rows": rows, "records": records, "pairs": pairs}


# --- what the page says -----------------------------------------------------------------------


def page_rows(page: Page, ruleset: str) -> dict[str, dict[str, Any]]:
    section = page.locator(f'section.standings-rules[data-ruleset="{ruleset}"]')
    found = {}
    for row in section.locator("tbody tr").all():
        name = row.get_attribute("data-member")
        found[name] = {
            "games": int(row.locator(".games").inner_text()),
            "wins": int(row.locator(".wins").inner_text()),
            "average": row.locator(".average").inner_text(),
            "best": int(row.locator(".best").inner_text()),
        }
    return found


def expected_rows(counted: dict[str, Any], ruleset: str) -> dict[str, dict[str, Any]]:
    return {
        who: {
            "games": line["games"],
            "wins": line["wins"],
            "average": f"{line['points'] / line['games']:.1f}",
            "best": line["best"],
        }
        for who, line in counted["rows"][ruleset].items()
    }


def page_records(page: Page, ruleset: str) -> dict[str, tuple[int, str, str]]:
    section = page.locator(f'section.standings-rules[data-ruleset="{ruleset}"]')
    found = {}
    for item in section.locator("li.record").all():
        value = int(re.search(r"\d+", item.locator(".record-value").inner_text())[0])
        link = item.locator("a.record-game").get_attribute("href")
        found[item.get_attribute("data-record")] = (
            value,
            item.locator(".record-who").inner_text(),
            link,
        )
    return found


def review_url(pk: int) -> str:
    game = models.Game.objects.select_related("evening").get(pk=pk)
    return f"/e/{game.evening.token}/g/{game.number}/review"


def check_page(page: Page, url: str, played: list[Any]) -> dict[str, Any]:
    page.goto(url)
    counted = count(played)
    for ruleset in ("yam", "yahtzee"):
        assert page_rows(page, ruleset) == expected_rows(counted, ruleset), ruleset
        wanted = {
            kind: (value, who, review_url(pk))
            for kind, (value, who, pk) in counted["records"][ruleset].items()
        }
        # Every record names who and links to its game's review.
        assert page_records(page, ruleset) == wanted, ruleset
    said_pairs = {}
    for item in page.locator("li.pair").all():
        first, second = (n.inner_text() for n in item.locator(".name").all())
        above = re.findall(r"\d+", item.locator(".score").inner_text())
        said_pairs[frozenset((first, second))] = {first: int(above[0]), second: int(above[1])}
    assert said_pairs == {
        pair: {who: counts.get(who, 0) for who in pair} for pair, counts in counted["pairs"].items()
    }
    for who in {w for rows in counted["rows"].values() for w in rows}:
        bests = page.locator(f'ul.bests-list li[data-member="{who}"] .best strong').all()
        wanted = sorted(rows[who]["best"] for rows in counted["rows"].values() if who in rows)
        assert sorted(int(b.inner_text()) for b in bests) == wanted, who
    return counted


def test_a_group_of_four_over_three_evenings(live_server: Any, page: Page) -> None:
    rng = random.Random(31)
    played: list[Any] = []
    page.goto(live_server.url + "/")
    page.fill("#group-name", "Jeudi chez Marc")
    page.locator("section.new-group button").click()
    expect(page.locator("h1")).to_have_text("Jeudi chez Marc")
    group_url = page.url
    group = models.Group.objects.get()
    for name in ("Anna", "Bruno", "Chloé", "Dev"):
        page.fill("#new-member", name)
        page.locator("#roster form.inline-form button", has_text="Add").last.click()
        expect(page.locator(f'#roster input[value="{name}"]')).to_have_count(1)

    # The first evening: everyone, Yam.
    page.locator("#next-evening a.start-button").click()
    page.check('#next-evening input[name="ruleset"][value="yam"]')
    page.locator("#next-evening button.start-button").click()
    page.wait_for_url(re.compile(r"/e/[^/]+/g/1/$"))
    evenings = [models.Evening.objects.get(group=group)]
    yam_then_yahtzee(evenings[0].games.get(number=1), rng, played)

    # The second evening: Anna away, and "Ana" typed for someone new (a typo, as it turns out).
    page.goto(group_url)
    page.locator("#next-evening a", has_text="Who plays").click()
    page.locator("#next-evening label", has_text="Anna").locator("input").uncheck()
    page.fill("#next-name", "Ana")
    page.check('#next-evening input[name="ruleset"][value="yam"]')  # the last game's was Yahtzee
    page.locator("#next-evening button.start-button").click()
    page.wait_for_url(re.compile(r"/e/[^/]+/g/1/$"))
    evenings.append(models.Evening.objects.filter(group=group).exclude(pk=evenings[0].pk).get())
    yam_then_yahtzee(evenings[1].games.get(number=1), rng, played)

    # Bruno becomes "Bruno M." everywhere in the group.
    page.goto(group_url)
    bruno = group.members.get(name="Bruno")
    page.fill(f"#member-{bruno.pk}", "Bruno M.")
    page.locator("#roster li", has=page.locator(f"#member-{bruno.pk}")).locator("button").click()
    expect(page.locator(f"#member-{bruno.pk}")).to_have_value("Bruno M.")

    # The third evening: Anna back, Ana not there, Eve joins.
    page.locator("#next-evening a", has_text="Who plays").click()
    page.locator("#next-evening label", has_text="Ana").locator("input").uncheck()
    page.locator("#next-evening label", has_text="Anna").locator("input").check()
    page.fill("#next-name", "Eve")
    page.check('#next-evening input[name="ruleset"][value="yam"]')
    page.locator("#next-evening button.start-button").click()
    page.wait_for_url(re.compile(r"/e/[^/]+/g/1/$"))
    evenings.append(
        models.Evening.objects.filter(group=group).exclude(pk__in=[e.pk for e in evenings]).get()
    )
    yam_then_yahtzee(evenings[2].games.get(number=1), rng, played)
    for evening, date in zip(evenings, DATES, strict=True):
        models.Evening.objects.filter(pk=evening.pk).update(created_at=date)
    assert {p.name for p in models.Player.objects.filter(evening=evenings[2])} == {
        "Anna",
        "Bruno M.",
        "Chloé",
        "Dev",
        "Eve",
    }

    # "Ana" was Anna: merged, her games count for Anna.
    page.goto(group_url)
    page.select_option("#merge-gone", label="Ana")
    page.select_option("#merge-keep", label="Anna")
    page.locator("form.merge-form button").click()
    expect(page.locator("#roster input[value='Ana']")).to_have_count(0)

    assert [models.Game.objects.get(pk=pk).ruleset for pk, _names in played] == [
        "yam",
        "yahtzee",
    ] * 3
    counted = check_page(page, group_url, played)
    assert set(counted["rows"]["yam"]) == {"Anna", "Bruno M.", "Chloé", "Dev", "Eve"}
    # A record's link opens its game's review.
    first_record = page.locator("section.standings-rules li.record a.record-game").first
    href = first_record.get_attribute("href")
    first_record.click()
    page.wait_for_url(f"**{href}")
    expect(page.locator(".review, main")).not_to_have_count(0)

    # A correction afterwards: the highest Yam game's best box crossed out moves them.
    value, who, pk = counted["records"]["yam"]["highest"]
    game = models.Game.objects.get(pk=pk)
    state = selectors.history(game).state
    seat = [PERSON.get(n, n) for n in dict(played)[pk]].index(who)
    column, row = max(
        ((c, r) for c in state.columns for r in state.rows if state.box(seat, c, r).value),
        key=lambda cell: state.box(seat, *cell).value,
    )
    loaded = selectors.load_current(pk)
    services.correct(
        pk,
        selectors.Seen(loaded.record.version, loaded.state.current_player),
        seat,
        column,
        row,
        Move(0, "", cross=True),
    )
    after = check_page(page, group_url, played)
    assert after["rows"]["yam"][who]["points"] < counted["rows"]["yam"][who]["points"]
