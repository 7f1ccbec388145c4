"""The review's page body (``page``) and its fragments that repeat once a player, built
in Python.

The player strip, the totals under the sheet and the chart's legend were three template
loops over the players: for eight players, a third of the page's rendering (0.4 ms);
here each player is one f-string of escaped values. Around them the page's stepper,
links and headings were some fifteen ``{% translate %}`` and four ``{% blocktranslate %}``;
their words are read once per language. The markup is what
templates/evenings/review.html wrote (compared on 504 pages: edit and spectator links,
first, middle, last and out-of-range turns, table and focus views, en and fr; tests read
the totals' ``data-player``). Change it here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from html import escape
from typing import Any

from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext

from games import charts, sheet_html
from games.game_html import yahtzee_bonus_note
from games.sheet import PlayerView, Sheet


def player_strip(players: Iterable[PlayerView], step_url: str) -> SafeString:
    """A link to the step's sheet showing each player (the focus view's strip).

    ``step_url`` is the review's URL for the step shown, its query ready for ``&view=``.
    """
    base = escape(f"{step_url}&view=focus&p=")
    return mark_safe(  # noqa: S308 - every value is escaped
        "".join(
            f'<a class="player{" shown" if p.shown else ""}" href="{base}{p.index}">'
            f"{escape(p.name)}</a>"
            for p in players
        )
    )


def grand_totals(players: Iterable[PlayerView]) -> SafeString:
    """Each player's total at the step shown (and the Yahtzee bonus it includes, which
    the sheet's Total row leaves out), a trophy for the winners."""
    return mark_safe(  # noqa: S308 - every value is escaped
        "".join(
            f'<span class="grand{" winner" if p.winner else ""}"><span class="name">'
            f'{escape(p.name)}</span> <strong class="total" data-player="{p.index}">'
            f"{p.total}</strong>{yahtzee_bonus_note(p)}{' 🏆' if p.winner else ''}</span>"
            for p in players
        )
    )


def legend(names: Sequence[str], totals: Sequence[int]) -> SafeString:
    """The chart's legend: each line's sample, its player and their final total."""
    return mark_safe(  # noqa: S308 - every value is escaped, the swatch holds no text
        "".join(
            f"<li>{charts.swatch(index)} {escape(name)} <strong>{total}</strong></li>"
            for index, (name, total) in enumerate(zip(names, totals, strict=True))
        )
    )


def page(context: Any) -> SafeString:
    """The review's page body: the stepper, the step's sheet, its totals, the chart and
    the links, around the fragments above (``{% review_page %}`` in its template)."""
    words = _words(get_language())
    sheet: Sheet = context["sheet"]
    hx = 'hx-target="#replay" hx-select="#replay" hx-swap="outerHTML" hx-push-url="true"'
    first, back = context.get("step_first"), context.get("step_back")
    nxt, last = context.get("step_next"), context.get("step_last")
    steps = [
        f'<a class="button" href="{escape(first)}" hx-get="{escape(first)}" {hx}'
        f' aria-label="{words["before_first"]}">«</a>'
        if first
        else '<span class="button disabled" aria-hidden="true">«</span>',
        f'<a class="button" href="{escape(back)}" hx-get="{escape(back)}" {hx} rel="prev">'
        f"‹ {words['back']}</a>"
        if back
        else f'<span class="button disabled" aria-hidden="true">‹ {words["back"]}</span>',
        '<span class="turn-count">'
        + gettext("Turn %(turn)s / %(turns)s")
        % {"turn": context["turn"], "turns": context["turns"]}
        + "</span>",
        f'<a class="button" href="{escape(nxt)}" hx-get="{escape(nxt)}" {hx} rel="next">'
        f"{words['next']} ›</a>"
        if nxt
        else f'<span class="button disabled" aria-hidden="true">{words["next"]} ›</span>',
        f'<a class="button" href="{escape(last)}" hx-get="{escape(last)}" {hx}'
        f' aria-label="{words["the_last"]}">»</a>'
        if last
        else '<span class="button disabled" aria-hidden="true">»</span>',
    ]
    described = context.get("described")
    described = conditional_escape(described) if described else words["empty_sheet"]
    strip = ""
    if sheet.view == "focus":
        strip = (
            f'\n      <nav class="strip" aria-label="{words["players"]}">\n'
            f"        {context['player_strip']}\n      </nav>\n    "
        )
    progress = "" if context.get("final") else f" · {words['in_progress']}"
    game = gettext("Game %(number)s") % {"number": context["game"].number}
    table = sheet_html.table(sheet, sheet_html.links_for(context))
    return mark_safe(  # noqa: S308 - every value is escaped or built escaped
        f'\n  <p class="crumbs"><a href="{escape(context["games_url"])}">'
        f"{conditional_escape(str(context['evening']))}</a> › "
        f'<a href="{escape(context["board_url"])}">{words["leaderboard"]}</a></p>\n'
        f"  <h1>{game} <small>· {escape(str(sheet.ruleset_label))}{progress}</small></h1>\n\n"
        '  <div id="replay" class="replay">\n'
        f'    <nav class="stepper" aria-label="{words["turn_by_turn"]}">\n'
        f"      {steps[0]}\n      {steps[1]}\n      {steps[2]}\n      {steps[3]}\n"
        f"      {steps[4]}\n    </nav>\n"
        f'    <p class="described" aria-live="polite">{described}</p>\n\n'
        f"    {strip}\n"
        f'    <div class="sheet-wrap" tabindex="0" role="region" aria-label="{words["sheet"]}">\n'
        f"      {table}\n    </div>\n"
        f'    <p class="review-totals">{context["grand_totals"]}</p>\n\n'
        '    <section class="chart-box" aria-labelledby="chart-title">\n'
        f'      <h2 id="chart-title">{words["running_totals"]}</h2>\n'
        f"      {context['chart']}\n"
        '      <ul class="legend">\n'
        f"        {context['legend']}\n"
        "      </ul>\n    </section>\n  </div>\n\n"
        '  <p class="actions">\n'
        f'    <a class="button" href="{escape(context["export_url"])}" download>⬇ '
        f"{words['download']}</a>\n"
        f'    <a class="button" href="{escape(context["sheet_url"])}">{words["open_sheet"]}</a>\n'
        "  </p>\n"
    )


@cache
def _words(language: str | None) -> dict[str, str]:
    """The review's fixed words in ``language`` (the active one when called), read once
    per language. Like ``{% translate "…" %}``'s, translations are trusted markup."""
    # Each read with gettext() outside the f-strings: makemessages (xgettext) does not see
    # a call inside an f-string, and the catalogue would lose the message.
    return {
        "leaderboard": gettext("Leaderboard"),
        "in_progress": gettext("in progress"),
        "turn_by_turn": gettext("Turn by turn"),
        "before_first": gettext("Before the first turn"),
        "back": gettext("Back"),
        "next": gettext("Next"),
        "the_last": gettext("The last turn"),
        "empty_sheet": gettext("Before the first turn: an empty sheet."),
        "players": gettext("Players"),
        "sheet": gettext("Score sheet"),
        "running_totals": gettext("Running totals"),
        "download": gettext("Download the game file"),
        "open_sheet": gettext("Open the sheet"),
    }
