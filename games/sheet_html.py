"""The score sheet's table, built in Python: the hot loop of every sheet render.

A sheet shows up to 8 players × 4 columns × 15 boxes, plus four rows of totals per
column. Through the template language each cell cost an ``{% if %}`` tree, two
``{% url %}`` lookups and a ``{% csrf_token %}``, each row an ``{% include %}``; here the
URLs are reversed and the token read once per sheet, and each cell is one f-string of
escaped values. The markup is byte for byte what the templates games/sheet_table.html
and games/row.html (both gone) wrote; tests and the browser tests rely on its classes
and data- attributes. The game partial (games/game_html.py) and the review's page
(games/review_html.py) call it. Change the sheet's markup here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any

from django.template.defaulttags import CsrfTokenNode
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext

from games.links import game_url
from games.sheet import ColumnView, RowView, Sheet


@dataclass(frozen=True)
class CellLinks:
    """What a cell's markup needs besides the cell, worked out once per sheet rendered."""

    read_only: bool
    entry_mode: str
    pick_url: str
    score_url: str
    version: int
    player: str
    csrf_input: str
    crossed_label: str


def links_for(context: Any) -> CellLinks:
    """What the cells of the sheet in ``context`` link to (reversed once per render)."""
    sheet = context.get("sheet")
    # Spectator pages and the review page show cells, never controls.
    read_only = bool(context.get("read_only")) or bool(context.get("review"))
    game = context.get("game")
    pick_url = score_url = ""
    if not read_only and game is not None:
        # A read-only page never links to a write URL (and has no edit token to build one).
        token = context["evening"].token
        pick_url = game_url("pick", token, game.number)
        score_url = game_url("score", token, game.number)
    return CellLinks(
        read_only=read_only,
        entry_mode=getattr(game, "entry_mode", ""),
        pick_url=escape(pick_url),
        score_url=escape(score_url),
        version=getattr(game, "version", 0),
        player=str(getattr(sheet, "current", None)),
        csrf_input=csrf_input(context) if not read_only else "",
        crossed_label=_words(get_language())["crossed"],
    )


def csrf_input(context: Any) -> str:
    """The CSRF token's hidden field, as ``{% csrf_token %}`` writes it: rendered once per
    answer (kept in the context), though the top bar, the panel and dice mode's cells
    each hold it."""
    field = context.get("csrf_input")
    if field is None:
        field = context["csrf_input"] = CsrfTokenNode().render(context)
    return field


def table(sheet: Sheet, links: CellLinks) -> SafeString:
    """The whole ``<table class="sheet">``."""
    words = _words(get_language())
    if sheet.current_name:
        to_play = words["to_play"] % {"name": escape(sheet.current_name)}
        head = f'<span class="turn-label">{to_play}</span>'
    else:
        head = f'<span class="visually-hidden">{words["box"]}</span>'
    columns = sheet.columns
    upper, bonus, to_go = words["upper"], words["bonus"], words["to_go"]
    out = [
        '<table class="sheet">\n  <thead>\n    <tr>\n',
        f'      <th scope="col" class="rowhead">{head}</th>\n      ',
        *(_column_head(sheet, col) for col in columns),
        "\n    </tr>\n  </thead>\n  <tbody>\n    ",
        *(_row(row, links) for row in sheet.upper_rows),
        '\n    <tr class="subtotal">\n',
        f'      <th scope="row">{upper}</th>\n      ',
        *(f"<td{_current(col)}>{col.upper}{_progress(col)}</td>" for col in columns),
        '\n    </tr>\n    <tr class="bonus">\n',
        f'      <th scope="row">{bonus} <small>(63)</small></th>\n      ',
        *(_bonus(col, to_go) for col in columns),
        "\n    </tr>\n    ",
        *(_row(row, links) for row in sheet.middle_rows),
        "\n    ",
    ]
    if sheet.has_middle:
        void, max_min = f'<span class="void">{words["void"]}</span>', words["max_min"]
        out += [
            '\n      <tr class="void-row">\n',
            f'        <th scope="row">{max_min}</th>\n        ',
            *(f"<td{_current(col)}>{void if col.max_min_void else ''}</td>" for col in columns),
            "\n      </tr>\n    ",
        ]
    total = words["column"] if sheet.multi_column else words["total"]
    out += [
        "\n    ",
        *(_row(row, links) for row in sheet.lower_rows),
        '\n    <tr class="coltotal">\n',
        f'      <th scope="row">{total}</th>\n      ',
        *(f"<td{_current(col)}>{col.total}</td>" for col in columns),
        "\n    </tr>\n  </tbody>\n</table>",
    ]
    # Like the template's {% translate %} constants, translations are trusted markup.
    return mark_safe("".join(out))  # noqa: S308 - every value is escaped or a number


@cache
def _words(language: str | None) -> dict[str, str]:
    """The sheet's fixed words in ``language`` (the active one when called), read once per
    language rather than on every render (an 8 × 4 sheet asked the catalogue 40 times).
    Like the template's {% translate %} constants, translations are trusted markup."""
    # Each read with gettext() outside the f-strings: makemessages (xgettext) does not see
    # a call inside an f-string, and the catalogue would lose the message.
    return {
        "to_play": gettext("%(name)s to play"),
        "box": gettext("Box"),
        "upper": gettext("Upper"),
        "bonus": gettext("Bonus"),
        "void": gettext("void"),
        "max_min": gettext("Max > Min"),
        "column": gettext("Column"),
        "total": gettext("Total"),
        "to_go": gettext("%(n)s to go"),
        "crossed": gettext("crossed out"),
    }


def _current(col: ColumnView) -> str:
    return ' class="current"' if col.current else ' class=""'


def _column_head(sheet: Sheet, col: ColumnView) -> str:
    name = f'<span class="pname">{escape(col.name)}</span>' if sheet.view == "table" else ""
    symbol = ""
    if sheet.multi_column:
        label, sign = escape(str(col.column_label)), escape(col.symbol)
        symbol = f'<span class="colsym" title="{label}">{sign}</span>'
    current = " current" if col.current else ""
    return f'<th scope="col" class="colhead{current}">{name}{symbol}</th>'


def _progress(col: ColumnView) -> str:
    """Ahead (+4) or behind (−6) three of each face, until the bonus is earned."""
    progress = col.upper_progress
    if col.bonus or not progress:
        return ""
    side = "ahead" if progress >= 0 else "behind"
    shown = f"+{progress}" if progress > 0 else f"−{-progress}"
    return f' <small class="progress {side}">{shown}</small>'


def _bonus(col: ColumnView, to_go: str) -> str:
    """The bonus row's cell: the bonus earned, or what the upper boxes still lack
    (``to_go``: the translated "%(n)s to go")."""
    if col.bonus:
        return f'<td class="{"current" if col.current else ""} earned">+{col.bonus}</td>'
    return f"<td{_current(col)}><small>{to_go % {'n': col.upper_to_go}}</small></td>"


def _row(row: RowView, links: CellLinks) -> str:
    return (
        f'<tr class="row-{escape(row.section)}">\n'
        f'  <th scope="row">{_escaped_key(str(row.label))}</th>\n'
        f"  {cells(row, links)}\n</tr>\n"
    )


@cache
def _escaped_key(key: str) -> str:
    """An engine key (column, row, cell state) or a row's label in a language, escaped
    once each: a few hundred in all."""
    return escape(key)


def cells(row: RowView, links: CellLinks) -> SafeString:
    """The ``<td>`` of every cell of ``row``."""
    label = _escaped_key(str(row.label))
    out = []
    for cell in row.cells:
        column, key = _escaped_key(cell.column), _escaped_key(cell.row)
        out.append(
            f'<td class="cell {_escaped_key(cell.state)}" data-player="{cell.player}"'
            f' data-column="{column}" data-row="{key}">'
        )
        if cell.value is not None:
            if cell.state == "crossed":
                out.append(f'<s aria-label="{links.crossed_label}">0</s>')
            else:
                out.append(str(cell.value))
        elif cell.playable and not links.read_only:
            if links.entry_mode == "value":
                url = f"{links.pick_url}?column={column}&amp;row={key}"
                out.append(
                    f'<a class="tap" href="{url}" hx-get="{url}" hx-target="#panel"'
                    f' hx-swap="innerHTML" aria-label="{label}">'
                    '<span aria-hidden="true">+</span></a>'
                )
            elif cell.preview is not None:
                out.append(
                    f'<form method="post" action="{links.score_url}" hx-post="{links.score_url}"'
                    f' hx-target="#game">{links.csrf_input}'
                    f'<input type="hidden" name="version" value="{links.version}">'
                    f'<input type="hidden" name="player" value="{links.player}">'
                    f'<input type="hidden" name="column" value="{column}">'
                    f'<input type="hidden" name="row" value="{key}">'
                    f'<button type="submit" name="choice" value="dice" class="tap preview"'
                    f' aria-label="{label}: {cell.preview}">{cell.preview}</button></form>'
                )
            else:
                out.append('<span class="tap idle"></span>')
        out.append("</td>")
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped or a number
