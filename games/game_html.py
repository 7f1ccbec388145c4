"""The game page's top bar, player strip and totals bar, built in Python.

Every tap answers with the whole game partial (``#game``), so these parts are rendered
on every score, die and undo. Through the template language they cost about as much as
the write itself (the top bar alone, some eighty nodes with four ``{% csrf_token %}``,
0.6 ms; the strip and totals bar an ``{% if %}`` tree per player); here each is a few
f-strings of escaped values, with the URLs reversed once (``games.links.GameUrls``) and
the CSRF field rendered once. The markup is what templates/games/game.html wrote: tests
and the browser tests rely on its classes and data- attributes. Change it here.

Like ``{% translate %}``, translated labels are escaped; like ``{% blocktranslate %}``,
a sentence's translation is trusted and only the values put into it are escaped.
"""

from __future__ import annotations

from functools import cache
from html import escape
from typing import Any

from django.conf import settings
from django.template.defaulttags import CsrfTokenNode
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, get_language_info, gettext

from games.sheet import Sheet


def sheet_url(context: Any) -> str:
    """The sheet's own address: the spectator's on a read-only page."""
    urls = context["urls"]
    return urls["watch_sheet"] if context.get("read_only") else urls["sheet"]


def topbar(context: Any) -> SafeString:
    """The evening's name, the game and round, and (to players) the entry modes and menu."""
    sheet: Sheet = context["sheet"]
    evening, game, urls = context["evening"], context["game"], context["urls"]
    read_only = bool(context.get("read_only"))
    home = urls["watch_evening_games"] if read_only else urls["evening"]
    name = escape(evening.name) if evening.name else escape(gettext("Tonight"))
    number = gettext("Game %(number)s") % {"number": game.number}
    if sheet.finished:
        stage = escape(gettext("over"))
    else:
        stage = gettext("Round %(round)s / %(rounds)s") % {
            "round": sheet.round,
            "rounds": sheet.rounds,
        }
    out = [
        '<div class="topbar">\n    <div class="title">\n'
        f'      <h1 class="evening-title"><a class="evening-name" href="{escape(home)}">'
        f"{name}</a></h1>\n"
        f'      <span class="meta">{escape(sheet.ruleset_label)} · {number} · '
        f'<span class="round">{stage}</span></span>\n    </div>\n    '
    ]
    if read_only:
        board = escape(gettext("Leaderboard"))
        out.append(f'<a class="button" href="{escape(urls["watch_board"])}">🏆 {board}</a>\n')
    else:
        out.append(_controls(context))
    out.append("  </div>")
    return mark_safe("".join(out))  # noqa: S308 - every value is escaped or a number


def _controls(context: Any) -> str:
    """The entry-mode switch and the game menu (never on a spectator's page)."""
    sheet: Sheet = context["sheet"]
    game, urls = context["game"], context["urls"]
    csrf = CsrfTokenNode().render(context)
    version = f'<input type="hidden" name="version" value="{game.version}">'
    mode_buttons = "".join(
        f'<button type="submit" name="mode" value="{escape(value)}" aria-pressed='
        f'"{"true" if game.entry_mode == value else "false"}">{escape(str(label))}</button>'
        for value, label in context["modes"]
    )
    entry_mode, undo = escape(urls["entry_mode"]), escape(urls["undo"])
    (
        modes_label,
        menu_label,
        undo_label,
        restart_label,
        reset_label,
        players_label,
        board_label,
        share_label,
    ) = _menu_labels(get_language())
    out = [
        f'<form class="modes" method="post" action="{entry_mode}" hx-post="{entry_mode}"'
        f' hx-target="#game" aria-label="{modes_label}">\n'
        f"      {csrf}{version}\n      {mode_buttons}\n    </form>\n"
        '    <details class="menu">\n'
        f"      <summary>{menu_label}</summary>\n"
        '      <div class="menu-items">\n'
        f'        <form method="post" action="{undo}" hx-post="{undo}" hx-target="#game">\n'
        f"          {csrf}{version}\n"
        f'          <button type="submit"{"" if context.get("can_undo") else " disabled"}>'
        f"↶ {undo_label}</button>\n        </form>\n"
    ]
    if game.entry_mode != "value":
        restart = escape(urls["restart_turn"])
        dice = (context.get("pending") or {}).get("dice")
        out.append(
            f'          <form method="post" action="{restart}" hx-post="{restart}"'
            f' hx-target="#game">\n            {csrf}{version}<button type="submit"'
            f"{'' if dice else ' disabled'}>{restart_label}</button>\n"
            "          </form>\n"
        )
    reset, players = escape(urls["reset"]), escape(urls["players"])
    here = escape(sheet_url(context))
    other_view, other_label = (
        ("focus", gettext("One player at a time"))
        if sheet.view == "table"
        else ("table", gettext("Everyone side by side"))
    )
    out.append(
        f'        <a class="button" href="{reset}" hx-get="{reset}" hx-target="#panel"'
        f' hx-swap="innerHTML" data-action="reset">{reset_label}</a>\n'
        f'        <a class="button" href="{players}">{players_label}</a>\n'
        # The footer's language form is hidden while playing: the other languages live here.
        f'        <form method="post" action="{escape(reverse("set_language"))}"'
        ' class="language-switch">\n'
        f'          {csrf}<input type="hidden" name="next" value="{here}">\n'
        f"          {_other_languages(context.get('LANGUAGE_CODE'))}\n        </form>\n"
        f'        <a class="button" href="{escape(urls["board"])}">'
        f"🏆 {board_label}</a>\n"
        f'        <a class="button" href="{escape(urls["evening_games"])}">'
        f"{share_label}</a>\n"
        f'          <a class="button" href="{here}?view={other_view}"'
        f' hx-get="{here}?view={other_view}" hx-target="#game">{escape(other_label)}</a>\n'
        "      </div>\n    </details>\n"
    )
    return "".join(out)


@cache
def _menu_labels(language: str | None) -> tuple[str, ...]:
    """The menu's labels, escaped, in ``language`` (the active one when called): read
    once per language rather than a dozen catalogue lookups on every tap."""
    # Each label read with gettext() outside the f-strings: makemessages (xgettext) does
    # not see a call inside an f-string, and the catalogue would lose the message.
    labels = (
        gettext("Entry mode"),
        gettext("Game"),
        gettext("Undo"),
        gettext("Restart turn"),
        gettext("Reset to round 1…"),
        gettext("Players"),
        gettext("Leaderboard"),
        gettext("Share · past games"),
    )
    return tuple(escape(label) for label in labels)


@cache
def _other_languages(current: str | None) -> str:
    buttons = []
    for code, _name in settings.LANGUAGES:
        if code != current:
            local = get_language_info(code)["name_local"]
            buttons.append(
                f'<button type="submit" name="language" value="{escape(code)}"'
                f' lang="{escape(code)}">{escape(local[:1].upper() + local[1:])}</button>'
            )
    return "".join(buttons)


def strip(context: Any) -> SafeString:
    """Every player's name and grand total; a tap shows that player's columns."""
    sheet: Sheet = context["sheet"]
    here = escape(sheet_url(context))
    focus = sheet.view == "focus"
    out = []
    for p in sheet.players:
        classes = "player"
        if p.current:
            classes += " current"
        if p.shown and focus:
            classes += " shown"
        link = f"{here}?p={p.index}"
        current = ' aria-current="true"' if p.current else ""
        out.append(
            f'\n      <a class="{classes}" href="{link}" hx-get="{link}"'
            f' hx-target="#game"{current}>\n'
            f'        <span class="name">{escape(p.name)}</span>'
            f' <span class="total" data-player="{p.index}">{p.total}</span>\n      </a>\n    '
        )
    return mark_safe("".join(out))  # noqa: S308 - every value is escaped or a number


def totals_bar(context: Any) -> SafeString:
    """The grand totals of the players shown, the Yahtzee bonus they include."""
    sheet: Sheet = context["sheet"]
    out = []
    for p in sheet.players:
        if not p.shown:
            continue
        bonus = ""
        if p.yahtzee_bonus:
            text = gettext("incl. Yahtzee bonus %(n)s") % {"n": p.yahtzee_bonus}
            bonus = f' <small class="ybonus">{text}</small>'
        out.append(
            f'\n      <span class="grand{" current" if p.current else ""}">'
            f'<span class="name">{escape(p.name)}</span>'
            f' <strong class="total" data-player="{p.index}">{p.total}</strong>{bonus}</span>\n    '
        )
    return mark_safe("".join(out))  # noqa: S308 - every value is escaped or a number
