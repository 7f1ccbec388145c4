"""The group page's statistics, live: its standings, records, bests, head-to-head and
scores over time (games.standings), the poll that swaps them in again, and the event
stream that says when to.

The group page merges ``standings_context`` into its own context and includes
``groups/partials/standings.html``; every figure and URL is computed here, so the
template holds only ``{{ }}`` and ``if``s. A record's link opens the game's review with
the evening's edit token from the group's edit page, and with its view token from the
group's view link: the view page never holds an edit token.

The page holds one event stream (``group_events``, games/views/live.py) on the group and
each of its evenings: on any change it asks ``group_poll`` with what it shows (``sig``),
which answers 204 while the group's games are as they were, else the partial. Without a
stream (a WSGI server) the poll runs every 2 s, as the leaderboard's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.template.defaultfilters import floatformat
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from games import charts, labels, live, models, rarity, standings
from games.views import HtmxHttpRequest, fragments
from games.views.access import Access, percent, with_access
from games.views.board import lost_per_turn

#: What the group page includes.
STANDINGS_PARTIAL = "groups/partials/standings.html"
#: What the poll swaps in: the partial less its event stream, which no swap closes.
STANDINGS_BODY = "groups/partials/standings_body.html"


@dataclass(frozen=True)
class GameLink:
    """A game as a record or a best names it: the evening's date, its number, its review."""

    date: str
    number: int
    url: str

    @property
    def text(self) -> str:
        return _("%(date)s · game %(number)s") % {"date": self.date, "number": self.number}


@dataclass(frozen=True)
class Row:
    """A member's line in a rule set's standings."""

    rank: int
    name: str
    games: int
    wins: int
    #: Percent, rounded.
    win_rate: int | None
    average: str
    best: int | None
    best_game: GameLink | None
    #: Average points lost per analysed turn ("1.3"), or "—".
    lost: str
    #: The line under the name on a narrow screen (the columns it leaves out).
    details: str

    @property
    def leads(self) -> bool:
        return self.rank == 1 and bool(self.wins)


@dataclass(frozen=True)
class RecordRow:
    kind: str
    title: str
    value: str
    name: str
    game: GameLink
    #: A final score's place among a perfect solo player's (the highest game, the lowest
    #: winning score), else None.
    place: rarity.Place | None = None


@dataclass(frozen=True)
class Legend:
    name: str
    style: charts.Style


@dataclass(frozen=True)
class Average:
    """A member's average score and its place among a perfect solo player's."""

    name: str
    score: int
    place: rarity.Place
    style: charts.Style


@dataclass(frozen=True)
class RulesetView:
    key: str
    name: str
    games_text: str
    rows: list[Row]
    #: Whether any line has points lost to the coach (else the column is left out).
    coached: bool
    lost_notes: list[str]
    records: list[RecordRow]
    chart: charts.Chart
    legend: list[Legend]
    #: Each member's average over a perfect solo player's final scores (games.rarity), or
    #: None and why there is no figure (``no_figure``).
    perfect_chart: charts.Chart | None
    averages: list[Average]
    no_figure: str


@dataclass(frozen=True)
class Best:
    ruleset: str
    total: int
    game: GameLink
    #: The score's place among a perfect solo player's (games.rarity).
    place: rarity.Place


@dataclass(frozen=True)
class MemberBests:
    name: str
    bests: list[Best]


@dataclass(frozen=True)
class Pair:
    """Two members face to face: "Anna 5 – 3 Marc", and the games they tied."""

    first: str
    first_above: int
    second: str
    second_above: int
    games: int
    games_text: str
    level_text: str


@dataclass(frozen=True)
class StandingsView:
    """Everything the partial shows (context key ``standings``)."""

    rulesets: list[RulesetView]
    bests: list[MemberBests]
    pairs: list[Pair]
    games: int
    poll_url: str
    events_url: str
    live_stream: bool
    big: bool
    signature: str


def open_group(access: Access) -> models.Group:
    group = models.Group.objects.by_token(access.token, read_only=access.read_only).first()
    if group is None:
        raise Http404("No such group.")
    return group


def _date(played: standings.Played) -> str:
    return formats.date_format(timezone.localtime(played.date), "j F Y")


def _link(played: standings.Played, access: Access) -> GameLink:
    # The evening's own token, never the group's: the review is the evening's page. From
    # the view link, the evening's view token only.
    if access.read_only:
        url = reverse("watch_review", args=[played.evening_view_token, played.number])
    else:
        url = reverse("review", args=[played.evening_token, played.number])
    return GameLink(_date(played), played.number, url)


def _record_row(record: standings.Record, ruleset: str, access: Access) -> RecordRow:
    value = str(record.value)
    if record.kind == standings.HIGHEST:
        title = _("Highest game")
    elif record.kind == standings.LOWEST_WIN:
        title = _("Lowest winning score")
    elif record.kind == standings.FIVE_ALIKE:
        title = _("Most %(five_alike)s in one game") % {
            "five_alike": labels.five_of_a_kind_plural([ruleset])
        }
    elif record.kind == standings.UPPER_MARGIN:
        title = _("Upper bonus by the widest margin")
        value = _("%(margin)s above %(threshold)s") % {
            "margin": record.value,
            "threshold": record.game.threshold,
        }
    elif record.kind == standings.STREAK:
        title = _("Longest winning streak")
        value = ngettext("%(n)s win in a row", "%(n)s wins in a row", record.value) % {
            "n": record.value
        }
    else:
        title = _("Biggest comeback")
        value = ngettext(
            "won from %(n)s point behind", "won from %(n)s points behind", record.value
        ) % {"n": record.value}
    scored = record.kind in (standings.HIGHEST, standings.LOWEST_WIN)
    place = _place(record.game, record.value) if scored else None
    return RecordRow(record.kind, title, value, record.name, _link(record.game, access), place)


def _place(played: standings.Played, score: int) -> rarity.Place:
    """``score``'s place under the game's own rules (its house rules included)."""
    return rarity.lookup(played.ruleset, played.options).place(score)


def _against_perfect(
    part: standings.RulesetStandings, games: Sequence[standings.Played], name: str
) -> tuple[charts.Chart | None, list[Average], str]:
    """Each member's average over the final scores of a perfect solo player, under the
    rules most of the rule set's games were played with (its house rules): the chart, each
    average's place in words, or why there is none."""
    played = [game for game in games if game.ruleset == part.ruleset]
    if not played:
        return None, [], ""
    options = Counter(_frozen(game.options) for game in played).most_common(1)[0][0]
    found = rarity.lookup(part.ruleset, dict(options))
    if found.distribution is None:
        return None, [], found.reason
    averages = [
        Average(line.name, round(line.average), found.place(round(line.average)), charts.style(i))
        for i, line in enumerate(part.lines)
        if line.average is not None
    ]
    chart = charts.distribution_chart(
        found.distribution,
        [item.score for item in averages],
        title=_("Against a perfect solo player · %(rules)s") % {"rules": name},
        description=_(
            "The final scores of a player who always plays the coach's best move, alone, as "
            "bars; each member's average as a line."
        ),
        x_label=_("Final score"),
        y_label=_("Share of games (%)"),
    )
    return chart, averages, ""


def _frozen(options: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(options.items()))


def _row(line: standings.Standing, access: Access) -> Row:
    average = floatformat(line.average, 1) if line.games else "–"
    lost, _why = lost_per_turn(line.coach)
    parts = [
        ngettext("%(n)s game", "%(n)s games", line.games) % {"n": line.games},
        _("avg %(average)s") % {"average": average},
        _("best %(best)s") % {"best": line.best},
    ]
    if line.coach.per_turn is not None:
        parts.append(_("lost %(points)s/turn") % {"points": lost})
    return Row(
        rank=line.rank,
        name=line.name,
        games=line.games,
        wins=line.wins,
        win_rate=percent(line.win_rate),
        average=average,
        best=line.best,
        best_game=_link(line.best_game, access) if line.best_game else None,
        lost=lost,
        details=" · ".join(parts),
    )


def _chart(part: standings.RulesetStandings, name: str) -> tuple[charts.Chart, list[Legend]]:
    """One line a member, their totals in the order they played (the standings' order)."""
    series = [
        charts.Series(line.name, part.series[line.member])
        for line in part.lines
        if line.member in part.series
    ]
    chart = charts.line_chart(
        series,
        x_max=max((len(item.values) for item in series), default=1),
        title=_("Scores over time · %(rules)s") % {"rules": name},
        description=_("One line per member: the total of each of their games, in order."),
        x_label=_("Their games, in order"),
        y_label=_("Points"),
    )
    legend = [Legend(item.name, charts.style(index)) for index, item in enumerate(series)]
    return chart, legend


def _ruleset_view(
    part: standings.RulesetStandings, played: Sequence[standings.Played], access: Access
) -> RulesetView:
    name = labels.ruleset_short(part.ruleset)
    rows = [_row(line, access) for line in part.lines]
    chart, legend = _chart(part, name)
    perfect, averages, no_figure = _against_perfect(part, played, name)
    return RulesetView(
        key=part.ruleset,
        name=name,
        games_text=ngettext("%(n)s game", "%(n)s games", part.games) % {"n": part.games},
        rows=rows,
        coached=any(line.coach.per_turn is not None for line in part.lines),
        lost_notes=sorted(
            {line.coach.why_none() for line in part.lines if line.coach.per_turn is None}
        ),
        records=[_record_row(record, part.ruleset, access) for record in part.records],
        chart=chart,
        legend=legend,
        perfect_chart=perfect,
        averages=averages,
        no_figure=no_figure,
    )


def _pairs(faced: Sequence[standings.HeadToHead]) -> list[Pair]:
    return [
        Pair(
            pair.first_name,
            pair.first_above,
            pair.second_name,
            pair.second_above,
            pair.games,
            ngettext("%(n)s game", "%(n)s games", pair.games) % {"n": pair.games},
            ngettext("%(n)s tie", "%(n)s ties", pair.level) % {"n": pair.level}
            if pair.level
            else "",
        )
        for pair in faced
    ]


def standings_context(
    request: HttpRequest, group: models.Group, access: Access, signature: str | None = None
) -> dict[str, Any]:
    """What ``groups/partials/standings.html`` shows, under the key ``standings``
    (``signature``: the group's, when the caller read it already)."""
    # The signature before the games: a game written in between shows at the next poll.
    if signature is None:
        signature = standings.signature({"pk": group.pk}) or "0"
    big = request.GET.get("big") == "1"
    streaming = live.held(request)
    # Kept per signature (games/views/fragments.py): every screen of the group shows the
    # same until a game of it ends or is corrected, or its roster changes, which moves it.
    key = ":".join(
        [
            "standings",
            str(group.pk),
            signature,
            "view" if access.read_only else "edit",
            str(int(big)),
            str(int(streaming)),
            get_language() or "",
        ]
    )

    def rendered(template: str) -> str:
        view = _standings_view(group, access, signature, big=big, streaming=streaming)
        return render_to_string(template, {"standings": view})

    # Each rendered once per key, for every screen of the group, when first asked: the page
    # includes the partial (``standings_html()``), the poll swaps its body in.
    return {
        "standings_html": lambda: fragments.kept_html(key, lambda: rendered(STANDINGS_PARTIAL)),
        "standings_body": lambda: fragments.kept_html(
            f"{key}:body", lambda: rendered(STANDINGS_BODY)
        ),
        "standings_big": big,
        "standings_live": streaming,
    }


def _standings_view(
    group: models.Group, access: Access, signature: str, *, big: bool, streaming: bool
) -> StandingsView:
    played, members = standings.load(group)
    computed = standings.compute(played, members)
    poll_url = access.url("group_poll") + f"?sig={signature}" + ("&big=1" if big else "")
    bests = [
        MemberBests(
            computed.members[member],
            [
                Best(
                    labels.ruleset_short(key),
                    line.best,
                    _link(line.best_game, access),
                    _place(line.best_game, line.best),
                )
                for key, line in lines
                if line.best is not None and line.best_game is not None
            ],
        )
        for member, lines in computed.bests.items()
    ]
    return StandingsView(
        rulesets=[_ruleset_view(part, played, access) for part in computed.rulesets],
        bests=bests,
        pairs=_pairs(computed.head_to_head),
        games=computed.games,
        poll_url=poll_url,
        events_url=access.url("group_events"),
        live_stream=streaming,
        big=big,
        signature=signature,
    )


@require_safe
@never_cache
@with_access
def group_poll(request: HtmxHttpRequest, access: Access) -> HttpResponse:
    field = "view_token" if access.read_only else "token"
    signature = standings.signature({field: access.token})
    if signature is None:
        open_group(access)  # a wrong token is a 404; a group with nothing has nothing new
        return HttpResponse(status=204)
    if request.GET.get("sig") == signature:
        return HttpResponse(status=204)
    group = open_group(access)
    context = standings_context(request, group, access, signature)
    return HttpResponse(context["standings_body"]())
