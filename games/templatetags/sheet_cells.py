"""``{% sheet_cells row %}``: a sheet row's cells, built in Python (games/sheet_html.py)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from games import sheet_html
from games.sheet import RowView

register = template.Library()


@register.simple_tag(takes_context=True)
def sheet_cells(context: Any, row: RowView) -> SafeString:
    return sheet_html.cells(row, sheet_html.links_for(context))
