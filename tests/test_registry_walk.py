"""Every page a phone can reach, for every rule set of the registry and each house rule.

The cases come from ``RULESETS`` (and a rule set registered here, in this module only): each
rule set with its own options, then once with each other choice of each of its options (the
Yahtzee bonus or the Joker off, the lower threshold, four rolls, the order, the columns, Max
and Min off…). Each case plays one game through its states (just started, a turn's dice
typed in, a turn's dice rolled, midway, finished, corrected) and, in each, fetches as a
player and as a spectator every page of the URL resolver that takes a token (the sheet, the
review, the export, the evening, its games, CSVs and board, the polls, the players…) and the
links the sheet shows (the chooser, the correction…). Each fetch takes the next of the
languages, full page or htmx fragment, and the sheet's views, so every case sees them all
without the whole product.

What no page may do: answer a 5xx; show a spectator the edit token; say a rule the game does
not play (a Yahtzee bonus or a Joker it has off, an upper bonus's threshold or points other
than its own).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import count
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.urls.exceptions import Resolver404
from django.utils import translation

from games import models, roster, selectors, services, virtual_dice
from games.rules import RULESETS, Move, Option, RuleSet, register
from games.rules.errors import N_
from games.rules.rulesets import FaceSum, FiveAlike, UpperBonus
from games.rules.words import Text

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class OddPips:
    """A kind of box the engine does not have: the odd dice added up."""

    kind: ClassVar[str] = "odd_pips"

    def __call__(self, dice: tuple[int, ...]) -> int:
        return sum(die for die in dice if die % 2)

    def describe(self, rules: RuleSet) -> tuple[Text, ...]:
        return (Text(N_("Only the odd dice count: %(low)s to %(high)s."), {"low": 1, "high": 25}),)


#: A rule set of this module's own: three boxes and a five-alike one, its own upper bonus
#: (7 at 14: neither the seeds' threshold nor their points) and the Joker's fields off.
WALKED_HERE = RuleSet(
    key="walk-pips",
    name=N_("Walk pips"),
    label=N_("Walk pips (four boxes)"),
    max_players=4,
    scorers={"aces": FaceSum(1), "sixes": FaceSum(6), "odds": OddPips(), "alike": FiveAlike(40)},
    upper_bonus=UpperBonus(threshold=14, points=7),
    row_names={"aces": N_("Pip aces"), "sixes": N_("Sixes"), "odds": N_("Odd pips")},
    row_help={},
    options=(Option("walk_flag", (False, True), False, label=N_("Walk flag")),),
)


def variants(ruleset: RuleSet) -> Iterator[dict[str, Any]]:
    """The rule set as it comes, then each other choice of each of its options."""
    yield {}
    for option in ruleset.options:
        for choice in option.choices:
            if choice != option.default:
                yield {option.key: choice}


def case_id(ruleset: RuleSet, options: Mapping[str, Any]) -> str:
    return ruleset.key + "".join(f"-{key}={value}" for key, value in options.items())


CASES = [
    pytest.param(ruleset, options, id=case_id(ruleset, options))
    for ruleset in [*RULESETS.values(), WALKED_HERE]
    for options in variants(ruleset)
]

MODES = ("value", "dice", "virtual")
LANGUAGES = ("en", "fr")
#: What each fetch of a case cycles through: (language, htmx fragment, the sheet's view).
STYLES = [
    (lang, htmx, view)
    for view in ("table", "focus")
    for htmx in (False, True)
    for lang in LANGUAGES
]

#: Routes a phone reaches that this walk does not fetch: the event streams, which never end
#: (their answers are tested in test_live).
NOT_WALKED = {
    "events",
    "watch_events",
    "board_events",
    "watch_board_events",
    "group_events",
    "watch_group_events",
}


def routes() -> dict[str, list[str]]:
    """The resolver's named routes by their tokens' kind: ``edit`` (they take the edit
    token), ``watch`` (the spectator's) and ``open`` (no token)."""
    found: dict[str, list[str]] = {"edit": [], "watch": [], "open": []}

    def walk(patterns: list[Any]) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns)
            elif isinstance(pattern, URLPattern) and pattern.name:
                converters = pattern.pattern.converters
                if pattern.name in NOT_WALKED:
                    continue
                if "view_token" in converters:
                    found["watch"].append(pattern.name)
                elif "token" in converters:
                    found["edit"].append(pattern.name)
                elif not converters or set(converters) <= {"ruleset", "name"}:
                    found["open"].append(pattern.name)

    walk(get_resolver().url_patterns)
    return found


ROUTES = routes()
#: Pages that show other games than the case's, or none (every rule set's rules, the
#: evenings this browser knows): their words are not the game's.
OTHER_GAMES_PAGES = {"home", "rules", "rules_ruleset", "history", "player_stats", "player_stats_at"}


def args_for(name: str, game: models.Game) -> list[Any]:
    converters = get_resolver().reverse_dict.getlist(name)[0][0][0][1]
    # A group's route takes the group's tokens (the case's evening is in a group of its own).
    group = name.startswith(("group", "watch_group"))
    owner: Any = game.evening.group if group else game.evening
    values = {
        "token": owner.token,
        "view_token": owner.view_token,
        "number": game.number,
        "ruleset": game.ruleset,
        "name": "Ann",
    }
    return [values[converter] for converter in converters]


LINK = re.compile(r'(?:href|hx-get|hx-post|action|src|data-url)="([^"]*)"')


def links(body: str) -> list[str]:
    return [link.replace("&amp;", "&") for link in LINK.findall(body)]


def number_said(patterns: list[str], text: str) -> set[int]:
    return {int(n) for pattern in patterns for n in re.findall(pattern, text)}


#: The words that state an upper bonus's threshold, and its points, in each language.
THRESHOLD_WORDS = [
    r"\((\d+) or more\)",
    r"(\d+) or more:",
    r"\((\d+) ou plus\)",
    r"(\d+) ou plus :",
]
THRESHOLD_WORDS += [r"Bonus <small>\((\d+)\)</small>", r"Prime <small>\((\d+)\)</small>"]
POINTS_WORDS = [r"(\d+)-point upper bonus", r"prime de (\d+) points", r"Bonus \+(\d+)\b"]


def rule_words_hold(
    body: str, ruleset: RuleSet, options: Mapping[str, Any], lang: str
) -> list[str]:
    """What a page of the game says about a rule the game does not play."""
    # The rules' form (Play again's other rules, the next game's) offers every rule set's
    # options, and the sheet's header says which house rules are off: neither is the
    # game's own rule.
    text = re.sub(r'<fieldset class="rules">.*?</fieldset>', "", body, flags=re.S)
    # A finished game's BG Stats link says its house rules too, URL-encoded: read in words.
    text = re.sub(r'href="(https://app\.bgstatsapp\.com/[^"]*)"', lambda m: unquote(m[1]), text)
    with translation.override(lang):
        for said in ruleset.house_rules(options):
            text = text.replace(translation.gettext(said.message) % said.params, "")
    wrong = []
    bonus = ruleset.yahtzee_bonus
    upper = ruleset.bonus(options)
    if bonus and not ruleset.yahtzee_bonus_of(options) and f"+{bonus}" in text:
        if upper is None or upper.points != bonus:
            wrong.append(f"+{bonus} with the Yahtzee bonus off")
    if ruleset.joker and not ruleset.joker_on(options) and "Joker" in text:
        wrong.append("Joker with the Joker off")
    if not ruleset.joker and not ruleset.yahtzee_bonus and "Joker" in text:
        wrong.append("Joker in a rule set without one")
    thresholds = number_said(THRESHOLD_WORDS, text)
    own = {upper.threshold} if upper else set()
    if thresholds - own:
        wrong.append(f"threshold {sorted(thresholds - own)}, not {sorted(own)}")
    points = number_said(POINTS_WORDS, text)
    own_points = {upper.points} if upper else set()
    if points - own_points:
        wrong.append(f"bonus points {sorted(points - own_points)}, not {sorted(own_points)}")
    return wrong


#: The states each case's game goes through, in order.
STATES = ("start", "dice typed", "dice rolled", "midway", "finished", "corrected")
ROLES = ("edit", "watch")
#: The links of the sheet that open a question or a chooser, followed where it shows them.
FOLLOWED = {"pick", "correct", "reset"}
#: The pages whose words depend on a finished game: fetched in the last states.
RESULT_PAGES = {
    "edit": ("review", "board", "evening_csv", "tally_csv"),
    "watch": ("watch_review", "watch_board", "watch_evening_csv", "watch_tally_csv"),
}


def plan(case: int, state: int, role: str) -> list[str]:
    """The routes a case fetches in a state, in a role, beside the sheet: one of the
    role's routes in turn (each case starts further on, so that the cases together fetch
    every route in each role), and the result pages once a game is over."""
    names = ROUTES[role] + ROUTES["open"]
    turn = case * len(STATES) + state
    picked = [names[turn % len(names)]]
    if STATES[state] == "finished":
        picked += RESULT_PAGES[role][:2] if case % 2 else RESULT_PAGES[role][2:]
    if STATES[state] == "corrected":
        picked += RESULT_PAGES[role][2:] if case % 2 else RESULT_PAGES[role][:2]
    return picked


class Walk:
    """One case's fetches: what each answered, and what was wrong."""

    def __init__(
        self, case: int, game: models.Game, ruleset: RuleSet, options: Mapping[str, Any]
    ) -> None:
        self.case = case
        self.game = game
        self.ruleset = ruleset
        self.options = options
        # A 500 is an answer to count, not an exception that ends the walk.
        self.clients = {role: Client(raise_request_exception=False) for role in ROLES}
        # Each case starts the styles further on, so that no route keeps one language.
        self.turn = count(case)
        self.problems: list[str] = []
        self.seen: set[tuple[str, str, str, bool, str]] = set()
        self.thresholds: set[int] = set()

    def fetch(self, role: str, url: str, state: str) -> str:
        """The page, in the next style; its links (a redirect's too), or "" for a stream."""
        lang, htmx, view = STYLES[next(self.turn) % len(STYLES)]
        path = urlsplit(url).path
        name = resolve(path).url_name or path
        self.seen.add((role, name, lang, htmx, view))
        asked = url
        if name in ("sheet", "watch_sheet", "poll", "watch_poll", "pick", "correct"):
            asked = f"{url}{'&' if '?' in url else '?'}view={view}"
        headers = {"Accept-Language": lang, **({"HX-Request": "true"} if htmx else {})}
        response = self.clients[role].get(asked, headers=headers)
        where = f"{state}, {role}, {lang}{', htmx' if htmx else ''}: {asked}"
        if response.status_code >= 500:
            self.problems.append(f"{where} answered {response.status_code}")
            return ""
        if response.streaming:
            return ""
        body = response.content.decode(errors="replace")
        location = response.get("Location", "")
        if response.status_code == 404 and name not in ROUTES["open"]:
            self.problems.append(f"{where} answered 404: its token opened nothing")
        secrets = (self.game.evening.token, self.game.evening.group.token)
        if role == "watch" and any(secret in body + location for secret in secrets):
            self.problems.append(f"{where} shows an edit token to a spectator")
        if name not in OTHER_GAMES_PAGES:
            for wrong in rule_words_hold(body, self.ruleset, self.options, lang):
                self.problems.append(f"{where} says {wrong}")
            # The check reads the words it looks for: the game's own threshold among them.
            self.thresholds |= number_said(THRESHOLD_WORDS, body)
        return body + (f' href="{location}"' if location else "")

    def pages(self, state: int) -> None:
        said = STATES[state]
        for role in ROLES:
            sheet = "sheet" if role == "edit" else "watch_sheet"
            found = links(self.fetch(role, reverse(sheet, args=args_for(sheet, self.game)), said))
            for name in plan(self.case, state, role):
                self.fetch(role, reverse(name, args=args_for(name, self.game)), said)
            followed: set[str] = set()
            for link in found:
                path = urlsplit(link).path
                if not path.startswith("/") or path.startswith("/static/"):
                    continue
                try:
                    name = resolve(path).url_name or ""
                except Resolver404:
                    self.problems.append(f"{said}, {role}: a link to nowhere, {link}")
                    continue
                if name in FOLLOWED and name not in followed:
                    followed.add(name)
                    self.fetch(role, link, said)


def play(game: models.Game, turns: int | None) -> None:
    """Play turns in value mode: each player's five-alike box first (at its best, so that a
    Yahtzee bonus and a Joker may be offered next), then the first box they may play."""
    loaded = selectors.load_current(game.pk)
    done = 0
    while not loaded.state.finished and (turns is None or done < turns):
        state = loaded.state
        player = state.current_player
        assert player is not None
        cells = state.playable_cells()
        five = [c for c in cells if isinstance(state.ruleset.scorers[c[1]], FiveAlike)]
        column, row = (five or cells)[0]
        offered = state.offered_values(row)
        move = Move(player, row, column, value=max(offered)) if offered else None
        move = move or Move(player, row, column, cross=True)
        loaded, _played = services.record_turn(game.pk, move, None)
        done += 1


def mode(game: models.Game, entry_mode: str, pending: dict[str, Any] | None = None) -> None:
    services.save_pending(game.pk, {}, None)
    services.set_entry_mode(game.pk, entry_mode)
    if pending:
        services.save_pending(game.pk, pending, None)


def correct_a_box(game: models.Game) -> None:
    """A finished game's correction: the first box another value can stand in."""
    loaded = selectors.load_current(game.pk)
    state = loaded.state
    for seat in range(len(state.players)):
        for column in state.columns:
            for row in state.rows:
                box = state.box(seat, column, row)
                for value in state.offered_values(row):
                    if value == box.value:
                        continue
                    seen = selectors.Seen(loaded.record.version, None)
                    fix = Move(seat, row, column, value=value)
                    try:
                        services.correct(game.pk, seen, seat, column, row, fix)
                    except (services.CorrectionRefused, services.IllegalMove):
                        continue
                    return
    raise AssertionError("no box of the finished game could be corrected")


@pytest.fixture
def registered() -> Iterator[None]:
    register(WALKED_HERE)
    try:
        yield
    finally:
        del RULESETS[WALKED_HERE.key]


@pytest.mark.parametrize(("ruleset", "options"), CASES)
def test_every_page_of_every_rule_set_answers_and_says_its_rules(
    ruleset: RuleSet, options: dict[str, Any], registered: None
) -> None:
    index = next(i for i, case in enumerate(CASES) if case.values == (ruleset, options))
    entry_mode = MODES[index % len(MODES)]
    game = services.create_evening(["Ann", "Bob"], ruleset.key, options, entry_mode, first=0)
    # In a group, so that the group's pages, with this game's results, are walked too.
    roster.attach_evening(roster.create_group(f"Walk {index}"), game.evening)
    game = models.Game.objects.select_related("evening__group").get(pk=game.pk)
    walk = Walk(index, game, ruleset, ruleset.normalize_options(options))
    walk.pages(0)
    mode(game, "dice", {"dice": [5] * (ruleset.dice - 1)})
    walk.pages(1)
    mode(game, "virtual", virtual_dice.roll({}, ruleset.rolls_of(options), ruleset.dice))
    walk.pages(2)
    # Midway in Values mode, where the chooser offers the scores (and a Yahtzee bonus).
    mode(game, "value")
    play(game, 2 * len(selectors.load_current(game.pk).state.columns) + 1)
    walk.pages(3)
    play(game, None)
    walk.pages(4)
    correct_a_box(game)
    walk.pages(5)
    assert not walk.problems, "\n".join(walk.problems[:40])
    upper = ruleset.bonus(walk.options)
    assert walk.thresholds == ({upper.threshold} if upper else set())
    for role in ROLES:
        styles = {style[2:] for style in walk.seen if style[0] == role}
        assert {lang for lang, _htmx, _view in styles} == set(LANGUAGES)
        assert {htmx for _lang, htmx, _view in styles} == {False, True}
        assert {view for _lang, _htmx, view in styles} == {"table", "focus"}


def test_the_walk_fetches_every_route_in_each_role() -> None:
    """The cases together fetch every route of the resolver that a phone reaches, in the
    role whose token it takes (and those without a token in both roles)."""
    for role in ROLES:
        planned = {
            name
            for case in range(len(CASES))
            for state in range(len(STATES))
            for name in plan(case, state, role)
        }
        assert set(ROUTES[role] + ROUTES["open"]) <= planned
    assert {"sheet", "pick", "review", "board", "evening_csv", "players"} <= set(ROUTES["edit"])
    assert {"watch_sheet", "watch_review", "watch_board"} <= set(ROUTES["watch"])
    assert {"rules", "rules_ruleset", "history"} <= set(ROUTES["open"])
