"""The game partial, built in Python: the top bar, the player strip, the sheet, the
totals bar and, in value and dice mode, the panel (the line about the last action, the
hint or dice mode's dice, the live-update poller); the panel's other states (a
spectator's, the reset question, the game over, the value picker, virtual dice) come
from the template's ``panel_other`` partial.

Every tap answers with the whole game partial (``#game``), so these parts are rendered
on every score, die and undo. Through the template language they cost about as much as
the write itself (the top bar alone, some eighty nodes with four ``{% csrf_token %}``,
0.6 ms; the strip and totals bar an ``{% if %}`` tree per player; dice mode's six faces
a ``{% blocktranslate %}`` each); here each is a few f-strings of escaped values, with
the URLs reversed once (``games.links.GameUrls``), the CSRF field rendered once and the
fixed words translated once per language. An htmx answer in the usual states does not
go through the template engine at all (``htmx_answer``; tests/test_game_partial.py
holds it to the template's answer). The markup is what templates/games/game.html wrote
(compared page by page, en and fr, in every entry mode and state; the panel's blank
lines aside): tests and the browser tests rely on its classes and data- attributes.
Change it here.

Like ``{% translate %}``, translated labels are escaped; like ``{% blocktranslate %}``,
a sentence's translation is trusted and only the values put into it are escaped.
"""

from __future__ import annotations

from functools import cache
from html import escape
from typing import Any

from django.conf import settings
from django.contrib.messages import get_messages
from django.http import HttpRequest
from django.template.context_processors import csrf
from django.template.loader import get_template
from django.urls import get_script_prefix
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, get_language_info, gettext

from games import sheet_html
from games.links import language_url
from games.rules.dice import FACES
from games.sheet import PlayerView, Sheet


def sheet_url(context: Any) -> str:
    """The sheet's own address: the spectator's on a read-only page."""
    urls = context["urls"]
    return urls["watch_sheet"] if context.get("read_only") else urls["sheet"]


def game_head(context: Any) -> SafeString:
    """The game partial up to its panel: the top bar, the player strip, the sheet and the
    totals bar (templates/games/game.html closes it around the panel)."""
    sheet: Sheet = context["sheet"]
    words = _words(get_language())
    players, score_sheet, score_entry = words["players"], words["sheet"], words["entry"]
    return mark_safe(  # noqa: S308 - every value is escaped or a number
        f'\n<div id="game" class="game view-{escape(sheet.view)}"'
        f' data-version="{context["game"].version}" hx-swap="outerHTML">\n'
        f"  {topbar(context)}\n\n"
        f'  <nav class="strip" aria-label="{players}">{strip(context)}</nav>\n\n'
        f'  <div class="sheet-wrap" tabindex="0" role="region" aria-label="{score_sheet}">\n'
        f"    {sheet_html.table(sheet, sheet_html.links_for(context))}\n  </div>\n\n"
        f'  <div class="totals-bar" aria-live="polite">{totals_bar(context)}</div>\n\n'
        f'  <section id="panel" class="panel" aria-label="{score_entry}">\n    '
    )


def game_partial(context: Any) -> SafeString:
    """The whole game partial (``#game``): what every tap, die and poll answers with."""
    return mark_safe(  # noqa: S308 - both parts are built escaped
        f"{game_head(context)}{panel(context)}\n  </section>\n</div>\n"
    )


def htmx_answer(request: HttpRequest, context: dict[str, Any]) -> SafeString | None:
    """The game partial for an htmx request, built without the template engine, or None
    when the panel is one of the template's (``_usual_panel``).

    ``context``: the view's; what the partial reads of the template context processors
    (the CSRF token, the language, the messages) is added here as they would add it.
    A tap's answer skips the engine's context, its ``{% if %}`` tree and
    ``{% blocktranslate %}``: about a tenth of a score's work."""
    full = {
        **context,
        "csrf_token": csrf(request)["csrf_token"],
        "LANGUAGE_CODE": get_language(),
        "messages": get_messages(request),
    }
    if not _usual_panel(full):
        return None
    return game_partial(full)


def panel(context: Any) -> SafeString:
    """The panel under the sheet: in value and dice mode, the last action's line, the hint
    or the dice, and the poller; the other states from the template (``panel_other``,
    rendered in the page's own context: ``htmx_answer`` leaves those states to the
    template engine)."""
    if not _usual_panel(context):
        partial = get_template("games/game.html#panel_other").template
        return mark_safe(partial.render(context))  # noqa: S308 - the template's own escaping
    if context["game"].entry_mode == "dice":
        body = dice_entry(context)
    else:
        body = value_hint(context)
    return mark_safe(  # noqa: S308 - every part is built escaped
        f"{panel_messages(context)}{panel_status(context)}\n  {body}\n  {poller(context)}\n"
    )


def _usual_panel(context: Any) -> bool:
    """Whether the panel is a player's in value or dice mode, with no question open and
    the game not over: the states of nearly every tap, built here."""
    return not (
        context.get("read_only")
        or context.get("confirm_reset")
        or context.get("picker")
        or context["sheet"].finished
        or context["game"].entry_mode not in ("value", "dice")
    )


def panel_messages(context: Any) -> SafeString:
    """Messages left by the last request (a page loaded after a form without htmx)."""
    messages = context.get("messages")
    if not messages:
        return mark_safe("")
    items = "".join(
        f'<li class="{conditional_escape(message.tags)}">{conditional_escape(str(message))}</li>'
        for message in messages
    )
    html = f'<div role="status"><ul class="messages">{items}</ul></div>\n'
    return mark_safe(html)  # noqa: S308 - every message and tag is escaped


def value_hint(context: Any) -> str:
    """Value mode's hint: whose turn it is."""
    name = escape(str(context["sheet"].current_name))
    # Like {% blocktranslate %}: the sentence's translation is trusted, its values escaped.
    hint = gettext("%(name)s: tap a box to score.") % {"name": name}
    return f'<p class="hint">{hint}</p>'


def panel_status(context: Any) -> SafeString:
    """What the last action did, with Undo when a turn can be undone, or why an action was
    refused: the panel's first lines on nearly every tap."""
    out = []
    notice = context.get("notice")
    if notice:
        undo = ""
        if context.get("can_undo"):
            url, label = escape(context["urls"]["undo"]), _words(get_language())["undo"]
            undo = (
                f'\n        <form method="post" action="{url}" hx-post="{url}" hx-target="#game">'
                f"\n          {sheet_html.csrf_input(context)}"
                f'<input type="hidden" name="version" value="{context["game"].version}">'
                f'\n          <button type="submit" class="link">{label}</button>\n        </form>'
            )
        out.append(
            '<div class="notice" role="status">\n'
            f"      <span>{conditional_escape(notice)}</span>{undo}\n    </div>\n  "
        )
    error = context.get("error")
    if error:
        out.append(f'<p class="error" role="alert">{conditional_escape(error)}</p>')
    return mark_safe("".join(out))  # noqa: S308 - every value is escaped or a number


def poller(context: Any) -> SafeString:
    """Live updates: the game partial again once the game's version moves (204 until then).

    Never while the value picker or the reset question is open, so that another phone's
    score cannot close them, nor once the next game of the evening exists."""
    if context.get("picker") or context.get("confirm_reset") or context.get("next_game"):
        return mark_safe("")
    urls = context["urls"]
    url = escape(urls["watch_poll"] if context.get("read_only") else urls["poll"])
    return mark_safe(  # noqa: S308 - every value is escaped or a number
        f'<div class="poller" hx-get="{url}?v={context["game"].version}" hx-trigger="every 2s"'
        ' hx-target="#game" hx-swap="outerHTML" aria-hidden="true"></div>'
    )


def dice_entry(context: Any) -> SafeString:
    """Dice mode's panel: the dice entered so far (a tap takes one back) and the six faces
    to add from; rendered on each of a turn's five die taps and on its score."""
    sheet: Sheet = context["sheet"]
    game, url = context["game"], escape(context["urls"]["die"])
    dice = [escape(str(face)) for face in (context.get("pending") or {}).get("dice") or []]
    name = {"name": escape(str(sheet.current_name))}
    # Like {% blocktranslate %}: the sentence's translation is trusted, its values escaped.
    if len(dice) == 5:
        hint = gettext("%(name)s: tap a box to score these dice.") % name
    else:
        hint = gettext("%(name)s: tap the five dice you rolled.") % name
    remove, add = gettext("Remove die %(face)s"), gettext("Add a %(face)s")
    fields = (
        f'{sheet_html.csrf_input(context)}<input type="hidden" name="version"'
        f' value="{game.version}">'
    )
    entered = "".join(
        f'<button type="submit" name="slot" value="{slot}" class="die face-{face}"'
        f' aria-label="{remove % {"face": face}}">{face}</button>'
        for slot, face in enumerate(dice)
    )
    empty = '<span class="die empty" aria-hidden="true"></span>' * len(context["empty_slots"])
    disabled = " disabled" if len(dice) == 5 else ""
    faces = "".join(
        f'<button type="submit" name="face" value="{face}" class="die face-{face}"{disabled}'
        f' aria-label="{add % {"face": face}}">{face}</button>'
        for face in FACES
    )
    form = f'method="post" action="{url}" hx-post="{url}" hx-target="#game"'
    return mark_safe(  # noqa: S308 - every value is escaped or a number
        f'<div class="dice-entry">\n      <p class="hint">{hint}</p>\n'
        f'      <form class="slots" {form}>\n        {fields}\n        {entered}\n'
        f"        {empty}\n      </form>\n"
        f'      <form class="faces" {form}>\n        {fields}\n        {faces}\n'
        "      </form>\n    </div>\n"
    )


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
    csrf = sheet_html.csrf_input(context)
    version = f'<input type="hidden" name="version" value="{game.version}">'
    mode_buttons = "".join(
        f'<button type="submit" name="mode" value="{escape(value)}" aria-pressed='
        f'"{"true" if game.entry_mode == value else "false"}">{escape(str(label))}</button>'
        for value, label in context["modes"]
    )
    entry_mode, undo = escape(urls["entry_mode"]), escape(urls["undo"])
    words = _words(get_language())
    modes_label, menu_label = words["modes"], words["menu"]
    undo_label, restart_label = words["undo"], words["restart"]
    reset_label, players_label = words["reset"], words["players"]
    board_label, share_label = words["board"], words["share"]
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
    other_view = "focus" if sheet.view == "table" else "table"
    other_label = words[other_view]
    out.append(
        f'        <a class="button" href="{reset}" hx-get="{reset}" hx-target="#panel"'
        f' hx-swap="innerHTML" data-action="reset">{reset_label}</a>\n'
        f'        <a class="button" href="{players}">{players_label}</a>\n'
        # The footer's language form is hidden while playing: the other languages live here.
        f'        <form method="post" action="{escape(language_url(get_script_prefix()))}"'
        ' class="language-switch">\n'
        f'          {csrf}<input type="hidden" name="next" value="{here}">\n'
        f"          {_other_languages(context.get('LANGUAGE_CODE'))}\n        </form>\n"
        f'        <a class="button" href="{escape(urls["board"])}">'
        f"🏆 {board_label}</a>\n"
        f'        <a class="button" href="{escape(urls["evening_games"])}">'
        f"{share_label}</a>\n"
        f'          <a class="button" href="{here}?view={other_view}"'
        f' hx-get="{here}?view={other_view}" hx-target="#game">{other_label}</a>\n'
        "      </div>\n    </details>\n"
    )
    return "".join(out)


@cache
def _words(language: str | None) -> dict[str, str]:
    """The game partial's fixed words, escaped, in ``language`` (the active one when
    called): read once per language rather than a dozen catalogue lookups on every tap."""
    # Each read with gettext() outside the f-strings: makemessages (xgettext) does not see
    # a call inside an f-string, and the catalogue would lose the message.
    words = {
        "players": gettext("Players"),
        "sheet": gettext("Score sheet"),
        "entry": gettext("Score entry"),
        "modes": gettext("Entry mode"),
        "menu": gettext("Game"),
        "undo": gettext("Undo"),
        "restart": gettext("Restart turn"),
        "reset": gettext("Reset to round 1…"),
        "board": gettext("Leaderboard"),
        "share": gettext("Share · past games"),
        # The menu's switch to the other view: "focus" shows one player at a time.
        "focus": gettext("One player at a time"),
        "table": gettext("Everyone side by side"),
    }
    return {key: escape(word) for key, word in words.items()}


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
        out.append(
            f'\n      <span class="grand{" current" if p.current else ""}">'
            f'<span class="name">{escape(p.name)}</span>'
            f' <strong class="total" data-player="{p.index}">{p.total}</strong>'
            f"{yahtzee_bonus_note(p)}</span>\n    "
        )
    return mark_safe("".join(out))  # noqa: S308 - every value is escaped or a number


def yahtzee_bonus_note(player: PlayerView) -> str:
    """After a grand total: the Yahtzee bonus it includes, which no row of the sheet
    shows (the sheet's Total stops short of it); empty without one."""
    if not player.yahtzee_bonus:
        return ""
    text = gettext("incl. Yahtzee bonus %(n)s") % {"n": player.yahtzee_bonus}
    return f' <small class="ybonus">{text}</small>'
