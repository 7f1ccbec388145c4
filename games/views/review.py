"""Reviewing a game turn by turn, and its export as a ``scorepad.game.v1`` file."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import formats, timezone
from django.utils.http import content_disposition_header
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from games import bgstats, charts, coaching, hint, labels, models, rarity, selectors, tally
from games.params import MOST, integer
from games.rules import Game as RulesGame
from games.sheet import build, describe_turn
from games.views import HtmxHttpRequest
from games.views.access import Access, find_game, shown, with_access
from games.views.fragments import kept
from games.views.params import focus as asked_focus


@require_safe
@with_access
def review(request: HtmxHttpRequest, access: Access, number: int) -> HttpResponse:
    game = find_game(access, number)
    if game.result is None:
        shows = _shows(request, access, game)
    else:
        # A finished game's review is the same for every visitor: worked out once per
        # version (a correction moves it) and what else it shows (``_key``), then kept.
        shows = kept(_key(request, access, game), lambda: _shows(request, access, game))
    page = {
        **shows,
        "evening": shown(game.evening, access),
        "game": game,
        # A review never writes: its sheet has no links (the footer keeps the language
        # switch on the edit link, as spectator pages hold no form at all).
        "read_only": access.read_only,
    }
    return render(request, "evenings/review.html", page)


def _turn(request: HttpRequest, count: int) -> int:
    """The step asked for (``?turn=``): after the last turn unless said."""
    turn = integer(request.GET.get("turn"), least=-MOST)
    return count if turn is None else min(max(turn, 0), count)


def _key(request: HttpRequest, access: Access, game: models.Game) -> str:
    """What a finished game's review shows beside the game at its version: the step, the
    view and player asked for, the language, the spectator's links or the players', whether
    the coach's table is on disk (once built, the review analyses the game), whether the
    final scores' distribution is (once built, it places each score) and the night
    ("Tonight")."""
    loaded = selectors.load(game)
    view = request.GET.get("view")
    focus = asked_focus(request)
    return ":".join(
        (
            "review",
            str(game.pk),
            str(game.version),
            str(_turn(request, loaded.turns)),
            view if view in ("table", "focus") else "-",
            str(focus) if focus is not None and focus < len(loaded.seats) else "-",
            get_language(),
            "watch" if access.read_only else "edit",
            "coach" if hint.available(game.ruleset, game.options) else "-",
            "rarity" if rarity.available(game.ruleset, game.options) else "-",
            labels.tonight().isoformat(),
        )
    )


def _shows(request: HtmxHttpRequest, access: Access, game: models.Game) -> dict[str, Any]:
    """What the review of ``game`` shows at the step asked for (evenings/partials/review.html),
    beside the game, its evening and the link it was opened by."""
    number = game.number
    seats, entries = coaching.read(game)
    count = len(entries)
    turn = _turn(request, count)
    focus = asked_focus(request)
    then: dict[str, Any] = {}

    def step_reached(state: RulesGame) -> None:
        # The sheet as it stood after ``turn`` turns, read off the engine on its way.
        then["sheet"] = build(state, None, request.GET.get("view"), focus)
        then["last"] = state.played[-1] if state.played else None

    # One replay: the final game, each player's running totals, and the step's sheet.
    loaded, running = tally.replay_with_totals(game, seats, entries, turn, step_reached)
    sheet, last = then["sheet"], then["last"]
    if last is not None:
        for column in sheet.columns:
            if column.player == last.move.player and column.column == last.column:
                column.cells[last.row].state += " just-played"
    state = loaded.state
    analysis = coaching.analysed(game, seats, entries)
    base = access.url("review", number)
    view = request.GET.get("view")
    keep_view = f"&view={view}" if view in ("table", "focus") else ""

    def step(k: int) -> str:
        return f"{base}?turn={k}{keep_view}"

    return {
        "review": True,
        "sheet": sheet,
        "turn": turn,
        "turns": count,
        "step_first": step(0) if turn > 0 else None,
        "step_back": step(turn - 1) if turn > 0 else None,
        "step_next": step(turn + 1) if turn < count else None,
        "step_last": step(count) if turn < count else None,
        "described": (describe_turn(state, last) if last else None),
        "chart": _running_totals_chart(state.players, running, turn),
        "coach": _coach(analysis, state, turn, step),
        "legend": [
            {"name": name, "total": total, "style": charts.style(index)}
            for index, (name, total) in enumerate(zip(state.players, state.totals(), strict=True))
        ],
        "final": state.finished,
        "rarity": _rarity(game, state) if state.finished else None,
        "corrections": _corrections(game, state),
        # The focus view's strip links to the step shown, with another player.
        "step_url": f"{base}?turn={turn}",
        "sheet_url": access.url("sheet", number),
        "export_url": access.url("export", number),
        "games_url": access.url("evening_games"),
        "board_url": access.url("board"),
        "bgstats": _bgstats(game, state.players, entries),
    }


def _rarity(game: models.Game, state: RulesGame) -> dict[str, Any]:
    """Each player's final score placed among a perfect solo player's (games.rarity), or
    the one line saying why there is no figure."""
    found = rarity.lookup(game.ruleset, game.options)
    return {
        "reason": found.reason,
        "players": [
            {"name": name, "place": found.place(total)}
            for name, total in zip(state.players, state.totals(), strict=True)
        ],
    }


def _bgstats(
    game: models.Game, names: Sequence[str], entries: Sequence[Any]
) -> bgstats.Push | None:
    """A finished game's link to log it in BG Stats (None before its end), timed by the
    entries the review read anyway."""
    if game.result is None or not entries:
        return None
    times = [entry.created_at for entry in entries]
    play = bgstats.play(game, names, game.evening.view_token, min(times), max(times))
    return bgstats.link(play)


def _corrections(game: Any, state: RulesGame) -> list[dict[str, Any]]:
    """The boxes corrected after the game ended, oldest first: old → new, and when."""
    return [
        {
            "text": _("%(whose)s %(cell)s: %(old)s → %(new)s")
            % {
                "whose": labels.whose(fix.player.name),
                "cell": labels.cell_label(state, fix.column, fix.row),
                "old": labels.written(fix.old_value, fix.old_crossed),
                "new": labels.written(fix.new_value, fix.new_crossed),
            },
            "at": fix.created_at,
            # On the site's clock, as the evenings list shows its times.
            "when": formats.date_format(
                timezone.localtime(fix.created_at), "SHORT_DATETIME_FORMAT"
            ),
        }
        for fix in game.corrections.select_related("player")
    ]


# --- the coach's words ------------------------------------------------------------------------


def _points(value: float) -> str:
    return formats.number_format(round(value, 1), 1)


def _signed(value: float) -> str:
    """+3.2 / −3.2 (a true minus sign), 0.0 unsigned."""
    shown = round(value, 1)
    if shown == 0:
        return _points(0.0)
    return ("+" if shown > 0 else "−") + _points(abs(shown))


def _dice(dice: Sequence[int]) -> str:
    return " ".join(map(str, dice))


def _cell_words(state: RulesGame, cell: tuple[str, str]) -> str:
    return labels.cell_label(state, *cell)


def _best_words(decision: coaching.Decision, state: RulesGame) -> str:
    """The best option in the players' words: "keep 6 6 6", "stop", "Sixes"."""
    if decision.kind == coaching.BOX:
        # A box decision names its box.
        assert decision.best_cell is not None
        box = _cell_words(state, decision.best_cell)
        crossed = decision.best_crossed or _scores_nothing(state, decision.best_cell, decision.hand)
        return _("cross out %(box)s") % {"box": box} if crossed else box
    kept = decision.best_kept or ()
    if len(kept) == 5:
        return _("stop rolling")
    if not kept:
        return _("roll all five again")
    return _("keep %(dice)s") % {"dice": _dice(kept)}


def _scores_nothing(state: RulesGame, cell: tuple[str, str] | None, hand: Sequence[int]) -> bool:
    """The dice make nothing in this box: writing them there is crossing it out. (All
    alike may score there as a Joker: the box's name stays.)"""
    if cell is None or not hand or len(set(hand)) == 1 or cell[1] not in state.ruleset.scorers:
        return False
    return state.ruleset.score(cell[1], tuple(hand)) == 0


def _taken_words(decision: coaching.Decision, state: RulesGame) -> str:
    if decision.kind == coaching.BOX:
        assert decision.cell is not None
        box = _cell_words(state, decision.cell)
        if decision.crossed:
            return _("crossed out %(box)s") % {"box": box}
        return _("%(points)s in %(box)s") % {"points": decision.points, "box": box}
    if decision.kind == coaching.STOP:
        return _("stopped rolling")
    if not decision.kept:
        return _("rolled all five again")
    if len(decision.kept) == 5:
        return _("kept all five")
    return _("kept %(dice)s") % {"dice": _dice(decision.kept)}


def _cost_words(lost: float) -> str:
    if lost == 0.0:
        return _("best choice")
    n = labels.decimal_count(round(lost, 1))
    return ngettext("cost %(points)s point", "cost %(points)s points", n) % {
        "points": _points(lost)
    }


def _luck_words(luck: float) -> str:
    n = labels.decimal_count(round(luck, 1))
    return ngettext(
        "Luck of the dice this turn: %(luck)s point against what optimal play expected.",
        "Luck of the dice this turn: %(luck)s points against what optimal play expected.",
        n,
    ) % {"luck": _signed(luck)}


def _decision_label(decision: coaching.Decision, after_stop: bool) -> str:
    if decision.kind == coaching.BOX and decision.roll == 0:
        return _("Final dice")
    if after_stop:
        return _("The box")
    return _("Roll %(n)s") % {"n": decision.roll}


def _turn_view(turn: coaching.TurnAnalysis, state: RulesGame, step: Any) -> dict[str, Any]:
    decisions = []
    for index, d in enumerate(turn.decisions):
        # The box after a stop is chosen on the dice the stop kept: no roll between.
        after_stop = index > 0 and turn.decisions[index - 1].kind == coaching.STOP
        decisions.append(
            {
                "label": _decision_label(d, after_stop),
                "dice": () if after_stop else d.hand,
                "taken": _taken_words(d, state),
                "best": _best_words(d, state),
                "is_best": d.best,
                "cost": _cost_words(d.loss),
            }
        )
    best = [_best_words(d, state) for d in turn.decisions]
    best_text = best[0] if best else ""
    for words in best[1:]:
        best_text = _("%(first)s, then %(next)s") % {"first": best_text, "next": words}
    return {
        "number": turn.number,
        "url": step(turn.number),
        "name": state.players[turn.player],
        "kind": turn.kind,
        "analysed": turn.analysed,
        "costly": turn.costly,
        "lost": _points(turn.lost),
        "cost": _cost_words(turn.lost) if turn.analysed else "",
        "is_best": turn.analysed and turn.lost == 0.0,
        "best": best_text,
        "luck": _luck_words(turn.luck),
        "cell": _cell_words(state, turn.cell),
        "decisions": decisions,
    }


def _coach(analysis: coaching.Analysis, state: RulesGame, turn: int, step: Any) -> dict[str, Any]:
    """What the review says of the choices: the step shown, each turn, each player."""
    turns = [_turn_view(t, state, step) for t in analysis.turns]
    players = [
        {
            "name": name,
            "analysed": summary.analysed,
            "turns": summary.turns,
            "analysed_text": _("%(analysed)s / %(turns)s")
            % {"analysed": summary.analysed, "turns": summary.turns},
            "lost": _points(summary.lost) if summary.analysed else "—",
            "luck": _signed(summary.luck) if summary.analysed else "—",
        }
        for name, summary in zip(state.players, analysis.players, strict=True)
    ]
    analysed = sum(1 for t in analysis.turns if t.analysed)
    value_turns = sum(1 for t in analysis.turns if t.kind == coaching.VALUE)
    return {
        "available": analysis.available,
        # Not built here: said to the players in a line; the command is the log's.
        "missing": analysis.missing is not None,
        "unsupported": analysis.unsupported,
        "estimate": analysis.estimate,
        "threshold": _points(coaching.COSTLY),
        "shown": turns[turn - 1] if turn else None,
        "turns": turns,
        "costly": [t for t in turns if t["costly"]],
        "players": players,
        "analysed": analysed,
        "value_turns": value_turns,
        "value_text": ngettext(
            "%(n)s turn had no dice recorded (its value was typed): it is not analysed.",
            "%(n)s turns had no dice recorded (their values were typed): they are not analysed.",
            value_turns,
        )
        % {"n": value_turns},
    }


def _running_totals_chart(
    names: Sequence[str], running: list[list[int]], turn: int
) -> charts.Chart:
    """One line a player through the game, the round of the step shown marked."""
    return charts.line_chart(
        [charts.Series(name, values) for name, values in zip(names, running, strict=True)],
        x_max=max((len(values) for values in running), default=1),
        title=_("Running totals, round by round"),
        description=_("One line per player: the total after each of their turns."),
        x_label=_("Round"),
        y_label=_("Points"),
        marker=(turn - 1) // len(names) + 1 if turn else None,
    )


@require_safe
@with_access
def export(request: HttpRequest, access: Access, number: int) -> HttpResponse:
    game = find_game(access, number)
    response = HttpResponse(
        selectors.export_document(game), content_type="application/json; charset=utf-8"
    )
    filename = f"scorepad-{game.evening.created_at:%Y-%m-%d}-game-{game.number}.json"
    response["Content-Disposition"] = content_disposition_header(True, filename)
    return response
