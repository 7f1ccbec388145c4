"""The rules pages: one per rule set, worded from the rules engine's own data."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from games import labels, rulebook
from games.rules import RULESETS


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    books = [rulebook.build(ruleset) for ruleset in RULESETS.values()]
    return render(request, "rules/index.html", {"books": books})


@require_safe
def ruleset_rules(request: HttpRequest, ruleset: str) -> HttpResponse:
    if ruleset not in RULESETS:
        raise Http404("No such rule set.")
    # A game's link names its options (the Game menu's Rules): the page is that game's.
    chosen = rulebook.options_from(RULESETS[ruleset], request.GET)
    context = {
        "book": rulebook.build(RULESETS[ruleset], chosen),
        "chosen": chosen,
        "others": [(key, labels.ruleset_short(key)) for key in RULESETS if key != ruleset],
        "modes": dict(labels.mode_labels()),
    }
    return render(request, "rules/ruleset.html", context)
