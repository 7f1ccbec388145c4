"""How rare was that? A final score placed among a perfect solo player's, in words: the
stored distribution, the words and their edges, the review, and the chart of a member's
scores over it."""

from __future__ import annotations

import json
import random
import re
from html import unescape

import numpy as np
import pytest
from coach_support import play_dice
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils import translation
from evening_support import evening

from games import charts, rarity
from games.coach import Config, Tables, distribution
from games.coach.distribution import Distribution


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))).strip()


def _store(directory, config: Config, scores) -> Distribution:
    """A distribution of known scores written where ``load`` reads it (no table needed)."""
    found = Distribution.of_scores(np.array(scores), config=config.name, seed=0)
    where = distribution.path(Tables(directory), config)
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text(json.dumps(found.as_json()))
    return found


# --- the distribution ---------------------------------------------------------------------------


def test_it_counts_shares_below_and_percentiles_from_whole_scores():
    found = Distribution.of_scores(np.array([10, 20, 20, 30, 40]), config="x", seed=1)
    assert (found.lowest, found.highest, found.games) == (10, 40, 5)
    assert [found.share_below(s) for s in (5, 10, 11, 20, 21, 40, 41, 99)] == [
        0.0,
        0.0,
        0.2,
        0.2,
        0.6,
        0.8,
        1.0,
        1.0,
    ]
    assert found.mean == 24.0
    assert found.std == pytest.approx(np.std([10, 20, 20, 30, 40], ddof=1))
    # The least score that q % of the games reach or stay under.
    assert [found.percentile(q) for q in (1, 20, 21, 60, 61, 99, 100)] == [
        10,
        10,
        20,
        20,
        30,
        40,
        40,
    ]
    assert found.line() == "mean 24.00 std 11.40 p1 10 p10 10 p25 20 p50 20 p75 30 p90 40 p99 40"


def test_it_is_stored_and_read_back_once_per_file_version(tmp_path):
    config = Config.of("yam", {})
    tables = Tables(tmp_path)
    assert distribution.load(tables, config) is None
    stored = _store(tmp_path, config, [100, 150, 150, 200])
    loaded = distribution.load(tables, config)
    assert loaded is not None and loaded.line() == stored.line()
    assert distribution.load(Tables(tmp_path), config) is loaded  # read once
    _store(tmp_path, config, [300, 300, 300, 301, 302])  # rebuilt: read again
    assert distribution.load(tables, config).lowest == 300
    distribution.path(tables, config).write_text("{not json")
    assert distribution.load(tables, config) is None


def test_build_plays_the_tables_policy_and_keeps_the_figures_beside_it(coach_tables):
    config = Config.of("yam", {})
    tables = Tables(coach_tables)
    found = distribution.build(tables, config, games=300, seed=5)
    note = json.loads(distribution.path(tables, config).read_text())
    assert (note["method"], note["games"], note["seed"]) == ("simulated", 300, 5)
    assert sum(note["counts"]) == 300 and note["lowest"] == found.lowest
    again = distribution.simulated_scores(config, tables.load(config), 300, 5)
    assert sorted(np.repeat(found.scores, found.counts)) == sorted(again)  # seeded, the same
    distribution.path(tables, config).unlink()  # the session's other tests see no figure


# --- the words ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("share", "english", "french"),
    [
        (0.0, "in fewer than 1 game in 100", "dans moins de 1 partie sur 100"),
        (0.0099, "in fewer than 1 game in 100", "dans moins de 1 partie sur 100"),
        (0.012, "in 1 game out of 100", "dans 1 partie sur 100"),
        (0.9575, "in 96 games out of 100", "dans 96 parties sur 100"),
        (0.99, "in 99 games out of 100", "dans 99 parties sur 100"),
        (0.993, "in more than 99 games in 100", "dans plus de 99 parties sur 100"),
        (1.0, "in more than 99 games in 100", "dans plus de 99 parties sur 100"),
    ],
)
def test_the_words_never_say_never_nor_always(share, english, french):
    assert rarity.share_words(share) == f"a perfect solo player scores less {english}"
    with translation.override("fr"):
        assert rarity.share_words(share) == f"un joueur parfait seul fait moins {french}"


def test_a_score_is_placed_by_the_share_of_games_scoring_less(settings, tmp_path):
    settings.COACH_TABLES_DIR = tmp_path
    _store(tmp_path, Config.of("yahtzee", {}), [100] * 4 + [200] * 95 + [300])
    place = rarity.place("yahtzee", {}, 200)
    assert (place.score, place.share, place.reason) == (200, 0.04, "")
    assert place.words == "a perfect solo player scores less in 4 games out of 100"
    assert rarity.place("yahtzee", {}, 301).words.endswith("more than 99 games in 100")
    # House rules are other rules: their own figures, none here.
    other = rarity.place("yahtzee", {"joker": False}, 200)
    assert other.share is None and other.words == ""
    assert other.reason == rarity.not_built()


@pytest.mark.parametrize(
    ("ruleset", "options", "reason"),
    [
        ("maxi-yatzy", {}, rarity.no_coach),
        ("nope", {}, rarity.no_coach),
        ("yams-columns", {}, rarity.several_columns),  # three columns: an estimated policy
        ("yams-columns", {"columns": 4}, rarity.several_columns),
        ("yatzy", {}, rarity.not_built),  # its table and figures not built here
    ],
)
def test_without_a_figure_it_says_why(ruleset, options, reason):
    place = rarity.place(ruleset, options, 250)
    assert (place.share, place.words) == (None, "")
    assert place.reason == reason()
    assert _text(render_to_string("coach/rarity.html", {"place": place})) == reason()
    assert "250" not in _text(render_to_string("coach/rarity.html", {"place": place}))


def test_the_partial_shows_the_score_and_its_words():
    place = rarity.Place(325, 0.96, rarity.share_words(0.96), "")
    assert _text(render_to_string("coach/rarity.html", {"place": place})) == (
        "325 — a perfect solo player scores less in 96 games out of 100"
    )


# --- the review ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_review_of_a_finished_game_places_each_final_score(
    client: Client, settings, tmp_path
) -> None:
    settings.COACH_TABLES_DIR = tmp_path
    game = evening(("Ann", "Bob"))
    loaded = play_dice(game, random.Random(3))
    totals = loaded.state.totals()
    url = reverse("review", args=[game.evening.token, game.number])
    html = client.get(url).content.decode()
    section = _text(re.search(r'<section class="rarity".*?</section>', html, re.S)[0])
    assert section == f"How rare was that? {rarity.not_built()}"
    assert str(totals[0]) not in section
    stored = _store(tmp_path, Config.of("yam", {}), list(range(0, 400, 4)))
    html = client.get(url).content.decode()  # the figures are built: the review says them
    items = re.findall(r'<ul class="rarity-list">(.*?)</ul>', html, re.S)[0]
    said = [_text(li) for li in re.findall(r"<li>(.*?)</li>", items, re.S)]
    assert said == [
        f"{name} {total} — {rarity.share_words(stored.share_below(total))}"
        for name, total in zip(("Ann", "Bob"), totals, strict=True)
    ]
    french = _text(client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode())
    assert "un joueur parfait seul fait moins dans" in french


@pytest.mark.django_db
def test_a_game_in_progress_is_not_placed(client: Client) -> None:
    game = evening(("Ann",))
    play_dice(game, random.Random(3), turns=2)
    html = client.get(reverse("review", args=[game.evening.token, game.number])).content
    assert b'class="rarity"' not in html


# --- the chart ----------------------------------------------------------------------------------


def test_the_chart_draws_the_shares_and_marks_each_score():
    rng = np.random.default_rng(0)
    found = Distribution.of_scores(rng.normal(250, 40, 20_000).round(), config="x", seed=0)
    chart = charts.distribution_chart(
        found, [180, 320], title="T", description="D", x_label="Final score", y_label="%"
    )
    assert chart.bars and chart.marks
    shares = [float(bar.title.split(": ")[1].removesuffix(" %")) for bar in chart.bars]
    assert sum(shares) == pytest.approx(100, abs=0.5)  # the 0.1st to 99.9th percentile, shown
    # Bars left to right, the tallest near the middle (the mean), the scores marked in order.
    xs = [float(bar.x) for bar in chart.bars]
    assert xs == sorted(xs)
    tallest = chart.bars[shares.index(max(shares))].title
    assert int(tallest.split("–")[0]) in range(200, 300)
    assert [mark.text for mark in chart.marks] == ["180", "320"]
    left, right = (float(mark.x) for mark in chart.marks)
    assert float(chart.bars[0].x) < left < right < float(chart.bars[-1].x) + 20
    assert chart.marks[0].style != chart.marks[1].style
    svg = render_to_string("charts/chart.html", {"chart": chart})
    assert svg.count("<rect") == len(chart.bars) and ">320</text>" in svg


def test_a_score_beyond_the_usual_widens_the_chart():
    found = Distribution.of_scores(np.arange(100, 300), config="x", seed=0)
    chart = charts.distribution_chart(
        found, [50, 900], title="T", description="D", x_label="X", y_label="Y"
    )
    first, last = chart.bars[0].title, chart.bars[-1].title
    assert int(first.split("–")[0]) <= 50 and int(last.split("–")[1].split(":")[0]) >= 900


@pytest.mark.django_db
def test_the_group_says_how_rare_its_records_and_bests_were(
    client: Client, settings, tmp_path
) -> None:
    """The group's highest game, lowest winning score and each member's best are placed
    among a perfect solo player's scores; each member's average is drawn over them; with no
    figure the page says why and shows none."""
    from games import roster

    settings.COACH_TABLES_DIR = tmp_path
    group = roster.create_group("Jeudi")
    game = evening(("Ann", "Bob"))
    roster.attach_evening(group, game.evening)
    totals = play_dice(game, random.Random(3)).state.totals()
    url = reverse("group", args=[group.token])
    page = _text(client.get(url).content.decode())
    assert rarity.not_built() in page
    assert "a perfect solo player scores less" not in page
    stored = _store(tmp_path, Config.of("yam", {}), list(range(0, 400, 4)))
    # The view link's page (kept apart from the edit link's, which holds the old words until
    # the group's next game: the standings are kept per signature).
    html = Client().get(reverse("watch_group", args=[group.view_token])).content.decode()
    high = max(totals)
    record = re.search(r'data-record="highest".*?</li>', html, re.S)[0]
    assert _text(record).endswith(f"{high} — {rarity.share_words(stored.share_below(high))}")
    bests = _text(re.search(r'<ul class="bests-list">.*?</ul>', html, re.S)[0])
    for total in totals:
        assert rarity.share_words(stored.share_below(total)) in bests
    assert '<ul class="legend averages">' in html
