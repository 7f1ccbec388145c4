"""The game page's hot parts, built in Python: ``{% game_head %}`` (the game partial up to
its panel), ``{% panel_status %}``, ``{% dice_entry %}`` and ``{% poller %}``
(games/game_html.py), and
``{% sheet_table %}`` (games/sheet_html.py)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from games import game_html, sheet_html

register = template.Library()


@register.simple_tag(takes_context=True)
def game_head(context: Any) -> SafeString:
    return game_html.game_head(context)


@register.simple_tag(takes_context=True)
def panel_status(context: Any) -> SafeString:
    return game_html.panel_status(context)


@register.simple_tag(takes_context=True)
def dice_entry(context: Any) -> SafeString:
    return game_html.dice_entry(context)


@register.simple_tag(takes_context=True)
def poller(context: Any) -> SafeString:
    return game_html.poller(context)


@register.simple_tag(takes_context=True)
def sheet_table(context: Any) -> SafeString:
    return sheet_html.table(context["sheet"], sheet_html.links_for(context))
