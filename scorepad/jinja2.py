"""The Jinja2 environment of the site's pages (Django's own Jinja2 backend loads it).

Jinja2 renders the score sheet several times faster than Django's template language,
and the sheet is on every tap. Django's admin keeps its own templates (the second
backend in settings.TEMPLATES).
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

import segno
from django.conf import settings
from django.template.defaultfilters import floatformat
from django.templatetags.static import static
from django.urls import reverse
from django.utils import formats, timezone, translation
from django_htmx.jinja import django_htmx_script, htmx_script
from jinja2 import Environment
from markupsafe import Markup

from games.rules import RULESETS


def date(value: datetime, format_name: str = "DATE_FORMAT") -> str:
    """Django's ``date`` filter: a format of the active locale, in the site's time zone."""
    return formats.date_format(timezone.localtime(value), format_name)


@functools.lru_cache(maxsize=512)
def qr_code(url: str, label: str, error: str = "m") -> Markup:
    """``url`` as segno's inline SVG QR code, titled ``label`` (segno escapes the title; the
    rest is path data and presentation attributes, which the CSP allows). The template
    around it gives it its role and name. ``error``: the level of error correction ("l"
    holds the most, for a long link shown on a screen).

    Kept once drawn (the same link, label and level draw the same code): a page showing a
    group's or an evening's two links drew them on every visit, 9 ms each."""
    svg = segno.make(url, error=error).svg_inline(
        scale=1, border=2, dark="#000", light="#fff", omitsize=True, svgclass="qr", title=label
    )
    return Markup(svg)  # noqa: S704 - segno's own markup, unchanged


def environment(**options: Any) -> Environment:
    env = Environment(extensions=["jinja2.ext.i18n"], **options)
    # Django's catalogue: makemessages reads the templates' {{ _("…") }}. Old-style calls
    # (the text returned as is, then |format(name=…)), the only form Django's templatize
    # extracts; autoescape escapes the result, values and translation alike.
    env.install_gettext_callables(  # type: ignore[attr-defined]
        translation.gettext, translation.ngettext, newstyle=False
    )
    env.globals.update(
        url=lambda name, *args: reverse(name, args=args),
        static=static,
        htmx_script=htmx_script,
        django_htmx_script=django_htmx_script,
        get_language=translation.get_language,
        get_language_info=translation.get_language_info,
        LANGUAGES=settings.LANGUAGES,
        qr_code=qr_code,
        # The registry's rule sets, for the rules form's one style line each (base.html).
        ruleset_keys=lambda: tuple(RULESETS),
    )
    env.filters.update(date=date, floatformat=floatformat)
    return env
