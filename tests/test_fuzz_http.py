"""Every URL fuzzed over HTTP: never a 500, and a refused write changes no row.

Each write endpoint (every URL that takes a POST, found from the URL conf, so new
ones are fuzzed too) gets random form fields and values — versions, players,
cells, columns, choices, dice, names, tokens — sent as multipart, url-encoded or
raw bodies, some huge, some not UTF-8. The answer must be a 4xx with a message,
or a redirect/200 for a legitimate action; never a 500. When it is a 4xx, the
database must be exactly as before. Read-only URLs get fuzzed query strings.
Every number a request carries (a field, a query parameter, the ``Last-Event-ID`` header
every request may bring) is drawn from other scripts' digits and 5,000-digit numbers too:
what ``str.isdigit()`` passes and ``int()`` refuses or misreads.

FUZZ_EXAMPLES sets the examples per write endpoint (its default, ``FUZZ_EXAMPLES`` below,
is what `make test` sends to each); e.g. FUZZ_EXAMPLES=20 for a quick run.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from games import models, roster, selectors, services, virtual_dice
from games.rules import RULESETS, Move
from games.tests.budget import deep, examples

#: Examples for each of the 16 URLs that take a POST: 130 in `make test-deep` (over 2,000
#: write requests in all), 40 in `make test`.
FUZZ_EXAMPLES = int(os.getenv("FUZZ_EXAMPLES", str(examples(40, 130))))
#: Read-only URLs get fewer examples: they are not where data can be lost.
READ_EXAMPLES = max(5, FUZZ_EXAMPLES // 20)

settings.register_profile(
    "http-fuzz",
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    # One set of games per endpoint, reused (and changed) by its examples.
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
FUZZ = settings.get_profile("http-fuzz")

#: The write endpoints known when this was written; test_every_url_taking_a_post_is_fuzzed
#: finds new ones.
KNOWN_WRITES = {
    "new_evening",
    "score",
    "undo",
    "reset",
    "entry_mode",
    "die",
    "roll",
    "hold",
    "restart_turn",
    "play_again",
    "correct",
    "players",
    "set_language",
    "new_group",
    "group_rename",
    "group_add_member",
    "group_rename_member",
    "group_merge_members",
    "group_next_evening",
    "group_import",
    "evening_join_group",
    "evening_leave_group",
}
#: The writes of the sheet: each says what its phone showed, the version and the player to
#: play ("" once the game is over), or is refused before it does anything.
SHEET_WRITES = {
    "score",
    "undo",
    "reset",
    "entry_mode",
    "die",
    "roll",
    "hold",
    "restart_turn",
    "play_again",
    "correct",
}


def url_patterns() -> dict[str, URLPattern]:
    """Every named URL of the site outside the admin, by name."""

    def walk(patterns: list[Any], prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.app_name == "admin":
                    continue
                yield from walk(pattern.url_patterns)
            elif pattern.name:
                yield pattern.name, pattern

    return dict(walk(get_resolver().url_patterns))


ALL_URLS = sorted(url_patterns())


# --- the games the fuzz plays on --------------------------------------------------------------


def _finished_game() -> models.Game:
    game = services.create_evening(["Solo"], "yam", evening_name="Done")
    state = selectors.load(game).state
    for column, row in [(c, r) for c in state.columns for r in state.rows]:
        services.record_turn(game.pk, Move(0, row, column, cross=True), None)
    return game


@pytest.fixture
def tables(db: None) -> list[models.Game]:
    value = services.create_evening(["Ana", "Bob"], "yahtzee", evening_name="Friday")
    services.record_turn(value.pk, Move(0, "fives", value=15), None)
    dice = services.create_evening(
        ["Cy", "Dee", "Eve"], "yams", {"order": "free"}, entry_mode="dice"
    )
    services.save_pending(dice.pk, {"dice": [6, 6, 6, 2, 2]}, None)
    virtual = services.create_evening(["Flo"], "yahtzee", entry_mode="virtual")
    services.save_pending(virtual.pk, virtual_dice.roll({}), None)
    columns = services.create_evening(["Gus", "Hal"], "yams-columns", {"columns": 4})
    done = _finished_game()
    # Two of them in a group, so that the group's pages and writes are fuzzed with a real
    # group's tokens (``kwargs_for``).
    group = roster.create_group("Jeudi")
    for game in (value, done):
        roster.attach_evening(group, game.evening)
    return [
        models.Game.objects.select_related("evening").get(pk=g.pk)
        for g in (value, dice, virtual, columns, done)
    ]


def snapshot() -> tuple:
    """Everything a write could change, in a comparable form."""
    return (
        list(models.Evening.objects.order_by("pk").values_list("pk", "name", "group_id")),
        list(
            models.Player.objects.order_by("pk").values_list(
                "pk", "evening_id", "name", "member_id"
            )
        ),
        list(models.Group.objects.order_by("pk").values_list("pk", "name")),
        list(models.Member.objects.order_by("pk").values_list("pk", "group_id", "name")),
        list(
            models.Game.objects.order_by("pk").values_list(
                "pk", "version", "entry_mode", "pending", "first_seat", "number"
            )
        ),
        list(models.Seat.objects.order_by("pk").values_list("game_id", "player_id", "position")),
        list(
            models.Entry.objects.order_by("pk").values_list(
                "pk", "game_id", "turn", "player_id", "column", "row", "value", "crossed"
            )
        ),
    )


# --- strategies -------------------------------------------------------------------------------

ROWS = sorted(
    {row for rules in RULESETS.values() for row in rules.rows(rules.normalize_options({}))}
)
ROWS += ["max", "min", "five_of_a_kind"]
COLUMNS = ["down", "free", "up", "dry", "single", ""]

WEIRD = [
    "",
    " ",
    "0",
    "-1",
    "1e9",
    "NaN",
    "None",
    "null",
    "true",
    "١٢",  # Arabic-Indic digits: int() takes them
    "9" * 5000,  # past Python's int() digit limit
    "<script>alert(1)</script>",
    "'; DROP TABLE games_entry; --",
    "\x00",
    "a\x00b",
    "\x01\x02\x1b[31m",
    "\u202eevil",
    "\ufeff",
    "🎲" * 50,
    "x" * 300,
    "%00",
    "../../etc/passwd",
]

texts = st.one_of(
    st.sampled_from(WEIRD),
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=41, max_size=400),
)
ints = st.one_of(
    st.integers(min_value=-3, max_value=12),
    st.integers(),
    st.sampled_from([2**31, 2**63, -(2**63) - 1, 10**40]),
)
#: Numbers to str.isdigit() that no page prints: superscripts (int() refuses them),
#: other scripts' digits (int() takes them), and 5,000 digits (past int()'s limit).
not_ascii_numbers = st.one_of(
    st.sampled_from(["²", "٣", "５", "¹²", "۱۲", "٠"]),
    st.text(alphabet=st.characters(categories=["Nd", "No"]), min_size=1, max_size=6),
    st.sampled_from(["9" * 5000, "1" + "0" * 4999]),
)
int_texts = st.one_of(ints.map(str), not_ascii_numbers, texts)


def choices() -> st.SearchStrategy[str]:
    values = st.integers(min_value=-5, max_value=400)
    return st.one_of(
        st.sampled_from(["x", "dice", "v:", "y:", ":", "v:abc", "v: 5", "y:-0"]),
        values.map(lambda v: f"v:{v}"),
        values.map(lambda v: f"y:{v}"),
        texts,
    )


def field_values(name: str, game: models.Game) -> st.SearchStrategy[Any]:
    version = game.version
    if name == "version":
        near = st.sampled_from([str(version), str(version - 1), str(version + 1), str(-version)])
        return st.one_of(near, near, int_texts)
    if name == "v":  # a chooser's or a poll's version
        return field_values("version", game)
    if name == "player":
        # What sheets print (a seat, "" once the game is over), then anything.
        return st.one_of(st.sampled_from(["", "0", "1", "2"]), int_texts)
    if name in NUMBERS:
        return int_texts
    if name == "row":
        return st.one_of(st.sampled_from(ROWS), texts)
    if name == "column":
        return st.one_of(st.sampled_from(COLUMNS), texts)
    if name == "choice":
        return choices()
    if name in ("mode", "entry_mode"):
        return st.one_of(st.sampled_from(["value", "dice", "virtual"]), texts)
    if name == "action":
        return st.one_of(st.sampled_from(["rename", "add", "remove", "up", "down"]), texts)
    if name == "ruleset":
        return st.one_of(st.sampled_from(sorted(RULESETS)), texts)
    if name == "order":
        return st.one_of(st.sampled_from(["ordered", "free"]), texts)
    if name == "max_min" or name == "clear":
        return st.one_of(st.sampled_from(["on", "1", ""]), texts)
    if name == "language":
        return st.one_of(st.sampled_from(["en", "fr", "de", "xx-yy"]), texts)
    if name == "next":
        return st.one_of(st.sampled_from(["/", "//evil.example/", "https://evil.example/"]), texts)
    return texts


#: Every field and query parameter that a view reads as a number.
NUMBERS = ("seat", "face", "slot", "index", "used", "columns", "starter", "n", "p", "turn")
NUMBERS += ("remove", "page")

FIELDS = [
    "version",
    "v",
    "n",
    "player",
    "row",
    "column",
    "choice",
    "mode",
    "face",
    "slot",
    "clear",
    "index",
    "action",
    "seat",
    "name",
    "evening_name",
    "ruleset",
    "order",
    "columns",
    "max_min",
    "entry_mode",
    "starter",
    "language",
    "next",
    "used",
    "p",
    "turn",
    "remove",
    "page",
    "view",
    *[f"player_{n}" for n in range(1, 10)],
]


def plausible(draw: st.DrawFn, name: str, game: models.Game) -> dict[str, Any]:
    """What the page itself would send to this endpoint now: the fuzz starts there.

    Every write of the sheet (and its chooser) carries what the page shows: the version
    and the player to play, so that the fuzz gets past that check to the views' real work."""
    version = str(game.version)
    state = selectors.load(game).state
    shown = "" if state.current_player is None else str(state.current_player)
    # Draws never depend on the game's state (Hypothesis replays them): an index is
    # drawn, then taken modulo what the state offers.
    pick = st.integers(min_value=0, max_value=10**6)
    if name == "score":
        cells = state.playable_cells() or [("down", "ones")]
        column, row = cells[draw(pick) % len(cells)]
        kind = draw(st.sampled_from(["v", "v", "x", "dice", "y"]))
        if kind == "v":
            offered = state.offered_values(row) or (0,)
            choice = f"v:{offered[draw(pick) % len(offered)]}"
        elif kind == "y":
            jokers = state.joker_values(column, row) if state.current_player is not None else ()
            choice = f"y:{jokers[draw(pick) % len(jokers)]}" if jokers else f"y:{draw(pick)}"
        else:
            choice = kind
        player = state.current_player if state.current_player is not None else 0
        form = {"version": version, "player": str(player), "row": row, "choice": choice}
        return form | ({"column": column} if len(state.columns) > 1 else {})
    if name in ("pick", "correct"):
        # A box: the chooser's of a playable one, the correction's of any one of any seat.
        cells = state.playable_cells() if name == "pick" else []
        cells = cells or [(c, r) for c in state.columns for r in state.rows]
        column, row = cells[draw(pick) % len(cells)]
        box = {"column": column, "row": row}
        if name == "pick":
            return {"v": version, "player": shown, **box}
        offered = state.offered_values(row) or (0,)
        value = offered[draw(pick) % len(offered)]
        choice = draw(st.sampled_from(["x", f"v:{value}"]))
        seat = str(draw(pick) % len(state.players))
        return {"version": version, "player": shown, "seat": seat, **box, "choice": choice}
    if name in ("poll", "watch_poll"):
        return {"v": version, "n": str(game.number)}
    if name == "players":
        action = draw(st.sampled_from(["rename", "add", "remove", "up", "down"]))
        seat = str(draw(pick) % len(state.players))
        name = draw(st.sampled_from(["Zoe", "Ana", "é"]))
        return {"version": version, "action": action, "seat": seat, "name": name}
    form = plain(draw, name, version)
    return form | ({"player": shown} if name in SHEET_WRITES else {})


def plain(draw: st.DrawFn, name: str, version: str) -> dict[str, Any]:
    """The forms that need no look at the game's state."""
    if name == "die":
        return {
            "version": version,
            **draw(
                st.sampled_from(
                    [{"face": str(f)} for f in range(1, 7)]
                    + [{"slot": str(n)} for n in range(5)]
                    + [{"clear": "1"}]
                )
            ),
        }
    if name == "hold":
        return {"version": version, "index": str(draw(st.integers(0, 4)))}
    if name == "entry_mode":
        return {"version": version, "mode": draw(st.sampled_from(["value", "dice", "virtual"]))}
    if name == "new_evening":
        ruleset = draw(st.sampled_from(sorted(RULESETS)))
        names = draw(st.lists(st.sampled_from(["Ana", "Bob", "Cy", "Dee"]), max_size=4))
        return {
            "ruleset": ruleset,
            "entry_mode": draw(st.sampled_from(["value", "dice", "virtual"])),
            "evening_name": draw(texts),
            "starter": draw(st.sampled_from(["random", "1", "2"])),
            **{f"player_{n + 1}": player for n, player in enumerate(names)},
        }
    if name == "set_language":
        return {"language": draw(st.sampled_from(["en", "fr"])), "next": "/"}
    return {"version": version}


@st.composite
def form(draw: st.DrawFn, game: models.Game, name: str = "") -> dict[str, Any]:
    """A plausible form, a mutated one (fields dropped, replaced, added) or a random one."""
    how = draw(st.sampled_from(["plausible", "mutated", "mutated", "random", "numbers"]))
    data = plausible(draw, name, game) if how != "random" else {}
    if how == "plausible":
        return data
    if how == "numbers":
        # The page's own request, each of its numbers one that str.isdigit() passes.
        numbers = [key for key in data if key in (*NUMBERS, "version", "v", "player")]
        return data | {key: draw(not_ascii_numbers) for key in numbers}
    for key in draw(st.lists(st.sampled_from(sorted(data) or ["version"]), max_size=2)):
        data.pop(key, None)
    for key in draw(st.lists(st.sampled_from(FIELDS), max_size=4 if data else 10, unique=True)):
        values = field_values(key, game)
        data[key] = draw(st.one_of(values, st.lists(values, min_size=2, max_size=3)))
    extra = draw(st.dictionaries(texts, texts, max_size=2))
    return {**extra, **data}


HUGE_BODIES = [
    b"version=" + b"9" * 3_000_000,  # past DATA_UPLOAD_MAX_MEMORY_SIZE
    b"&".join(b"f%d=1" % n for n in range(1500)),  # past DATA_UPLOAD_MAX_NUMBER_FIELDS
    b"version=1&row=ones&choice=v:1&player=0&" + b"\xff\xfe\x80" * 1000,
]
FORM = "application/x-www-form-urlencoded"
CONTENT_TYPES = [
    FORM,
    FORM + "; charset=utf-16",
    FORM + "; charset=bogus",
    "multipart/form-data",  # no boundary
    "multipart/form-data; boundary=xyz",
    "application/json",
    "text/plain",
    "",
]


def _utf8_safe(value: Any) -> Any:
    """The client must be able to send it: surrogates cannot be encoded."""
    if isinstance(value, list):
        return [_utf8_safe(v) for v in value]
    return str(value).encode("utf-8", "replace").decode("utf-8")


@st.composite
def request_body(draw: st.DrawFn, game: models.Game, name: str) -> tuple[Any, str | None]:
    """(data, content type): a form the test client encodes (None) or raw bytes."""
    kind = draw(st.sampled_from(["multipart"] * 3 + ["urlencoded"] * 3 + ["bytes", "huge"]))
    if kind == "huge":
        return draw(st.sampled_from(HUGE_BODIES)), FORM
    if kind == "bytes":
        body = draw(
            st.one_of(
                st.binary(max_size=300),
                form(game, name).map(
                    lambda d: urlencode(d, doseq=True).encode() + b"&\xff=\xc3\x28"
                ),
            )
        )
        return body, draw(st.sampled_from(CONTENT_TYPES))
    data = {_utf8_safe(k): _utf8_safe(v) for k, v in draw(form(game, name)).items()}
    if kind == "urlencoded":
        return urlencode(data, doseq=True), FORM
    return data, None


def _as_header(value: Any) -> str:
    """A header's value as a server decodes its bytes (Latin-1): "²" is the one byte 0xB2,
    what Latin-1 lacks is sent as UTF-8 ("٣" arrives as "Ù£")."""
    text = _utf8_safe(value[0] if isinstance(value, list) else value)
    try:
        return text.encode("latin-1").decode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8").decode("latin-1")


def kwargs_for(pattern: URLPattern, game: models.Game) -> dict[str, Any]:
    # A group's URL (g/, gs/) takes its group's tokens, where the game's evening has one.
    group = game.evening.group if str(pattern.pattern).startswith(("g/", "gs/")) else None
    owner: Any = group or game.evening
    values = {
        "token": lambda: owner.token,
        "view_token": lambda: owner.view_token,
        "number": lambda: game.number,
        "name": lambda: game.seats.order_by("position").first().player.name,
        "ruleset": lambda: game.ruleset,
    }
    return {key: values[key]() for key in pattern.pattern.converters}


@st.composite
def target(draw: st.DrawFn, name: str, games: list[models.Game]) -> tuple[models.Game, str]:
    """A game and a path for the endpoint: usually a real one, sometimes a wrong token or number."""
    pattern = url_patterns()[name]
    game = draw(st.sampled_from(games))
    game = models.Game.objects.select_related("evening").get(pk=game.pk)
    path = reverse(name, kwargs=kwargs_for(pattern, game))
    converters = pattern.pattern.converters
    tamper = draw(st.sampled_from(["none"] * 12 + ["token", "swap", "number"]))
    if tamper == "token" and ("token" in converters or "view_token" in converters):
        token = game.evening.token if "token" in converters else game.evening.view_token
        junk = draw(st.one_of(texts.filter(bool), st.text(min_size=43, max_size=43)))
        path = path.replace(token, quote(_utf8_safe(junk), safe=""), 1)
    elif tamper == "swap" and "token" in converters:
        # The spectator token never opens a write URL.
        path = path.replace(game.evening.token, game.evening.view_token, 1)
    elif tamper == "number" and "number" in converters:
        number = draw(st.one_of(st.integers(min_value=0, max_value=10**30), st.just(2)))
        path = path.replace(f"/g/{game.number}/", f"/g/{number}/", 1)
    return game, path


def assert_clear_refusal(response: Any) -> None:
    """A 4xx says why: a page or a message, never an empty or a server error."""
    assert 400 <= response.status_code < 500
    if response.status_code == 405:
        assert "Allow" in response.headers
        return
    assert response.content.strip(), f"a {response.status_code} with no message"
    if response.status_code in (409, 422) and "text/html" in response["Content-Type"]:
        text = response.content.decode()
        assert 'role="alert"' in text or "errorlist" in text or "error" in text


def takes_post(name: str, games: list[models.Game]) -> bool:
    game = games[0]
    path = reverse(name, kwargs=kwargs_for(url_patterns()[name], game))
    before = snapshot()
    # An empty POST: a write endpoint refuses it (or acts on nothing), a page says 405.
    status = Client().post(path, {"version": "-1"}).status_code
    assert snapshot() == before or status < 400
    return status != 405


# --- the tests --------------------------------------------------------------------------------


def test_every_url_taking_a_post_is_fuzzed(tables: list[models.Game]) -> None:
    # Any other URL that takes a POST is fuzzed as a write below, with the full budget.
    writes = {name for name in ALL_URLS if takes_post(name, tables)}
    assert KNOWN_WRITES <= writes, KNOWN_WRITES - writes


def test_the_fuzz_sends_at_least_2000_write_requests(tables: list[models.Game]) -> None:
    if "FUZZ_EXAMPLES" in os.environ or not deep():
        pytest.skip("FUZZ_EXAMPLES or `make test` (not test-deep) lowers the budget on purpose")
    # Every URL that takes a POST gets the full budget (the test below).
    writes = [name for name in ALL_URLS if takes_post(name, tables)]
    assert len(writes) * FUZZ_EXAMPLES >= 2000


@pytest.mark.parametrize("name", ALL_URLS)
def test_it_never_answers_a_fuzzed_request_with_a_server_error(
    name: str, tables: list[models.Game]
) -> None:
    writes = takes_post(name, tables)
    answers: Counter[int] = Counter()

    @settings(FUZZ, max_examples=FUZZ_EXAMPLES if writes else READ_EXAMPLES)
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        game, path = data.draw(target(name, tables))
        headers = {"HX-Request": "true"} if data.draw(st.booleans()) else {}
        last_id = data.draw(st.one_of(st.none(), not_ascii_numbers, field_values("v", game)))
        if last_id is not None:
            # An event stream's reconnection (any page may be sent one): the bytes a
            # server reads, as Latin-1 ("²" alone is the byte 0xB2).
            headers["Last-Event-ID"] = _as_header(last_id)
        client = Client()
        before = snapshot()
        if writes:
            body, content_type = data.draw(request_body(game, name))
            if content_type is None:
                response = client.post(path, body, headers=headers)
            else:
                response = client.generic(
                    "POST", path, body, content_type=content_type, headers=headers
                )
        else:
            query = data.draw(form(game, name))
            query = {_utf8_safe(k): _utf8_safe(v) for k, v in query.items()}
            response = client.get(path, query, headers=headers)
        event(f"HTTP {response.status_code}")
        answers[response.status_code] += 1
        assert response.status_code < 500
        if response.status_code >= 400:
            assert_clear_refusal(response)
            assert snapshot() == before, f"{response.status_code} but rows changed"
        elif not writes:
            assert snapshot() == before, "a read-only URL changed rows"

    run()
    # Shown with -s or -rP: how the examples were answered.
    print(f"{name}: {sum(answers.values())} requests, {dict(sorted(answers.items()))}")


def test_it_refuses_a_nul_anywhere_before_the_database_sees_it(tables: list[models.Game]) -> None:
    game = tables[0]
    client = Client()
    before = snapshot()
    paths = [
        f"/e/{quote(game.evening.token)}%00/g/1/",
        f"/e/{quote(game.evening.token)}/g/1/score",
        "/s/a%00b/",
        "/players/Ana%00",
    ]
    for path in paths:
        response = client.post(path, {"version": "1", "name": "A\x00"})
        assert response.status_code == 400, path
        assert b"NUL" in response.content
    client.cookies["sessionid"] = "abc\x00def"
    assert client.get("/").status_code == 400
    assert snapshot() == before


def test_it_strips_control_characters_from_an_evening_name(db: None) -> None:
    response = Client().post(
        reverse("new_evening"),
        {"evening_name": "Fri\x01day\x1b", "ruleset": "yahtzee", "entry_mode": "value"},
    )
    assert response.status_code == 302
    assert models.Evening.objects.get().name == "Friday"


def test_a_setup_the_rules_refuse_is_a_clear_422(db: None) -> None:
    # Two names that only differ in case: the engine refuses, the form says so.
    response = Client().post(
        reverse("new_evening"),
        {"ruleset": "yahtzee", "entry_mode": "value", "player_1": "Ana", "player_2": "ANA"},
    )
    assert response.status_code == 422
    assert "same name" in response.content.decode()
    assert not models.Evening.objects.exists()
