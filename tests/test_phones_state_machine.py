"""Two or three phones at one evening, driven through the site in random interleavings.

Each phone is a test client (its own cookies) that keeps what its page last showed: the
``#game`` of the last answer that swapped it (its ``data-version``, the hidden ``player``
of its forms, its links and forms) and the game number it is on, plus the panel a chooser,
a correction or the reset question opened over it. It acts only through what that page
offers (a cell's pick link, a form's hidden fields and buttons, a chooser's own choices),
as a browser with htmx would, so it is often stale: the other phones move the game under
it. Every answer of the game (200, 409, 422) becomes what the phone shows next, and must
show the game as it stands, every form and chooser link on it carrying that version and
the player it shows to play; a chooser opened (a box's, a correction's) is for the phone's
player and the box tapped, at the version the phone shows, or refused with the whole game.

After every step the database is checked against what happened:

1. each game's stored snapshot and result are a replay of its entries;
2. a write that went through was made at the version its phone showed, a score wrote the
   box of the player that phone showed to play (the cell it tapped), a correction the box
   it tapped, and a refused request (409, 422) wrote nothing at all;
3. no turn is stored twice (turns 1..N, one entry per cell);
4. the evening's tally (the leaderboard's ``tally.evening_tally``) is the one counted
   again from replays of its finished games.

The bug this guards against: a stale phone's pick carried neither version nor player, so
the chooser opened for the *next* player and Confirm wrote into that player's box. (With
``selectors.open_chooser`` made to skip ``check_seen`` again, the machine finds it within
a few examples.) Each example starts an evening of its own: small sheets, some turns
already played through the service so that games end, sometimes a finished game before.
"""

from __future__ import annotations

import os
import random
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db.models import Count, Max
from django.test import Client
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from games import coaching, models, selectors, services, tally
from games.rules import Game as RulesGame
from games.tests.budget import examples
from games.tests.test_rules_properties import random_move

HTMX = {"HX-Request": "true"}

#: Small sheets, so that games end (and Play again and Correct a box are reached).
SHEETS = (
    ("yam", {}),
    ("yam", {}),
    ("yahtzee", {}),
    ("yams-columns", {"columns": 3, "max_min": False}),
    # Six dice, and the rolls a turn says it used (saved rolls).
    ("maxi-yatzy", {}),
)
MODES = ("value", "dice", "virtual")
SHEET_URL = re.compile(r"^/e/(?P<token>[^/]+)/g/(?P<number>[0-9]+)/$")

PHONES = settings(
    # 20 runs of 40 steps in `make test-deep` (800 steps, a request or two each, the
    # database held to a replay after each), 8 in `make test`; PHONES_EXAMPLES=500 for a
    # longer hunt.
    max_examples=int(os.environ.get("PHONES_EXAMPLES", str(examples(8, 20)))),
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


# --- what a page shows ----------------------------------------------------------------------


@dataclass
class Form:
    action: str
    classes: str
    in_panel: bool
    #: Hidden inputs, in order (a chooser sends ``player`` twice, as a browser does).
    fields: list[tuple[str, str]] = field(default_factory=list)
    #: Submit buttons: (name, value, disabled).
    buttons: list[tuple[str, str, bool]] = field(default_factory=list)
    #: The values of its radio buttons (a chooser's choices).
    radios: list[str] = field(default_factory=list)

    def values(self, name: str) -> list[str]:
        return [value for key, value in self.fields if key == name]

    def get(self, name: str) -> str | None:
        """The value Django reads (the last one of that name)."""
        values = self.values(name)
        return values[-1] if values else None

    @property
    def path(self) -> str:
        return urlsplit(self.action).path


@dataclass
class Link:
    href: str
    in_panel: bool
    #: Its ``data-action`` ("reset" for the menu's Reset).
    action: str = ""

    @property
    def path(self) -> str:
        return urlsplit(self.href).path

    @property
    def query(self) -> dict[str, str]:
        return {k: v[-1] for k, v in parse_qs(urlsplit(self.href).query, True).items()}


class Page(HTMLParser):
    """The forms and links of an answer's ``#game`` (or of a panel answered alone)."""

    def __init__(self, html: str, *, whole: bool) -> None:
        super().__init__()
        #: ``whole``: only what is inside ``#game`` counts (a full page, a game partial).
        self.whole = whole
        self.version: int | None = None
        self.forms: list[Form] = []
        self.links: list[Link] = []
        self.poll: str | None = None
        self._game_depth = 0 if whole else 1
        self._panel_depth = 0
        self._form: Form | None = None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        at = {key: value or "" for key, value in attrs}
        if tag == "div" and at.get("id") == "game":
            self.version = int(at["data-version"])
            self._game_depth = 1
            return
        if not self._game_depth:
            return
        if tag == "div":
            self._game_depth += 1
        if tag == "section":
            if at.get("id") == "panel" or self._panel_depth:
                self._panel_depth += 1
        in_panel = self._panel_depth > 0 or not self.whole
        if tag == "form":
            action = at.get("hx-post") or at.get("action", "")
            self._form = Form(action, at.get("class", ""), in_panel)
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None:
            kind = at.get("type", "text")
            if kind == "hidden":
                self._form.fields.append((at["name"], at.get("value", "")))
            elif kind == "radio":
                self._form.radios.append(at["value"])
        elif tag == "button" and self._form is not None:
            if at.get("type", "submit") == "submit":
                self._form.buttons.append(
                    (at.get("name", ""), at.get("value", ""), "disabled" in at)
                )
        elif tag == "a":
            href = at.get("hx-get") or at.get("href", "")
            self.links.append(Link(href, in_panel, at.get("data-action", "")))
        elif tag == "div" and "poller" in at.get("class", "").split():
            self.poll = at.get("hx-get")

    def handle_endtag(self, tag: str) -> None:
        if not self._game_depth:
            return
        if tag == "form":
            self._form = None
        elif tag == "section" and self._panel_depth:
            self._panel_depth -= 1
        elif tag == "div" and self.whole:
            self._game_depth -= 1


def _multi(fields: list[tuple[str, str]]) -> dict[str, list[str]]:
    """A form's fields as the test client posts them: every value of a name, in order."""
    data: dict[str, list[str]] = {}
    for name, value in fields:
        data.setdefault(name, []).append(value)
    return data


@dataclass(frozen=True)
class Seen:
    """What a phone's page shows: the game's version and the player to play (None: over)."""

    version: int
    player: int | None


@dataclass
class Phone:
    name: str
    client: Client
    number: int
    page: Page
    #: A chooser, a correction's chooser or the reset question opened over the page.
    panel: Page | None = None
    #: The cell the open chooser was opened on: (column, row), or (seat, column, row).
    tapped: tuple[Any, ...] | None = None

    @property
    def seen(self) -> Seen:
        modes = self.form(lambda f: f.path.endswith("/mode"))
        assert modes is not None, "every game page has the entry modes"
        player = modes.get("player")
        assert self.page.version is not None
        return Seen(self.page.version, int(player) if player else None)

    def forms(self) -> list[Form]:
        """What can be tapped: a panel open hides the page's own panel."""
        shown = [f for f in self.page.forms if not (self.panel and f.in_panel)]
        return shown + (self.panel.forms if self.panel else [])

    def links(self) -> list[Link]:
        shown = [a for a in self.page.links if not (self.panel and a.in_panel)]
        return shown + (self.panel.links if self.panel else [])

    def form(self, test: Any) -> Form | None:
        return next((f for f in self.forms() if test(f)), None)

    def buttons(self, suffix: str, name: str | None = None) -> list[tuple[Form, str, str]]:
        """Enabled submit buttons of forms posting to ``…/suffix``: (form, name, value)."""
        return [
            (f, button, value)
            for f in self.forms()
            if f.path.endswith("/" + suffix)
            for button, value, disabled in f.buttons
            if not disabled and (name is None or button == name)
        ]

    def pick_links(self) -> list[Link]:
        return [a for a in self.links() if a.path.endswith("/pick")]

    def fix_links(self) -> list[Link]:
        return [a for a in self.links() if a.path.endswith("/correct") and "seat" in a.query]

    def previews(self) -> list[tuple[Form, str, str]]:
        return [
            (f, name, value)
            for f, name, value in self.buttons("score", "choice")
            if value == "dice" and "picker" not in f.classes
        ]


@dataclass(frozen=True)
class Print:
    """What the database holds of an evening, to tell what a request wrote."""

    #: Each game's (version, entries, finished), by pk.
    games: dict[int, tuple[int, int, bool]]
    corrections: int


@dataclass
class Sent:
    """A write sent, for the invariants to check against what it did."""

    kind: str
    status: int
    before: Print
    game: int
    seen: Seen
    #: A score's cell (column, row); a correction's (seat, column, row).
    cell: tuple[Any, ...] | None = None


# --- the evening to start from --------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    ruleset: str
    options: dict[str, Any]
    names: list[str]
    first: int
    mode: str
    #: A finished game before the one being played.
    earlier: bool
    #: Turns left to play in the newest game when the phones open it.
    left: int
    seed: int
    #: The game number each phone opens (1: the earlier game, if any).
    opens: list[int]


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    ruleset, options = draw(st.sampled_from(SHEETS))
    count = draw(st.sampled_from((1, 2, 2, 2, 3)))
    names = ["Ann", "Bob", "Cid"][:count]
    rules = RulesGame.new(ruleset, names, options, 0)
    cells = rules.rounds * count
    left = draw(st.one_of(st.integers(0, 2 * count), st.integers(0, min(cells, 12))))
    earlier = draw(st.booleans())
    phones = draw(st.integers(2, 3))
    last = 2 if earlier else 1
    opens = draw(st.lists(st.sampled_from((last, last, 1)), min_size=phones, max_size=phones))
    return Setup(
        ruleset,
        options,
        names,
        draw(st.integers(0, count - 1)),
        draw(st.sampled_from(("value", *MODES))),
        earlier,
        left,
        draw(st.integers(0, 2**32 - 1)),
        opens,
    )


def play_through(game: models.Game, leave: int, rnd: random.Random) -> None:
    """Random turns through the service (no phone) until ``leave`` turns are left."""
    loaded = selectors.load_current(game.pk)
    while loaded.state.rounds * len(loaded.seats) - loaded.state.turns_played > leave:
        move = random_move(loaded.state, rnd)
        loaded, _played = services.record_turn(game.pk, move, None, loaded.record)


# --- the machine ----------------------------------------------------------------------------

PHONE = st.integers(0, 2)
ANY = st.integers(0, 10_000)


def choosing(phone: Phone) -> bool:
    return phone.panel is not None and phone.tapped is not None and len(phone.tapped) == 2


def fixing(phone: Phone) -> bool:
    return phone.panel is not None and phone.tapped is not None and len(phone.tapped) == 3


def asked_reset(phone: Phone) -> bool:
    return phone.panel is not None and phone.tapped == ()


def polling(phone: Phone) -> bool:
    return phone.page.poll is not None and phone.panel is None


def other_games(phone: Phone) -> list[Link]:
    """Links to another game of the evening: a banner's "Go to it", "Go to game N"."""
    return [
        a
        for a in phone.links()
        if (m := SHEET_URL.match(a.path)) and int(m["number"]) != phone.number
    ]


def correct_links(phone: Phone) -> list[Link]:
    """A finished game's "Correct a box"."""
    return [a for a in phone.links() if a.path.endswith("/correct") and not a.query]


def reset_links(phone: Phone) -> list[Link]:
    return [a for a in phone.links() if a.action == "reset"]


def rolling(phone: Phone) -> bool:
    """The page offers dice to type or to roll (dice and virtual modes)."""
    return bool(phone.buttons("die", "face") or phone.buttons("roll") or phone.previews())


class Phones(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.phones: list[Phone] = []
        self.evening: models.Evening | None = None
        self.sent: Sent | None = None
        self._replays: list[selectors.LoadedGame] | None = None
        self._print: Print | None = None
        #: Each game's pk, by number.
        self._pks: dict[int, int] = {}

    # --- the evening and its phones ---------------------------------------------------------

    @initialize(setup=setups())
    def open_evening(self, setup: Setup) -> None:
        rnd = random.Random(setup.seed)
        game = services.create_evening(
            setup.names, setup.ruleset, setup.options, "value", setup.first
        )
        if setup.earlier:
            play_through(game, 0, rnd)
            game = services.play_again(game.pk)
        play_through(game, setup.left, rnd)
        if setup.mode != "value":
            services.set_entry_mode(game.pk, setup.mode)
        self.evening = game.evening
        for index, number in enumerate(setup.opens):
            phone = Phone(f"phone {index}", Client(), number, Page("", whole=False))
            self.phones.append(phone)
            self.go(phone, self.url(number))

    def url(self, number: int, action: str = "") -> str:
        assert self.evening is not None
        return f"/e/{self.evening.token}/g/{number}/{action}"

    def game_pk(self, number: int) -> int:
        if number not in self._pks:
            self._pks[number] = models.Game.objects.values_list("pk", flat=True).get(
                evening=self.evening, number=number
            )
        return self._pks[number]

    def page(self, response: Any, *, whole: bool = True) -> Page:
        page = Page(response.content.decode(), whole=whole)
        if whole:
            assert page.version is not None, f"no #game in the answer ({response.status_code})"
        return page

    def phone(self, index: int, test: Any = None) -> Phone:
        """Phone ``index`` of those ``test`` accepts (the rule's precondition saw one)."""
        phones = [p for p in self.phones if test is None or test(p)]
        return phones[index % len(phones)]

    def any_phone(self, test: Any) -> bool:
        return any(test(p) for p in self.phones)

    def get(self, phone: Phone, url: str, *, htmx: bool = True) -> Any:
        self._replays = self._print = None
        return phone.client.get(url, headers=HTMX if htmx else {})

    def show(self, phone: Phone, response: Any) -> None:
        """What the phone shows after an answer: the game as it stands now (or the game an
        HX-Redirect sends it to)."""
        assert response.status_code in (200, 409, 422), response.status_code
        redirect = response.headers.get("HX-Redirect")
        if redirect is not None:
            assert response.status_code == 200
            self.go(phone, redirect)
            return
        phone.page = self.page(response)
        phone.panel = phone.tapped = None
        self.check_page(phone)

    def go(self, phone: Phone, url: str) -> None:
        """A full page load of a game's sheet (a redirect, a link to another game)."""
        match = SHEET_URL.match(url)
        assert match and match["token"] == self.evening.token, url
        response = self.get(phone, url, htmx=False)
        assert response.status_code == 200
        phone.number = int(match["number"])
        phone.page = self.page(response)
        phone.panel = phone.tapped = None
        self.check_page(phone)

    def check_page(self, phone: Phone) -> None:
        """A game answer shows the game as it stands, and every form and chooser link on it
        carries that version and the player it shows to play."""
        game = models.Game.objects.get(evening=self.evening, number=phone.number)
        seen = phone.seen
        assert seen.version == game.version, (phone.name, seen, game.version)
        for form in phone.page.forms:
            version = form.get("version")
            if version is not None:
                assert int(version) == seen.version, form
        for link in phone.page.links:
            if "v" in link.query:  # a chooser's, a correction's, the reset question's
                assert link.query["v"] == str(seen.version), link
                assert link.query["player"] == ("" if seen.player is None else str(seen.player))

    def open_panel(self, phone: Phone, url: str, tapped: tuple[Any, ...]) -> Form | None:
        """A chooser, a correction's chooser or the reset question: the panel's form at the
        version the phone shows, or (refused) the game as it stands now and None."""
        seen = phone.seen
        response = self.get(phone, url)
        if response.status_code != 200:
            assert response.status_code in (409, 422), response.status_code
            # Not in the panel the tap meant to fill: the whole game, with why.
            assert response.headers.get("HX-Retarget") == "#game"
            self.show(phone, response)
            return None
        panel = self.page(response, whole=False)
        form = next(f for f in panel.forms if f.radios or f.path.endswith("/reset"))
        assert form.get("version") == str(seen.version), (phone.name, seen, form.fields)
        phone.panel, phone.tapped = panel, tapped
        return form

    def send(
        self,
        phone: Phone,
        form: Form,
        extra: list[tuple[str, str]],
        kind: str,
        cell: tuple[Any, ...] | None = None,
    ) -> Any:
        """Post ``form`` as the browser would (its hidden fields, the button or choice)."""
        if self.sent is not None:
            # An earlier request of the same step (a turn played in several taps).
            self.each_write_did_what_its_phone_saw()
        data = _multi([*form.fields, *extra])
        before = self.fingerprint()
        seen = phone.seen
        game = self.game_pk(phone.number)
        self._replays = self._print = None
        response = phone.client.post(form.action, data, headers=HTMX)
        self.sent = Sent(kind, response.status_code, before, game, seen, cell)
        self.show(phone, response)
        return response

    # --- looking at the sheet ----------------------------------------------------------------

    @rule(i=PHONE, poll=st.booleans())
    def look(self, i: int, poll: bool) -> None:
        """The page's live update (nothing, the game again, or the next game), or a reload."""
        phone = self.phone(i)
        if poll and polling(phone):
            response = self.get(phone, phone.page.poll)
            if response.status_code != 204:
                self.show(phone, response)
        else:
            self.show(phone, self.get(phone, self.url(phone.number)))

    @precondition(lambda self: self.any_phone(other_games))
    @rule(i=PHONE, k=ANY)
    def go_to_other_game(self, i: int, k: int) -> None:
        phone = self.phone(i, other_games)
        links = other_games(phone)
        self.go(phone, links[k % len(links)].path)

    # --- value mode: the chooser --------------------------------------------------------------

    def _pick(self, phone: Phone, k: int) -> Form | None:
        links = phone.pick_links()
        link = links[k % len(links)]
        cell = (link.query["column"], link.query["row"])
        chooser = self.open_panel(phone, link.href, cell)
        if chooser is not None:
            # The chooser is this phone's player's, for the cell tapped.
            assert set(chooser.values("player")) == {str(phone.seen.player)}, (phone.name, chooser)
            assert (chooser.get("column"), chooser.get("row")) == cell, (cell, chooser)
        return chooser

    def _confirm(self, phone: Phone, chooser: Form, k: int) -> None:
        choice = chooser.radios[k % len(chooser.radios)]
        self.send(phone, chooser, [("choice", choice)], "score", phone.tapped)

    @precondition(lambda self: self.any_phone(Phone.pick_links))
    @rule(i=PHONE, k=ANY)
    def pick(self, i: int, k: int) -> None:
        """Tap an open cell: its chooser stays open while the others play on."""
        self._pick(self.phone(i, Phone.pick_links), k)

    @precondition(lambda self: self.any_phone(choosing))
    @rule(i=PHONE, k=ANY)
    def confirm(self, i: int, k: int) -> None:
        """Pick one of the open chooser's own choices (a value, a Yahtzee!, Cross out)."""
        phone = self.phone(i, choosing)
        self._confirm(phone, next(f for f in phone.panel.forms if f.radios), k)

    @precondition(lambda self: self.any_phone(Phone.pick_links))
    @rule(i=PHONE, k=ANY, c=ANY)
    def play_value_turn(self, i: int, k: int, c: int) -> None:
        """Tap a cell, pick a choice, Confirm: a turn in value mode."""
        phone = self.phone(i, Phone.pick_links)
        chooser = self._pick(phone, k)
        if chooser is not None:
            self._confirm(phone, chooser, c)

    # --- dice and virtual modes ---------------------------------------------------------------

    def _type(self, phone: Phone, faces: list[int]) -> None:
        """Tap faces, one request each, on the page each answer shows (while it offers them)."""
        for face in faces:
            offered = {value: form for form, _name, value in phone.buttons("die", "face")}
            if str(face) not in offered:
                return
            if (
                self.send(phone, offered[str(face)], [("face", str(face))], "die").status_code
                != 200
            ):
                return

    def _score_preview(self, phone: Phone, k: int) -> None:
        boxes = phone.previews()
        form, name, value = boxes[k % len(boxes)]
        cell = (form.get("column"), form.get("row"))
        self.send(phone, form, [(name, value)], "score", cell)

    @precondition(lambda self: self.any_phone(lambda p: p.buttons("die", "face")))
    @rule(i=PHONE, faces=st.lists(st.integers(1, 6), min_size=1, max_size=6))
    def type_dice(self, i: int, faces: list[int]) -> None:
        self._type(self.phone(i, lambda p: p.buttons("die", "face")), faces)

    @precondition(lambda self: self.any_phone(lambda p: p.buttons("die", "slot")))
    @rule(i=PHONE, k=ANY)
    def remove_die(self, i: int, k: int) -> None:
        phone = self.phone(i, lambda p: p.buttons("die", "slot"))
        slots = phone.buttons("die", "slot")
        form, name, value = slots[k % len(slots)]
        self.send(phone, form, [(name, value)], "die")

    @precondition(lambda self: self.any_phone(lambda p: p.buttons("turn-rolls", "used")))
    @rule(i=PHONE, k=ANY)
    def say_rolls_used(self, i: int, k: int) -> None:
        """Maxi Yatzy in Dice or Values mode: tap how many rolls the turn took."""
        phone = self.phone(i, lambda p: p.buttons("turn-rolls", "used"))
        counts = phone.buttons("turn-rolls", "used")
        form, name, value = counts[k % len(counts)]
        self.send(phone, form, [(name, value)], "rolls")

    @precondition(lambda self: self.any_phone(lambda p: p.buttons("roll")))
    @rule(i=PHONE)
    def roll(self, i: int) -> None:
        phone = self.phone(i, lambda p: p.buttons("roll"))
        form, _name, _value = phone.buttons("roll")[0]
        self.send(phone, form, [], "roll")

    @precondition(lambda self: self.any_phone(lambda p: p.buttons("hold", "index")))
    @rule(i=PHONE, k=ANY)
    def hold(self, i: int, k: int) -> None:
        phone = self.phone(i, lambda p: p.buttons("hold", "index"))
        dice = phone.buttons("hold", "index")
        form, name, value = dice[k % len(dice)]
        self.send(phone, form, [(name, value)], "hold")

    @precondition(lambda self: self.any_phone(Phone.previews))
    @rule(i=PHONE, k=ANY)
    def score_dice(self, i: int, k: int) -> None:
        """Tap a box showing what the dice on the page score there."""
        self._score_preview(self.phone(i, Phone.previews), k)

    @precondition(lambda self: self.any_phone(rolling))
    @rule(
        i=PHONE,
        faces=st.lists(st.integers(1, 6), min_size=6, max_size=6),
        rolls=st.integers(1, 5),
        k=ANY,
    )
    def play_dice_turn(self, i: int, faces: list[int], rolls: int, k: int) -> None:
        """Type the faces (dice mode: as many as the page takes, five or six) or roll
        (virtual mode, while the page offers Roll: saved rolls give more), then tap a box."""
        phone = self.phone(i, rolling)
        self._type(phone, faces)
        for _roll in range(rolls):
            if not phone.buttons("roll") or (self.sent and self.sent.status != 200):
                break
            form, _name, _value = phone.buttons("roll")[0]
            self.send(phone, form, [], "roll")
        if phone.previews() and (self.sent is None or self.sent.status == 200):
            self._score_preview(phone, k)

    # --- the menu -----------------------------------------------------------------------------

    @rule(i=PHONE, k=ANY)
    def menu(self, i: int, k: int) -> None:
        """One of the top bar's controls the page offers: an entry mode, Undo, Restart turn,
        "Reset to round 1…" (one rule, so that Undo and Reset are not drawn as often as a
        turn is played)."""
        phone = self.phone(i)
        items: list[tuple[Any, ...]] = [
            *((form, [(name, value)], "mode") for form, name, value in phone.buttons("mode")),
            *((form, [], "undo") for form, _name, _value in phone.buttons("undo")[:1]),
            *((form, [], "restart") for form, _n, _v in phone.buttons("restart-turn")[:1]),
        ]
        # The reset question says what its phone shows, as a chooser does (a stale one is
        # refused: ``test_a_stale_phones_reset_question_is_refused``).
        items += [(link, None, "reset") for link in reset_links(phone)[:1]]
        form, extra, kind = items[k % len(items)]
        if kind == "reset":
            # The question, in the panel: "Yes, reset" is ``confirm_reset``.
            self.open_panel(phone, form.href, ())
        else:
            self.send(phone, form, extra, kind)

    @precondition(lambda self: self.any_phone(asked_reset))
    @rule(i=PHONE)
    def confirm_reset(self, i: int) -> None:
        phone = self.phone(i, asked_reset)
        form = next(f for f in phone.panel.forms if f.path.endswith("/reset"))
        self.send(phone, form, [], "reset")

    @precondition(lambda self: self.any_phone(lambda p: p.buttons("again")))
    @rule(i=PHONE)
    def play_again(self, i: int) -> None:
        """A finished game's Play again: the phone goes to the next game (started here, or
        already by another phone)."""
        phone = self.phone(i, lambda p: p.buttons("again"))
        form, _name, _value = phone.buttons("again")[0]
        response = self.send(phone, form, [], "again")
        if response.status_code == 200:
            assert response.headers.get("HX-Redirect"), "Play again goes to the next game"

    # --- a finished game corrected ------------------------------------------------------------

    def _tap_box(self, phone: Phone, k: int) -> Form | None:
        links = phone.fix_links()
        link = links[k % len(links)]
        box = (int(link.query["seat"]), link.query["column"], link.query["row"])
        fixer = self.open_panel(phone, link.href, box)
        if fixer is not None:
            assert (int(fixer.get("seat")), fixer.get("column"), fixer.get("row")) == box
        return fixer

    def _correct(self, phone: Phone, fixer: Form, k: int) -> None:
        choice = fixer.radios[k % len(fixer.radios)]
        self.send(phone, fixer, [("choice", choice)], "correct", phone.tapped)

    @precondition(lambda self: self.any_phone(correct_links))
    @rule(i=PHONE)
    def start_correcting(self, i: int) -> None:
        """ "Correct a box": the finished sheet with its boxes to tap."""
        phone = self.phone(i, correct_links)
        self.show(phone, self.get(phone, correct_links(phone)[0].href))

    @precondition(lambda self: self.any_phone(Phone.fix_links))
    @rule(i=PHONE, k=ANY)
    def tap_box_to_correct(self, i: int, k: int) -> None:
        self._tap_box(self.phone(i, Phone.fix_links), k)

    @precondition(lambda self: self.any_phone(fixing))
    @rule(i=PHONE, k=ANY)
    def confirm_correction(self, i: int, k: int) -> None:
        phone = self.phone(i, fixing)
        self._correct(phone, next(f for f in phone.panel.forms if f.radios), k)

    @precondition(lambda self: self.any_phone(correct_links))
    @rule(i=PHONE, k=ANY, c=ANY)
    def correct_a_box(self, i: int, k: int, c: int) -> None:
        """ "Correct a box", tap one, pick its right value (or Cross out), Correct."""
        phone = self.phone(i, correct_links)
        self.show(phone, self.get(phone, correct_links(phone)[0].href))
        if phone.fix_links():
            fixer = self._tap_box(phone, k)
            if fixer is not None:
                self._correct(phone, fixer, c)

    # --- what the database must say after every step ------------------------------------------

    def fingerprint(self) -> Print:
        if self._print is None:
            rows = (
                models.Game.objects.filter(evening=self.evening)
                .annotate(n=Count("entries"))
                .values_list("pk", "version", "n", "result")
            )
            games = {pk: (version, n, result is not None) for pk, version, n, result in rows}
            corrections = models.Correction.objects.filter(game__evening=self.evening).count()
            self._print = Print(games, corrections)
        return self._print

    def replays(self) -> list[selectors.LoadedGame]:
        """Each game of the evening replayed from its entries (``selectors.history``'s
        replay, with every game's entries read in one query), once a step."""
        if self._replays is None:
            games = models.Game.objects.filter(evening=self.evening).order_by("number")
            entries: dict[int, list[models.Entry]] = {}
            for entry in models.Entry.objects.filter(game__evening=self.evening).order_by(
                "game", "turn"
            ):
                entries.setdefault(entry.game_id, []).append(entry)
            self._replays = []
            for game in games.with_seats():
                replayed = selectors.replay(
                    game, selectors.seats_of(game), entries.get(game.pk, [])
                )
                replayed.entries = entries.get(game.pk, [])
                self._replays.append(replayed)
        return self._replays

    @invariant()
    def snapshots_and_results_are_replays(self) -> None:
        for replayed in self.replays():
            game = replayed.record
            assert game.snapshot == replayed.state.snapshot(), f"game {game.number}"
            stored = game.result
            if isinstance(stored, dict):
                stored = {k: v for k, v in stored.items() if k != coaching.RESULT_KEY}
            assert stored == selectors.final_result(replayed.state, replayed.seats)

    @invariant()
    def each_write_did_what_its_phone_saw(self) -> None:
        sent, self.sent = self.sent, None
        if sent is None:
            return
        after = self.fingerprint()
        before = sent.before
        if sent.status in (409, 422):
            assert after == before, f"a refused {sent.kind} ({sent.status}) wrote"
            return
        assert sent.status == 200
        changed = {pk for pk, now in after.games.items() if before.games.get(pk) != now}
        if sent.kind == "again":
            # A new game (or none: another phone started it); no game written.
            assert len(changed) <= 1 and not changed & before.games.keys(), changed
            assert after.corrections == before.corrections
            return
        assert changed <= {sent.game}, changed
        if not changed:
            return
        version, entries, _finished = before.games[sent.game]
        now_version, now_entries, _now_finished = after.games[sent.game]
        grown = now_entries - entries
        if sent.kind == "score":
            assert grown == 1
            entry = models.Entry.objects.get(game_id=sent.game, turn=now_entries)
            seat = models.Seat.objects.get(game_id=sent.game, player_id=entry.player_id)
            assert seat.position == sent.seen.player, (
                f"the phone showed seat {sent.seen.player} to play; "
                f"the score went to seat {seat.position}'s {entry.column}/{entry.row}"
            )
            assert (entry.column, entry.row) == sent.cell
        elif sent.kind == "undo":
            assert grown == -1
            newest = models.Game.objects.filter(evening=self.evening).aggregate(Max("number"))
            assert models.Game.objects.get(pk=sent.game).number == newest["number__max"]
        elif sent.kind == "reset":
            assert now_entries == 0
        elif sent.kind == "correct":
            assert grown == 0 and after.corrections == before.corrections + 1
            fixed = models.Correction.objects.filter(game_id=sent.game).latest("pk")
            seat = models.Seat.objects.get(game_id=sent.game, player_id=fixed.player_id)
            assert (seat.position, fixed.column, fixed.row) == sent.cell
        else:
            assert grown == 0, sent.kind
        if sent.kind != "correct":
            assert after.corrections == before.corrections
        # Whatever it wrote, it wrote on the version its phone showed.
        assert version == sent.seen.version, (
            f"a {sent.kind} was written at version {version}; its phone showed "
            f"version {sent.seen.version}"
        )
        assert now_version == version + 1

    @invariant()
    def no_turn_stored_twice(self) -> None:
        for replayed in self.replays():
            turns = [entry.turn for entry in replayed.entries]
            assert turns == list(range(1, len(turns) + 1)), turns
            cells = {(e.player_id, e.column, e.row) for e in replayed.entries}
            assert len(cells) == len(turns)

    @invariant()
    def tally_is_counted_from_the_finished_games(self) -> None:
        _evening, games = tally.open_evening(self.evening.token)
        board = tally.evening_tally(games)
        shown = {
            line.name: (line.games, line.wins, line.total, line.best, line.bonuses, line.yahtzees)
            for line in board.lines
        }
        counted: dict[str, list[Any]] = {}
        for replayed in self.replays():
            state = replayed.state
            for index, seat in enumerate(replayed.seats):
                line = counted.setdefault(seat.player.name, [0, 0, 0, None, 0, 0])
                if not state.finished:
                    continue
                total = state.total(index)
                line[0] += 1
                line[1] += index in state.winners()
                line[2] += total
                line[3] = total if line[3] is None else max(line[3], total)
                line[4] += sum(1 for c in state.columns if state.column_totals(index, c).bonus)
                line[5] += selectors.yahtzees(state, index)
        assert shown == {name: tuple(line) for name, line in counted.items()}
        # Most wins, then most points, first; equal ones share a rank.
        for line in board.lines:
            better = sum(
                1 for other in board.lines if (other.wins, other.total) > (line.wins, line.total)
            )
            assert line.rank == better + 1


@pytest.mark.django_db
def test_phones_at_one_evening_never_write_what_they_did_not_see() -> None:
    run_state_machine_as_test(Phones, settings=PHONES)


@pytest.mark.django_db
def test_a_stale_phones_reset_question_is_refused() -> None:
    """Ann's phone shows round 1 with no score; Bob's phone scores Ann's turn; Ann's phone,
    not yet updated, taps "Reset to round 1…" then "Yes, reset": the turn it never showed
    must survive (the question, like every chooser, refused as stale)."""
    game = services.create_evening(["Ann", "Bob"], "yam")
    sheet = f"/e/{game.evening.token}/g/1/"
    ann, bob = Client(), Client()
    shown = Page(ann.get(sheet, headers=HTMX).content.decode(), whole=True)
    bobs = Page(bob.get(sheet, headers=HTMX).content.decode(), whole=True)
    tap = next(a for a in bobs.links if a.path.endswith("/pick"))
    chooser = next(
        f
        for f in Page(bob.get(tap.href, headers=HTMX).content.decode(), whole=False).forms
        if f.radios
    )
    data = [*chooser.fields, ("choice", "x")]
    assert bob.post(chooser.action, _multi(data), headers=HTMX).status_code == 200
    question = ann.get(next(a for a in shown.links if a.action == "reset").href, headers=HTMX)
    if question.status_code == 200:
        form = next(
            f
            for f in Page(question.content.decode(), whole=False).forms
            if f.path.endswith("/reset")
        )
        ann.post(form.action, _multi(form.fields), headers=HTMX)
    assert models.Entry.objects.filter(game=game).count() == 1
