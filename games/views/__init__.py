"""The site's views, one module per family of pages.

- ``table``: the actions at the table (start an evening, score, undo, dice, players).
- ``evening``: an evening's page, its links to share and its games.
- ``sheet``: the sheet as either link opens it, and the polling every open sheet does.
- ``board``: the leaderboard. ``review``: a game turn by turn, and its export.
- ``stats``: this browser's evenings and its players' statistics.
- ``access``: which evening a URL's token opens, and what it allows (``with_access``:
  one view serves a page on both links).
- ``page``: the game page's view-model, what the sheet and its partials show;
  ``fragments``: the rendered fragments kept for every phone (the sheet's, the review's).
"""

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
