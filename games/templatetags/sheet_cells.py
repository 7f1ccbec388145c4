"""The pages' parts built in Python: ``{% game_partial %}`` (the whole game partial),
``{% game_panel %}`` (its panel), and for the panel's template states
``{% panel_messages %}``, ``{% panel_status %}`` and ``{% poller %}`` (games/game_html.py);
``{% board %}``, the leaderboard (games/board_html.py); ``{% review_page %}``, a review's
page (games/review_html.py)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from games import board_html, game_html, review_html

register = template.Library()


@register.simple_tag(takes_context=True)
def game_partial(context: Any) -> SafeString:
    return game_html.game_partial(context)


@register.simple_tag(takes_context=True)
def game_panel(context: Any) -> SafeString:
    return game_html.panel(context)


@register.simple_tag(takes_context=True)
def panel_messages(context: Any) -> SafeString:
    return game_html.panel_messages(context)


@register.simple_tag(takes_context=True)
def panel_status(context: Any) -> SafeString:
    return game_html.panel_status(context)


@register.simple_tag(takes_context=True)
def poller(context: Any) -> SafeString:
    return game_html.poller(context)


@register.simple_tag(takes_context=True)
def board(context: Any) -> SafeString:
    return board_html.board(context)


@register.simple_tag(takes_context=True)
def review_page(context: Any) -> SafeString:
    return review_html.page(context)
