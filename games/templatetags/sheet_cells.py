"""``{% sheet_table %}``: the sheet in the context, built in Python (games/sheet_html.py)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from games import sheet_html

register = template.Library()


@register.simple_tag(takes_context=True)
def sheet_table(context: Any) -> SafeString:
    return sheet_html.table(context["sheet"], sheet_html.links_for(context))
