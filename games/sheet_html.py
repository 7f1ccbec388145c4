"""The markup of the sheet's cells, built in Python: the hot loop of every sheet render.

A sheet shows up to 8 players × 4 columns × 15 boxes. Through the template language
each cell cost an ``{% if %}`` tree, two ``{% url %}`` lookups and a ``{% csrf_token %}``;
here the URLs are reversed and the token read once per sheet, and each cell is one
f-string of escaped values. The markup is exactly what games/row.html used to write
(tests and the browser tests rely on its classes and data- attributes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.template.defaulttags import CsrfTokenNode
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from games.sheet import RowView


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


_LINKS_KEY = "_cell_links"


def links_for(context: Any) -> CellLinks:
    """The links of the sheet in ``context``, kept on the sheet for the rest of the render."""
    sheet = context.get("sheet")
    cached = getattr(sheet, "__dict__", {}).get(_LINKS_KEY)
    if cached is not None:
        return cached
    # Spectator pages and the review page show cells, never controls.
    read_only = bool(context.get("read_only")) or bool(context.get("review"))
    game = context.get("game")
    pick_url = score_url = ""
    if not read_only and game is not None:
        # A read-only page never links to a write URL (and has no edit token to build one).
        token = context["evening"].token
        pick_url = reverse("pick", args=[token, game.number])
        score_url = reverse("score", args=[token, game.number])
    current = getattr(sheet, "current", None)
    links = CellLinks(
        read_only=read_only,
        entry_mode=getattr(game, "entry_mode", ""),
        pick_url=escape(pick_url),
        score_url=escape(score_url),
        version=getattr(game, "version", 0),
        player=str(current),
        csrf_input=CsrfTokenNode().render(context) if not read_only else "",
        crossed_label=escape(gettext("crossed out")),
    )
    if hasattr(sheet, "__dict__"):
        sheet.__dict__[_LINKS_KEY] = links
    return links


def cells(row: RowView, links: CellLinks) -> SafeString:
    """The ``<td>`` of every cell of ``row``, as games/row.html wrote them."""
    label = escape(row.label)
    out = []
    for cell in row.cells:
        column, key = escape(cell.column), escape(cell.row)
        out.append(
            f'<td class="cell {escape(cell.state)}" data-player="{cell.player}"'
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
