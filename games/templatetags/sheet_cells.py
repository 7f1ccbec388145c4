"""The game page's hot parts, built in Python: ``{% sheet_table %}`` (games/sheet_html.py),
``{% game_topbar %}``, ``{% player_strip %}`` and ``{% totals_bar %}`` (games/game_html.py)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from games import game_html, sheet_html

register = template.Library()


@register.simple_tag(takes_context=True)
def sheet_table(context: Any) -> SafeString:
    return sheet_html.table(context["sheet"], sheet_html.links_for(context))


@register.simple_tag(takes_context=True)
def game_topbar(context: Any) -> SafeString:
    return game_html.topbar(context)


@register.simple_tag(takes_context=True)
def player_strip(context: Any) -> SafeString:
    return game_html.strip(context)


@register.simple_tag(takes_context=True)
def totals_bar(context: Any) -> SafeString:
    return game_html.totals_bar(context)
